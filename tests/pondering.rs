//! Pondering (`INFO pondering 1`) thinks on the opponent's time: the process uses CPU
//! after its move while the manager is silent, and none with pondering off, on
//! `timeout_turn 0`, or after STOP until the next move (the transcript
//! `protocol-tests/pondering.txt` checks the replies).

mod common;

use std::time::Duration;

use common::Engine;

/// CPU seconds (user + system) the engine has used so far, from /proc.
fn cpu_seconds(engine: &Engine) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", engine.pid())).expect("/proc/PID/stat");
    // The fields after the command name (which is in parentheses): utime is the 14th
    // field of the line, stime the 15th.
    let after = &stat[stat.rfind(')').expect("comm") + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    ticks / 100.0
}

/// The CPU seconds used in `idle` after the engine answered TURN with `info` (and then
/// got `after`).
fn cpu_after_our_move(info: &[&str], after: &[&str], idle: Duration) -> f64 {
    let mut e = Engine::start();
    e.send(info);
    assert_eq!(e.ask("START 15"), "OK");
    let reply = e.ask("TURN 7,7");
    assert!(reply.contains(','), "a move: {reply}");
    e.send(after);
    std::thread::sleep(Duration::from_millis(100));
    let before = cpu_seconds(&e);
    std::thread::sleep(idle);
    cpu_seconds(&e) - before
}

#[test]
#[cfg(target_os = "linux")]
fn pondering_thinks_while_the_opponent_does_and_only_when_asked() {
    let idle = Duration::from_millis(1500);
    let on = ["INFO pondering 1", "INFO timeout_turn 200"];
    let pondering = cpu_after_our_move(&on, &[], idle);
    assert!(pondering > 0.75, "pondering used {pondering:.2} s of CPU in 1.5 s");
    // An INFO stops it, and it starts again.
    let again = cpu_after_our_move(&on, &["INFO max_memory 0"], idle);
    assert!(
        again > 0.75,
        "pondering after an INFO used {again:.2} s of CPU in 1.5 s"
    );
    for (info, after) in [
        (&["INFO timeout_turn 200"][..], &[][..]),
        (&["INFO pondering 0", "INFO timeout_turn 200"], &[]),
        (&["INFO pondering 1", "INFO timeout_turn 0"], &[]),
        (&on, &["STOP"]),
    ] {
        let used = cpu_after_our_move(info, after, idle);
        assert!(
            used < 0.2,
            "{info:?} {after:?}: {used:.2} s of CPU while the opponent thinks"
        );
    }
}
