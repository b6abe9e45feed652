//! `pbrain-sente analyze`: search one position and show the work: every iteration (depth,
//! score, nodes, speed, PV), the root moves with their scores, and the pruning statistics.
//!
//! ```text
//! pbrain-sente analyze --pos MOVES [--rule R] [--size N] [--time MS | --depth D | --nodes N]
//!                      [--nnue FILE] [--nnue-use USE]
//! ```
//!
//! The search evaluates as the engine does by default (the rule's embedded network behind
//! the gate, on the sizes it was measured on); `--nnue FILE` (as `value` unless
//! `--nnue-use` says) or `--nnue-use USE` alone (the embedded network on any size; `off`:
//! the tables) choose otherwise. With a network the position's static value by it is
//! shown beside the tables'.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use crate::eval::{Evaluator, Weights};
use crate::game::{Board, Rule};
use crate::nnue::{NetEvaluator, SCORE_PER_LOGIT};
use crate::score::format_score;
use crate::search::time::Budget;
use crate::search::{Limits, NetUse, SearchEvent, Searcher, DEFAULT_MAX_DEPTH};

use super::bench::NetChoice;
use super::positions::moves_from_pos_string;

pub fn run(args: &[String], net: &NetChoice) -> i32 {
    let mut pos = String::new();
    let mut rule = Rule::Freestyle;
    let mut size = 15;
    let mut limits = Limits::depth(DEFAULT_MAX_DEPTH);
    let mut tt_mb = 64;
    let mut threads = 1;
    let mut time_ms = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let value = it.next().map(String::as_str).unwrap_or("");
        let num = value.parse::<u64>().ok();
        match (a.as_str(), num) {
            ("--pos", _) => pos = value.to_string(),
            ("--rule", _) => match Rule::from_name(value) {
                Some(r) => rule = r,
                None => return usage("unknown --rule"),
            },
            ("--size", Some(n)) => size = n as usize,
            ("--time", Some(ms)) => time_ms = Some(ms),
            ("--depth", Some(d)) => limits.max_depth = d as i32,
            ("--nodes", Some(n)) => limits.max_nodes = n,
            ("--hash", Some(mb)) => tt_mb = mb as usize,
            ("--threads", Some(n)) => threads = n.max(1) as usize,
            _ => return usage(&format!("bad option {a} {value}")),
        }
    }
    if !(5..=32).contains(&size) {
        return usage("--size is 5..32");
    }
    let moves = match moves_from_pos_string(&pos, size) {
        Ok(m) => m,
        Err(e) => return usage(&e),
    };
    let board = Board::from_moves(size, size, rule, &moves);
    let us = board.side_to_move();
    // Without a time, depth or node limit, a second.
    if time_ms.is_none() && limits.max_depth == DEFAULT_MAX_DEPTH && limits.max_nodes == 0 {
        time_ms = Some(1000);
    }
    if let Some(ms) = time_ms {
        let d = Duration::from_millis(ms);
        limits.budget = Some(Budget::fixed(d * 3 / 5, d));
    }
    print!("{}", board.picture());
    println!("{} {}x{}, {:?} to move", rule.name(), size, size, us);
    let mut net = match net.for_game(rule, size, size) {
        Ok(net) => net,
        Err(e) => return usage(&e),
    };
    if let Some(n) = &net.net {
        let mut e = NetEvaluator::new(&board, n.clone());
        println!(
            "static value: network {}, tables {}",
            e.evaluate(&board, us, SCORE_PER_LOGIT),
            Evaluator::new(&board, &Weights::default()).evaluate(&board, us)
        );
    }
    if net.net.is_none() || net.net_use.is_off() {
        net.net_use = NetUse::OFF;
    }
    let mut searcher = net.apply(Searcher::new(tt_mb << 20));
    searcher.threads = threads;
    let stop = AtomicBool::new(false);
    let start = Instant::now();
    let r = searcher.search(&board, us, &limits, &stop, start, &mut |event| {
        let SearchEvent::Iteration(info) = event else {
            return;
        };
        let pv: Vec<String> = info.pv.iter().map(|p| p.to_string()).collect();
        println!(
            "depth {:2}-{:<2} score {:>7} nodes {:10} {:8} n/s {:6} ms  pv {}",
            info.depth,
            info.seldepth,
            format_score(info.score),
            info.nodes,
            info.nodes * 1000 / info.elapsed_ms.max(1),
            info.elapsed_ms,
            pv.join(" ")
        );
    });
    println!(
        "best {} score {} depth {} ({:?}), {} nodes in {} ms",
        r.best,
        format_score(r.score),
        r.depth,
        r.decision,
        r.nodes,
        r.elapsed_ms
    );
    let mut roots = r.root_moves.clone();
    roots.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let shown: Vec<String> = roots
        .iter()
        .take(12)
        .map(|(p, s)| {
            if *s > -30_000 {
                format!("{p} {}", format_score(*s))
            } else {
                format!("{p} -")
            }
        })
        .collect();
    println!(
        "root moves (last iteration; only the best score is exact): {}",
        shown.join(", ")
    );
    // Every counter of the search, by name (the Debug form keeps up with new ones).
    println!("stats: {:?}", r.stats);
    0
}

fn usage(msg: &str) -> i32 {
    println!("analyze: {msg}\nusage: pbrain-sente analyze --pos MOVES [--rule R] [--size N] [--time MS | --depth D | --nodes N] [--hash MB] [--threads N] [--nnue FILE] [--nnue-use USE]");
    2
}
