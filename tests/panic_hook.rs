//! A panic inside the engine must never put text on stdout or stderr (Piskvork reads
//! stderr as replies). The test build lets the environment variable SENTE_TEST_PANIC make
//! the session panic on one special line.

use std::io::{Read, Write};
use std::process::Stdio;
use std::time::{Duration, Instant};

mod common;

#[test]
fn a_panic_prints_nothing() {
    let mut child = common::engine_command()
        .env("SENTE_TEST_PANIC", "1")
        .env("RUST_BACKTRACE", "1")
        .stderr(Stdio::piped())
        .spawn()
        .expect("start pbrain-sente");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"START 15\nSENTE-TEST-PANIC\nBEGIN\n").unwrap();
    drop(stdin);
    let deadline = Instant::now() + Duration::from_secs(5);
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "the engine did not stop");
        std::thread::sleep(Duration::from_millis(10));
    }
    let status = child.wait().unwrap();
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert!(!status.success(), "the panic must end the process");
    assert_eq!(out, "OK\n", "only the reply to START may appear");
    assert_eq!(err, "", "nothing on stderr");
}
