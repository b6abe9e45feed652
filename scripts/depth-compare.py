#!/usr/bin/env python3
"""Depth reached at a fixed time per move, for several Piskvork-protocol engines, on the
same positions in the same run.

Usage:
  scripts/depth-compare.py [--time MS] [--positions FILE] [--rule N] [--size N]
                           NAME=CMD[@CWD] [NAME=CMD[@CWD] ...]

Each position (one pos-string per line, e.g. h8i9j10, '#' lines are comments) is sent to
each engine as START/INFO/BOARD...DONE with `INFO timeout_turn MS`; the deepest iteration
the engine reported before its move is read from its MESSAGE lines (the formats of Sente,
Rapfi and PentaZen are understood), with the wall time of the reply. Example:

  scripts/depth-compare.py --time 1000 sente=target/release/pbrain-sente \\
      rapfi=./pbrain-rapfi@/path/to/rapfi pentazen=/path/to/pbrain-pentazen

Prints one row per position and a median row per engine. The engines run one at a time
(never two timed programs at once on a small machine).
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import time

# (pattern, how a depth group reads as a number)
DEPTH_PATTERNS = [
    (re.compile(r"MESSAGE depth (\d+)-(\d+) ev (\S+) n (\d+)"), int),  # Sente
    (re.compile(r"MESSAGE Depth (\d+)-(\d+) \| Eval (\S+)"), int),  # Rapfi (per iteration)
    # PentaZen 0.4 writes its depths as int8_t, so each is one raw byte ("dep \x10-\x1b")
    (re.compile(r"MESSAGE dep (\d+)-(\d+) ev (\S+) nd (\S+)"), int),
    (re.compile(r"MESSAGE dep ([\x00-\x7f])-([\x00-\x7f]) ev (\S+) nd (\S+)"), ord),
]
MOVE = re.compile(r"^\s*(\d+),(\d+)\s*$")


def parse_pos(s):
    out = []
    i = 0
    while i < len(s):
        col = ord(s[i]) - ord("a")
        i += 1
        j = i
        while j < len(s) and s[j].isdigit():
            j += 1
        out.append((col, int(s[i:j]) - 1))
        i = j
    return out


def run_one(cmd, cwd, size, rule, ms, stones):
    proc = subprocess.Popen(
        cmd,
        cwd=cwd,
        shell=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        errors="replace",
        bufsize=1,
    )
    to_move = len(stones) % 2  # 0: black to move
    lines = [f"START {size}", f"INFO rule {rule}", f"INFO timeout_turn {ms}", "INFO timeout_match 0"]
    proc.stdin.write("\n".join(lines) + "\n")
    proc.stdin.flush()
    # Wait for OK to START before the timed part.
    while True:
        line = proc.stdout.readline()
        if not line or line.strip().upper() == "OK":
            break
    board = ["BOARD"]
    for k, (x, y) in enumerate(stones):
        field = 1 if k % 2 == to_move else 2
        board.append(f"{x},{y},{field}")
    board.append("DONE")
    start = time.monotonic()
    proc.stdin.write("\n".join(board) + "\n")
    proc.stdin.flush()
    depth, seldepth, score = 0, 0, "?"
    move = None
    while True:
        line = proc.stdout.readline()
        if not line:
            break
        for pat, number in DEPTH_PATTERNS:
            m = pat.search(line)
            if not m:
                continue
            if number(m.group(1)) >= depth:
                depth, seldepth, score = number(m.group(1)), number(m.group(2)), m.group(3)
            break
        if MOVE.match(line):
            move = line.strip()
            break
    elapsed = (time.monotonic() - start) * 1000
    try:
        proc.stdin.write("END\n")
        proc.stdin.flush()
    except BrokenPipeError:
        pass
    try:
        proc.wait(timeout=3)
    except subprocess.TimeoutExpired:
        proc.kill()
    return depth, seldepth, score, move, elapsed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--time", type=int, default=1000)
    ap.add_argument("--positions", default=os.path.join(here, "..", "tests", "data", "midgame_15x15.txt"))
    ap.add_argument("--rule", type=int, default=0)
    ap.add_argument("--size", type=int, default=15)
    ap.add_argument("engines", nargs="+")
    a = ap.parse_args()
    engines = []
    for spec in a.engines:
        name, rest = spec.split("=", 1)
        cmd, _, cwd = rest.partition("@")
        engines.append((name, os.path.abspath(cmd) if os.path.exists(cmd) else cmd, cwd or None))
    positions = [
        l.split()[0] for l in open(a.positions) if l.strip() and not l.lstrip().startswith("#")
    ]
    depths = {n: [] for n, _, _ in engines}
    times = {n: [] for n, _, _ in engines}
    header = "position".ljust(34) + "".join(f"{n:>24}" for n, _, _ in engines)
    print(header)
    for pos in positions:
        row = pos[:32].ljust(34)
        for name, cmd, cwd in engines:
            d, sd, score, move, ms = run_one(cmd, cwd, a.size, a.rule, a.time, parse_pos(pos))
            depths[name].append(d)
            times[name].append(ms)
            row += f"{f'{d}-{sd} {score} {ms:.0f}ms':>24}"
        print(row, flush=True)
    print("median depth".ljust(34) + "".join(f"{statistics.median(depths[n]):>24}" for n, _, _ in engines))
    print("mean time ms".ljust(34) + "".join(f"{statistics.mean(times[n]):>24.0f}" for n, _, _ in engines))


if __name__ == "__main__":
    sys.exit(main())
