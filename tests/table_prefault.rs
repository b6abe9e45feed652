//! `INFO hash_size` (Yixin-Board's key) allocates the table at once and maps its pages
//! while the engine is idle, so that the next search pays nothing for them; the sizes a
//! tournament manager sets (`max_memory`) wait for the next search, as its clock may
//! be running.

mod common;

use common::Engine;

/// The engine's resident memory in MiB, from /proc.
fn resident_mib(engine: &Engine) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", engine.pid())).expect("/proc/PID/status");
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).expect("VmRSS");
    let kib: u64 = line.split_whitespace().nth(1).expect("a number").parse().expect("kB");
    kib / 1024
}

#[test]
#[cfg(target_os = "linux")]
fn hash_size_maps_the_table_at_once_and_max_memory_does_not() {
    let mut e = Engine::start();
    e.send(&["INFO hash_size 131072"]);
    assert!(e.ask("ABOUT").starts_with("name="));
    let mapped = resident_mib(&e);
    assert!(
        mapped >= 120,
        "after INFO hash_size 131072 (128 MiB): {mapped} MiB resident"
    );

    let mut e = Engine::start();
    e.send(&["INFO max_memory 367001600"]);
    assert!(e.ask("ABOUT").starts_with("name="));
    let lazy = resident_mib(&e);
    assert!(lazy < 64, "after INFO max_memory alone: {lazy} MiB resident");
}
