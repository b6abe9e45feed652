#!/usr/bin/env bash
# The tests that read the team's shared test data (not redistributable, so not in the
# repository): ../shared/testdata next to the checkout, or SENTE_TESTDATA=DIR. They are
# marked #[ignore] so that ./scripts/test.sh (and CI, which has no ../shared) does not
# depend on them; this script runs them and fails if the data is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${SENTE_TESTDATA:-$(pwd)/../shared/testdata}"
for f in lfz084_renju_puzzles/pattern_tasks.tsv lfz084_renju_puzzles/puzzles.tsv; do
    if [ ! -f "$dir/$f" ]; then
        echo "test-shared: $dir/$f is missing: put the shared test data in ../shared/testdata or set SENTE_TESTDATA" >&2
        exit 1
    fi
done
export SENTE_TESTDATA="$dir"
cargo test --release --test renju_pattern_tasks --test search -- --ignored --test-threads=1
