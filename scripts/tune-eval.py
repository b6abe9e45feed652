#!/usr/bin/env python3
"""SPSA tuning of the evaluation weights by self-play (not part of the tests).

Each step plays one opening twice (colours swapped) between theta+c*delta and
theta-c*delta through sente-match, and moves theta toward the winner (scripts/spsa.py).
The engine takes the weights from `INFO eval_own` / `INFO eval_opp` (src/eval/mod.rs,
comma-separated tables).

usage: scripts/tune-eval.py [--pairs N] [--tc SECONDS] [--workers N] [--openings FILE]
                            [--engine PATH] [--match PATH] [--log FILE] [--seed N] [--rate R]
Prints the current weights every 20 pairs; paste the result into src/eval/mod.rs.
"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from spsa import ROOT, Spsa, arguments, play_pair  # noqa: E402

# Threat classes in src/game/pattern.rs order; tuned: One .. OpenFour (indices 2..13).
NAMES = ["None", "Forbidden", "One", "Two", "BlockedThree", "DoubleTwo", "BlockedThreePlus",
         "Three", "ThreePlus", "DoubleThree", "Four", "FourPlus", "FourThree", "OpenFour", "Five"]
TUNED = range(2, 14)


def read_defaults(path):
    """Current OWN / OPP tables from src/eval/mod.rs, so a run starts from the code."""
    tables = {}
    name = None
    for line in open(path, encoding="utf-8"):
        if line.startswith(("pub const OWN", "pub(crate) const OWN")):
            name, tables[name] = "own", []
        elif line.startswith(("pub const OPP", "pub(crate) const OPP")):
            name, tables[name] = "opp", []
        elif name and line.startswith("];"):
            name = None
        elif name:
            tables[name].append(int(line.split(",")[0].strip()))
    for name in ("own", "opp"):
        if len(tables.get(name, [])) != len(NAMES):
            sys.exit(f"tune-eval: could not read the {name.upper()} table from {path}")
    return tables["own"], tables["opp"]


def main():
    ap = arguments(600, "tests/data/openings_15x15_pos.txt", 0.05)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    openings = [l.strip() for l in open(args.openings, encoding="utf-8") if l.strip() and not l.startswith("#")]
    picks = [(rng.choice(openings), rng.randrange(1 << 30)) for _ in range(args.pairs)]
    own, opp = read_defaults(os.path.join(ROOT, "src/eval/mod.rs"))
    n = len(own)
    # Tuned: One .. OpenFour of each table; the rest keep their values.
    params = [i for i in TUNED] + [n + i for i in TUNED]
    full = own + opp
    log = open(args.log, "a", encoding="utf-8") if args.log else None

    def weights(vector):
        w = list(full)
        for i, v in zip(params, vector):
            w[i] = max(0, round(v))
        return w[:n], w[n:]

    def options(vector):
        o, p = weights(vector)
        return {"eval_own": ",".join(map(str, o)), "eval_opp": ",".join(map(str, p))}

    def play(plus, minus, k):
        opening, seed = picks[k]
        return play_pair(args.match, args.engine, args.tc, opening, plus, minus, seed)

    def on_pair(k, result, theta, delta):
        if log:
            log.write(json.dumps({"pair": k, "result": result, "signs": delta,
                                  "theta": [round(v, 1) for v in theta]}) + "\n")
            log.flush()
        if (k + 1) % 20 == 0:
            own_now, opp_now = weights(theta)
            print(f"after {k + 1} pairs:\n  OWN {own_now}\n  OPP {opp_now}", flush=True)

    # Perturb each weight by a fifth of its start value (at least 1).
    start = [full[i] for i in params]
    spsa = Spsa(start, [max(1.0, 0.2 * v) for v in start], [(0, 1 << 20)] * len(params), options,
                args.pairs, args.rate, args.seed)
    theta = spsa.run(play, args.workers, on_pair)
    own_now, opp_now = weights(theta)
    print("final OWN", own_now)
    print("final OPP", opp_now)
    for i in TUNED:
        print(f"  {NAMES[i]:17} own {own_now[i]:6} opp {opp_now[i]:6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
