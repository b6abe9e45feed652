//! `pbrain-sente bench`: a fixed-depth search of fixed positions. The total node count
//! is a signature of the search (identical on every run and machine for the same code);
//! the times give the speed. A second part measures raw make+undo speed of the board.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use std::sync::Arc;

use crate::game::{Board, Color, Rule};
use crate::nnue::{embedded, embedded_for, NetEvaluator, Network};
use crate::search::{Limits, NetUse, Searcher};

use super::positions::moves_from_pos_string;

/// The ten positions of Rapfi's `bench` command (dhbloo/rapfi, Rapfi/command/benchmark.cpp,
/// commit 3aedf3a; see shared/testdata/rapfi_bench_positions): rule, size, moves.
pub const POSITIONS: [(Rule, usize, &str); 10] = [
    (Rule::Freestyle, 15, "h8g7f6g8g9"),
    (Rule::Freestyle, 15, "h2h5h4f6"),
    (Rule::Freestyle, 20, "e2f2h3g3g6h5f9"),
    (Rule::Freestyle, 20, "f5e3b7h5g3g4i6e4h4d4f2i5f4f6e5d6d7e7f8"),
    (Rule::Standard, 15, "h8h7j6i7f7"),
    (Rule::Standard, 15, "f6i9h8"),
    (Rule::Standard, 15, "b3k10g2f6"),
    (Rule::Renju, 15, "h8i9j10i8i7g9"),
    (Rule::Renju, 15, "h8h9j9j8f8i7g7i9h6e9f6k7l6i10i6f9g9g11h10i11i8"),
    (Rule::Renju, 15, "h8h9h6i10i6i9g9g8j11i7"),
];

// Depth 12 takes about 20 s on one core of the reference machine: long enough for a
// stable nodes/s figure, short enough to run before every commit.
pub const DEFAULT_DEPTH: i32 = 12;

/// A depth whose signature takes about a second: `tests/bench_signature.rs` and
/// `pbrain-sente bench --check` compare it with `SIGNATURES`.
pub const CHECK_DEPTH: i32 = 8;

/// The expected node signatures of `search_all` at `CHECK_DEPTH` and `DEFAULT_DEPTH`: the
/// one place they are kept. A change of the search that changes them on purpose updates
/// them here (and says so in its commit); any other change must leave them alone.
pub const SIGNATURES: [(i32, u64); 2] = [(CHECK_DEPTH, 281_002), (DEFAULT_DEPTH, 2_831_876)];

/// The expected signature at `depth`, if one is kept.
pub fn expected_signature(depth: i32) -> Option<u64> {
    SIGNATURES.iter().find(|s| s.0 == depth).map(|s| s.1)
}

/// The network the tools' searches use (`--nnue FILE`, `--nnue-use USE`; bench, analyze,
/// selfplay): bench plays it on the positions of its rule, the others by `for_game`.
#[derive(Clone, Debug, Default)]
pub struct NetChoice {
    pub net: Option<Arc<Network>>,
    pub net_use: NetUse,
    /// Whether either option was given.
    pub chosen: bool,
}

impl NetChoice {
    /// Take `--nnue FILE` and `--nnue-use USE` out of `args`.
    pub fn from_args(args: &mut Vec<String>) -> Result<NetChoice, String> {
        let mut out = NetChoice::default();
        let mut take = |flag: &str| -> Result<Option<String>, String> {
            match args.iter().position(|a| a == flag) {
                Some(i) if i + 1 < args.len() => {
                    let v = args.remove(i + 1);
                    args.remove(i);
                    Ok(Some(v))
                }
                Some(_) => Err(format!("{flag} needs a value")),
                None => Ok(None),
            }
        };
        if let Some(path) = take("--nnue")? {
            out.net = Some(Arc::new(Network::load(&path, None)?));
            out.net_use = NetUse::VALUE;
            out.chosen = true;
        }
        if let Some(u) = take("--nnue-use")? {
            out.chosen = true;
            out.net_use = NetUse::parse(&u)
                .ok_or_else(|| format!("--nnue-use {u}: off, value, policy, both, gated or gated-both"))?;
        }
        Ok(out)
    }

    /// What plays a game of `rule` on `width × height`: as the engine plays by default
    /// (the rule's embedded network behind the gate, on the sizes it was measured on)
    /// unless an option was given: a file's network, or with `--nnue-use` alone the
    /// rule's embedded one on any size. A file's network of another rule is an error.
    pub fn for_game(&self, rule: Rule, width: usize, height: usize) -> Result<NetChoice, String> {
        if !self.chosen {
            return Ok(NetChoice {
                net: embedded_for(rule, width, height),
                net_use: NetUse::default(),
                chosen: false,
            });
        }
        match &self.net {
            Some(n) if n.rule != rule => Err(format!("the network is for {}", n.rule.name())),
            Some(_) => Ok(self.clone()),
            None => Ok(NetChoice {
                net: embedded(rule),
                ..self.clone()
            }),
        }
    }

    fn searcher(&self) -> Searcher {
        self.apply(Searcher::new(TT_BYTES))
    }

    /// `searcher` with this network and use.
    pub fn apply(&self, mut searcher: Searcher) -> Searcher {
        searcher.net = self.net.clone();
        searcher.net_use = self.net_use;
        searcher
    }
}

/// `bench --check`: the signature at `CHECK_DEPTH` against `SIGNATURES`; exit code 1 if
/// it differs.
pub fn check() -> i32 {
    let (nodes, ms) = search_all(CHECK_DEPTH, false, &NetChoice::default());
    let expected = expected_signature(CHECK_DEPTH).expect("a kept signature");
    println!("depth {CHECK_DEPTH}: signature {nodes} ({ms} ms), expected {expected}");
    if nodes == expected {
        0
    } else {
        println!("the bench signature changed: update SIGNATURES in src/tools/bench.rs if that was meant");
        1
    }
}
const TT_BYTES: usize = 16 << 20;

pub(crate) fn bench_board(index: usize) -> Board {
    let (rule, size, moves) = POSITIONS[index];
    let moves = moves_from_pos_string(moves, size).expect("valid bench position");
    let mut board = Board::new(size, size, rule);
    for (p, c) in moves {
        board.make(p, c);
    }
    board
}

/// Search every position to `depth`; returns (total nodes, milliseconds).
pub fn search_all(depth: i32, print: bool, net: &NetChoice) -> (u64, u64) {
    let mut total_nodes = 0;
    let mut total_ms = 0;
    let stop = AtomicBool::new(false);
    for (i, &(rule, size, _)) in POSITIONS.iter().enumerate() {
        let board = bench_board(i);
        let us = board.side_to_move();
        let mut searcher = net.searcher();
        let start = Instant::now();
        let r = searcher.search(&board, us, &Limits::depth(depth), &stop, start, &mut |_| {});
        let ms = start.elapsed().as_millis() as u64;
        total_nodes += r.nodes;
        total_ms += ms;
        if print {
            println!(
                "position {:2} {:9} {}x{}: best {:4} score {:>6} depth {:2} nodes {:10} time {:6} ms",
                i + 1,
                rule.name(),
                size,
                size,
                r.best.to_string(),
                crate::score::format_score(r.score),
                r.depth,
                r.nodes,
                ms
            );
            if std::env::var_os("SENTE_BENCH_STATS").is_some() {
                println!("    {:?}", r.stats);
            }
        }
    }
    (total_nodes, total_ms)
}

/// Middle-game positions (15×15 freestyle) for the timed bench: see the file's header.
const MIDGAME: &str = include_str!("../../tests/data/midgame_15x15.txt");

/// Search every middle-game position with the time a manager's `timeout_turn` of `ms`
/// allows, as in a game: depth reached, nodes, nodes/s and time used per position, then
/// the median depth. Compare with other engines by scripts/depth-compare.py.
pub fn run_timed(ms: i64, net: &NetChoice) -> i32 {
    let tc = crate::search::time::TimeControl {
        turn_ms: ms,
        ..Default::default()
    };
    run_midgame(&format!("{ms} ms"), net, |board| Limits {
        budget: Some(tc.budget(board.empty_points().len())),
        ..Limits::depth(crate::search::DEFAULT_MAX_DEPTH)
    })
}

/// Search every middle-game position to `nodes` nodes: the same tree on every machine,
/// so an instruction count (callgrind) compares the cost of two builds or evaluations.
pub fn run_nodes(nodes: u64, net: &NetChoice) -> i32 {
    run_midgame(&format!("{nodes} nodes"), net, |_| Limits {
        max_nodes: nodes,
        ..Limits::depth(crate::search::DEFAULT_MAX_DEPTH)
    })
}

fn run_midgame(what: &str, net: &NetChoice, limits: impl Fn(&Board) -> Limits) -> i32 {
    let _ = Board::new(15, 15, Rule::Freestyle);
    let stop = AtomicBool::new(false);
    let mut depths = Vec::new();
    let (mut total_nodes, mut total_ms) = (0u64, 0u64);
    let lines = MIDGAME
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'));
    for (i, line) in lines.enumerate() {
        let moves = moves_from_pos_string(line, 15).expect("valid midgame position");
        let board = Board::from_moves(15, 15, Rule::Freestyle, &moves);
        let limits = limits(&board);
        let mut searcher = net.searcher();
        let start = Instant::now();
        let r = searcher.search(&board, board.side_to_move(), &limits, &stop, start, &mut |_| {});
        let used = start.elapsed().as_millis() as u64;
        println!(
            "midgame {:2}: best {:4} score {:>6} depth {:2} nodes {:9} nodes/s {:8} time {:5} ms",
            i + 1,
            r.best.to_string(),
            crate::score::format_score(r.score),
            r.depth,
            r.nodes,
            r.nodes * 1000 / used.max(1),
            used
        );
        depths.push(r.depth);
        total_nodes += r.nodes;
        total_ms += used;
    }
    depths.sort_unstable();
    let median = depths.get(depths.len() / 2).copied().unwrap_or(0);
    println!(
        "{} positions at {what}: median depth {median}, {} nodes/s, {} ms per move",
        depths.len(),
        total_nodes * 1000 / total_ms.max(1),
        total_ms / depths.len().max(1) as u64
    );
    0
}

/// The cost of the network's value (ns): after one move (and again after its undo) over
/// the candidates of the bench positions of its rule, and built from scratch.
fn evaluation_cost(net: &Arc<Network>) -> (f64, f64) {
    let mut boards: Vec<Board> = (0..POSITIONS.len())
        .filter(|&i| POSITIONS[i].0 == net.rule)
        .map(bench_board)
        .collect();
    if boards.is_empty() {
        boards.push(Board::new(15, 15, net.rule));
    }
    let mut sink = 0i64;
    let (mut evals, start) = (0u64, Instant::now());
    for _ in 0..20 {
        for b in boards.iter_mut() {
            let mut e = NetEvaluator::new(b, Arc::clone(net));
            let moves: Vec<_> = b.candidates().iter().collect();
            let c = b.side_to_move();
            for &p in &moves {
                b.make(p, c);
                sink += e.value(b, c.opposite()) as i64;
                b.undo();
                sink += e.value(b, c) as i64;
                evals += 2;
            }
        }
    }
    let incremental = start.elapsed().as_nanos() as f64 / evals as f64;
    let (mut built, start) = (0u64, Instant::now());
    while built < 2000 {
        for b in &boards {
            sink += NetEvaluator::new(b, Arc::clone(net)).value(b, Color::Black) as i64;
            built += 1;
        }
    }
    let scratch = start.elapsed().as_nanos() as f64 / built as f64;
    std::hint::black_box(sink);
    (incremental, scratch)
}

/// Make+undo cycles per second over the candidate moves of the bench positions.
pub(crate) fn make_undo_speed(cycles: u64) -> f64 {
    let mut boards: Vec<Board> = (0..POSITIONS.len()).map(bench_board).collect();
    let mut done = 0u64;
    let start = Instant::now();
    'outer: loop {
        for b in boards.iter_mut() {
            let moves: Vec<_> = b.candidates().iter().collect();
            let c = b.side_to_move();
            for &p in &moves {
                b.make(p, c);
                b.undo();
                done += 1;
                if done >= cycles {
                    break 'outer;
                }
            }
        }
    }
    done as f64 / start.elapsed().as_secs_f64()
}

pub fn run(depth: Option<i32>, cycles: Option<u64>, net: &NetChoice) -> i32 {
    let depth = depth.unwrap_or(DEFAULT_DEPTH);
    let cycles = cycles.unwrap_or(2_000_000);
    // Build the pattern tables first so their one-time cost is not timed.
    for (rule, _, _) in POSITIONS {
        let _ = Board::new(15, 15, rule);
    }
    let (nodes, ms) = search_all(depth, true, net);
    println!(
        "depth {depth}: total nodes {nodes} (signature), time {ms} ms, {} nodes/s",
        nodes * 1000 / ms.max(1)
    );
    let speed = make_undo_speed(cycles);
    println!(
        "make+undo: {:.0} per second ({cycles} cycles over the bench positions)",
        speed
    );
    if let Some(n) = &net.net {
        let (incremental, scratch) = evaluation_cost(n);
        println!(
            "network ({}): {incremental:.0} ns an evaluation after a move and its undo, {scratch:.0} ns from scratch",
            n.rule.name()
        );
    }
    0
}
