#!/usr/bin/env python3
"""SPSA tuning of the search's numbers by self-play (not part of the tests).

The engine lists its tunable numbers (`pbrain-sente tunables`: name, value, range) and
takes them from `INFO tune_NAME VALUE` (src/search/params.rs, `Tunables`); each step plays
an opening twice between the values + c and - c (scripts/spsa.py). Stockfish and Rapfi
tune their search parameters this way; the result is a hypothesis like any other, to be
kept only with an SPRT (scripts/sprt.sh with the printed INFO lines as A_ARGS).

usage: scripts/tune-search.py [--pairs N] [--tc SECONDS] [--workers N] [--openings FILE]
                              [--engine PATH] [--match PATH] [--log FILE] [--seed N]
                              [--rate R] [--only NAME,NAME...]
"""
import json
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from spsa import Spsa, arguments, play_pair  # noqa: E402

# Perturbation per tunable: about what should move the strength by a few Elo. Depths are
# whole plies, reductions quarter plies, margins evaluation units.
PERTURBATION = {
    "rfp_max_depth": 1, "rfp_margin": 10, "futility_max_depth": 1, "futility_margin": 12,
    "fhr_margin_base": 8, "fhr_margin_per_ply": 3, "lmr_scale": 12, "lmr_base": 20,
    "lmr_tactical": 1.5, "lmr_not_improving": 1.5, "lmr_special": 1.5, "lmr_cut_node": 1.5,
    "lmr_pv_node": 1.5, "late_move_base": 1, "late_move_percent": 12,
    "late_tactical_percent": 30, "aspiration_delta": 10,
}


def tunables(engine):
    """(name, value, low, high) of every tunable, as the engine lists them."""
    out = subprocess.run([engine, "tunables"], capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        name, value, low, high = line.split()
        rows.append((name, int(value), int(low), int(high)))
    return rows


def main():
    ap = arguments(1000, "../shared/testdata/openings_15x15/freestyle15_balanced_pos.txt", 0.04)
    ap.add_argument("--only", default=None, help="tune only these (comma-separated)")
    args = ap.parse_args()
    rows = tunables(args.engine)
    if args.only:
        wanted = set(args.only.split(","))
        rows = [r for r in rows if r[0] in wanted]
    missing = [r[0] for r in rows if r[0] not in PERTURBATION]
    if missing:
        sys.exit(f"tune-search: no perturbation for {missing}")
    names = [r[0] for r in rows]
    openings = [l.strip() for l in open(args.openings, encoding="utf-8") if l.strip() and not l.startswith("#")]
    rng = random.Random(args.seed)
    picks = [(rng.choice(openings), rng.randrange(1 << 30)) for _ in range(args.pairs)]

    def options(vector):
        return {f"tune_{n}": round(v) for n, v in zip(names, vector)}

    def play(plus, minus, k):
        opening, seed = picks[k]
        return play_pair(args.match, args.engine, args.tc, opening, plus, minus, seed)

    log = open(args.log, "a", encoding="utf-8") if args.log else None

    def on_pair(k, result, theta, delta):
        if log:
            record = {"pair": k, "result": result, "signs": delta,
                      "theta": dict(zip(names, [round(t, 2) for t in theta]))}
            log.write(json.dumps(record) + "\n")
            log.flush()
        if (k + 1) % 25 == 0:
            now = " ".join(f"{n}={t:.1f}" for n, t in zip(names, theta))
            print(f"after {k + 1} pairs: {now}", flush=True)

    spsa = Spsa([r[1] for r in rows], [PERTURBATION[n] for n in names], [(r[2], r[3]) for r in rows],
                options, args.pairs, args.rate, args.seed)
    theta = spsa.run(play, args.workers, on_pair)
    print("final values (INFO lines for sprt.sh's A_ARGS as option.tune_NAME=VALUE):")
    for (name, start, _, _), value in zip(rows, theta):
        print(f"  INFO tune_{name} {round(value)}    (was {start}, {value:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
