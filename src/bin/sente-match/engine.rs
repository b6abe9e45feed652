//! One engine as a child process speaking the Piskvork protocol on its stdin/stdout.
//!
//! A reader thread splits stdout into lines (LF, CR LF or a lone CR; empty lines dropped)
//! and stamps each with the time it arrived, so move times are measured where the line
//! was read, not where the referee got round to it. Stderr is kept as a short tail for
//! fault reports. The engine runs in its own process group, so killing it also kills any
//! helper processes it started, and a terminal's Ctrl-C reaches only the runner.

use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::sys;

/// Longest line kept; the rest of a longer line is dropped.
const MAX_LINE: usize = 64 * 1024;
/// Stderr lines kept for fault reports.
const STDERR_TAIL: usize = 8;
/// How often a wait looks at the stop flag.
const POLL: Duration = Duration::from_millis(25);

/// How to start an engine.
#[derive(Clone, Debug, Default)]
pub struct Launch {
    pub cmd: PathBuf,
    pub args: Vec<String>,
    /// Working directory; `None` = the directory of the executable (as c-gomoku-cli does).
    pub dir: Option<PathBuf>,
}

enum Event {
    Line(String),
    Eof,
}

/// What a wait for output gave.
#[derive(Debug, PartialEq)]
pub enum Reply {
    /// A non-empty, trimmed line and when it was read.
    Line(String, Instant),
    /// Stdout closed: the engine exited or crashed.
    Eof,
    /// The deadline passed without a line.
    Timeout,
    /// The runner is stopping (Ctrl-C).
    Stopped,
}

pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<(Event, Instant)>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    label: String,
    eof: bool,
    reaped: bool,
    /// Stopped with SIGSTOP (`--suspend`).
    paused: bool,
}

impl Engine {
    /// Start the engine. `label` names it in logs.
    pub fn spawn(launch: &Launch, label: &str) -> io::Result<Engine> {
        let program = resolve(&launch.cmd)?;
        let dir = match &launch.dir {
            Some(d) => d.clone(),
            None => program
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| PathBuf::from(".")),
        };
        let mut command = Command::new(&program);
        command
            .args(&launch.args)
            .current_dir(&dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        let mut child = command
            .spawn()
            .map_err(|e| io::Error::new(e.kind(), format!("cannot start {}: {e}", program.display())))?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr_pipe = child.stderr.take().expect("piped stderr");
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || read_lines(stdout, tx));
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let tail = Arc::clone(&stderr);
        let err_label = label.to_string();
        thread::spawn(move || {
            for line in BufReader::new(stderr_pipe).lines() {
                let Ok(line) = line else { break };
                log::debug!("{err_label} stderr: {line}");
                let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
                if tail.len() == STDERR_TAIL {
                    tail.pop_front();
                }
                tail.push_back(line);
            }
        });
        log::debug!("{label}: started {} (pid {})", program.display(), child.id());
        Ok(Engine {
            child,
            stdin,
            rx,
            stderr,
            label: label.to_string(),
            eof: false,
            reaped: false,
            paused: false,
        })
    }

    /// Write one command line (LF-terminated) and flush it.
    pub fn send(&mut self, line: &str) -> io::Result<()> {
        log::trace!("{} < {line}", self.label);
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| io::Error::new(io::ErrorKind::BrokenPipe, "stdin closed"))?;
        stdin.write_all(line.as_bytes())?;
        stdin.write_all(b"\n")?;
        stdin.flush()
    }

    /// Wait for the next line until `deadline` (`None` = no limit; Ctrl-C still stops it).
    pub fn recv(&mut self, deadline: Option<Instant>) -> Reply {
        loop {
            if self.eof {
                return Reply::Eof;
            }
            if sys::stop_requested() {
                return Reply::Stopped;
            }
            let now = Instant::now();
            let wait = match deadline {
                Some(d) if d <= now => {
                    // A line read before the deadline may still sit in the channel.
                    return match self.rx.try_recv() {
                        Ok(ev) => self.deliver(ev),
                        Err(mpsc::TryRecvError::Empty) => Reply::Timeout,
                        Err(mpsc::TryRecvError::Disconnected) => self.deliver_eof(),
                    };
                }
                Some(d) => (d - now).min(POLL),
                None => POLL,
            };
            match self.rx.recv_timeout(wait) {
                Ok(ev) => return self.deliver(ev),
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => return self.deliver_eof(),
            }
        }
    }

    fn deliver(&mut self, (ev, at): (Event, Instant)) -> Reply {
        match ev {
            Event::Line(line) => {
                log::trace!("{} > {line}", self.label);
                Reply::Line(line, at)
            }
            Event::Eof => self.deliver_eof(),
        }
    }

    fn deliver_eof(&mut self) -> Reply {
        log::debug!("{}: end of output", self.label);
        self.eof = true;
        Reply::Eof
    }

    /// Drop any output that arrived while the engine was not asked anything. Returns the
    /// lines dropped (for the log).
    pub fn drain(&mut self) -> Vec<String> {
        let mut dropped = Vec::new();
        while let Ok(ev) = self.rx.try_recv() {
            match ev.0 {
                Event::Line(l) => dropped.push(l),
                Event::Eof => self.eof = true,
            }
        }
        dropped
    }

    /// A description of how the process ended, for crash reports: exit status (waiting a
    /// moment for it) and the last stderr line.
    pub fn exit_report(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_millis(200);
        let mut status = None;
        while Instant::now() < deadline {
            match self.child.try_wait() {
                Ok(Some(s)) => {
                    self.reaped = true;
                    status = Some(s);
                    break;
                }
                Ok(None) => thread::sleep(Duration::from_millis(5)),
                Err(_) => break,
            }
        }
        let mut report = match status {
            Some(s) => format!("process ended ({s})"),
            None => "output closed".to_string(),
        };
        // Give the stderr reader a moment to collect the last words.
        thread::sleep(Duration::from_millis(20));
        if let Some(last) = self.stderr_tail().last() {
            report.push_str(&format!("; stderr: {last}"));
        }
        report
    }

    pub fn stderr_tail(&self) -> Vec<String> {
        let tail = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        tail.iter().cloned().collect()
    }

    /// Stop (`run` false) or continue the engine's process group, as GomocupJudge
    /// suspends an engine while it is not on move.
    pub fn set_running(&mut self, run: bool) {
        if self.paused == run && !self.reaped {
            sys::pause_group(self.child.id(), run);
            self.paused = !run;
        }
    }

    /// The unique set size (memory no other process shares) of the engine and all its
    /// descendants, in bytes, as GomocupJudge measures it; `None` where /proc is missing.
    pub fn unique_set_size(&self) -> Option<u64> {
        let mut total = 0;
        let mut todo = vec![self.child.id()];
        let mut found = false;
        while let Some(pid) = todo.pop() {
            if let Some(kib) = process_uss_kib(pid) {
                total += kib * 1024;
                found = true;
            }
            todo.extend(children(pid));
        }
        found.then_some(total)
    }

    /// Send END, close stdin and wait up to `grace` for the process to exit; kill it if it
    /// does not. Returns whether it exited by itself in time.
    pub fn shutdown(&mut self, grace: Duration) -> bool {
        self.set_running(true);
        let _ = self.send("END");
        self.stdin = None;
        let deadline = Instant::now() + grace;
        let mut exited = self.reaped;
        while !exited && Instant::now() < deadline {
            match self.child.try_wait() {
                Ok(Some(_)) => exited = true,
                Ok(None) => thread::sleep(Duration::from_millis(5)),
                Err(_) => break,
            }
        }
        if exited {
            self.reaped = true;
        }
        self.kill();
        exited
    }

    /// Kill the engine and everything in its process group, and reap it.
    pub fn kill(&mut self) {
        sys::kill_group(self.child.id());
        if !self.reaped {
            let _ = self.child.kill();
            let _ = self.child.wait();
            self.reaped = true;
        }
        self.stdin = None;
        self.eof = true;
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A command with a path separator is taken relative to the runner's directory (the
/// engine itself may run elsewhere); a bare name is looked up on PATH.
pub fn resolve(cmd: &Path) -> io::Result<PathBuf> {
    if cmd.components().count() > 1 || cmd.is_absolute() {
        return std::fs::canonicalize(cmd)
            .map_err(|e| io::Error::new(e.kind(), format!("engine {}: {e}", cmd.display())));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join(cmd))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotFound,
                format!("engine {} not found on PATH", cmd.display()),
            )
        })
}

/// Private (unshared) memory of one process in KiB, from /proc/PID/smaps_rollup (or
/// smaps on older kernels).
fn process_uss_kib(pid: u32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))
        .or_else(|_| std::fs::read_to_string(format!("/proc/{pid}/smaps")))
        .ok()?;
    Some(
        text.lines()
            .filter(|l| {
                l.starts_with("Private_Clean:") || l.starts_with("Private_Dirty:") || l.starts_with("Private_Hugetlb:")
            })
            .filter_map(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
            .sum(),
    )
}

/// The child processes of `pid` (from every thread's /proc children list).
fn children(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for task in tasks.flatten() {
        if let Ok(text) = std::fs::read_to_string(task.path().join("children")) {
            out.extend(text.split_whitespace().filter_map(|p| p.parse::<u32>().ok()));
        }
    }
    out
}

fn read_lines(mut out: impl Read, tx: Sender<(Event, Instant)>) {
    let mut buf = [0u8; 8192];
    let mut line: Vec<u8> = Vec::new();
    let emit = |line: &mut Vec<u8>| {
        let text = String::from_utf8_lossy(line).trim().to_string();
        line.clear();
        text.is_empty() || tx.send((Event::Line(text), Instant::now())).is_ok()
    };
    loop {
        let n = match out.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        for &b in &buf[..n] {
            if b == b'\n' || b == b'\r' {
                if !emit(&mut line) {
                    return;
                }
            } else if line.len() < MAX_LINE {
                line.push(b);
            }
        }
    }
    emit(&mut line);
    let _ = tx.send((Event::Eof, Instant::now()));
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// The state letter of a process (R, S, T, ...).
    fn state(pid: u32) -> char {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        after.chars().next().unwrap()
    }

    #[test]
    fn suspends_resumes_and_measures_a_process_tree() {
        // A shell with a child: both are in the engine's process group and tree.
        let launch = Launch {
            cmd: PathBuf::from("/bin/sh"),
            args: vec!["-c".into(), "sleep 30 & wait".into()],
            dir: None,
        };
        let mut e = Engine::spawn(&launch, "test").unwrap();
        thread::sleep(Duration::from_millis(100));
        let pid = e.child.id();
        let uss = e.unique_set_size().expect("measured");
        assert!(uss > 0 && uss < 100 << 20, "{uss}");
        assert!(uss > process_uss_kib(pid).unwrap() * 1024, "the child counts too");
        e.set_running(false);
        thread::sleep(Duration::from_millis(50));
        assert_eq!(state(pid), 'T');
        e.set_running(true);
        thread::sleep(Duration::from_millis(50));
        assert_ne!(state(pid), 'T');
        e.kill();
    }
}
