//! `sente-match`: engine-vs-engine matches between Piskvork-protocol engines, refereed by
//! Sente's own game module. See `--help` and the README section "Matches (sente-match)".
//!
//! Modules: `cli` (arguments), `engine` (child processes), `referee` (one game), `types`
//! (games, results and faults, shared by the others), `clock`
//! (time controls), `openings` (opening files and symmetries), `stats` (Elo, LOS, SPRT),
//! `records` (SGF and JSON lines), `report` (progress and the final table), `sys` (Ctrl-C
//! and process-group signals).

mod cli;
mod clock;
mod engine;
mod openings;
mod records;
mod referee;
mod report;
mod stats;
mod sys;
mod types;

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Sender};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context, Result};

use cli::{Config, Parsed};
use engine::{Engine, Reply};
use openings::Opening;
use referee::Seat;
use report::Tally;
use stats::Verdict;
use types::{FaultKind, GameSpec};

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match cli::parse(&args) {
        Ok(Parsed::Help) => {
            print!("{}", cli::USAGE);
            0
        }
        Err(e) => {
            eprintln!("sente-match: {e}");
            2
        }
        Ok(Parsed::Run(cfg)) => match run(&cfg) {
            Ok(code) => code,
            Err(e) => {
                eprintln!("sente-match: {e:#}");
                1
            }
        },
    };
    std::process::exit(code);
}

enum Msg {
    Game(Box<types::GameRecord>),
    /// An engine kept between games did not exit after the final END.
    Hang(usize),
}

fn run(cfg: &Config) -> Result<i32> {
    sys::install_handlers();
    let names = engine_names(cfg)?;
    let seed = cfg.seed.unwrap_or_else(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
    });
    let openings = match &cfg.openings {
        Some(path) => {
            let (list, warnings) = openings::load(path, cfg.openings_format, cfg.width, cfg.height, cfg.rule)
                .map_err(anyhow::Error::msg)?;
            for w in warnings {
                eprintln!("warning: {w}");
            }
            list
        }
        None => vec![Opening::empty()],
    };
    let schedule = schedule(cfg, &openings, seed);
    let mut sgf = open_append(cfg.sgf.as_deref())?;
    let mut jsonl = open_append(cfg.jsonl.as_deref())?;

    let tcs: Vec<String> = (0..names.len())
        .map(|i| format!("{} {}", names[i], cfg.tc_of(i)))
        .collect();
    println!(
        "sente-match: {} games, {} {}x{}, tc {} (tolerance {} ms), {}, concurrency {}, seed {seed}",
        schedule.len(),
        if cfg.swap2 {
            "swap2 (freestyle)"
        } else {
            cfg.rule.name()
        },
        cfg.width,
        cfg.height,
        tcs.join(", "),
        cfg.tolerance_ms,
        match &cfg.openings {
            Some(p) => format!("{} openings from {}", openings.len(), p.display()),
            None => "no openings".to_string(),
        },
        cfg.concurrency
    );

    let mut tally = Tally::new(names.clone());
    let next = AtomicUsize::new(0);
    let finish = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<Msg>();
    let workers = cfg.concurrency.min(schedule.len()).max(1);
    let mut decided = None;
    thread::scope(|s| -> Result<()> {
        for _ in 0..workers {
            let tx = tx.clone();
            let (names, schedule, next, finish) = (&names, &schedule, &next, &finish);
            s.spawn(move || worker(cfg, names, schedule, next, finish, tx));
        }
        drop(tx);
        for msg in rx {
            let rec = match msg {
                Msg::Hang(i) => {
                    tally.add_fault(i, FaultKind::HangOnEnd);
                    eprintln!("warning: {} did not exit after END, killed", names[i]);
                    continue;
                }
                Msg::Game(rec) => rec,
            };
            tally.add(&rec);
            if rec.outcome == types::Outcome::Aborted {
                println!("game {} aborted", rec.spec.number);
                continue;
            }
            if let Some(f) = sgf.as_mut() {
                writeln!(f, "{}", records::sgf(cfg, &names, &rec))?;
                f.flush()?;
            }
            if let Some(f) = jsonl.as_mut() {
                writeln!(f, "{}", records::json(cfg, &names, &rec))?;
                f.flush()?;
            }
            if !cfg.quiet {
                let line = tally.progress_line(&rec, schedule.len(), cfg.sprt.as_ref());
                println!("{line}");
                for f in &rec.faults {
                    println!(
                        "    fault: {} ({}) {}: {}",
                        names[f.engine],
                        types::color_name(f.color),
                        f.kind.name(),
                        f.detail
                    );
                }
            }
            if let Some(sprt) = &cfg.sprt {
                let t = tally.pairs[0].game_pairs;
                if decided.is_none() {
                    if let Some(v) = sprt.verdict_pairs(t) {
                        decided = Some(v);
                        finish.store(true, Ordering::SeqCst);
                    }
                }
            }
        }
        Ok(())
    })?;

    println!();
    print!("{}", tally.table(cfg.sprt.as_ref()));
    if let Some(v) = decided {
        let (a, b) = (&names[0], &names[1]);
        match v {
            Verdict::H1 => {
                println!("SPRT stopped the match: H1 accepted ({a} is stronger than {b} by elo1 rather than elo0)")
            }
            Verdict::H0 => println!("SPRT stopped the match: H0 accepted ({a} is not stronger than {b} by elo1)"),
        }
    }
    if sys::stop_requested() {
        println!("interrupted: results so far are above and in the record files");
        return Ok(130);
    }
    Ok(0)
}

fn worker(
    cfg: &Config,
    names: &[String],
    schedule: &[GameSpec],
    next: &AtomicUsize,
    finish: &AtomicBool,
    tx: Sender<Msg>,
) {
    let mut engines: Vec<Option<Engine>> = (0..cfg.engines.len()).map(|_| None).collect();
    while !finish.load(Ordering::SeqCst) && !sys::stop_requested() {
        let i = next.fetch_add(1, Ordering::SeqCst);
        let Some(spec) = schedule.get(i).cloned() else {
            break;
        };
        let (b, w) = (spec.black, spec.white);
        let mut black = engines[b].take();
        let mut white = engines[w].take();
        let seat = |index: usize, engine| Seat {
            index,
            name: &names[index],
            config: &cfg.engines[index],
            engine,
        };
        let rec = referee::play(cfg, spec, [seat(b, &mut black), seat(w, &mut white)]);
        engines[b] = black;
        engines[w] = white;
        if tx.send(Msg::Game(Box::new(rec))).is_err() {
            break;
        }
    }
    let grace = Duration::from_millis(cfg.end_grace_ms);
    for (i, slot) in engines.iter_mut().enumerate() {
        if let Some(mut e) = slot.take() {
            if sys::stop_requested() {
                e.kill();
            } else if !e.shutdown(grace) {
                let _ = tx.send(Msg::Hang(i));
            }
        }
    }
}

/// Every game of the match in order: for each round of games, each pair of engines;
/// game 2k and 2k+1 of a pair play opening k with colours swapped.
fn schedule(cfg: &Config, openings: &[Opening], seed: u64) -> Vec<GameSpec> {
    let mut rng = SplitMix(seed);
    let mut order: Vec<usize> = (0..openings.len()).collect();
    if cfg.random_order {
        for i in (1..order.len()).rev() {
            order.swap(i, (rng.next() % (i as u64 + 1)) as usize);
        }
    }
    let n = cfg.engines.len();
    let symmetries = openings::symmetry_count(cfg.width, cfg.height);
    let mut out = Vec::new();
    let mut sym = 0;
    for g in 0..cfg.games {
        if g % 2 == 0 && cfg.symmetry {
            sym = (rng.next() % symmetries as u64) as usize;
        }
        let opening = &openings[order[(g / 2) % order.len()]];
        for a in 0..n {
            for b in a + 1..n {
                let (black, white) = if g % 2 == 0 { (a, b) } else { (b, a) };
                out.push(GameSpec {
                    number: out.len() + 1,
                    black,
                    white,
                    opening: opening.transformed(sym, cfg.width, cfg.height),
                    symmetry: sym,
                    round: g / 2,
                });
            }
        }
    }
    out
}

/// SplitMix64: a small, good, seedable generator.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

fn open_append(path: Option<&Path>) -> Result<Option<BufWriter<File>>> {
    let Some(path) = path else { return Ok(None) };
    let f = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    Ok(Some(BufWriter::new(f)))
}

/// Display names: `name=`, else the engine's ABOUT name, else the file name; repeated
/// names get `-2`, `-3`, ….
fn engine_names(cfg: &Config) -> Result<Vec<String>> {
    let mut names: Vec<String> = Vec::new();
    for (i, e) in cfg.engines.iter().enumerate() {
        // Fail now, not with a crash in every game, when the executable is missing.
        engine::resolve(&e.launch.cmd).with_context(|| format!("engine {}", i + 1))?;
        let base = match &e.name {
            Some(n) => n.clone(),
            None => about_name(e, cfg.tolerance_ms.max(2000))
                .with_context(|| format!("engine {}", i + 1))?
                .unwrap_or_else(|| {
                    e.launch
                        .cmd
                        .file_name()
                        .map(|f| f.to_string_lossy().into_owned())
                        .unwrap_or_else(|| format!("engine{}", i + 1))
                }),
        };
        let mut name = base.clone();
        let mut k = 2;
        while names.contains(&name) {
            name = format!("{base}-{k}");
            k += 1;
        }
        names.push(name);
    }
    Ok(names)
}

/// Start the engine once, ask ABOUT, and read `name="…"` from the reply.
fn about_name(e: &cli::EngineConfig, wait_ms: u64) -> Result<Option<String>> {
    let mut engine = Engine::spawn(&e.launch, "about")?;
    if engine.send("ABOUT").is_err() {
        bail!("{} exited at once", e.launch.cmd.display());
    }
    let deadline = Instant::now() + Duration::from_millis(wait_ms);
    let mut name = None;
    while let Reply::Line(line, _) = engine.recv(Some(deadline)) {
        if let Some(n) = about_field(&line, "name") {
            name = Some(n);
            break;
        }
    }
    engine.shutdown(Duration::from_millis(300));
    Ok(name)
}

/// The value of `key="value"` in an ABOUT line.
fn about_field(line: &str, key: &str) -> Option<String> {
    let lower = line.to_ascii_lowercase();
    let at = lower.find(&format!("{key}=\""))? + key.len() + 2;
    let rest = &line[at..];
    let value = &rest[..rest.find('"')?];
    (!value.trim().is_empty()).then(|| value.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn about_names() {
        let l = r#"name="Sente", version="0.1", author="Team", country="XX""#;
        assert_eq!(about_field(l, "name").as_deref(), Some("Sente"));
        assert_eq!(about_field(l, "author").as_deref(), Some("Team"));
        assert_eq!(about_field("MyBrain by me", "name"), None);
        assert_eq!(about_field(r#"name="", x"#, "name"), None);
    }

    #[test]
    fn schedule_swaps_colours_per_opening() {
        let args: Vec<String> = "--engine cmd=a --engine cmd=b --engine cmd=c --games 4"
            .split_whitespace()
            .map(String::from)
            .collect();
        let Ok(Parsed::Run(cfg)) = cli::parse(&args) else {
            panic!("parse")
        };
        let ops = vec![
            Opening {
                line: 1,
                stones: vec![(7, 7)],
            },
            Opening {
                line: 2,
                stones: vec![(7, 7), (8, 8)],
            },
        ];
        let s = schedule(&cfg, &ops, 1);
        assert_eq!(s.len(), 12); // 4 games x 3 pairs
        let ab: Vec<&GameSpec> = s.iter().filter(|g| g.black + g.white == 1).collect();
        assert_eq!(
            ab.iter().map(|g| (g.black, g.opening.line)).collect::<Vec<_>>(),
            vec![(0, 1), (1, 1), (0, 2), (1, 2)]
        );
        assert!(s.iter().enumerate().all(|(i, g)| g.number == i + 1));
    }
}
