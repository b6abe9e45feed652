# shellcheck shell=bash
# Sourced by sprt.sh and bench-compare.sh: build pbrain-sente at a git revision.
#
# build_rev REV LABEL DIR: builds REV (any git revision; "." = the working tree as it is)
# and copies the engine to DIR/pbrain-sente-LABEL. Revisions are exported with
# `git archive` into DIR/src-LABEL and built with one shared target directory
# (DIR/target), so the second build reuses the dependencies. The sources are extracted
# with the current time (tar -m): with the commit's time they would be older than the
# first build's outputs, and cargo, whose fingerprints name the first source tree's
# files, would call the second build fresh and copy the first engine (every
# two-revision SPRT from 56c1451 to this fix compared one engine with itself).
build_rev() {
    local rev=$1 label=$2 dir=$3
    local root
    root=$(git rev-parse --show-toplevel)
    local out="$dir/pbrain-sente-$label"
    if [[ $rev == . ]]; then
        (cd "$root" && cargo build --release --quiet --bin pbrain-sente)
        cp "$root/target/release/pbrain-sente" "$out"
    else
        local src="$dir/src-$label"
        rm -rf "$src"
        mkdir -p "$src"
        git -C "$root" archive "$rev" | tar -x -m -C "$src"
        (cd "$src" && CARGO_TARGET_DIR="$dir/target" cargo build --release --quiet --bin pbrain-sente)
        cp "$dir/target/release/pbrain-sente" "$out"
    fi
    echo "built $rev -> $out" >&2
}

# A short label for a revision: its abbreviated hash, or "worktree" for ".".
rev_label() {
    if [[ $1 == . ]]; then echo worktree; else git rev-parse --short "$1^{commit}"; fi
}

# What to compare for a revision: its tree, or for "." the working tree (a stash-like
# tree object of the uncommitted files).
tree_of() {
    if [[ $1 == . ]]; then git stash create 2>/dev/null | grep . || echo HEAD; else echo "$1"; fi
}

# default_openings [RULE]: the default opening file: for renju the shared renju set, else
# the shared balanced 15x15 set, when they are there; else our own.
default_openings() {
    local root
    root=$(git rev-parse --show-toplevel)
    local renju="$root/../shared/testdata/openings_15x15/renju26_offset.txt"
    local shared="$root/../shared/testdata/openings_15x15/freestyle15_balanced_pos.txt"
    if [[ ${1:-} == renju && -f $renju ]]; then
        echo "$renju"
    elif [[ -f $shared ]]; then
        echo "$shared"
    else
        echo "$root/tests/data/openings_15x15_pos.txt"
    fi
}

# build_both REV_A REV_B KIND: build pbrain-sente-A and pbrain-sente-B from the two
# revisions in a work directory ($WORKDIR, else a new /tmp/sente-KIND.*); prints its path.
build_both() {
    local work=${WORKDIR:-$(mktemp -d "/tmp/sente-$3.XXXXXX")}
    mkdir -p "$work"
    build_rev "$1" A "$work"
    build_rev "$2" B "$work"
    # Two revisions whose sources differ must give two engines.
    if ! git diff --quiet "$(tree_of "$1")" "$(tree_of "$2")" -- src Cargo.toml Cargo.lock &&
        cmp -s "$work/pbrain-sente-A" "$work/pbrain-sente-B"; then
        echo "error: $1 and $2 differ in src/ but built the same engine" >&2
        return 1
    fi
    echo "$work"
}
