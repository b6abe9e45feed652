#!/usr/bin/env python3
"""Protocol fuzzing: random and mutated command lines against pbrain-sente.

    python3 scripts/fuzz-protocol.py [--lines N] [--seed S] [--engine PATH]

Sends N lines (valid commands, BOARD blocks, mutations of both, garbage and binary),
then ABOUT as a marker after every few lines, and checks that every reply line has one
of the protocol's forms (moves within the largest board), that the engine answers every
marker (never hangs), stays alive until END and then exits, and writes nothing to
stderr. Move legality is checked by the transcripts and sente-match, not here. Exits
non-zero on the first wrong reply.
"""
import argparse
import os
import random
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time

REPLY = re.compile(
    r"^(OK|SWAP|\d+,\d+|\d+,\d+ \d+,\d+|\d+,\d+ \d+,\d+ \d+,\d+|FORBID (\d{4})*\.|"
    r"(ERROR|UNKNOWN|MESSAGE) .*|name=\"Sente\".*)$"
)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--engine", default=os.path.join(root, "target/release/pbrain-sente"))
    a = ap.parse_args()
    rng = random.Random(a.seed)
    # In a directory of its own: the hash and database files the fuzzer names land there.
    work = tempfile.mkdtemp(prefix="sente-fuzz-")
    engine = os.path.abspath(a.engine)
    p = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=work)
    buf = b""
    size = [None]

    def lines_until_about(timeout=30.0):
        nonlocal buf
        out = []
        end = time.time() + timeout
        while True:
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                text = line.decode("utf-8", "replace")
                if text.startswith("name="):
                    return out
                out.append(text)
            r, _, _ = select.select([p.stdout], [], [], max(0.0, end - time.time()))
            if not r:
                raise SystemExit(f"fuzz: no ABOUT reply within {timeout} s (engine hung?)")
            data = os.read(p.stdout.fileno(), 65536)
            if not data:
                raise SystemExit("fuzz: the engine closed its output before END")
            buf += data

    def send(text):
        p.stdin.write(text)
        p.stdin.flush()

    def rand_num():
        return rng.choice([0, 1, 2, 7, 14, 15, 19, 20, 31, 32, 33, -1, 99, 2147483647, rng.randint(-5, 40)])

    def command():
        n = size[0] or 15
        xy = lambda: f"{rng.randrange(n)},{rng.randrange(n)}" if rng.random() < 0.9 else f"{rand_num()},{rand_num()}"
        choice = rng.random()
        if choice < 0.25:
            return [f"TURN {xy()}"]
        if choice < 0.3:
            return [f"START {rng.choice([5, 7, 15, 20, 32, rand_num()])}"]
        if choice < 0.4:
            block = ["BOARD" if rng.random() < 0.7 else "YXBOARD"]
            for _ in range(rng.randint(0, 12)):
                block.append(f"{xy()},{rng.choice([1, 2, 1, 2, 3, rand_num()])}")
            if rng.random() < 0.9:
                block.append("DONE")
            return block
        if choice < 0.5:
            key = rng.choice(["timeout_turn", "timeout_match", "time_left", "max_memory", "rule",
                              "thread_num", "max_depth", "max_node", "hash_size", "folder", "bogus"])
            value = rand_num() if key != "timeout_turn" else rng.choice([0, 1, 5, 20])
            return [f"INFO {key} {value}"]
        if choice < 0.6:
            return [rng.choice(["BEGIN", "RESTART", "YXSHOWFORBID", "YXHASHCLEAR", "YXBLOCKRESET",
                                f"TAKEBACK {xy()}", f"PLAY {xy()}", "YXNBEST 2", "STOP", "DONE"])]
        if choice < 0.65:
            return ["SWAP2BOARD"] + [xy() for _ in range(rng.choice([0, 3, 5, 2]))] + ["DONE"]
        if choice < 0.72:
            # Yixin-Board's analysis commands: searches, swap2 steps, files, the database.
            path = rng.choice(["t.hash", "t.db", "missing/x", ""])
            path_db = [f"{xy()}" for _ in range(rng.randint(0, 4))] + (["done"] if rng.random() < 0.9 else [])
            return rng.choice([
                ["YXSEARCHDEFEND"], [f"YXBALANCEONE {rand_num()}"], [f"YXBALANCETWO {rand_num()}"],
                [f"YXSWAP2STEP{rng.randint(0, 4)}"], [f"INFO pondering {rng.randint(0, 1)}"],
                [f"INFO usedatabase {rng.randint(0, 1)}"], ["YXSHOWHASHUSAGE"],
                ["YXHASHDUMP", path], [f"YXHASHLOAD {path}"], ["YXSETDATABASE", path],
                ["YXQUERYDATABASEALL"] + path_db, ["YXQUERYDATABASEONE"] + path_db,
                [f"YXEDITTVDDATABASE {rand_num()} {rand_num()} {rand_num()} {rand_num()}"] + path_db,
                ['YXEDITTEXTDATABASE "a b"'] + path_db, [f"YXEDITLABELDATABASE {xy()} t"] + path_db,
                [f"YXDELETEDATABASEALL {rng.choice(['', 'wl', 'nonwl', 'x'])}"] + path_db,
                ["YXDELETEDATABASEONE"] + path_db, ["YXSOOSORVSTEP1"],
                [f"YXSOOSORVSTEP{rng.randint(2, 6)} {rng.choice(['', rand_num(), rng.randint(1, 8)])}"] + path_db,
            ])
        if choice < 0.8:
            base = rng.choice(["TURN 7,7", "START 15", "BOARD", "INFO rule 4", "BEGIN", "TAKEBACK 1,1"])
            chars = list(base)
            for _ in range(rng.randint(1, 3)):
                i = rng.randrange(len(chars) + 1)
                chars.insert(i, rng.choice(" ,-+x0123456789\t;\x00\xff"))
            return ["".join(chars)]
        return ["".join(chr(rng.randrange(1, 256)) for _ in range(rng.randint(0, 60)))]

    def ends(text):
        return rng.choice(["\n", "\r\n", "\r"]) if "\r" not in text and "\n" not in text else "\n"

    sent = 0
    replies = 0
    send(b"START 15\nINFO timeout_turn 20\n")
    size[0] = 15
    while sent < a.lines:
        batch = []
        for _ in range(rng.randint(1, 6)):
            batch.extend(command())
        for text in batch:
            words = text.strip().split()
            if words and words[0].upper() == "START" and len(words) == 2 and words[1].isdigit():
                if 5 <= int(words[1]) <= 32:
                    size[0] = int(words[1])
            clean = text.replace("\n", " ")
            send(clean.encode("latin-1", "replace") + ends(clean).encode())
            sent += 1
        # DONE first: it ends a block left open (else an ERROR line), so ABOUT is a command.
        send(b"DONE\nABOUT\n")
        for line in lines_until_about():
            replies += 1
            if not REPLY.match(line):
                raise SystemExit(f"fuzz: wrong reply {line!r} after {batch!r}")
            for mv in re.findall(r"^(\d+),(\d+)$", line):
                x, y = int(mv[0]), int(mv[1])
                if x >= 32 or y >= 32:
                    raise SystemExit(f"fuzz: move {line} off every board after {batch!r}")
        if p.poll() is not None:
            raise SystemExit(f"fuzz: the engine exited ({p.returncode}) after {batch!r}")
    send(b"END\n")
    try:
        p.wait(timeout=2)
    except subprocess.TimeoutExpired:
        raise SystemExit("fuzz: still running 2 s after END")
    err = p.stderr.read()
    if err:
        raise SystemExit(f"fuzz: the engine wrote to stderr: {err[:200]!r}")
    print(f"fuzz: {sent} lines sent, {replies} replies, all well-formed; exit code {p.returncode}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
