//! The bench signature (total nodes of the fixed-depth bench searches) at the check depth
//! must be the one kept in `src/tools/bench.rs`: a change of it means the search changed.

use sente::tools::bench::{expected_signature, search_all, CHECK_DEPTH};

#[test]
fn the_bench_signature_is_the_kept_one() {
    let (nodes, _) = search_all(CHECK_DEPTH, false, &Default::default());
    assert_eq!(
        Some(nodes),
        expected_signature(CHECK_DEPTH),
        "the search changed: if that was meant, update SIGNATURES in src/tools/bench.rs"
    );
}
