#!/usr/bin/env bash
# Train the network of one rule from self-play: generate -> train and quantise -> SPRT.
#
# Usage: scripts/train-nnue.sh RULE      (freestyle, standard, renju, caro, caro-exact)
# Environment (defaults):
#   DATA (~/sente-data/nnue): where the games, nets and logs live (outside the repository;
#     everything in it is made again by this script)
#   GAMES (20000) games in the games file (a file that exists is continued: run again to
#     add games); NODES (10000) nodes per move; RANDOM_PLIES (8); SIZE (15); SEED (1001);
#     THREADS (cores)
#   OPENINGS (renju: the shared renju26_offset.txt; else the shared balanced 15x15 set,
#     else tests/data/openings_15x15_pos.txt)
#   SELFPLAY_NNUE_USE (none: the self-play searches evaluate as the engine plays, so the
#     data of net N train net N+1; `gated` plays the embedded net on a size it is not
#     measured on, `off` the tables)
#   NET (DATA/RULE-SIZE-NODES.nnue) the network to write; EPOCHS (30) PATIENCE (3)
#     EXTRA_GAMES (none): more games files to train on, e.g. an earlier net's data
#     INIT (none: random weights): the net to start from, a file or `embedded`
#   SPRT (1): 0 stops after training; else scripts/sprt.sh of the net (engine option
#     nnue_file, behind the gate as the engine plays) against the engine's default (the
#     embedded net where it plays, else the tables), both from HEAD, at SPRT_NODES
#     (50000) nodes a move
#   NICE (10): the niceness of every step
# Every step is resumable: the generator continues its file, the trainer its checkpoint.
set -euo pipefail
if [[ $# -ne 1 ]]; then
    sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
rule=$1
cd "$(dirname "$0")/.."
root=$(pwd)
data=${DATA:-$HOME/sente-data/nnue}
mkdir -p "$data"
size=${SIZE:-15}
nodes=${NODES:-10000}
n="nice -n ${NICE:-10}"
# shellcheck source=scripts/build-rev.sh
source scripts/build-rev.sh
OPENINGS=${OPENINGS:-$(default_openings "$rule")}
# The training pipeline is a feature of its own (not in the tournament engine), built in
# its own target directory and copied, so that a rebuild never replaces a running binary.
$n cargo build --release --quiet --features train --target-dir "$root/target/train" --bin pbrain-sente
bin=$data/pbrain-sente-train.$$
cp "$root/target/train/release/pbrain-sente" "$bin"
trap 'rm -f "$bin"' EXIT
games=$data/$rule-$size-$nodes.games
net=${NET:-$data/$rule-$size-$nodes.nnue}

echo "== 1. self-play: $games" >&2
$n "$bin" selfplay --format games --out "$games" --games "${GAMES:-20000}" --rule "$rule" \
    --size "$size" --nodes "$nodes" --random-plies "${RANDOM_PLIES:-8}" --seed "${SEED:-1001}" \
    --threads "${THREADS:-$(nproc)}" --openings "$OPENINGS" \
    ${SELFPLAY_NNUE_USE:+--nnue-use "$SELFPLAY_NNUE_USE"} 2>&1 | tee -a "$data/selfplay.log" >&2
"$bin" games "$games"

echo "== 2. train and quantise: $net" >&2
# shellcheck disable=SC2086
$n "$bin" nnue-train "$games" ${EXTRA_GAMES:-} --rule "$rule" --out "$net" ${INIT:+--init "$INIT"} \
    --epochs "${EPOCHS:-30}" --patience "${PATIENCE:-3}" --threads "${THREADS:-$(nproc)}" |
    tee "$net.log"

if [[ ${SPRT:-1} == 0 ]]; then
    echo "SPRT=0: stopping before the SPRT; the network is $net" >&2
    exit 0
fi
echo "== 3. SPRT: the network (A) against the engine's default (B), ${SPRT_NODES:-50000} nodes a move" >&2
RULE=$rule SIZE=$size OPENINGS=$OPENINGS TC=5 ELO0=0 ELO1=30 GAMES=2000 \
    A_ARGS="nodes=${SPRT_NODES:-50000} option.nnue_file=$net option.nnue_use=gated" B_ARGS="nodes=${SPRT_NODES:-50000}" \
    exec scripts/sprt.sh HEAD HEAD
