#!/usr/bin/env bash
# Soak test: many fast games refereed by sente-match over all four Gomocup rules, both
# colours, and a per-engine count of what must never happen: time losses, illegal moves,
# crashes and protocol errors.
#
#   scripts/soak.sh [GAMES] [ENGINE_A [ENGINE_B]]
#
# GAMES (default 1000) is split evenly over freestyle, standard, renju and caro on 15x15;
# each opening is played twice with colours swapped. The engines default to this
# checkout's pbrain-sente (both sides). Environment:
#   TC=0/2          time control (sente-match --tc; default: 2 s a game, no turn limit)
#   TOLERANCE=0     ms allowed past the clock (0: as c-gomoku-cli, none on the match clock)
#   CONCURRENCY=2   games at once
#   OPENINGS=FILE   opening file (default tests/data/openings_15x15_pos.txt)
#   OUT=DIR         where the JSONL records go (default a new temporary directory)
#   SEED=N          seed for opening order and symmetry
#   SENTE_MATCH=F   the runner to use, as it is (default: build this checkout's)
# Exit code 1 if any engine had a time loss, an illegal move, a crash or a protocol error.
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-1000}
a=${2:-target/release/pbrain-sente}
b=${3:-$a}
tc=${TC:-0/2}
tolerance=${TOLERANCE:-0}
concurrency=${CONCURRENCY:-2}
openings=${OPENINGS:-tests/data/openings_15x15_pos.txt}
out=${OUT:-$(mktemp -d /tmp/sente-soak.XXXXXX)}
seed=${SEED:-$RANDOM}
mkdir -p "$out"
runner=${SENTE_MATCH:-}
if [ -z "$runner" ]; then
    cargo build --release --quiet
    runner=target/release/sente-match
fi
per_rule=$(( (games / 4 + 1) / 2 * 2 ))
echo "soak: $per_rule games per rule, tc $tc, tolerance $tolerance ms, concurrency $concurrency, seed $seed, records in $out"
for rule in freestyle standard renju caro; do
    "$runner" --quiet --rule "$rule" --games "$per_rule" --tc "$tc" \
        --tolerance "$tolerance" --concurrency "$concurrency" --openings "$openings" \
        --openings-order random --symmetry --seed "$seed" --jsonl "$out/$rule.jsonl" \
        --engine cmd="$a" name=A --engine cmd="$b" name=B > "$out/$rule.txt"
    grep -E " vs .*games|Elo" "$out/$rule.txt" | sed "s/^ */  $rule: /"
done
python3 - "$out" "$tc" <<'EOF'
import json, glob, sys
out, tc = sys.argv[1], sys.argv[2]
match_ms = None
if "/" in tc:
    match_ms = round(float(tc.split("/")[1].split("+")[0]) * 1000)
kinds = {
    "time losses": {"timeout"},
    "illegal moves": {"occupied", "off-board", "forbidden"},
    "crashes": {"crash", "memory"},
    "protocol errors": {"not-a-move", "ignored-line", "no-start-ok", "hang-on-end"},
}
stats = {}
for path in sorted(glob.glob(out + "/*.jsonl")):
    for line in open(path):
        g = json.loads(line)
        for color in ("black", "white"):
            s = stats.setdefault(g[color], {k: 0 for k in kinds} | {"games": 0, "lowest": None, "peak": 0})
            s["games"] += 1
            used = sum(m["ms"] for m in g["moves"] if m["color"] == color)
            if match_ms:
                left = match_ms - used
                s["lowest"] = left if s["lowest"] is None else min(s["lowest"], left)
            s["peak"] = max(s["peak"], g["peak_uss"][0 if color == "black" else 1])
        for f in g["faults"]:
            for k, ks in kinds.items():
                if f["kind"] in ks:
                    stats[f["engine"]][k] += 1
bad = False
for name, s in sorted(stats.items()):
    left = "" if s["lowest"] is None else f", lowest clock at the end of a game {s['lowest']} ms"
    counts = ", ".join(f"{k} {s[k]}" for k in kinds)
    print(f"{name}: {s['games']} games: {counts}{left}, peak USS {s['peak'] >> 20} MiB")
    bad |= any(s[k] for k in kinds)
sys.exit(1 if bad else 0)
EOF
