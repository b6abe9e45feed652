#!/usr/bin/env python3
"""The engine on puzzle positions, through the protocol as a manager would give them.

  python3 scripts/puzzles.py ENGINE PUZZLES.tsv [--ms 1000] [--match TEXT] [--limit N]

PUZZLES.tsv is the shared testdata's puzzle format (id, rule, board_size, side_to_move,
stones, expected, notes; e.g. ../shared/testdata/lfz084_renju_puzzles/puzzles.tsv). Every
row whose expected result says "wins" (and whose id or expected contains TEXT) is sent to
one engine process as START, INFO rule, INFO timeout_turn MS, BOARD (the side to move's
stones as 1, the other's as 2) and DONE. Prints one line per puzzle (id, the move, the
engine's last MESSAGE) and last how many answers came with an announced win (+M), which
the engine gives only for a proven line. Python 3 standard library only.
"""

import argparse
import re
import subprocess
import sys

RULES = {"freestyle": 0, "standard": 1, "renju": 4, "caro": 8}
MOVE = re.compile(r"\d+,\d+")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("engine")
    ap.add_argument("puzzles")
    ap.add_argument("--ms", type=int, default=1000, help="timeout_turn per puzzle (default 1000)")
    ap.add_argument("--match", default="", help="only rows whose id or expected result contains this")
    ap.add_argument("--limit", type=int, default=0, help="at most this many puzzles")
    a = ap.parse_args()

    engine = subprocess.Popen([a.engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(line: str) -> None:
        engine.stdin.write(line + "\n")
        engine.stdin.flush()

    def read_until(done) -> list:
        lines = []
        while True:
            line = engine.stdout.readline()
            if not line:
                sys.exit("the engine exited")
            lines.append(line.strip())
            if done(lines[-1]):
                return lines

    asked = announced = 0
    for row in open(a.puzzles, encoding="utf-8"):
        f = row.rstrip("\n").split("\t")
        if len(f) < 6 or f[0] == "id" or "wins" not in f[5] or f[1] not in RULES:
            continue
        if a.match and a.match not in f[0] and a.match not in f[5]:
            continue
        if a.limit and asked >= a.limit:
            break
        side = f[3][0]
        send(f"START {f[2]}")
        read_until(lambda l: l == "OK" or l.startswith("ERROR"))
        send(f"INFO rule {RULES[f[1]]}")
        send(f"INFO timeout_turn {a.ms}")
        send("INFO timeout_match 0")
        send("BOARD")
        for stone in f[4].split():
            colour, point = stone.split(":")
            send(f"{ord(point[0]) - 97},{int(point[1:]) - 1},{1 if colour == side else 2}")
        send("DONE")
        out = read_until(lambda l: MOVE.fullmatch(l) is not None or l.startswith("ERROR"))
        messages = [l for l in out if l.startswith("MESSAGE")]
        last = messages[-1] if messages else ""
        asked += 1
        announced += "+M" in last
        print(f"{f[0]} {out[-1]} {last}", flush=True)
    send("END")
    engine.wait(timeout=10)
    print(f"wins announced {announced}/{asked}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
