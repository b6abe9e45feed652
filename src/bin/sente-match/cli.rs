//! Command line: `sente-match [OPTIONS] --engine KEY=VALUE… --engine KEY=VALUE…`.

use std::path::PathBuf;

use sente::game::Rule;

use crate::clock::TimeControl;
use crate::engine::Launch;
use crate::openings::Format;
use crate::stats::Sprt;

pub const USAGE: &str = "\
sente-match: engine-vs-engine matches for Piskvork-protocol (pbrain) engines

Usage: sente-match [OPTIONS] --engine cmd=PATH [KEY=VALUE...] --engine cmd=PATH [KEY=VALUE...]...

Engine keys (after --engine, or after --each for all engines):
  cmd=PATH            the executable (a bare name is looked up on PATH)
  name=NAME           display name (default: the ABOUT name, else the file name)
  dir=DIR             working directory (default: the executable's directory)
  arg=ARG             a command-line argument (repeat for several)
  tc=SPEC             time control for this engine (default: --tc)
  memory=BYTES        INFO max_memory (default 367001600 = 350 MiB; 0 = unlimited)
  threads=N           INFO thread_num
  depth=N             INFO max_depth
  nodes=N             INFO max_node
  option.KEY=VALUE    an extra 'INFO KEY VALUE' line before each game
  swap2-fields=1      SWAP2BOARD stones as x,y,field (Rapfi 0.43 reads them so; the
                      judge sends x,y)

Options:
  --rule R            freestyle|standard|renju|caro|caro-exact or 0|1|4|8|9 (default freestyle),
                      or swap2: freestyle opened by swap2 as GomocupJudge plays it (the
                      first engine of a game proposes three stones, the second answers
                      SWAP, a move or two stones, the first then chooses on five)
  --size N|WxH        board size, 5..=32 (default 15)
  --games N           games per pair of engines (default 2)
  --tc SPEC           fastgame (5/120) | group (30/180) | final (300/1000) | TURN[/MATCH][+INC],
                      seconds; 0 = no limit (default fastgame)
  --tolerance MS      grace beyond the time limits before a timeout (default 1000)
  --start-timeout MS  how long to wait for OK to START (default 5000)
  --end-grace MS      how long an engine may take to exit after END (default 1000)
  --draw-after N      draw when N stones are on the board; 0 = only on a full board
                      (default: renju board area - 25, i.e. 200 on 15x15; else 0)
  --openings FILE     opening file; each opening is played twice, colours swapped
  --openings-format F auto|offset|pos (default auto)
  --openings-order O  sequential|random (default sequential)
  --symmetry          play each opening pair in a random one of the board's symmetries
  --seed N            seed for --symmetry and random order (default: from the clock)
  --concurrency N     games played at once (default 1)
  --sprt [elo0=0] [elo1=10] [alpha=0.05] [beta=0.05]
                      stop when the SPRT decides (two engines only)
  --sgf FILE          append each game as an SGF game tree
  --jsonl FILE        append each game as one JSON line
  --messages          keep the engines' MESSAGE lines in the JSON records
  --reuse             keep engine processes between games (START again) instead of a
                      fresh process per game; a faulty engine is always restarted
  --strict            a line that is not a move, MESSAGE or DEBUG loses the game (by
                      default it is logged and ignored, as the Gomocup judge does)
  --suspend           stop each engine (SIGSTOP) while it is not on move and continue it
                      (SIGCONT) for its move, as the Gomocup judge does: no pondering
  --quiet             no per-game progress lines
  --help              this text

Faults and how they are scored: a move that is off the board, on an occupied point or
(renju) forbidden for black, a timeout, a crash or early exit, no OK to START, and a unique
set size of the engine's process tree over its memory= (measured after each move, as the
Gomocup judge does; 0 = no limit) each lose the game; a line that is neither a move nor
MESSAGE/DEBUG loses under --strict and is recorded (ignored-line) otherwise; a hang on
END is recorded only.
";

#[derive(Clone, Debug)]
pub struct EngineConfig {
    pub name: Option<String>,
    pub launch: Launch,
    pub tc: Option<TimeControl>,
    pub memory: u64,
    pub threads: Option<u64>,
    pub depth: Option<u64>,
    pub nodes: Option<u64>,
    pub options: Vec<(String, String)>,
    /// SWAP2BOARD's stones with a field (1 own, 2 the other's, for the side to move), as
    /// Rapfi 0.43 reads them; GomocupJudge sends `x,y` only.
    pub swap2_fields: bool,
}

impl Default for EngineConfig {
    fn default() -> EngineConfig {
        EngineConfig {
            name: None,
            launch: Launch::default(),
            tc: None,
            memory: 367_001_600,
            threads: None,
            depth: None,
            nodes: None,
            options: Vec::new(),
            swap2_fields: false,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Config {
    pub engines: Vec<EngineConfig>,
    pub rule: Rule,
    /// Each game opened by swap2 (`--rule swap2`, freestyle) instead of an opening.
    pub swap2: bool,
    pub width: usize,
    pub height: usize,
    pub games: usize,
    pub tc: TimeControl,
    pub tolerance_ms: u64,
    pub start_timeout_ms: u64,
    pub end_grace_ms: u64,
    pub draw_after: Option<usize>,
    pub openings: Option<PathBuf>,
    pub openings_format: Format,
    pub random_order: bool,
    pub symmetry: bool,
    pub seed: Option<u64>,
    pub concurrency: usize,
    pub sprt: Option<Sprt>,
    pub sgf: Option<PathBuf>,
    pub jsonl: Option<PathBuf>,
    pub messages: bool,
    pub reuse: bool,
    pub quiet: bool,
    pub strict: bool,
    pub suspend: bool,
}

impl Config {
    /// The engine's time control (its own or the match default).
    pub fn tc_of(&self, engine: usize) -> TimeControl {
        self.engines[engine].tc.unwrap_or(self.tc)
    }
}

pub enum Parsed {
    Run(Box<Config>),
    Help,
}

/// Parse the arguments (without the program name).
pub fn parse(args: &[String]) -> Result<Parsed, String> {
    let mut engines: Vec<Vec<String>> = Vec::new();
    let mut each: Vec<String> = Vec::new();
    let mut draw_after: Option<usize> = None;
    let mut c = Config {
        engines: Vec::new(),
        rule: Rule::Freestyle,
        swap2: false,
        width: 15,
        height: 15,
        games: 2,
        tc: PRESET_DEFAULT,
        tolerance_ms: 1000,
        start_timeout_ms: 5000,
        end_grace_ms: 1000,
        draw_after: None,
        openings: None,
        openings_format: Format::Auto,
        random_order: false,
        symmetry: false,
        seed: None,
        concurrency: 1,
        sprt: None,
        sgf: None,
        jsonl: None,
        messages: false,
        reuse: false,
        quiet: false,
        strict: false,
        suspend: false,
    };
    let mut i = 0;
    // The KEY=VALUE words that follow an option, up to the next `--option`.
    let words = |i: &mut usize| -> Vec<String> {
        let mut out = Vec::new();
        while *i < args.len() && !args[*i].starts_with("--") {
            out.push(args[*i].clone());
            *i += 1;
        }
        out
    };
    while i < args.len() {
        let opt = args[i].as_str();
        i += 1;
        let mut value = || -> Result<String, String> {
            let v = args.get(i).cloned().ok_or(format!("{opt} needs a value"))?;
            i += 1;
            Ok(v)
        };
        match opt {
            "--help" | "-h" => return Ok(Parsed::Help),
            "--engine" => engines.push(words(&mut i)),
            "--each" => each.extend(words(&mut i)),
            "--rule" => {
                let v = value()?;
                c.swap2 = v.eq_ignore_ascii_case("swap2");
                c.rule = match c.swap2 {
                    true => Rule::Freestyle,
                    false => Rule::from_name(&v).ok_or(format!("unknown rule '{v}'"))?,
                };
            }
            "--size" => (c.width, c.height) = parse_size(&value()?)?,
            "--games" => c.games = number(opt, &value()?)?,
            "--tc" => c.tc = TimeControl::parse(&value()?)?,
            "--tolerance" => c.tolerance_ms = number(opt, &value()?)?,
            "--start-timeout" => c.start_timeout_ms = number(opt, &value()?)?,
            "--end-grace" => c.end_grace_ms = number(opt, &value()?)?,
            "--draw-after" => draw_after = Some(number(opt, &value()?)?),
            "--openings" => c.openings = Some(PathBuf::from(value()?)),
            "--openings-format" => {
                let v = value()?;
                c.openings_format = Format::parse(&v).ok_or(format!("unknown format '{v}'"))?;
            }
            "--openings-order" => {
                c.random_order = match value()?.as_str() {
                    "random" => true,
                    "sequential" => false,
                    v => return Err(format!("unknown order '{v}'")),
                }
            }
            "--symmetry" => c.symmetry = true,
            "--seed" => c.seed = Some(number(opt, &value()?)?),
            "--concurrency" => c.concurrency = number::<usize>(opt, &value()?)?.max(1),
            "--sprt" => c.sprt = Some(parse_sprt(&words(&mut i))?),
            "--sgf" => c.sgf = Some(PathBuf::from(value()?)),
            "--jsonl" => c.jsonl = Some(PathBuf::from(value()?)),
            "--messages" => c.messages = true,
            "--reuse" => c.reuse = true,
            "--quiet" => c.quiet = true,
            "--strict" => c.strict = true,
            "--suspend" => c.suspend = true,
            _ => return Err(format!("unknown option '{opt}' (see --help)")),
        }
    }
    for words in &engines {
        let mut e = EngineConfig::default();
        for w in each.iter().chain(words) {
            engine_key(&mut e, w)?;
        }
        if e.launch.cmd.as_os_str().is_empty() {
            return Err("every --engine needs cmd=PATH".to_string());
        }
        c.engines.push(e);
    }
    if c.engines.len() < 2 {
        return Err("give at least two --engine (see --help)".to_string());
    }
    if c.swap2 && c.openings.is_some() {
        return Err("--rule swap2 plays its own openings: no --openings".to_string());
    }
    if c.sprt.is_some() && c.engines.len() != 2 {
        return Err("--sprt needs exactly two engines".to_string());
    }
    let area = c.width * c.height;
    c.draw_after = match draw_after {
        Some(0) => None,
        Some(n) => Some(n),
        None if c.rule == Rule::Renju => Some(area.saturating_sub(25).max(1)),
        None => None,
    };
    Ok(Parsed::Run(Box::new(c)))
}

const PRESET_DEFAULT: TimeControl = TimeControl::new(5_000, 120_000, 0);

fn engine_key(e: &mut EngineConfig, word: &str) -> Result<(), String> {
    let (key, val) = word
        .split_once('=')
        .ok_or(format!("engine setting '{word}' is not KEY=VALUE"))?;
    match key {
        "cmd" => e.launch.cmd = PathBuf::from(val),
        "name" => e.name = Some(val.to_string()),
        "dir" => e.launch.dir = Some(PathBuf::from(val)),
        "arg" => e.launch.args.push(val.to_string()),
        "tc" => e.tc = Some(TimeControl::parse(val)?),
        "memory" => e.memory = number(key, val)?,
        "threads" => e.threads = Some(number(key, val)?),
        "depth" => e.depth = Some(number(key, val)?),
        "nodes" => e.nodes = Some(number(key, val)?),
        "swap2-fields" => e.swap2_fields = number::<u64>(key, val)? != 0,
        _ => match key.strip_prefix("option.") {
            Some(k) if !k.is_empty() && !k.contains(char::is_whitespace) => {
                e.options.push((k.to_string(), val.to_string()))
            }
            _ => return Err(format!("unknown engine setting '{key}'")),
        },
    }
    Ok(())
}

fn number<T: std::str::FromStr>(what: &str, v: &str) -> Result<T, String> {
    v.trim()
        .parse()
        .map_err(|_| format!("{what}: '{v}' is not a valid number"))
}

fn parse_size(v: &str) -> Result<(usize, usize), String> {
    let (w, h) = match v.split_once(['x', 'X']) {
        Some((w, h)) => (number("--size", w)?, number("--size", h)?),
        None => {
            let n = number("--size", v)?;
            (n, n)
        }
    };
    let ok = |n: usize| (5..=32).contains(&n);
    if !ok(w) || !ok(h) {
        return Err(format!("board size {v}: each side must be 5..=32"));
    }
    Ok((w, h))
}

fn parse_sprt(words: &[String]) -> Result<Sprt, String> {
    let mut s = Sprt::default();
    for w in words {
        let (k, v) = w.split_once('=').ok_or(format!("--sprt: '{w}' is not KEY=VALUE"))?;
        let v: f64 = number("--sprt", v)?;
        match k {
            "elo0" => s.elo0 = v,
            "elo1" => s.elo1 = v,
            "alpha" => s.alpha = v,
            "beta" => s.beta = v,
            _ => return Err(format!("--sprt: unknown key '{k}'")),
        }
    }
    let unit = |p: f64| p > 0.0 && p < 0.5;
    if s.elo0 >= s.elo1 || !unit(s.alpha) || !unit(s.beta) {
        return Err("--sprt: need elo0 < elo1 and 0 < alpha, beta < 0.5".to_string());
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(line: &str) -> Result<Config, String> {
        let args: Vec<String> = line.split_whitespace().map(String::from).collect();
        match parse(&args)? {
            Parsed::Run(c) => Ok(*c),
            Parsed::Help => Err("help".into()),
        }
    }

    #[test]
    fn parses_engines_and_options() {
        let c = run("--rule renju --size 20x15 --games 10 --tc 0.5/10 \
             --each memory=1000 option.pondering=0 \
             --engine cmd=./a name=A arg=-x arg=y depth=4 tc=fastgame \
             --engine cmd=b threads=2 --sprt elo1=5 --concurrency 2 --symmetry --seed 7")
        .unwrap();
        assert_eq!((c.rule, c.width, c.height, c.games), (Rule::Renju, 20, 15, 10));
        assert_eq!(c.draw_after, Some(275));
        let a = &c.engines[0];
        assert_eq!(a.name.as_deref(), Some("A"));
        assert_eq!(a.launch.args, vec!["-x", "y"]);
        assert_eq!((a.memory, a.depth), (1000, Some(4)));
        assert_eq!(a.options, vec![("pondering".to_string(), "0".to_string())]);
        assert_eq!(c.tc_of(0), TimeControl::new(5000, 120_000, 0));
        assert_eq!(c.tc_of(1), TimeControl::new(500, 10_000, 0));
        assert_eq!(c.engines[1].threads, Some(2));
        let s = c.sprt.unwrap();
        assert_eq!((s.elo0, s.elo1, s.alpha), (0.0, 5.0, 0.05));
        assert_eq!((c.concurrency, c.symmetry, c.seed), (2, true, Some(7)));
    }

    #[test]
    fn rejects_bad_input() {
        for bad in [
            "--engine cmd=a",
            "--engine cmd=a --engine name=b",
            "--engine cmd=a --engine cmd=b --size 4",
            "--engine cmd=a --engine cmd=b --rule 3x",
            "--engine cmd=a --engine cmd=b bogus=1",
            "--engine cmd=a --engine cmd=b --frobnicate",
            "--engine cmd=a --engine cmd=b --sprt elo0=5 elo1=0",
            "--engine cmd=a --engine cmd=b --engine cmd=c --sprt",
            "--engine cmd=a --engine cmd=b --games",
        ] {
            assert!(run(bad).is_err(), "{bad}");
        }
        let c = run("--engine cmd=a --engine cmd=b --draw-after 0 --rule 4").unwrap();
        assert_eq!(c.draw_after, None);
    }
}
