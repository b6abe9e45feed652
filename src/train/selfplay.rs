//! `pbrain-sente selfplay`: games of the engine against itself, for training the
//! evaluation. Each game starts from an opening of a file (balanced openings, in turn
//! from a seeded shuffle), plays its first few moves with a little randomness (any of the
//! search's first root moves within `--margin` of the best of them, each scored by a short
//! search of the answer), and searches every move to a fixed node count (or
//! depth) with one thread per game, so that the data depend only on the options. The
//! games go to a data file, whole and in game order: the quiet searched positions as
//! lines of `train::dataset` (`--format tsv`, for the tables), or the whole games with
//! what the search said at every move (`--format games`, `train::games`). A file that
//! exists is continued (up to `--games` games in all). The searches evaluate as the
//! engine plays by default (`--nnue`, `--nnue-use` choose otherwise): the data of one
//! network train the next.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use crate::eval::file;
use crate::game::zobrist::splitmix64;
use crate::game::{Board, Color, Pos, Rule, Threat};
use crate::search::{Decision, Limits, Searcher, DEFAULT_MAX_DEPTH};

use super::dataset::Record;
use super::games::{self, kind_code, Game, Ply, KIND_SEARCH, MAX_ROOT, NO_SCORE};
use crate::tools::bench::NetChoice;
use crate::tools::positions::moves_from_pos_string;

/// The root moves (in the search's order, best first) the random plies choose from.
const CHOICES: usize = 8;
const TT_BYTES: usize = 16 << 20;

const HELP: &str = "usage: pbrain-sente selfplay --out FILE [options]
  --out FILE         the data file (continued if it exists)
  --format F         tsv (positions for the tables, the default) or games (whole games with
                     every move's search score and best moves, for the network)
  --games N          games in the file when done (default 100)
  --rule NAME        freestyle, standard, renju, caro, caro-exact (default freestyle)
  --size N           board size (default 15)
  --openings FILE    one opening a line: a pos string (h8i9j10) or x,y offsets from the
                     centre (0,0, 1,-1, ...); default: none (the empty board)
  --nodes N          nodes per move (default 20000)
  --depth D          depth per move instead (--nodes 0 --depth D)
  --random-plies K   plies after the opening chosen at random among near-best moves (default 4)
  --margin M         near-best: at most M below the best of the first 8 root moves, each
                     scored by a short search (nodes/4) of the answer (default 150)
  --threads T        games played at once (default: the number of cores)
  --seed S           seed of the opening order and the random plies (default 1)
  --eval-file FILE   search with these weights instead of the embedded ones
  --nnue FILE        search with this network (as --nnue-use value unless told otherwise)
  --nnue-use USE     off, value, policy, both, gated, gated-both; alone: the rule's embedded
                     network on any size (default: as the engine plays, the embedded network
                     behind the gate on the sizes it was measured on, elsewhere the tables)";

/// What a data file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// Quiet searched positions, one a line (`train::dataset`).
    Tsv,
    /// Whole games (`train::games`).
    Games,
}

#[derive(Clone, Debug)]
pub(crate) struct Options {
    pub(crate) out: String,
    pub(crate) format: Format,
    pub(crate) games: u64,
    pub(crate) rule: Rule,
    pub(crate) size: usize,
    pub(crate) openings: Vec<Vec<(Pos, Color)>>,
    pub(crate) nodes: u64,
    pub(crate) depth: i32,
    pub(crate) random_plies: usize,
    /// How far below the best a randomly chosen move may score.
    pub(crate) margin: i32,
    pub(crate) threads: usize,
    pub(crate) seed: u64,
    pub(crate) eval_file: Option<String>,
    /// The network the searches use (`--nnue FILE`, `--nnue-use USE`; by default as the
    /// engine plays), so that the data of network N can train network N + 1.
    pub(crate) net: NetChoice,
    /// Progress lines on stderr.
    pub(crate) progress: bool,
}

impl Options {
    pub(crate) fn new(out: &str) -> Options {
        Options {
            out: out.into(),
            format: Format::Tsv,
            games: 100,
            rule: Rule::Freestyle,
            size: 15,
            openings: Vec::new(),
            nodes: 20_000,
            depth: DEFAULT_MAX_DEPTH,
            random_plies: 4,
            margin: 150,
            threads: crate::engine::available_cores(),
            seed: 1,
            eval_file: None,
            net: NetChoice::default(),
            progress: false,
        }
    }

    fn parse(args: &[String]) -> Result<Options, String> {
        let mut o = Options::new("");
        o.progress = true;
        let mut args = args.to_vec();
        o.net = NetChoice::from_args(&mut args)?;
        let mut openings_file = None;
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let mut value = || it.next().cloned().ok_or_else(|| format!("{a} needs a value"));
            let num = |v: String| v.parse::<u64>().map_err(|_| format!("{a}: '{v}' is not a number"));
            match a.as_str() {
                "--out" => o.out = value()?,
                "--format" => {
                    o.format = match value()?.as_str() {
                        "tsv" => Format::Tsv,
                        "games" => Format::Games,
                        f => return Err(format!("unknown format '{f}': tsv or games")),
                    }
                }
                "--games" => o.games = num(value()?)?,
                "--rule" => {
                    let v = value()?;
                    o.rule = Rule::from_name(&v).ok_or_else(|| format!("unknown rule '{v}'"))?;
                }
                "--size" => o.size = num(value()?)? as usize,
                "--openings" => openings_file = Some(value()?),
                "--nodes" => o.nodes = num(value()?)?,
                "--depth" => o.depth = num(value()?)? as i32,
                "--random-plies" => o.random_plies = num(value()?)? as usize,
                "--margin" => o.margin = num(value()?)?.min(1 << 20) as i32,
                "--threads" => o.threads = num(value()?)?.max(1) as usize,
                "--seed" => o.seed = num(value()?)?,
                "--eval-file" => o.eval_file = Some(value()?),
                _ => return Err(format!("unknown option '{a}'")),
            }
        }
        if o.out.is_empty() {
            return Err("--out FILE is needed".into());
        }
        if !(crate::game::geometry::MIN_SIZE..=crate::game::geometry::MAX_SIZE).contains(&o.size) {
            return Err(format!("unsupported size {}", o.size));
        }
        if let Some(f) = openings_file {
            let text = std::fs::read_to_string(&f).map_err(|e| format!("cannot read {f}: {e}"))?;
            o.openings = parse_openings(&text, o.size).map_err(|e| format!("{f}: {e}"))?;
        }
        Ok(o)
    }
}

/// Openings, one a line: a pos string, or `x,y` offsets from the centre separated by
/// commas (the renju offset files). Stones alternate, black first.
pub(crate) fn parse_openings(text: &str, size: usize) -> Result<Vec<Vec<(Pos, Color)>>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let moves = if line.contains(',') {
            let nums: Result<Vec<i64>, _> = line.split(',').map(|v| v.trim().parse::<i64>()).collect();
            let nums = nums.map_err(|_| format!("line {}: bad offsets", i + 1))?;
            if nums.len() % 2 != 0 {
                return Err(format!("line {}: an odd number of offsets", i + 1));
            }
            let c = (size / 2) as i64;
            let mut moves = Vec::new();
            for (k, xy) in nums.chunks(2).enumerate() {
                let (x, y) = (c + xy[0], c + xy[1]);
                if !(0..size as i64).contains(&x) || !(0..size as i64).contains(&y) {
                    return Err(format!("line {}: off the board", i + 1));
                }
                let colour = if k % 2 == 0 { Color::Black } else { Color::White };
                moves.push((Pos::new(x as usize, y as usize), colour));
            }
            moves
        } else {
            moves_from_pos_string(line, size).map_err(|e| format!("line {}: {e}", i + 1))?
        };
        let mut b = Board::new(size, size, crate::game::Rule::Freestyle);
        for &(p, c) in &moves {
            if !b.is_empty(p) {
                return Err(format!("line {}: {p} twice", i + 1));
            }
            b.make(p, c);
        }
        out.push(moves);
    }
    Ok(out)
}

pub fn run(args: &[String]) -> i32 {
    if args.iter().any(|a| a == "--help" || a == "-h") || args.is_empty() {
        println!("{HELP}");
        return if args.is_empty() { 2 } else { 0 };
    }
    match Options::parse(args).and_then(|o| play(&o)) {
        Ok((games, positions)) => {
            println!("{games} games, {positions} positions written");
            0
        }
        Err(e) => {
            println!("selfplay: {e}");
            1
        }
    }
}

/// The games already complete in the data file (the next game number), cutting off a
/// partial last line.
fn resume(path: &str) -> Result<u64, String> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok(0);
    };
    let complete = match text.rfind('\n') {
        Some(i) => &text[..=i],
        None => "",
    };
    if complete.len() != text.len() {
        std::fs::write(path, complete).map_err(|e| format!("cannot write {path}: {e}"))?;
    }
    let last = super::dataset::parse(complete)?.iter().map(|r| r.game + 1).max();
    // Games are written whole and in order; the last game number is the last written.
    let mut next = last.unwrap_or(0);
    for line in complete.lines().rev() {
        if let Some(n) = line.strip_prefix("# game ").and_then(|s| s.split(' ').next()) {
            next = next.max(n.parse::<u64>().unwrap_or(0) + 1);
            break;
        }
    }
    Ok(next)
}

/// Play the missing games; returns (games played now, positions written now).
pub(crate) fn play(o: &Options) -> Result<(u64, u64), String> {
    let mut searcher_weights = crate::eval::Weights::default();
    if let Some(f) = &o.eval_file {
        searcher_weights.set_tables(file::load(f, Some(o.rule))?);
    }
    let (mut out, first) = match o.format {
        Format::Tsv => {
            let first = resume(&o.out)?;
            let out = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&o.out)
                .map_err(|e| format!("cannot open {}: {e}", o.out))?;
            (out, first)
        }
        Format::Games => games::open_for_append(&o.out)?,
    };
    if first >= o.games {
        return Ok((0, 0));
    }
    let next = AtomicU64::new(first);
    let stop = AtomicBool::new(false);
    let net = o.net.for_game(o.rule, o.size, o.size)?;
    let (tx, rx) = mpsc::channel::<(u64, Game)>();
    let start = Instant::now();
    let mut written = 0u64;
    let mut done = 0u64;
    std::thread::scope(|scope| -> Result<(), String> {
        for _ in 0..o.threads.max(1) {
            let (tx, next, stop, weights, net) = (tx.clone(), &next, &stop, searcher_weights.clone(), &net);
            scope.spawn(move || {
                let mut searcher = net.apply(Searcher::new(TT_BYTES));
                searcher.weights = weights;
                loop {
                    let g = next.fetch_add(1, Ordering::Relaxed);
                    if g >= o.games || stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let game = play_game(o, g, &mut searcher, stop);
                    if tx.send((g, game)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        // Write whole games in game order.
        let mut pending = BTreeMap::new();
        let mut want = first;
        let mut last_report = Instant::now();
        for (g, game) in rx {
            pending.insert(g, game);
            while let Some(game) = pending.remove(&want) {
                let (bytes, positions) = match o.format {
                    Format::Tsv => {
                        let records = quiet_positions(&game, want);
                        let mut text = String::new();
                        for r in &records {
                            text.push_str(&r.to_line());
                            text.push('\n');
                        }
                        text.push_str(&format!("# game {want} plies {}\n", game.plies.len()));
                        (text.into_bytes(), records.len())
                    }
                    Format::Games => (game.encode(), game.plies.len() - game.opening_plies),
                };
                if let Err(e) = out.write_all(&bytes).and_then(|_| out.flush()) {
                    stop.store(true, Ordering::Relaxed);
                    return Err(format!("cannot write {}: {e}", o.out));
                }
                written += positions as u64;
                done += 1;
                want += 1;
            }
            if o.progress && last_report.elapsed().as_secs() >= 2 {
                last_report = Instant::now();
                let secs = start.elapsed().as_secs_f64();
                let left = (o.games - first).saturating_sub(done);
                let eta = if done > 0 {
                    secs / done as f64 * left as f64
                } else {
                    0.0
                };
                eprintln!(
                    "games {}/{} positions {written} ({:.1} positions/s) ETA {}",
                    first + done,
                    o.games,
                    written as f64 / secs.max(1e-3),
                    format_secs(eta)
                );
            }
        }
        Ok(())
    })?;
    Ok((done, written))
}

fn format_secs(s: f64) -> String {
    let s = s.round() as u64;
    format!("{}h{:02}m{:02}s", s / 3600, s / 60 % 60, s % 60)
}

/// The positions of a game worth fitting the tables to: searched by the main search, no
/// five to make or answer, no proven score.
fn quiet_positions(game: &Game, number: u64) -> Vec<Record> {
    let mut board = Board::new(game.width, game.height, game.rule);
    let mut out = Vec::new();
    for (i, ply) in game.plies.iter().enumerate() {
        let quiet =
            board.threat_count(Color::Black, Threat::Five) == 0 && board.threat_count(Color::White, Threat::Five) == 0;
        if ply.kind == KIND_SEARCH && quiet && !crate::score::is_decisive(ply.score as i32) {
            out.push(Record {
                game: number,
                rule: game.rule,
                size: game.width,
                moves: board.moves().to_vec(),
                side: Game::colour(i),
                score: ply.score as i32,
                winner: game.winner,
            });
        }
        board.make(ply.mv, Game::colour(i));
    }
    out
}

/// Play game `g`.
fn play_game(o: &Options, g: u64, searcher: &mut Searcher, stop: &AtomicBool) -> Game {
    let mut rng = o.seed ^ g.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    splitmix64(&mut rng);
    let mut board = Board::new(o.size, o.size, o.rule);
    let mut plies = Vec::new();
    if !o.openings.is_empty() {
        // Openings in a shuffled order that depends only on the seed: game g takes the
        // g-th of a permutation (multiplicative, with a step coprime to the count).
        let n = o.openings.len() as u64;
        let mut seed = o.seed;
        let mut step = splitmix64(&mut seed) % n.max(1);
        while gcd(step, n) != 1 {
            step = (step + 1) % n.max(1);
            if step == 0 {
                step = 1;
            }
        }
        let offset = splitmix64(&mut seed) % n;
        let i = ((g % n) * step + offset) % n;
        for &(p, c) in &o.openings[i as usize] {
            board.make(p, c);
            plies.push(Ply::unsearched(p));
        }
    }
    searcher.clear();
    let limits = Limits {
        max_nodes: o.nodes,
        ..Limits::depth(if o.nodes > 0 { DEFAULT_MAX_DEPTH } else { o.depth })
    };
    let mut winner = None;
    let opening_plies = board.stone_count();
    while !board.is_full() && !stop.load(Ordering::Relaxed) {
        let us = board.side_to_move();
        let result = searcher.search(&board, us, &limits, stop, Instant::now(), &mut |_| {});
        if result.best == Pos::NONE {
            break; // renju: black has no legal move; a draw
        }
        let mut mv = result.best;
        if board.stone_count() < opening_plies + o.random_plies && result.decision == Decision::Search {
            mv = near_best_move(o, &mut board, us, &result.root_moves, searcher, stop, &mut rng).unwrap_or(mv);
        }
        let to_i16 = |s: i32| s.clamp(-(i16::MAX as i32), i16::MAX as i32) as i16;
        plies.push(Ply {
            mv,
            kind: kind_code(result.decision),
            score: to_i16(result.score),
            best: result.best,
            root: result
                .root_moves
                .iter()
                .filter(|&&(m, s)| m != result.best && s > -crate::score::INFINITY)
                .take(MAX_ROOT)
                .map(|&(m, s)| (m, to_i16(s)))
                .collect(),
        });
        debug_assert_ne!(to_i16(result.score), NO_SCORE);
        board.make(mv, us);
        if board.wins_through(mv) {
            winner = Some(us);
            break;
        }
    }
    Game {
        rule: o.rule,
        width: o.size,
        height: o.size,
        opening_plies,
        winner,
        nodes: o.nodes.min(u32::MAX as u64) as u32,
        plies,
    }
}

/// A random move among the first `CHOICES` root moves whose score, from a short search
/// of the opponent's answer, is within `--margin` of the best of them. (The root scores of
/// a search stopped by its node limit are no guide: most moves were not searched in its
/// last iteration.)
fn near_best_move(
    o: &Options,
    board: &mut Board,
    us: Color,
    root_moves: &[(Pos, i32)],
    searcher: &mut Searcher,
    stop: &AtomicBool,
    rng: &mut u64,
) -> Option<Pos> {
    let limits = Limits {
        max_nodes: o.nodes / 4,
        ..Limits::depth(if o.nodes > 0 {
            DEFAULT_MAX_DEPTH
        } else {
            (o.depth - 1).max(1)
        })
    };
    let mut scored = Vec::new();
    for &(m, _) in root_moves.iter().take(CHOICES) {
        board.make(m, us);
        let score = if board.wins_through(m) {
            crate::score::win_in(1)
        } else if board.is_full() {
            0
        } else {
            -searcher
                .search(board, us.opposite(), &limits, stop, Instant::now(), &mut |_| {})
                .score
        };
        board.undo();
        scored.push((m, score));
    }
    let best = scored.iter().map(|&(_, s)| s).max()?;
    let near: Vec<Pos> = scored
        .iter()
        .filter(|&&(_, s)| s >= best - o.margin)
        .map(|&(m, _)| m)
        .collect();
    Some(near[(splitmix64(rng) % near.len() as u64) as usize])
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_searches_evaluate_as_the_engine_plays_unless_told() {
        let args = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        let net_of = |s: &str| {
            let o = Options::parse(&args(s)).unwrap();
            o.net.for_game(o.rule, o.size, o.size).unwrap()
        };
        let default = net_of("--out x");
        assert!(default.net.is_some() && default.net_use == crate::search::NetUse::default());
        assert!(
            net_of("--out x --size 20").net.is_none(),
            "the tables on a size not measured"
        );
        let off = net_of("--out x --nnue-use off");
        assert!(off.net_use.is_off());
        let on20 = net_of("--out x --size 20 --nnue-use gated");
        assert!(on20.net.is_some() && !on20.net_use.is_off());
        assert!(Options::parse(&args("--out x --nnue-use sometimes")).is_err());
        // A file's network plays only the games of its rule.
        let file = std::env::temp_dir().join(format!("sente-selfplay-renju-{}.nnue", std::process::id()));
        std::fs::write(&file, crate::nnue::Network::zero(Rule::Renju).to_bytes()).unwrap();
        let choice = |rule: &str| {
            let o = Options::parse(&args(&format!("--out x --rule {rule} --nnue {}", file.display()))).unwrap();
            o.net.for_game(o.rule, o.size, o.size)
        };
        assert!(choice("renju").unwrap().net.is_some_and(|n| n.rule == Rule::Renju));
        assert_eq!(choice("freestyle").unwrap_err(), "the network is for renju");
        std::fs::remove_file(&file).unwrap();
    }

    #[test]
    fn openings_both_formats() {
        let o = parse_openings("# c\nh8i9\n0,0, 1,-1, 2,2\n", 15).unwrap();
        assert_eq!(o.len(), 2);
        assert_eq!(o[0], moves_from_pos_string("h8i9", 15).unwrap());
        assert_eq!(o[1][1], (Pos::new(8, 6), Color::White));
        assert!(parse_openings("0,0, 9,9", 15).is_err());
        assert!(parse_openings("h8h8", 15).is_err());
    }

    #[test]
    fn whole_games_are_written_checked_and_continued() {
        let dir = std::env::temp_dir().join(format!("sente-selfplay-games-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("data.games").to_str().unwrap().to_string();
        let mut o = Options::new(&path);
        o.format = Format::Games;
        (o.games, o.size, o.nodes, o.depth, o.threads) = (3, 9, 0, 2, 2);
        o.openings = parse_openings("e5\ne5d4\n", 9).unwrap();
        let (games, positions) = play(&o).unwrap();
        assert_eq!(games, 3);
        let read = games::read(&path).unwrap();
        let summary = games::summarise(&read).unwrap();
        assert_eq!((summary.games, summary.searched), (3, positions));
        for g in &read {
            assert!(g.opening_plies >= 1 && g.opening_plies <= 2);
            for (i, ply) in g.plies.iter().enumerate() {
                // The opening's stones are not searched; every other move is, with a
                // score and a best move, and its root moves are other moves.
                assert_eq!(ply.searched(), i >= g.opening_plies, "{i}");
                if ply.searched() {
                    assert_ne!(ply.score, NO_SCORE);
                    assert!(!ply.best.is_none());
                    assert!(ply.root.iter().all(|&(m, _)| m != ply.best));
                }
            }
        }
        // The TSV writer's positions are the quiet main-search ones of the same games.
        let tsv: usize = read
            .iter()
            .enumerate()
            .map(|(n, g)| quiet_positions(g, n as u64).len())
            .sum();
        assert!(tsv > 0 && (tsv as u64) < positions);
        // Continued: the file keeps its games and gets the missing one.
        o.games = 4;
        assert_eq!(play(&o).unwrap().0, 1);
        let more = games::read(&path).unwrap();
        assert_eq!(more[..3], read[..]);
        assert_eq!(more.len(), 4);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn small_run_writes_records_the_reader_parses() {
        let dir = std::env::temp_dir().join(format!("sente-selfplay-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("data.tsv");
        let path = path.to_str().unwrap().to_string();
        let mut o = Options::new(&path);
        o.games = 3;
        o.size = 9;
        o.nodes = 0;
        o.depth = 2;
        o.threads = 2;
        o.openings = parse_openings("e5\ne5d4\n", 9).unwrap();
        let (games, positions) = play(&o).unwrap();
        assert_eq!(games, 3);
        let records = super::super::dataset::read(&path).unwrap();
        assert_eq!(records.len() as u64, positions);
        assert!(positions > 5, "{positions}");
        for r in &records {
            assert!(r.game < 3 && r.rule == Rule::Freestyle && r.size == 9);
            let b = r.board();
            assert_eq!(b.side_to_move(), r.side);
            assert_eq!(
                b.threat_count(Color::Black, Threat::Five),
                0,
                "no five to make or answer"
            );
            assert_eq!(b.threat_count(Color::White, Threat::Five), 0);
        }
        // Game numbers appear in order, and every game is finished (each record has the
        // game's result; a won game ended with a five).
        assert!(records.windows(2).all(|w| w[0].game <= w[1].game));
        // Continuing: more games are appended, the first ones are kept and the same.
        let before = std::fs::read_to_string(&path).unwrap();
        o.games = 4;
        let (games, _) = play(&o).unwrap();
        assert_eq!(games, 1);
        let after = std::fs::read_to_string(&path).unwrap();
        assert!(after.starts_with(&before));
        assert!(super::super::dataset::read(&path).unwrap().iter().any(|r| r.game == 3));
        // The random plies make games from one opening differ.
        let path3 = dir.join("one-opening.tsv");
        let mut one = o.clone();
        one.out = path3.to_str().unwrap().to_string();
        one.openings = parse_openings("e5\n", 9).unwrap();
        one.games = 4;
        one.margin = 100_000;
        play(&one).unwrap();
        let mut games: Vec<String> = Vec::new();
        for r in super::super::dataset::read(&one.out).unwrap() {
            let moves: String = r.moves.iter().map(|(p, _)| p.to_string()).collect();
            match games.get_mut(r.game as usize) {
                Some(g) => *g = moves,
                None => games.push(moves),
            }
        }
        games.sort();
        games.dedup();
        assert!(games.len() >= 3, "{games:?}");
        // The same options play the same games.
        let path2 = dir.join("again.tsv");
        o.out = path2.to_str().unwrap().to_string();
        play(&o).unwrap();
        assert_eq!(std::fs::read_to_string(&path2).unwrap(), after);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
