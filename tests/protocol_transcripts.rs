//! Plays every transcript in `protocol-tests/` against the real binary (format in
//! `protocol-tests/README.md`).

use std::collections::HashSet;
use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod common;

const DEFAULT_WAIT: Duration = Duration::from_secs(10);

struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// Every MESSAGE line skipped so far (for `! messages`).
    messages: std::cell::RefCell<Vec<String>>,
}

impl Engine {
    fn start() -> Engine {
        let mut child = common::engine_command()
            .stderr(Stdio::piped())
            .spawn()
            .expect("start pbrain-sente");
        let mut stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            // Split on LF only: a reply must end in LF, never CR LF.
            let mut buf = Vec::new();
            let mut byte = [0u8; 1];
            while let Ok(1) = stdout.read(&mut byte) {
                if byte[0] == b'\n' {
                    let _ = tx.send(String::from_utf8_lossy(&buf).into_owned());
                    buf.clear();
                } else {
                    buf.push(byte[0]);
                }
            }
            if !buf.is_empty() {
                let _ = tx.send(String::from_utf8_lossy(&buf).into_owned());
            }
        });
        let err = Arc::new(Mutex::new(Vec::new()));
        let err2 = Arc::clone(&err);
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = stderr.read_to_end(&mut buf);
            err2.lock().unwrap().extend(buf);
        });
        Engine {
            stdin: child.stdin.take(),
            child,
            lines: rx,
            stderr: err,
            messages: Default::default(),
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        stdin.write_all(bytes).expect("write to engine");
        stdin.flush().unwrap();
    }

    /// Next non-MESSAGE line (or a MESSAGE line if `want_message`).
    fn next_line(&self, wait: Duration, want_message: bool) -> Result<String, String> {
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.starts_with("MESSAGE ") && !want_message => {
                    self.messages.borrow_mut().push(line);
                    continue;
                }
                Ok(line) => return Ok(line),
                Err(RecvTimeoutError::Timeout) => return Err(format!("no reply within {} ms", wait.as_millis())),
                Err(RecvTimeoutError::Disconnected) => return Err("the engine closed its output".into()),
            }
        }
    }
}

/// The runner's own view of the board, to check the engine's moves.
struct Tracker {
    width: i64,
    height: i64,
    stones: HashSet<(i64, i64)>,
    in_board: bool,
    in_swap2: bool,
    swap2_count: usize,
}

impl Tracker {
    fn on_send(&mut self, line: &str) {
        let t = line.trim();
        let upper = t.to_ascii_uppercase();
        let words: Vec<&str> = t.split_whitespace().collect();
        let first = words.first().map(|w| w.to_ascii_uppercase());
        let new_game = matches!(first.as_deref(), Some("START" | "RECTSTART" | "RESTART"));
        if (self.in_board || self.in_swap2) && new_game {
            // A new game ends the block (the engine does the same).
            self.in_board = false;
            self.in_swap2 = false;
        }
        if self.in_board || self.in_swap2 {
            if upper == "DONE" {
                self.in_board = false;
                self.in_swap2 = false;
            } else if let Some((x, y)) = pair(t).filter(|&p| self.on_board(p)) {
                self.stones.insert((x, y));
                self.swap2_count += 1;
            }
            return;
        }
        let arg = words.get(1).copied().unwrap_or("");
        match first.as_deref() {
            Some("START") => {
                if let Ok(n) = arg.parse::<i64>() {
                    if (5..=32).contains(&n) {
                        let h = words.get(2).and_then(|v| v.parse().ok()).unwrap_or(n);
                        self.width = n;
                        self.height = h;
                        self.stones.clear();
                    }
                }
            }
            Some("RECTSTART") => {
                if let Some((w, h)) = pair(arg) {
                    if (5..=32).contains(&w) && (5..=32).contains(&h) {
                        self.width = w;
                        self.height = h;
                        self.stones.clear();
                    }
                }
            }
            Some("RESTART") => self.stones.clear(),
            Some("TURN") => {
                if let Some(p) = pair(&t[4..]) {
                    if self.on_board(p) {
                        self.stones.insert(p);
                    }
                }
            }
            Some("TAKEBACK") => {
                if let Some(p) = pair(&t[8..]) {
                    self.stones.remove(&p);
                }
            }
            Some("BOARD") | Some("YXBOARD") => {
                self.stones.clear();
                self.in_board = true;
            }
            Some("SWAP2BOARD") => {
                self.stones.clear();
                self.in_swap2 = true;
                self.swap2_count = 0;
            }
            _ => {}
        }
    }

    fn on_board(&self, (x, y): (i64, i64)) -> bool {
        x >= 0 && y >= 0 && x < self.width && y < self.height
    }

    fn check_move(&mut self, text: &str) -> Result<(i64, i64), String> {
        if text != text.trim() || text.matches(',').count() != 1 {
            return Err(format!("'{text}' is not a move x,y"));
        }
        let p = pair(text).ok_or_else(|| format!("'{text}' is not a move x,y"))?;
        if !self.on_board(p) {
            return Err(format!("move {text} is off the {}x{} board", self.width, self.height));
        }
        if !self.stones.insert(p) {
            return Err(format!("move {text} is on an occupied point"));
        }
        Ok(p)
    }
}

/// Parse `x,y` with digits only (spaces around the parts allowed).
fn pair(s: &str) -> Option<(i64, i64)> {
    let (a, b) = s.trim().split_once(',')?;
    let num = |v: &str| -> Option<i64> {
        let v = v.trim();
        let digits = v.strip_prefix('-').unwrap_or(v);
        if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        v.parse().ok()
    };
    Some((num(a)?, num(b)?))
}

fn points(list: &str) -> Vec<(i64, i64)> {
    list.split_whitespace().filter_map(pair).collect()
}

fn run_transcript(name: &str, text: &str) -> Result<(), String> {
    let mut engine = Engine::start();
    let mut tracker = Tracker {
        width: 0,
        height: 0,
        stones: HashSet::new(),
        in_board: false,
        in_swap2: false,
        swap2_count: 0,
    };
    // `$TMP` in a line is a directory of this transcript's own, for the files it writes.
    let tmp = std::env::temp_dir().join(format!("sente-transcript-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&tmp).map_err(|e| format!("{name}: {e}"))?;
    for (n, raw) in text.lines().enumerate() {
        let line_no = n + 1;
        let fail = |msg: String| format!("{name}:{line_no}: `{raw}`: {msg}");
        let line = raw.trim_end().replace("$TMP", &tmp.to_string_lossy());
        let line = line.as_str();
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix(">crlf ") {
            tracker.on_send(rest);
            engine.send(format!("{rest}\r\n").as_bytes());
        } else if let Some(rest) = line.strip_prefix(">cr ") {
            tracker.on_send(rest);
            engine.send(format!("{rest}\r").as_bytes());
        } else if let Some(rest) = line.strip_prefix(">repeat ") {
            let (count, unit) = rest
                .split_once(' ')
                .ok_or_else(|| fail("expected >repeat N TEXT".into()))?;
            let count: usize = count.parse().map_err(|_| fail("bad repeat count".into()))?;
            let mut bytes = unit.repeat(count).into_bytes();
            bytes.push(b'\n');
            engine.send(&bytes);
        } else if let Some(hex) = line.strip_prefix(">raw ") {
            let bytes: Vec<u8> = (0..hex.len() / 2)
                .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
                .collect();
            engine.send(&bytes);
        } else if line == ">" {
            engine.send(b"\n");
        } else if let Some(rest) = line.strip_prefix("> ") {
            tracker.on_send(rest);
            engine.send(format!("{rest}\n").as_bytes());
        } else if let Some(rest) = line.strip_prefix("< ") {
            let (pattern, wait) = match rest.rsplit_once(" within ") {
                Some((p, ms)) => (
                    p,
                    Duration::from_millis(ms.trim().parse().map_err(|_| fail("bad within".into()))?),
                ),
                None => (rest, DEFAULT_WAIT),
            };
            let want_message = pattern.starts_with("MESSAGE");
            let got = engine.next_line(wait, want_message).map_err(&fail)?;
            check_reply(pattern, &got, &mut tracker).map_err(|e| fail(format!("got '{got}': {e}")))?;
        } else if let Some(rest) = line.strip_prefix("! ") {
            let words: Vec<&str> = rest.split_whitespace().collect();
            let ms = || -> Result<Duration, String> {
                Ok(Duration::from_millis(
                    words
                        .get(1)
                        .and_then(|v| v.parse().ok())
                        .ok_or_else(|| fail("missing ms".into()))?,
                ))
            };
            match words[0] {
                "sleep" => std::thread::sleep(ms()?),
                "messages" => {
                    let want: usize = words
                        .get(1)
                        .and_then(|v| v.parse().ok())
                        .ok_or_else(|| fail("expected ! messages N TEXT".into()))?;
                    let prefix = format!("MESSAGE {}", words[2..].join(" "));
                    let seen = engine
                        .messages
                        .borrow()
                        .iter()
                        .filter(|m| m.starts_with(&prefix))
                        .count();
                    if seen != want {
                        return Err(fail(format!("{seen} MESSAGE lines start with '{prefix}'")));
                    }
                }
                "eof" => engine.stdin = None,
                "quiet" => {
                    if let Ok(l) = engine.lines.recv_timeout(ms()?) {
                        return Err(fail(format!("expected silence, got '{l}'")));
                    }
                }
                "exit" => {
                    let wait = ms()?;
                    let deadline = Instant::now() + wait;
                    loop {
                        if let Some(status) = engine.child.try_wait().unwrap() {
                            if !status.success() {
                                return Err(fail(format!("exit status {status}")));
                            }
                            break;
                        }
                        if Instant::now() > deadline {
                            let _ = engine.child.kill();
                            return Err(fail(format!("still running after {} ms", wait.as_millis())));
                        }
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    // Search information may still be unread; a reply may not.
                    std::thread::sleep(Duration::from_millis(20));
                    if let Some(l) = engine.lines.try_iter().find(|l| !l.starts_with("MESSAGE ")) {
                        return Err(fail(format!("a reply after the exit command: '{l}'")));
                    }
                }
                other => return Err(fail(format!("unknown directive {other}"))),
            }
        } else {
            return Err(fail("unknown line".into()));
        }
    }
    engine.stdin = None;
    let deadline = Instant::now() + Duration::from_secs(5);
    while engine.child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = engine.child.kill();
            return Err(format!("{name}: the engine did not exit at end of input"));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(20));
    let _ = std::fs::remove_dir_all(&tmp);
    let err = engine.stderr.lock().unwrap();
    if !err.is_empty() {
        return Err(format!(
            "{name}: the engine wrote to stderr: {}",
            String::from_utf8_lossy(&err)
        ));
    }
    Ok(())
}

fn check_reply(pattern: &str, got: &str, tracker: &mut Tracker) -> Result<(), String> {
    if let Some(spec) = pattern.strip_prefix("MOVE") {
        let p = tracker.check_move(got)?;
        let spec = spec.trim();
        let (inside, outside) = match (spec.find("in "), spec.find("not ")) {
            (Some(i), Some(j)) if i < j => (&spec[i + 3..j], &spec[j + 4..]),
            (Some(i), Some(j)) => (&spec[i + 3..], &spec[j + 4..i]),
            (Some(i), None) => (&spec[i + 3..], ""),
            (None, Some(j)) => ("", &spec[j + 4..]),
            (None, None) => ("", ""),
        };
        let allowed = points(inside);
        if !allowed.is_empty() && !allowed.contains(&p) {
            return Err(format!("expected one of {inside}"));
        }
        if points(outside).contains(&p) {
            return Err(format!("expected none of {outside}"));
        }
        return Ok(());
    }
    if let Some(n) = pattern.strip_prefix("SWAP2 ") {
        let n: usize = n.trim().parse().map_err(|_| "bad SWAP2 count".to_string())?;
        let parts: Vec<&str> = got.split(' ').collect();
        let allowed = match n {
            0 => 3..=3,
            3 => 1..=2,
            _ => 1..=1,
        };
        if got == "SWAP" && n > 0 {
            return Ok(());
        }
        if !allowed.contains(&parts.len()) {
            return Err(format!("expected {allowed:?} moves"));
        }
        for part in parts {
            tracker.check_move(part)?;
        }
        return Ok(());
    }
    if let Some(prefix) = pattern.strip_suffix('*') {
        return if got.starts_with(prefix) {
            Ok(())
        } else {
            Err(format!("expected a line starting with '{prefix}'"))
        };
    }
    if got == pattern {
        Ok(())
    } else {
        Err(format!("expected '{pattern}'"))
    }
}

#[test]
fn transcripts() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("protocol-tests");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("protocol-tests directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        // SENTE_TRANSCRIPT=NAME runs only the transcripts whose file name contains NAME.
        .filter(|p| match std::env::var("SENTE_TRANSCRIPT") {
            Ok(only) => p
                .file_name()
                .is_some_and(|f| f.to_string_lossy().contains(only.as_str())),
            Err(_) => true,
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no transcripts found");
    // Two at a time: timing checks must not suffer from an overloaded machine.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(f) = files.get(i) else { break };
                let name = f.file_name().unwrap().to_string_lossy().into_owned();
                let text = std::fs::read_to_string(f).unwrap();
                if let Err(e) = run_transcript(&name, &text) {
                    failures.lock().unwrap().push(e);
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} transcript(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
