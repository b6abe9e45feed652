//! Tiny turn limits (issue 11 #4): with `timeout_turn` 0 ("as fast as possible") or a
//! few ms, a move comes within max(turn limit, 10 ms) on an idle machine (README). The
//! machine running the tests may be loaded, so this checks the median of many moves of a
//! game on the largest board (about 27 ms before the fix, a few ms after) and a generous
//! maximum.

use std::io::Write;
use std::time::{Duration, Instant};

use sente::game::{Board, Color, Pos, Rule};

mod common;
use common::Engine;

fn start(turn_ms: u32) -> Engine {
    let mut e = Engine::start();
    assert_eq!(e.ask("START 32"), "OK");
    writeln!(e.stdin, "INFO timeout_turn {turn_ms}").unwrap();
    e
}

/// Two engines play each other at `turn_ms` on 32x32 until a five (after it every move
/// is decided at once), from a few openings; the median and the largest reply time.
fn reply_times(turn_ms: u32) -> (Duration, Duration) {
    let mut times = Vec::new();
    for opening in [(16, 16), (15, 17), (10, 20), (20, 12)] {
        let mut engines = [start(turn_ms), start(turn_ms)];
        let mut board = Board::new(32, 32, Rule::Freestyle);
        let first = Pos::new(opening.0, opening.1);
        board.make(first, Color::Black);
        // The first engine played the opening stone (it is told without being asked).
        writeln!(engines[0].stdin, "YXBOARD\n{},{},1\nDONE", opening.0, opening.1).unwrap();
        let mut command = format!("TURN {},{}", opening.0, opening.1);
        for ply in 1..80 {
            let e = &mut engines[ply % 2];
            let sent = Instant::now();
            let reply = e.ask(&command);
            times.push(sent.elapsed());
            let (x, y) = reply
                .split_once(',')
                .and_then(|(x, y)| Some((x.parse().ok()?, y.parse().ok()?)))
                .unwrap_or_else(|| panic!("not a move: {reply}"));
            let p = Pos::new(x, y);
            assert!(board.is_empty(p), "{reply} is taken");
            board.make(p, Color::of_ply(ply));
            if board.wins_through(p) {
                break;
            }
            command = format!("TURN {x},{y}");
        }
    }
    times.sort();
    (times[times.len() / 2], times[times.len() - 1])
}

#[test]
fn timeout_turn_zero_and_tiny_limits_answer_at_once() {
    for turn in [0, 1, 5] {
        let (median, max) = reply_times(turn);
        eprintln!("timeout_turn {turn}: median {median:?}, max {max:?}");
        assert!(median <= Duration::from_millis(12), "turn {turn}: median {median:?}");
        assert!(max <= Duration::from_millis(250), "turn {turn}: max {max:?}");
    }
}
