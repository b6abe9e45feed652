//! The renju "find all points" tasks of the shared lfz084 collection (published problem
//! books; see shared/testdata/lfz084_renju_puzzles/SOURCE.md): free-three points,
//! closed-three points, closed-four points and double-three forbidden points. The data
//! is not redistributable, so this test reads it from `../shared/testdata` (or
//! `SENTE_TESTDATA`); it is opt-in (`scripts/test-shared.sh`) and fails when the data is
//! missing.

use sente::game::{Board, Color, LinePattern, Pos};
use sente::tools::positions::{parse_puzzles, points_after, Puzzle};

fn testdata() -> String {
    let dir = std::env::var("SENTE_TESTDATA")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/testdata").to_string());
    let path = format!("{dir}/lfz084_renju_puzzles/pattern_tasks.tsv");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e} (set SENTE_TESTDATA to the shared testdata)"))
}

/// Renju's closed three: a three along `dir` that a legal move turns into a four, but
/// that is not a real open three.
fn makes_closed_three(board: &mut Board, q: Pos, c: Color, dir: usize) -> bool {
    if !matches!(
        board.line_pattern(q, c, dir),
        LinePattern::B3 | LinePattern::F3 | LinePattern::F3x
    ) || board.makes_real_three(q, c, dir)
    {
        return false;
    }
    let step = sente::game::geometry::DIRS[dir];
    board.make(q, c);
    let four = (-4..=4).filter(|&k| k != 0).any(|k| {
        let e = q.step(k * step);
        board.is_empty(e) && board.line_pattern(e, c, dir).is_four() && board.is_legal(e, c)
    });
    board.undo();
    four
}

/// The points our board reports for one kind of task.
fn our_points(p: &Puzzle, mode: &str) -> Vec<Pos> {
    let mut board: Board = p.board();
    let c = p.to_move;
    let points: Vec<Pos> = board.points().collect();
    points
        .into_iter()
        .filter(|&q| {
            if !board.is_empty(q) {
                return false;
            }
            let pats: Vec<LinePattern> = (0..4).map(|d| board.line_pattern(q, c, d)).collect();
            match mode {
                "194" => board.is_legal(q, c) && (0..4).any(|d| board.makes_real_three(q, c, d)),
                "196" => board.is_legal(q, c) && (0..4).any(|d| makes_closed_three(&mut board, q, c, d)),
                "198" => board.is_legal(q, c) && pats.contains(&LinePattern::B4),
                // The tasks name lettered points and ask which are forbidden (one answer key
                // counts an overline point among its "double three" points).
                "200" => board.is_forbidden(q),
                _ => unreachable!(),
            }
        })
        .collect()
}

/// The points named in `labels=c3=A,l3=B,...`.
fn lettered_points(notes: &str) -> Vec<Pos> {
    let Some(i) = notes.find("labels=") else {
        return Vec::new();
    };
    notes[i + 7..]
        .split([',', ';'])
        .map_while(|item| item.split_once('='))
        .filter_map(|(point, _)| sente::game::geometry::parse_pos_token(point.trim()))
        .map(|(x, y)| Pos::new(x, y))
        .collect()
}

#[test]
#[ignore = "needs ../shared/testdata: run scripts/test-shared.sh"]
fn renju_point_finding_tasks() {
    let text = testdata();
    let tasks = parse_puzzles(&text).expect("pattern_tasks.tsv parses");
    let mut checked = 0;
    let mut wrong = Vec::new();
    let mut strict = Vec::new();
    for p in &tasks {
        let Some(mode) = ["194", "196", "198", "200"]
            .into_iter()
            .find(|m| p.notes.contains(&format!("mode={m};")))
        else {
            continue;
        };
        if p.notes.contains(" / A: ") {
            continue; // a question about a count, with lettered answers placed on the board
        }
        let mut want = points_after(&p.expected, "answer points:");
        let mut got = our_points(p, mode);
        // Multiple-choice tasks ask only about their lettered points.
        let labels = lettered_points(&p.notes);
        if !labels.is_empty() {
            got.retain(|q| labels.contains(q));
        }
        want.sort();
        got.sort();
        checked += 1;
        if want != got {
            let show = |v: &[Pos]| v.iter().map(|q| q.to_string()).collect::<Vec<_>>().join(" ");
            let line = format!("{} (mode {mode}): expected {} got {}", p.id, show(&want), show(&got));
            // Fours and forbidden points must agree exactly. Three classifications follow
            // conventions that differ between problem books (see the closing notes of
            // issue 2): those are reported, and must agree in the large majority.
            if mode == "198" || mode == "200" {
                strict.push(line);
            } else {
                println!("three-task disagreement: {line}");
                wrong.push(line);
            }
        }
    }
    println!("{checked} tasks checked, {} three-tasks disagree", wrong.len());
    assert!(checked >= 40, "expected the point-finding tasks, found {checked}");
    assert!(
        strict.is_empty(),
        "four / forbidden tasks disagree:\n{}",
        strict.join("\n")
    );
    assert!(
        wrong.len() * 10 <= checked,
        "{} of {checked} tasks disagree:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
