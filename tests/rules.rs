//! Rule tests: win conditions of every rule, renju forbidden points (fixtures and our own
//! diagrams, including the recursive false double three), and the agreement of the
//! pattern tables with a direct scan of the stones.

use sente::game::zobrist::splitmix64;
use sente::game::{Board, Color, Pos, Rule, Threat};
use sente::tools::positions::{board_from_stones, parse_puzzles};

fn board(rule: Rule, stones: &str) -> Board {
    board_from_stones(rule, 15, stones).expect("valid stones")
}

fn at(name: &str) -> Pos {
    let (x, y) = sente::game::geometry::parse_pos_token(name).expect("valid point");
    Pos::new(x, y)
}

#[test]
fn five_in_every_rule() {
    for rule in Rule::ALL {
        let mut b = board(rule, "b:d8 b:e8 b:f8 b:g8 w:d9 w:e9 w:f9");
        assert_eq!(b.threat(at("h8"), Color::Black), Threat::Five, "{rule:?}");
        assert_eq!(b.threat(at("c8"), Color::Black), Threat::Five, "{rule:?}");
        b.make(at("h8"), Color::Black);
        assert!(b.wins_through(at("h8")), "{rule:?}");
    }
}

#[test]
fn overlines() {
    // X X X . X X: h8 makes six.
    let stones = "b:e8 b:f8 b:g8 b:i8 b:j8";
    let white = "w:e8 w:f8 w:g8 w:i8 w:j8";
    for (rule, black_wins, white_wins) in [
        (Rule::Freestyle, true, true),
        (Rule::Standard, false, false),
        (Rule::Renju, false, true),
        (Rule::Caro, true, true),
        (Rule::CaroExact, false, false),
    ] {
        let b = board(rule, stones);
        assert_eq!(
            b.threat(at("h8"), Color::Black) == Threat::Five,
            black_wins,
            "{rule:?} black"
        );
        let w = board(rule, white);
        assert_eq!(
            w.threat(at("h8"), Color::White) == Threat::Five,
            white_wins,
            "{rule:?} white"
        );
    }
    let mut renju = board(Rule::Renju, stones);
    assert!(renju.is_forbidden(at("h8")), "renju: black's overline is forbidden");
    let mut standard = board(Rule::Standard, stones);
    assert!(
        !standard.is_forbidden(at("h8")),
        "standard: an overline is legal, it just does not win"
    );
}

#[test]
fn caro_blocked_fives() {
    // O X X X X . O: the five would be capped by white at both ends.
    let capped = "b:d8 b:e8 b:f8 b:g8 w:c8 w:i8";
    for rule in [Rule::Caro, Rule::CaroExact] {
        let b = board(rule, capped);
        assert_ne!(b.threat(at("h8"), Color::Black), Threat::Five, "{rule:?}");
        // Capped on one side only: a win.
        let open = board(rule, "b:d8 b:e8 b:f8 b:g8 w:c8");
        assert_eq!(open.threat(at("h8"), Color::Black), Threat::Five, "{rule:?}");
        // The board edge is not a block.
        let edge = board(rule, "b:a8 b:b8 b:c8 b:d8 w:f8");
        assert_eq!(edge.threat(at("e8"), Color::Black), Threat::Five, "{rule:?}");
    }
    for rule in [Rule::Freestyle, Rule::Standard, Rule::Renju] {
        assert_eq!(
            board(rule, capped).threat(at("h8"), Color::Black),
            Threat::Five,
            "{rule:?}"
        );
    }
}

#[test]
fn renju_forbidden_shapes() {
    let cases = [
        // (black stones, point, forbidden?)
        ("b:e8 b:f8 b:g8 b:h5 b:h6 b:h7", "h8", true), // double four on two lines
        ("b:e8 b:f8 b:g8 b:k8 b:l8 b:m8", "i8", true), // two fours on one line
        ("b:f8 b:g8 b:h6 b:h7", "h8", true),           // double three
        ("b:f8 b:g8 b:h6 b:h7 w:e8", "h8", false),     // one three is blocked: a plain three
        ("b:f8 b:g8 b:h5 b:h6 b:h7", "h8", false),     // four-three is allowed
        // Five takes precedence over an overline in another line.
        ("b:d8 b:e8 b:f8 b:g8 b:h4 b:h5 b:h6 b:h7 b:h9", "h8", false),
        // ... and over a double four.
        ("b:d8 b:e8 b:f8 b:g8 b:h5 b:h6 b:h7 b:i9 b:j10 b:k11", "h8", false),
    ];
    for (stones, point, forbidden) in cases {
        let mut b = board(Rule::Renju, stones);
        assert_eq!(b.is_forbidden(at(point)), forbidden, "{stones} at {point}");
        let mut w = board(
            Rule::Renju,
            &stones.replace("b:", "x:").replace("w:", "b:").replace("x:", "w:"),
        );
        assert!(
            w.is_legal(at(point), Color::White),
            "white has no forbidden points: {stones}"
        );
        let mut free = board(Rule::Freestyle, stones);
        assert!(!free.is_forbidden(at(point)), "no forbidden points in freestyle");
    }
}

#[test]
fn renju_false_double_three_is_recursive() {
    // h8 makes a row three (f8 g8 h8) and a column three (h6 h7 h8). White h4 leaves h9 as
    // the column's only straight-four point. With i10, j9 and k9, a black stone on h9
    // (after h8) would make a four and two real threes: h9 is forbidden, so the column
    // three is false and h8 is legal.
    let base = "b:f8 b:g8 b:h6 b:h7 b:j9 b:k9 w:h4 w:a1 w:c1 w:e1";
    let mut b = board(Rule::Renju, &format!("{base} b:i10"));
    assert_eq!(
        b.threat(at("h8"), Color::Black),
        Threat::Forbidden,
        "looks like a double three"
    );
    assert!(!b.is_forbidden(at("h8")), "but the column three is false");
    b.make(at("h8"), Color::Black);
    assert!(b.is_forbidden(at("h9")), "because h9 would be forbidden");
    // Without i10, h9 is a legal straight four point: h8 is a real double three.
    let mut real = board(Rule::Renju, base);
    assert!(real.is_forbidden(at("h8")));
}

#[test]
fn renju_three_completed_only_by_a_five_is_not_a_three() {
    // c8 makes c8 _ e6 f5 (anti-diagonal) and c8 _ e10 f11 (diagonal). The anti-diagonal's
    // only straight-four point d7 also completes black's five d7..h7, so that line is a
    // four, not a three, and c8 is legal. GomocupJudge's check_forbid.py agrees; found by a
    // differential test against it (see the issue 2 notes).
    let mut b = board(
        Rule::Renju,
        "b:f11 b:e7 b:j11 b:j9 b:e6 b:f6 b:g10 b:g7 b:e10 b:i10 b:k8 b:g6 b:j8 b:e11 b:k9 b:k6 b:h6 \
         b:h7 b:e9 b:f5 b:f7 b:g8 w:i11 w:j5 w:k11 w:i8 w:j10 w:g5 w:h10 w:e5 w:i7 w:h11 w:f8 w:h9 w:i6",
    );
    assert!(!b.is_forbidden(at("c8")));
}

#[test]
fn renju_fixtures_from_renjunet_diagrams() {
    let text = include_str!("data/katagomo_renju_forbidden.tsv");
    let puzzles = parse_puzzles(text).expect("fixture parses");
    assert_eq!(puzzles.len(), 6);
    for p in puzzles {
        let (point, verdict) = p.expected.split_once(": ").expect("'point: verdict'");
        let mut b = p.board();
        let q = at(point);
        let legal = b.is_legal(q, p.to_move);
        let want_legal = verdict.starts_with("NOT forbidden");
        assert_eq!(legal, want_legal, "{}: {}", p.id, p.expected);
    }
}

/// The pattern tables say "five" exactly when a direct scan of the stones finds a win.
#[test]
fn tables_agree_with_direct_win_scan() {
    for (i, rule) in Rule::ALL.into_iter().enumerate() {
        let mut rng = 1000 + i as u64;
        for _game in 0..12 {
            let mut b = Board::new(15, 15, rule);
            let mut c = Color::Black;
            for _ply in 0..120 {
                let empties: Vec<Pos> = b.candidates().iter().collect();
                if empties.is_empty() {
                    break;
                }
                for &p in &empties {
                    for side in [Color::Black, Color::White] {
                        let five = b.threat(p, side) == Threat::Five;
                        b.make(p, side);
                        let scan = b.wins_through(p);
                        b.undo();
                        assert_eq!(five, scan, "{rule:?} {side:?} at {p}\n{}", b.picture());
                    }
                }
                // Play a random non-winning move to keep the game going.
                let r = splitmix64(&mut rng) as usize;
                let quiet: Vec<Pos> = empties
                    .iter()
                    .copied()
                    .filter(|&p| b.threat(p, c) != Threat::Five)
                    .collect();
                let Some(&p) = quiet.get(r % quiet.len().max(1)) else {
                    break;
                };
                b.make(p, c);
                c = c.opposite();
            }
        }
    }
}
