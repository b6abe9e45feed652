//! The Gomocup / Piskvork protocol (plus the Yixin-Board extensions) on stdin/stdout.
//!
//! A reader thread turns stdin into line events stamped with the time they arrived (the
//! move clock starts there); the session handles them one by one. Only protocol lines
//! ever reach stdout (see `output`).

pub(crate) mod command;
pub(crate) mod database;
pub(crate) mod output;
pub(crate) mod report;
pub(crate) mod session;

use std::io::{BufRead, Read};
use std::sync::mpsc;
use std::time::Instant;

use output::Output;
use session::{Event, Flow, Session};

/// Longest line kept; the rest of a longer line is read and dropped.
const MAX_LINE: usize = 64 * 1024;

/// Run the protocol loop until END or end of input. Returns the process exit code.
pub fn run() -> i32 {
    run_with(std::io::stdin(), Output::stdout())
}

/// The protocol loop with `preamble` (whole lines) read before stdin: command-line options
/// given as the protocol commands they stand for.
pub fn run_with_preamble(preamble: String) -> i32 {
    run_with(std::io::Cursor::new(preamble).chain(std::io::stdin()), Output::stdout())
}

pub(crate) fn run_with<R: Read + Send + 'static>(input: R, out: Output) -> i32 {
    let (tx, rx) = mpsc::channel::<Event>();
    let reader_tx = tx.clone();
    let reader = move || {
        let mut input = std::io::BufReader::new(input);
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match read_line_bounded(&mut input, &mut buf) {
                Ok(0) | Err(_) => {
                    let _ = reader_tx.send(Event::Eof);
                    return;
                }
                Ok(_) => {
                    let event = Event::Line {
                        at: Instant::now(),
                        text: String::from_utf8_lossy(&buf).into_owned(),
                    };
                    if reader_tx.send(event).is_err() {
                        return;
                    }
                }
            }
        }
    };
    if std::thread::Builder::new().name("stdin".into()).spawn(reader).is_err() {
        return 1;
    }
    let mut session = Session::new(out, tx);
    while let Ok(event) = rx.recv() {
        if session.handle(event) == Flow::Exit {
            break;
        }
    }
    session.abort();
    0
}

/// Read one line (without its line end) of at most `MAX_LINE` bytes; longer lines are
/// cut. A line ends at LF or at a lone CR (some Windows managers), so a command ending in
/// CR is answered without waiting for more input; CR LF gives an extra empty line, which
/// every state ignores.
fn read_line_bounded<R: BufRead>(input: &mut R, buf: &mut Vec<u8>) -> std::io::Result<usize> {
    let mut total = 0;
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            return Ok(total);
        }
        let (used, done) = match chunk.iter().position(|&b| b == b'\n' || b == b'\r') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let keep = used - usize::from(done);
        let room = MAX_LINE.saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..keep.min(room)]);
        input.consume(used);
        total += used;
        if done {
            return Ok(total);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_end_at_lf_cr_lf_or_a_lone_cr() {
        let mut input = std::io::BufReader::with_capacity(2, &b"START 15\rBEGIN\r\nTURN 1,2\nEND"[..]);
        let mut lines = Vec::new();
        let mut buf = Vec::new();
        while read_line_bounded(&mut input, &mut buf).unwrap() > 0 {
            lines.push(String::from_utf8(std::mem::take(&mut buf)).unwrap());
        }
        assert_eq!(lines, ["START 15", "BEGIN", "", "TURN 1,2", "END"]);
    }
}
