//! `pbrain-sente solve`: prove or refute a VCF (or VCT) for one position or for every
//! puzzle of a TSV file, checking every reported win by replaying it.
//!
//! ```text
//! pbrain-sente solve [--vct] [--nodes N] [--depth D] --pos MOVES [--rule R] [--size N] [--side black|white]
//! pbrain-sente solve [--vct] [--nodes N] [--depth D] --tsv FILE [--match TEXT] [--limit K] [--verbose]
//! ```
//! `--pos` takes moves in pos notation (`h8i9j10`), black first; the side to move is the
//! attacker unless `--side` says otherwise. With `--tsv`, rows whose `expected` column
//! says "wins by VCF" (or "by VCT" with `--vct`) are solved for their side to move. VCF uses
//! the iterative-deepening four search, VCT the proof-number search (`search::dfpn`).

use std::time::Instant;

use crate::game::{Board, Color, Rule};
use crate::search::dfpn::DfpnSolver;
use crate::search::threats::{verify_win_line, Effort, Proof, VcfSolver};

use super::positions::{moves_from_pos_string, parse_puzzles};

struct Options {
    vct: bool,
    nodes: u64,
    depth: u32,
    pos: Option<String>,
    rule: Rule,
    size: usize,
    side: Option<Color>,
    tsv: Option<String>,
    filter: Option<String>,
    limit: usize,
    verbose: bool,
}

fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        vct: false,
        nodes: 2_000_000,
        depth: 128,
        pos: None,
        rule: Rule::Freestyle,
        size: 15,
        side: None,
        tsv: None,
        filter: None,
        limit: usize::MAX,
        verbose: false,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().cloned().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--vct" => o.vct = true,
            "--vcf" => o.vct = false,
            "--verbose" => o.verbose = true,
            "--nodes" => o.nodes = value()?.parse().map_err(|_| "bad --nodes")?,
            "--depth" => o.depth = value()?.parse().map_err(|_| "bad --depth")?,
            "--pos" => o.pos = Some(value()?),
            "--rule" => o.rule = Rule::from_name(&value()?).ok_or("unknown --rule")?,
            "--size" => o.size = value()?.parse().map_err(|_| "bad --size")?,
            "--side" => {
                o.side = Some(match value()?.as_str() {
                    "black" => Color::Black,
                    "white" => Color::White,
                    _ => return Err("--side is black or white".into()),
                })
            }
            "--tsv" => o.tsv = Some(value()?),
            "--match" => o.filter = Some(value()?),
            "--limit" => o.limit = value()?.parse().map_err(|_| "bad --limit")?,
            other => return Err(format!("unknown option {other}")),
        }
    }
    if o.pos.is_none() == o.tsv.is_none() {
        return Err("give exactly one of --pos and --tsv".into());
    }
    Ok(o)
}

/// Solve one position; returns the proof, nodes and microseconds.
pub(crate) fn solve_position(board: &Board, attacker: Color, vct: bool, depth: u32, nodes: u64) -> (Proof, u64, u128) {
    let mut b = board.clone();
    let start = Instant::now();
    let effort = Effort::new(nodes, None, None);
    let (proof, used) = if vct {
        let mut s = DfpnSolver::new(&mut b, attacker, effort);
        let p = s.solve(depth);
        (p, s.effort.nodes)
    } else {
        let mut s = VcfSolver::new(&mut b, attacker, effort);
        let p = s.solve(depth);
        (p, s.effort.nodes)
    };
    (proof, used, start.elapsed().as_micros())
}

/// The result in words. A VCT "no win" is only as wide as the threat moves the
/// proof-number search tries (fours, threes, set-ups near the last stones; see
/// `threats::threat_moves`), so it says so.
fn describe(proof: &Proof, vct: bool) -> String {
    match proof {
        Proof::Win(line) => format!(
            "WIN {}",
            line.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(" ")
        ),
        Proof::NoWin if vct => "NO WIN among the threat moves searched".into(),
        Proof::NoWin => "NO WIN".into(),
        Proof::Unknown => "UNKNOWN (budget)".into(),
    }
}

const USAGE: &str =
    "usage: pbrain-sente solve [--vct] [--nodes N] [--depth D] --pos MOVES [--rule R] [--size N] [--side black|white]
       pbrain-sente solve [--vct] [--nodes N] [--depth D] --tsv FILE [--match TEXT] [--limit K] [--verbose]
VCF by default, VCT (proof-number search) with --vct; every win found is replayed and checked.";

pub fn run(args: &[String]) -> i32 {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return 0;
    }
    let o = match parse_args(args) {
        Ok(o) => o,
        Err(e) => {
            println!("solve: {e}\n{USAGE}");
            return 2;
        }
    };
    let kind = if o.vct { "VCT" } else { "VCF" };
    if let Some(pos) = &o.pos {
        let moves = match moves_from_pos_string(pos, o.size) {
            Ok(m) => m,
            Err(e) => {
                println!("solve: {e}");
                return 2;
            }
        };
        let board = Board::from_moves(o.size, o.size, o.rule, &moves);
        let attacker = o.side.unwrap_or_else(|| board.side_to_move());
        let (proof, nodes, us) = solve_position(&board, attacker, o.vct, o.depth, o.nodes);
        let check = match &proof {
            Proof::Win(line) => match verify_win_line(&board, attacker, line) {
                Ok(()) => " (line verified)".to_string(),
                Err(e) => format!(" (LINE INVALID: {e})"),
            },
            _ => String::new(),
        };
        println!(
            "{kind} for {attacker:?}: {}{check}; {nodes} nodes, {:.3} ms",
            describe(&proof, o.vct),
            us as f64 / 1000.0
        );
        return 0;
    }
    let path = o.tsv.as_deref().unwrap_or_default();
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            println!("solve: cannot read {path}: {e}");
            return 2;
        }
    };
    let puzzles = match parse_puzzles(&text) {
        Ok(p) => p,
        Err(e) => {
            println!("solve: {path}: {e}");
            return 2;
        }
    };
    let wanted = format!("wins by {kind}");
    let (mut total, mut solved, mut refuted, mut invalid, mut total_us, mut total_nodes) = (0, 0, 0, 0, 0u128, 0u64);
    let mut worst_us = 0u128;
    for p in puzzles.iter().filter(|p| p.expected.contains(&wanted)) {
        if o.filter
            .as_ref()
            .is_some_and(|f| !p.id.contains(f.as_str()) && !p.notes.contains(f.as_str()))
        {
            continue;
        }
        if total >= o.limit {
            break;
        }
        total += 1;
        let board = p.board();
        let (proof, nodes, us) = solve_position(&board, p.to_move, o.vct, o.depth, o.nodes);
        total_us += us;
        total_nodes += nodes;
        worst_us = worst_us.max(us);
        let status = match &proof {
            Proof::Win(line) => match verify_win_line(&board, p.to_move, line) {
                Ok(()) => {
                    solved += 1;
                    "solved"
                }
                Err(_) => {
                    invalid += 1;
                    "INVALID LINE"
                }
            },
            Proof::NoWin => {
                refuted += 1;
                "NO WIN FOUND (the puzzle says there is one)"
            }
            Proof::Unknown => "budget",
        };
        if o.verbose || status != "solved" {
            println!(
                "{}: {status}: {} ({nodes} nodes, {:.2} ms)",
                p.id,
                describe(&proof, o.vct),
                us as f64 / 1000.0
            );
        }
    }
    println!(
        "{kind}: solved {solved}/{total} ({refuted} refuted, {invalid} invalid lines, {} over budget); \
         {total_nodes} nodes, total {:.1} ms, mean {:.3} ms, worst {:.1} ms, budget {} nodes",
        total - solved - refuted - invalid,
        total_us as f64 / 1000.0,
        total_us as f64 / 1000.0 / total.max(1) as f64,
        worst_us as f64 / 1000.0,
        o.nodes
    );
    0
}
