//! Property test: the incremental board equals a board rebuilt from scratch after every
//! move and every undo, for every rule, on 15×15, 20×20 and rectangular boards.

use sente::game::zobrist::splitmix64;
use sente::game::{Board, Color, Pos, Rule};

fn random_game(width: usize, height: usize, rule: Rule, seed: u64, plies: usize) {
    let mut rng = seed;
    let mut board = Board::new(width, height, rule);
    let mut color = Color::Black;
    let check = |board: &Board, what: &str| {
        let scratch = Board::from_moves(width, height, rule, board.moves());
        let diff = board.state_differences(&scratch);
        assert!(
            diff.is_empty(),
            "{rule:?} {width}x{height} seed {seed} after {what}:\n{}\n{}",
            diff.join("\n"),
            board.picture()
        );
    };
    for ply in 0..plies {
        if board.is_full() {
            break;
        }
        // Mostly near the stones (dense shapes), sometimes anywhere.
        let cands: Vec<Pos> = board.candidates().iter().collect();
        let r = splitmix64(&mut rng);
        let p = if !cands.is_empty() && !r.is_multiple_of(8) {
            cands[(r >> 8) as usize % cands.len()]
        } else {
            let empties: Vec<Pos> = board.empty_points().iter().collect();
            empties[(r >> 8) as usize % empties.len()]
        };
        let classes = [board.threat(p, Color::Black), board.threat(p, Color::White)];
        board.make(p, color);
        check(&board, &format!("move {ply} {p}"));
        // The search reads a made move's threat classes (`Context::reduction`): they stay.
        assert_eq!(
            [board.threat(p, Color::Black), board.threat(p, Color::White)],
            classes,
            "{p}"
        );
        if splitmix64(&mut rng).is_multiple_of(5) {
            board.undo();
            check(&board, &format!("undo at {ply}"));
            board.make(p, color);
        }
        color = color.opposite();
    }
    // Unwind the whole game.
    while board.stone_count() > 0 {
        board.undo();
        if board.stone_count().is_multiple_of(7) {
            check(&board, "final unwind");
        }
    }
    let fresh = Board::new(width, height, rule);
    assert!(board.state_differences(&fresh).is_empty());
}

#[test]
fn incremental_equals_scratch_all_rules() {
    for (i, rule) in Rule::ALL.into_iter().enumerate() {
        for (j, &(w, h)) in [(15, 15), (20, 20), (9, 13), (32, 7)].iter().enumerate() {
            for game in 0..3 {
                random_game(w, h, rule, (i * 100 + j * 10 + game) as u64 + 1, w * h / 2);
            }
        }
    }
}

#[test]
fn full_board_games() {
    for rule in Rule::ALL {
        random_game(5, 5, rule, 77, 25);
        random_game(7, 6, rule, 78, 42);
    }
}
