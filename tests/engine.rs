//! The engine facade without the protocol: games, positions, searches.

use sente::engine::{Answer, Engine, EngineError, Job};
use sente::game::{Color, Pos};

fn engine(size: i64, turn_ms: &str) -> Engine {
    let mut e = Engine::new();
    e.set_option("timeout_turn", turn_ms);
    e.new_game(size, size).expect("a new game");
    e
}

#[test]
fn plays_legal_moves_and_keeps_the_game() {
    let mut e = engine(15, "100");
    e.begin().unwrap();
    let first = e.think(Job::Move, &mut |_| {});
    assert_eq!(first, Answer::Move(Pos::new(7, 7)));
    e.opponent_move(8, 8).unwrap();
    let Answer::Move(p) = e.think(Job::Move, &mut |_| {}) else {
        panic!("a move")
    };
    let game = e.game().unwrap();
    assert_eq!(game.moves.len(), 3);
    assert_eq!(game.moves[2], (p, Color::Black));
    assert_eq!(game.board.side_to_move(), Color::White);
    // The opponent may not play on a taken point; nothing changes.
    assert_eq!(e.opponent_move(8, 8), Err(EngineError::Occupied { x: 8, y: 8 }));
    assert_eq!(e.game().unwrap().moves.len(), 3);
}

#[test]
fn a_bad_position_changes_nothing() {
    let mut e = engine(15, "100");
    e.set_position(&[(7, 7, 1), (8, 8, 2)], true).unwrap();
    let off = EngineError::OffBoard {
        x: 15,
        y: 0,
        width: 15,
        height: 15,
    };
    for (bad, why) in [
        (vec![(7, 7, 1), (7, 7, 2)], EngineError::Repeated { x: 7, y: 7 }),
        (vec![(15, 0, 1)], off),
        (vec![(1, 1, 4)], EngineError::Field { x: 1, y: 1, field: 4 }),
    ] {
        assert_eq!(e.set_position(&bad, true), Err(why), "{bad:?}");
        assert_eq!(e.game().unwrap().moves.len(), 2);
    }
    assert_eq!(e.new_game(4, 4), Err(EngineError::BoardSize { width: 4, height: 4 }));
    assert_eq!(e.game().unwrap().width, 15);
}

#[test]
fn the_last_point_is_left_to_us() {
    let mut e = engine(5, "100");
    // Every point but (4,4) and (3,4) is taken, with no five anywhere.
    let rows = ["11212", "22121", "11212", "22121", "121.."];
    let mut stones = Vec::new();
    for (y, row) in rows.iter().enumerate() {
        for (x, c) in row.chars().enumerate() {
            if let Some(f) = c.to_digit(10) {
                stones.push((x as i64, y as i64, f as i64));
            }
        }
    }
    e.set_position(&stones, false).unwrap();
    e.opponent_move(3, 4).unwrap();
    assert_eq!(
        e.opponent_move(4, 4),
        Err(EngineError::LastPoint { x: 4, y: 4 }),
        "no point would be left for us"
    );
    assert_eq!(e.think(Job::Move, &mut |_| {}), Answer::Move(Pos::new(4, 4)));
}

#[test]
fn memory_below_the_floor_is_reported_once() {
    let mut e = engine(15, "100");
    e.set_option("max_memory", "1000000");
    assert!(e.settings.memory_warning().is_some());
    assert!(e.settings.memory_warning().is_none());
}
