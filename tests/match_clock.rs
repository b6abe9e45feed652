//! The match clock over a whole long game (issue 11 #2): the engine plays a game that
//! fills the board against a manager that answers at once and keeps the match clock as
//! c-gomoku-cli does (wall time from the command to the move line; no tolerance), plus an
//! optional cost of its own per move as Piskvork charges (13-29 ms). The clock must never
//! go below zero.
//!
//! A fifth of the points are blocked (BOARD field 3) so that no five is possible: every
//! line of five cells holds a blocked point, and the game lasts until the board is full.

use std::time::Instant;

mod common;
use common::Engine;

const SIZE: usize = 17;

/// Points that hold a wall: every run of five cells in any direction meets one.
fn blocked(x: usize, y: usize) -> bool {
    (x + 2 * y).is_multiple_of(5)
}

/// Play a whole game; returns (the engine's moves, the lowest time_left it was sent, the
/// clock at the end).
fn play(match_ms: i64, manager_ms: i64) -> (usize, i64, i64) {
    let mut engine = Engine::start();
    engine.send(&["START 17".to_string()]);
    assert_eq!(engine.reply(), "OK");
    // c-gomoku-cli's INFO for tc=0/MATCH: no timeout_turn at all.
    engine.send(&[
        "INFO rule 0".to_string(),
        format!("INFO timeout_match {match_ms}"),
        "INFO max_memory 367001600".to_string(),
    ]);
    let mut free = [[true; SIZE]; SIZE];
    let mut empty = 0;
    let mut board = vec!["BOARD".to_string()];
    for (y, row) in free.iter_mut().enumerate() {
        for (x, cell) in row.iter_mut().enumerate() {
            if blocked(x, y) {
                *cell = false;
                board.push(format!("{x},{y},3"));
            } else {
                empty += 1;
            }
        }
    }
    board.push("DONE".to_string());
    // The manager's own moves: a fixed, scattered order.
    let mut order: Vec<(usize, usize)> = (0..SIZE * SIZE).map(|i| (i * 7 % SIZE, i / SIZE)).collect();
    order.sort_by_key(|&(x, y)| (x * 31 + y * 17) % 23);
    let mut left = match_ms;
    let mut lowest = left;
    let mut moves = 0;
    let mut command = board;
    loop {
        let mut lines = vec![format!("INFO time_left {left}")];
        lines.append(&mut command);
        let sent = Instant::now();
        engine.send(&lines);
        let reply = engine.reply();
        left -= sent.elapsed().as_millis() as i64 + manager_ms;
        lowest = lowest.min(left);
        let (x, y) = reply
            .split_once(',')
            .and_then(|(x, y)| Some((x.parse::<usize>().ok()?, y.parse::<usize>().ok()?)))
            .unwrap_or_else(|| panic!("not a move: '{reply}'"));
        assert!(x < SIZE && y < SIZE && free[y][x], "illegal move {x},{y}");
        free[y][x] = false;
        empty -= 1;
        moves += 1;
        // The manager's reply; a draw when at most one point would be left for the engine.
        if empty < 2 {
            break;
        }
        let &(ox, oy) = order.iter().find(|&&(x, y)| free[y][x]).expect("an empty point");
        free[oy][ox] = false;
        empty -= 1;
        command = vec![format!("TURN {ox},{oy}")];
    }
    (moves, lowest, left)
}

#[test]
fn a_full_board_game_at_two_seconds_never_overruns() {
    // 3 ms a move for the manager's side: pipes and scheduling on a loaded machine.
    let (moves, lowest, end) = play(2000, 3);
    eprintln!("match clock: {moves} moves, lowest {lowest} ms, {end} ms at the end");
    assert!(moves >= 110, "{moves} moves");
    assert!(
        lowest >= 0,
        "time_left went down to {lowest} ms ({moves} moves, {end} ms at the end)"
    );
}

#[test]
fn a_manager_that_costs_15_ms_a_move_is_learnt() {
    // 115 moves x 15 ms is 1.7 s of the 5 s: only a reserve learnt from time_left covers it.
    let (moves, lowest, end) = play(5000, 15);
    eprintln!("match clock: {moves} moves, lowest {lowest} ms, {end} ms at the end");
    assert!(moves >= 110, "{moves} moves");
    assert!(
        lowest >= 0,
        "time_left went down to {lowest} ms ({moves} moves, {end} ms at the end)"
    );
}
