#!/usr/bin/env python3
"""SPSA tuning of the evaluation weights by self-play (not part of the tests).

Each step plays one opening twice (colours swapped) between theta+c*delta and
theta-c*delta through sente-match, and moves theta toward the winner. The engine takes the
weights from `INFO eval_own` / `INFO eval_opp` (src/eval/mod.rs, comma-separated tables).

usage: scripts/tune-eval.py [--pairs N] [--tc SECONDS] [--workers N] [--openings FILE]
                            [--engine PATH] [--match PATH] [--log FILE]
Prints the current weights every 20 pairs; paste the result into src/eval/mod.rs.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading

# Threat classes in src/game/pattern.rs order; tuned: One .. OpenFour (indices 2..13).
NAMES = ["None", "Forbidden", "One", "Two", "BlockedThree", "DoubleTwo", "BlockedThreePlus",
         "Three", "ThreePlus", "DoubleThree", "Four", "FourPlus", "FourThree", "OpenFour", "Five"]
TUNED = range(2, 14)


def read_defaults(path):
    """Current OWN / OPP tables from src/eval/mod.rs, so a run starts from the code."""
    tables = {}
    name = None
    for line in open(path, encoding="utf-8"):
        if line.startswith("pub const OWN"):
            name, tables[name] = "own", []
        elif line.startswith("pub const OPP"):
            name, tables[name] = "opp", []
        elif name and line.startswith("];"):
            name = None
        elif name:
            tables[name].append(int(line.split(",")[0].strip()))
    for name in ("own", "opp"):
        if len(tables.get(name, [])) != len(NAMES):
            sys.exit(f"tune-eval: could not read the {name.upper()} table from {path}")
    return tables["own"], tables["opp"]


def play_pair(args, opening, plus, minus):
    """Two games, colours swapped. Returns points of `plus` minus points of `minus`."""
    with tempfile.TemporaryDirectory() as tmp:
        openings = os.path.join(tmp, "opening.txt")
        with open(openings, "w", encoding="utf-8") as f:
            f.write(opening + "\n")
        records = os.path.join(tmp, "games.jsonl")

        def engine(name, weights):
            own, opp = weights
            return ["--engine", f"cmd={args.engine}", f"name={name}",
                    "option.eval_own=" + ",".join(map(str, own)),
                    "option.eval_opp=" + ",".join(map(str, opp))]

        cmd = [args.match, *engine("plus", plus), *engine("minus", minus), "--tc", str(args.tc),
               "--games", "2", "--openings", openings, "--quiet", "--jsonl", records]
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        score = 0.0
        for line in open(records, encoding="utf-8"):
            game = json.loads(line)
            if game["winner"] == "plus":
                score += 1
            elif game["winner"] == "minus":
                score -= 1
        return score


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=600)
    ap.add_argument("--tc", type=float, default=0.1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--openings", default=os.path.join(root, "tests/data/openings_15x15_pos.txt"))
    ap.add_argument("--engine", default=os.path.join(root, "target/release/pbrain-sente"))
    ap.add_argument("--match", default=os.path.join(root, "target/release/sente-match"))
    ap.add_argument("--log", default=None)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    openings = [l.strip() for l in open(args.openings, encoding="utf-8") if l.strip() and not l.startswith("#")]
    own, opp = read_defaults(os.path.join(root, "src/eval/mod.rs"))
    theta = [float(v) for v in own] + [float(v) for v in opp]
    n = len(own)
    params = [i for i in TUNED] + [n + i for i in TUNED]
    lock = threading.Lock()
    log = open(args.log, "a", encoding="utf-8") if args.log else None
    done = [0]

    def weights(vec):
        w = [max(0, round(v)) for v in vec]
        return w[:n], w[n:]

    def worker():
        while True:
            with lock:
                if done[0] >= args.pairs:
                    return
                k = done[0]
                done[0] += 1
                delta = {i: rng.choice((-1, 1)) for i in params}
                c = {i: max(1.0, 0.2 * theta[i]) for i in params}
                plus = list(theta)
                minus = list(theta)
                for i in params:
                    plus[i] += c[i] * delta[i]
                    minus[i] -= c[i] * delta[i]
                opening = rng.choice(openings)
            result = play_pair(args, opening, weights(plus), weights(minus))
            with lock:
                # Step toward the winner: at most a fifth of the perturbation per pair,
                # shrinking slowly over the run.
                rate = 0.1 / (1 + k / 400)
                for i in params:
                    theta[i] = max(0.0, theta[i] + rate * c[i] * result * delta[i])
                if log:
                    log.write(json.dumps({"pair": k, "result": result, "theta": [round(v, 1) for v in theta]}) + "\n")
                    log.flush()
                if (k + 1) % 20 == 0:
                    own_now, opp_now = weights(theta)
                    print(f"after {k + 1} pairs:\n  OWN {own_now}\n  OPP {opp_now}", flush=True)

    threads = [threading.Thread(target=worker) for _ in range(args.workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    own_now, opp_now = weights(theta)
    print("final OWN", own_now)
    print("final OPP", opp_now)
    for i in TUNED:
        print(f"  {NAMES[i]:17} own {own_now[i]:6} opp {opp_now[i]:6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
