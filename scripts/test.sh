#!/usr/bin/env bash
# The project's test command (README "Run the tests"): formatting, lints, and every test
# against optimised builds.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cargo >/dev/null 2>&1; then
    echo "cargo not found: install Rust (https://rustup.rs) first" >&2
    exit 1
fi
rustup component add rustfmt clippy >/dev/null 2>&1 || true
cargo fmt --check
# The tournament engine (default features) and the training pipeline (`train`) both
# lint clean; the tests run on the build with both.
cargo clippy --release --all-targets -- -D warnings
cargo clippy --release --all-targets --features train -- -D warnings
cargo test --release --features train
# The library's own tests once more with debug assertions on (the test profile keeps
# opt-level 3): the search's window and node-type assertions, the board's preconditions.
cargo test --lib --features train
