#!/usr/bin/env bash
# A documented example: Sente against an external Piskvork-protocol engine.
#
# Usage: scripts/match.sh ENGINE [GAMES] [more sente-match options]
#   ENGINE  path to any pbrain engine (for example pbrain-rapfi, or a Gomocup brain built
#           for Linux); it runs in its own directory.
#   GAMES   number of games (default 100); each opening is played twice, colours swapped.
# Environment (defaults): TC (fastgame = 5 s a move, 120 s a game) RULE (freestyle)
#   SIZE (15) CONCURRENCY (1) OPENINGS (the shared 15x15 set, else tests/data)
#   OUT (match-out: games.sgf and games.jsonl are appended there)
# Example: TC=1/30 scripts/match.sh ~/engines/pbrain-rapfi 100 --sprt elo0=-50 elo1=0
#
# What it runs (the same can be typed by hand):
#   target/release/sente-match --engine cmd=target/release/pbrain-sente name=Sente \
#       --engine cmd=ENGINE --games 100 --tc fastgame --openings FILE --symmetry \
#       --sgf OUT/games.sgf --jsonl OUT/games.jsonl
set -euo pipefail
if [[ $# -lt 1 ]]; then
    sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
engine=$1
games=100
if [[ ${2:-} =~ ^[0-9]+$ ]]; then
    games=$2
    shift 2
else
    shift
fi
cd "$(dirname "$0")/.."
# shellcheck source=scripts/build-rev.sh
source scripts/build-rev.sh
cargo build --release --quiet --bins
out=${OUT:-match-out}
mkdir -p "$out"
exec target/release/sente-match \
    --engine cmd=target/release/pbrain-sente name=Sente \
    --engine cmd="$engine" \
    --games "$games" --tc "${TC:-fastgame}" --rule "${RULE:-freestyle}" --size "${SIZE:-15}" \
    --concurrency "${CONCURRENCY:-1}" \
    --openings "${OPENINGS:-$(default_openings)}" --symmetry \
    --sgf "$out/games.sgf" --jsonl "$out/games.jsonl" \
    "$@"
