#!/usr/bin/env bash
# Train the evaluation of one rule by self-play: generate -> fit -> verify -> SPRT.
#
# Usage: scripts/train-eval.sh RULE      (freestyle, standard, renju, caro, caro-exact)
# Environment (defaults):
#   GAMES (2000) games of self-play in the data file (a file that exists is continued)
#   NODES (20000) nodes per move; RANDOM_PLIES (4) MARGIN (150); SIZE (15); THREADS (cores)
#   OPENINGS (renju: the shared renju26_offset.txt; else the shared balanced 15x15 set,
#     else tests/data/openings_15x15_pos.txt)
#   SCALE (300) LAMBDA (0.5) LR (1) EPOCHS (100) PATIENCE (5) VALIDATION (10) INIT (embedded)
#   WORKDIR (/tmp/sente-train-RULE): selfplay.tsv, RULE.bin, the logs
#   SPRT (1): 0 stops after the check; else scripts/sprt.sh of the new weights (engine
#     option eval_file) against the embedded ones, both from HEAD, RULE as the match rule
#   NICE (19): the niceness of every step
# Every step is resumable: run it again after an interruption.
set -euo pipefail
if [[ $# -ne 1 ]]; then
    sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
rule=$1
cd "$(dirname "$0")/.."
root=$(pwd)
work=${WORKDIR:-/tmp/sente-train-$rule}
mkdir -p "$work"
n="nice -n ${NICE:-19}"
# shellcheck source=scripts/build-rev.sh
source scripts/build-rev.sh
OPENINGS=${OPENINGS:-$(default_openings "$rule")}
# The training pipeline is a feature of its own (not in the tournament engine), built
# in its own target directory so that the default build is left alone.
$n cargo build --release --quiet --features train --target-dir "$root/target/train" --bin pbrain-sente
bin=$root/target/train/release/pbrain-sente
data=$work/selfplay.tsv
weights=$work/$rule.bin

echo "== 1. self-play: $data" >&2
$n "$bin" selfplay --out "$data" --games "${GAMES:-2000}" --rule "$rule" --size "${SIZE:-15}" \
    --nodes "${NODES:-20000}" --random-plies "${RANDOM_PLIES:-4}" --margin "${MARGIN:-150}" --threads "${THREADS:-$(nproc)}" \
    --openings "$OPENINGS"

echo "== 2. fit: $weights" >&2
$n "$bin" train "$data" --rule "$rule" --out "$weights" --init "${INIT:-embedded}" \
    --scale "${SCALE:-300}" --lambda "${LAMBDA:-0.5}" --lr "${LR:-1}" --epochs "${EPOCHS:-100}" \
    --patience "${PATIENCE:-5}" --validation "${VALIDATION:-10}" | tee "$work/train.log"

echo "== 3. check: the held-out games, embedded against learned weights" >&2
"$bin" evalfile show "$weights"
check=(--rule "$rule" --scale "${SCALE:-300}" --lambda "${LAMBDA:-0.5}" --validation "${VALIDATION:-10}")
$n "$bin" evalcheck "$data" "${check[@]}" | tee "$work/check.log"
$n "$bin" evalcheck "$data" "${check[@]}" --eval-file "$weights" | tee -a "$work/check.log"

if [[ ${SPRT:-1} == 0 ]]; then
    echo "SPRT=0: stopping before the SPRT; the weights are $weights" >&2
    exit 0
fi
echo "== 4. SPRT: learned (A) against embedded (B) weights" >&2
# The tables alone on both sides (the embedded network would evaluate 15x15 freestyle).
RULE=$rule SIZE=${SIZE:-15} OPENINGS=$OPENINGS A_ARGS="option.eval_file=$weights option.nnue_use=off" \
    B_ARGS="option.nnue_use=off" exec scripts/sprt.sh HEAD HEAD
