#!/usr/bin/env bash
# SPRT between two revisions of Sente: is REV_A stronger than REV_B?
#
# Usage: scripts/sprt.sh REV_A REV_B [more sente-match options]
#   REV_A, REV_B  git revisions ("." = the working tree, uncommitted changes included).
#                 Put the new version first: "H1 accepted" means REV_A is stronger than
#                 REV_B by ELO1 rather than ELO0.
# Environment (defaults): ELO0 (0) ELO1 (10) ALPHA (0.05) BETA (0.05) TC (0.5/20: seconds
#   per move / per game) RULE (freestyle; swap2 plays its own openings) SIZE (15) GAMES
#   (20000, the cap)
#   CONCURRENCY (number of cores) OPENINGS (the shared 15x15 set, else tests/data)
#   WORKDIR (a new /tmp/sente-sprt.* directory: builds, games.sgf, games.jsonl)
#   A_ARGS, B_ARGS (none): more KEY=VALUE words for engine A or B, such as
#   "option.eval_file=/abs/path/weights.bin" (an INFO line before each game)
# Example: scripts/sprt.sh . HEAD          # uncommitted change against the last commit
#          ELO0=-5 ELO1=0 scripts/sprt.sh my-branch main   # a non-regression test
set -euo pipefail
if [[ $# -lt 2 ]]; then
    sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
rev_a=$1
rev_b=$2
shift 2
cd "$(dirname "$0")/.."
# shellcheck source=scripts/build-rev.sh
source scripts/build-rev.sh
label_a=$(rev_label "$rev_a")
label_b=$(rev_label "$rev_b")
work=$(build_both "$rev_a" "$rev_b" sprt)
cargo build --release --quiet --bin sente-match
echo "records in $work" >&2
openings=(--openings "${OPENINGS:-$(default_openings)}" --openings-order random --symmetry)
[[ ${RULE:-} == swap2 ]] && openings=()
exec target/release/sente-match \
    --engine cmd="$work/pbrain-sente-A" name="A-$label_a" ${A_ARGS:-} \
    --engine cmd="$work/pbrain-sente-B" name="B-$label_b" ${B_ARGS:-} \
    --rule "${RULE:-freestyle}" --size "${SIZE:-15}" --tc "${TC:-0.5/20}" \
    --games "${GAMES:-20000}" --concurrency "${CONCURRENCY:-$(nproc)}" \
    "${openings[@]}" \
    --sprt elo0="${ELO0:-0}" elo1="${ELO1:-10}" alpha="${ALPHA:-0.05}" beta="${BETA:-0.05}" \
    --sgf "$work/games.sgf" --jsonl "$work/games.jsonl" \
    "$@"
