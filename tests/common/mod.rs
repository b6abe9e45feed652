//! What the integration tests share: the engine binary under test, started with pipes.

#![allow(dead_code)] // each test crate uses its own part

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// A `pbrain-sente` command with stdin and stdout piped and without `RUST_LOG` (so the
/// engine logs nothing unless a test asks); callers choose stderr and add the rest.
pub fn engine_command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pbrain-sente"));
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .env_remove("RUST_LOG");
    command
}

/// A running engine spoken to line by line (stderr ignored); `END` when dropped.
pub struct Engine {
    child: Child,
    pub stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Engine {
    pub fn start() -> Engine {
        let mut child = engine_command()
            .stderr(Stdio::null())
            .spawn()
            .expect("start pbrain-sente");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Engine { child, stdin, stdout }
    }

    /// The engine's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Send `lines` in one write, each ended by a newline.
    pub fn send<S: AsRef<str>>(&mut self, lines: &[S]) {
        let mut text = String::new();
        for line in lines {
            text.push_str(line.as_ref());
            text.push('\n');
        }
        self.stdin.write_all(text.as_bytes()).unwrap();
        self.stdin.flush().unwrap();
    }

    /// The next line that is not a MESSAGE.
    pub fn reply(&mut self) -> String {
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "the engine closed its output"
            );
            if !line.starts_with("MESSAGE") {
                return line.trim().to_string();
            }
        }
    }

    /// Send `command`; the reply (the next line that is not a MESSAGE).
    pub fn ask(&mut self, command: &str) -> String {
        self.send(&[command]);
        self.reply()
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "END");
        let _ = self.stdin.flush();
        let _ = self.child.wait();
    }
}
