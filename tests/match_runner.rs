//! Integration tests of `sente-match`: whole matches between small scripted engines
//! (tests/engines/toy.sh, one bash script with a misbehaviour per mode) and between two
//! `pbrain-sente`s. Each checks how the game was adjudicated, from the JSON-lines records,
//! and that the match finished.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use sente::game::{Board, Color, Pos, Rule};

const RUNNER: &str = env!("CARGO_BIN_EXE_sente-match");

fn toy() -> String {
    format!("{}/tests/engines/toy.sh", env!("CARGO_MANIFEST_DIR"))
}

fn data(name: &str) -> String {
    format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// A fresh scratch directory for one test, under target/ (kept until the next run).
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("sente-match-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `--engine` words for the toy engine in `mode` with display name `name`.
fn toy_engine(name: &str, mode: &str, extra: &[&str]) -> Vec<String> {
    let mut v = vec![
        "--engine".to_string(),
        format!("cmd={}", toy()),
        format!("name={name}"),
        format!("arg={mode}"),
    ];
    v.extend(extra.iter().map(|e| format!("arg={e}")));
    v
}

struct Run {
    out: Output,
    records: Vec<String>,
    elapsed: Duration,
}

impl Run {
    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.out.stdout).into_owned()
    }

    /// The string value of a top-level field in each record.
    fn field(&self, key: &str) -> Vec<String> {
        self.records.iter().map(|r| field(r, key)).collect()
    }
}

/// Run a match with the given arguments plus `--jsonl` in `dir`.
fn run_match(dir: &Path, args: &[String]) -> Run {
    let jsonl = dir.join("games.jsonl");
    let began = Instant::now();
    let out = Command::new(RUNNER)
        .args(args)
        .arg("--jsonl")
        .arg(&jsonl)
        .output()
        .expect("run sente-match");
    let elapsed = began.elapsed();
    let text = std::fs::read_to_string(&jsonl).unwrap_or_default();
    let records = text.lines().map(String::from).collect();
    let run = Run { out, records, elapsed };
    assert!(
        run.out.status.success(),
        "sente-match failed: {}\n{}",
        run.stdout(),
        String::from_utf8_lossy(&run.out.stderr)
    );
    run
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// A top-level JSON field as text: strings without quotes, `null`, numbers as written.
fn field(record: &str, key: &str) -> String {
    let tag = format!("\"{key}\":");
    let at = record.find(&tag).unwrap_or_else(|| panic!("no {key} in {record}")) + tag.len();
    let rest = &record[at..];
    if let Some(s) = rest.strip_prefix('"') {
        s[..s.find('"').unwrap()].to_string()
    } else {
        rest[..rest.find([',', '}']).unwrap()].to_string()
    }
}

/// The (x, y) of every engine move in a record.
fn moves(record: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut rest = &record[record.find("\"moves\":").unwrap()..];
    while let Some(i) = rest.find("\"x\":") {
        rest = &rest[i..];
        let x = field(rest, "x").parse().unwrap();
        let y = field(rest, "y").parse().unwrap();
        out.push((x, y));
        rest = &rest[4..];
    }
    out
}

/// Replay a record on a board: every move legal, and the game ends exactly as recorded.
fn check_replay(record: &str, rule: Rule) {
    let (w, h): (usize, usize) = (
        field(record, "width").parse().unwrap(),
        field(record, "height").parse().unwrap(),
    );
    let mut board = Board::new(w, h, rule);
    let opening = sente::game::geometry::parse_pos_string(&field(record, "opening")).unwrap();
    let all: Vec<(usize, usize)> = opening.into_iter().chain(moves(record)).collect();
    let mut won = false;
    for (i, &(x, y)) in all.iter().enumerate() {
        assert!(!won, "moves after a five in {record}");
        let c = if i % 2 == 0 { Color::Black } else { Color::White };
        let p = Pos::new(x, y);
        assert!(board.is_empty(p), "{p} occupied in {record}");
        assert!(c == Color::White || !board.is_forbidden(p));
        board.make(p, c);
        won = board.wins_through(p);
    }
    let result = field(record, "result");
    match field(record, "reason").as_str() {
        "five" => {
            assert!(won, "no five at the end of {record}");
            let black_won = all.len() % 2 == 1;
            assert_eq!(result, if black_won { "1-0" } else { "0-1" });
        }
        "board-full" => assert!(board.is_full() && result == "1/2-1/2"),
        "move-limit" => assert!(all.len() >= 200 && result == "1/2-1/2"),
        other => panic!("unexpected reason {other}"),
    }
}

#[test]
fn legal_engines_play_a_whole_match_with_openings_and_records() {
    let dir = scratch("legal");
    let sgf = dir.join("games.sgf");
    let mut a = args(&["--size", "9", "--games", "6", "--tc", "2/20"]);
    a.extend(args(&["--openings", &data("openings_15x15_offset.txt")]));
    a.extend(args(&["--symmetry", "--seed", "5", "--sgf", sgf.to_str().unwrap()]));
    a.extend(toy_engine("A", "first", &[]));
    a.extend(toy_engine("B", "first", &[]));
    let run = run_match(&dir, &a);
    assert_eq!(run.records.len(), 6);
    for r in &run.records {
        check_replay(r, Rule::Freestyle);
    }
    // Each opening twice, colours swapped.
    let openings = run.field("opening");
    let blacks = run.field("black");
    for k in 0..3 {
        assert_eq!(openings[2 * k], openings[2 * k + 1]);
        assert_ne!(blacks[2 * k], blacks[2 * k + 1]);
    }
    let stdout = run.stdout();
    assert_eq!(stdout.matches("] game ").count(), 6, "{stdout}");
    assert!(stdout.contains("A vs B: 6 games"), "{stdout}");
    assert!(stdout.contains("Elo difference (A - B)"), "{stdout}");
    let sgf = std::fs::read_to_string(sgf).unwrap();
    assert_eq!(sgf.matches("(;FF[4]GM[4]").count(), 6);
    assert!(sgf.contains("PB[A]PW[B]") && sgf.contains("PB[B]PW[A]"));
}

/// Play two games of `mode` against a legal engine and check that the misbehaving
/// engine lost both, by `reason`, with `detail` in the first record. Returns the run.
fn faulty_match(mode: &str, reason: &str, extra: &[&str], detail: &str) -> Run {
    let dir = scratch(mode);
    let mut a = args(&["--size", "7", "--games", "2", "--tc", "0.5/0"]);
    a.extend(args(&["--tolerance", "200", "--start-timeout", "500"]));
    a.extend(args(extra));
    a.extend(toy_engine("good", "first", &[]));
    a.extend(toy_engine("bad", mode, &[]));
    let run = run_match(&dir, &a);
    assert_eq!(run.records.len(), 2, "{}", run.stdout());
    assert_eq!(run.field("reason"), vec![reason, reason], "{}", run.stdout());
    assert_eq!(run.field("winner"), vec!["good", "good"]);
    assert_eq!(run.field("result"), vec!["1-0", "0-1"]);
    for r in &run.records {
        assert_eq!(field(r, "engine"), "bad", "{r}");
        assert_eq!(field(r, "kind"), reason, "{r}");
    }
    assert!(run.records[0].contains(detail), "{}", run.records[0]);
    let stdout = run.stdout();
    // The fault table counts both faults in the column of their kind.
    let table: Vec<&str> = stdout.split("Faults\n").nth(1).unwrap().lines().collect();
    let column = table[0].split_whitespace().position(|k| k == reason).unwrap();
    let row: Vec<&str> = table[2].split_whitespace().collect();
    assert_eq!((row[0], row[column]), ("bad", "2"), "{stdout}");
    // Bounded by the short limits, not by the misbehaving engine (it may sleep 1000 s).
    assert!(run.elapsed < Duration::from_secs(10), "{:?}", run.elapsed);
    run
}

#[test]
fn a_timeout_loses_and_the_hung_engine_is_killed() {
    // 0.5 s + 0.2 s tolerance.
    faulty_match("timeout", "timeout", &[], "no move within 700 ms");
}

#[test]
fn an_occupied_point_loses() {
    faulty_match("occupied", "occupied", &[], "0,0 (a1) is occupied");
}

#[test]
fn a_point_off_the_board_loses() {
    faulty_match("offboard", "off-board", &[], "7,0 is off the 7x7 board");
}

#[test]
fn a_crash_loses_and_the_engine_is_restarted() {
    // Both games reach the crash on a move request: the second game had a new process
    // although processes are otherwise kept (--reuse).
    faulty_match("crash", "crash", &["--reuse"], "boom: crashed on purpose");
}

#[test]
fn a_line_that_is_not_a_move_loses_under_strict() {
    faulty_match("garbage", "not-a-move", &["--strict"], "'hello there' is not a move");
}

#[test]
fn a_line_that_is_not_a_move_is_ignored_as_the_judge_does() {
    // By default the line is logged and recorded, and the move after it counts.
    let dir = scratch("chatty");
    let mut a = args(&["--size", "7", "--games", "2", "--tc", "0.5/0"]);
    a.extend(toy_engine("good", "first", &[]));
    a.extend(toy_engine("chatty", "chatty", &[]));
    let run = run_match(&dir, &a);
    assert_eq!(run.records.len(), 2, "{}", run.stdout());
    for r in &run.records {
        assert!(!field(r, "reason").contains("not-a-move"), "{r}");
        assert!(r.contains("\"kind\":\"ignored-line\""), "{r}");
        assert!(r.contains("ERROR Unknown command: TIME_LEFT"), "{r}");
    }
    // Without --strict the chatty engine plays whole games (both games see moves by it).
    assert!(run.records.iter().all(|r| moves(r).len() >= 4), "{}", run.stdout());
}

#[test]
fn no_ok_to_start_loses() {
    faulty_match("nostart", "no-start-ok", &[], "no OK to START 7 within 500 ms");
}

#[test]
fn a_hang_on_end_is_recorded_but_does_not_change_the_result() {
    let dir = scratch("hangend");
    let mut a = args(&["--size", "7", "--games", "2", "--tc", "1/0", "--end-grace", "200"]);
    a.extend(toy_engine("good", "first", &[]));
    a.extend(toy_engine("hang", "hangend", &[]));
    let run = run_match(&dir, &a);
    assert!(run.elapsed < Duration::from_secs(10), "{:?}", run.elapsed);
    for r in &run.records {
        check_replay(r, Rule::Freestyle);
        assert!(r.contains("\"kind\":\"hang-on-end\""), "{r}");
        assert_eq!(field(r, "engine"), "hang");
    }
}

#[test]
fn renju_forbidden_move_loses_for_black() {
    // After the opening, black's scripted i8 (8,7) is a double three (g8 h8 i8, i6 i7 i8).
    let dir = scratch("forbidden");
    let openings = dir.join("renju.txt");
    std::fs::write(&openings, "g8a1h8o1i7a15i6o15\n").unwrap();
    let mut a = args(&["--rule", "renju", "--games", "1", "--tc", "1/0"]);
    a.extend(args(&["--openings", openings.to_str().unwrap()]));
    a.extend(toy_engine("scripted", "first", &["8,7"]));
    a.extend(toy_engine("other", "first", &[]));
    let run = run_match(&dir, &a);
    assert_eq!(run.field("reason"), vec!["forbidden"]);
    assert_eq!(run.field("result"), vec!["0-1"]);
    assert!(run.records[0].contains("i8) is forbidden for black"));
}

#[test]
fn the_game_clock_runs_out() {
    // 0.15 s a move against 1 s a game (no per-move limit): the sixth move or so is late.
    let dir = scratch("clock");
    let mut a = args(&["--size", "9", "--games", "1", "--tc", "0/1", "--tolerance", "100"]);
    a.extend(toy_engine("slow", "first", &["delay=0.15"]));
    a.extend(toy_engine("fast", "first", &[]));
    let run = run_match(&dir, &a);
    assert_eq!(run.field("reason"), vec!["timeout"]);
    assert_eq!(run.field("winner"), vec!["fast"]);
    let slow_moves = moves(&run.records[0]).len() / 2;
    assert!((5..=8).contains(&slow_moves), "{}", run.records[0]);
}

#[test]
fn sends_the_protocol_a_manager_should() {
    let dir = scratch("protocol");
    let log_a = dir.join("a.log");
    let log_b = dir.join("b.log");
    let mut a = args(&["--size", "9x7", "--rule", "standard", "--games", "1"]);
    a.extend(args(&["--tc", "0.5/20+0.1", "--each", "memory=1000000", "depth=3"]));
    a.extend(toy_engine("A", "first", &[&format!("log={}", log_a.display())]));
    a.push("option.pondering=0".to_string());
    a.extend(toy_engine("B", "first", &[&format!("log={}", log_b.display())]));
    a.extend(args(&["threads=2", "tc=1/0"]));
    let run = run_match(&dir, &a);
    check_replay(&run.records[0], Rule::Standard);
    let la = std::fs::read_to_string(&log_a).unwrap();
    let lb = std::fs::read_to_string(&log_b).unwrap();
    for want in [
        "RECTSTART 9,7",
        "INFO timeout_turn 500",
        "INFO timeout_match 20000",
        "INFO time_increment 100",
        "INFO max_memory 1000000",
        "INFO rule 1",
        "INFO max_depth 3",
        "INFO pondering 0",
        "INFO time_left 20000",
        "BEGIN",
        "TURN 1,0",
        "END",
    ] {
        assert!(la.lines().any(|l| l == want), "A did not get {want}:\n{la}");
    }
    for want in [
        "INFO timeout_turn 1000",
        "INFO timeout_match 0",
        "INFO thread_num 2",
        "INFO time_left 2147483647",
        "BOARD",
        "0,0,2",
        "DONE",
    ] {
        assert!(lb.lines().any(|l| l == want), "B did not get {want}:\n{lb}");
    }
    assert!(!lb.contains("pondering"));
}

#[test]
fn sprt_stops_the_match_when_decided() {
    let dir = scratch("sprt");
    let mut a = args(&["--size", "7", "--games", "1000", "--tc", "1/0"]);
    a.extend(args(&["--sprt", "elo0=0", "elo1=100", "--concurrency", "2"]));
    a.extend(toy_engine("good", "first", &[]));
    a.extend(toy_engine("bad", "garbage", &[]));
    let run = run_match(&dir, &a);
    // All wins: each pair of games (the SPRT's sample) adds ln(s(100)/s(0)) = 0.247, so 12
    // pairs pass 2.944: 24 games, and up to two more already running.
    let n = run.records.len();
    assert!((24..=26).contains(&n), "{n} games");
    let stdout = run.stdout();
    assert!(stdout.contains("H1 accepted"), "{stdout}");
}

#[test]
fn ctrl_c_stops_cleanly_and_keeps_the_results() {
    let dir = scratch("interrupt");
    let jsonl = dir.join("games.jsonl");
    let mut a = args(&["--size", "7", "--games", "100", "--tc", "5/0"]);
    a.extend(toy_engine("A", "first", &["delay=0.05"]));
    a.extend(toy_engine("B", "first", &["delay=0.05"]));
    let child = Command::new(RUNNER)
        .args(&a)
        .arg("--jsonl")
        .arg(&jsonl)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the first finished game, then interrupt.
    let began = Instant::now();
    while std::fs::read_to_string(&jsonl).map_or(true, |t| t.is_empty()) {
        assert!(began.elapsed() < Duration::from_secs(20), "no game finished");
        std::thread::sleep(Duration::from_millis(50));
    }
    let pid = child.id().to_string();
    let killed = Command::new("bash").args(["-c", &format!("kill -INT {pid}")]).status();
    assert!(killed.unwrap().success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("interrupted"), "{stdout}");
    assert!(stdout.contains("A vs B:"), "{stdout}");
    let games = std::fs::read_to_string(&jsonl).unwrap().lines().count();
    assert!((1..100).contains(&games));
}

/// Two very fast games of `pbrain-sente` against itself: legal play and no faults.
/// Two `pbrain-sente`s play two games under `--rule rule`; the records are checked.
fn sente_self_play(name: &str, rule: &str, extra: &[&str]) -> Vec<String> {
    let dir = scratch(name);
    let sente = env!("CARGO_BIN_EXE_pbrain-sente");
    let mut a = args(&["--games", "2", "--tc", "0.2/5", "--each", "depth=3"]);
    a.extend(args(&["--rule", rule, "--messages"]));
    a.extend(args(extra));
    for n in ["S1", "S2"] {
        a.extend(args(&["--engine", &format!("cmd={sente}"), &format!("name={n}")]));
    }
    let run = run_match(&dir, &a);
    assert_eq!(run.records.len(), 2);
    let replay_rule = Rule::from_name(rule).unwrap_or(Rule::Freestyle); // swap2: freestyle
    for r in &run.records {
        assert!(r.ends_with("\"faults\":[]}"), "{r}");
        check_replay(r, replay_rule);
        // The engine's search info comes through MESSAGE lines.
        assert!(r.contains("\"messages\":[\"depth"), "{r}");
    }
    run.records
}

#[test]
fn pbrain_sente_plays_itself_freestyle() {
    let openings = data("openings_15x15_pos.txt");
    sente_self_play("sente-free", "freestyle", &["--openings", &openings]);
}

#[test]
fn pbrain_sente_plays_itself_renju_keeping_its_processes() {
    let openings = data("openings_15x15_offset.txt");
    sente_self_play("sente-renju", "renju", &["--openings", &openings, "--reuse"]);
}

#[test]
fn the_shipped_openings_load_in_c_gomoku_cli_as_they_are() {
    // Its parser stops at a '#' line; provenance lives in tests/data/README.md instead.
    for name in ["openings_15x15_offset.txt", "openings_15x15_pos.txt"] {
        let text = std::fs::read_to_string(data(name)).unwrap();
        assert!(
            text.lines().all(|l| !l.trim().is_empty() && !l.starts_with('#')),
            "{name}"
        );
    }
}

#[test]
fn pbrain_sente_plays_itself_suspended_between_moves() {
    sente_self_play("sente-suspend", "standard", &["--suspend"]);
}

#[test]
fn memory_over_the_limit_loses_and_the_peak_is_recorded() {
    // The toy engine (a shell) needs more than 4 KiB; the good one has 350 MiB.
    let dir = scratch("memory");
    let mut a = args(&["--size", "7", "--games", "2", "--tc", "0.5/0"]);
    a.extend(toy_engine("good", "first", &[]));
    a.extend(toy_engine("big", "first", &[]));
    a.push("memory=4096".into());
    let run = run_match(&dir, &a);
    assert_eq!(run.field("reason"), vec!["memory", "memory"], "{}", run.stdout());
    assert_eq!(run.field("winner"), vec!["good", "good"]);
    for r in &run.records {
        let peak = r.split("\"peak_uss\":[").nth(1).unwrap();
        let (b, w) = peak.split_once(',').unwrap();
        let w = &w[..w.find(']').unwrap()];
        assert!(
            b.parse::<u64>().unwrap() > 4096 || w.parse::<u64>().unwrap() > 4096,
            "{r}"
        );
    }
}

#[test]
fn a_missing_engine_stops_the_match_before_it_starts() {
    let out = Command::new(RUNNER)
        .args(["--engine", "cmd=./no-such-engine", "name=a"])
        .args(["--engine", &format!("cmd={}", toy()), "name=b"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("engine 1: engine ./no-such-engine"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn pbrain_sente_plays_swap2_as_the_judge_referees_it() {
    for r in sente_self_play("sente-swap2", "swap2", &[]) {
        assert_eq!(field(&r, "opening"), "", "swap2 starts on the empty board: {r}");
        // The three stones, the answer to them and the game after them.
        assert!(moves(&r).len() >= 9, "{r}");
    }
}
