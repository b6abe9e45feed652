#!/usr/bin/env bash
# Speed of two revisions of Sente, measured side by side: `pbrain-sente bench` of each,
# alternated ROUNDS times in one run (so both see the same machine load), then the
# nodes/s of each (median) and their ratio. Also checks the node signatures: equal
# signatures mean the change did not alter the search.
#
# Usage: scripts/bench-compare.sh REV_A REV_B [DEPTH]
#   REV_A, REV_B  git revisions ("." = the working tree). Ratio = A / B.
# Environment: ROUNDS (3), WORKDIR (a new /tmp/sente-bench.* directory).
set -euo pipefail
if [[ $# -lt 2 ]]; then
    sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
rev_a=$1
rev_b=$2
depth=()
if [[ -n ${3:-} ]]; then depth=("$3"); fi
cd "$(dirname "$0")/.."
# shellcheck source=scripts/build-rev.sh
source scripts/build-rev.sh
work=$(build_both "$rev_a" "$rev_b" bench)
rounds=${ROUNDS:-3}

# One bench run: prints "NODES NPS" from the line
# "depth D: total nodes N (signature), time T ms, S nodes/s".
bench() {
    "$work/pbrain-sente-$1" bench "${depth[@]}" 2>/dev/null |
        sed -n 's/.*total nodes \([0-9]*\).* \([0-9]*\) nodes\/s.*/\1 \2/p' | head -1
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

: > "$work/nps-A"
: > "$work/nps-B"
sig_a=""
sig_b=""
for ((r = 1; r <= rounds; r++)); do
    for side in A B; do
        read -r nodes nps < <(bench $side) || true
        if [[ -z ${nps:-} ]]; then
            echo "bench of $side gave no 'total nodes … nodes/s' line" >&2
            exit 1
        fi
        echo "$nps" >> "$work/nps-$side"
        if [[ $side == A ]]; then sig_a=$nodes; else sig_b=$nodes; fi
        echo "round $r $side ($(rev_label "$([[ $side == A ]] && echo "$rev_a" || echo "$rev_b")")): $nodes nodes, $nps nodes/s"
    done
done
a=$(median < "$work/nps-A")
b=$(median < "$work/nps-B")
echo "A $rev_a: median $a nodes/s, signature $sig_a"
echo "B $rev_b: median $b nodes/s, signature $sig_b"
awk -v a="$a" -v b="$b" 'BEGIN { printf "speed ratio A/B: %.3f (%+.1f %%)\n", a / b, 100 * (a / b - 1) }'
if [[ $sig_a == "$sig_b" ]]; then
    echo "signatures equal: same search"
else
    echo "signatures differ: the search changed"
fi
