//! The only way anything reaches stdout: whole lines, one write each, flushed at once,
//! and nothing at all after END.

use std::io::Write;
use std::sync::{Arc, Mutex};

struct Sink {
    writer: Box<dyn Write + Send>,
    closed: bool,
}

#[derive(Clone)]
pub(crate) struct Output {
    sink: Arc<Mutex<Sink>>,
}

impl Output {
    pub(crate) fn new(writer: Box<dyn Write + Send>) -> Output {
        Output {
            sink: Arc::new(Mutex::new(Sink { writer, closed: false })),
        }
    }

    pub(crate) fn stdout() -> Output {
        Output::new(Box::new(std::io::stdout()))
    }

    /// Write one line (a newline is added). Write errors are ignored: the manager has gone.
    pub(crate) fn line(&self, text: &str) {
        let mut sink = match self.sink.lock() {
            Ok(s) => s,
            Err(poisoned) => poisoned.into_inner(),
        };
        if sink.closed {
            return;
        }
        log::debug!(">> {text}");
        let mut buf = String::with_capacity(text.len() + 1);
        buf.push_str(text);
        buf.push('\n');
        let _ = sink.writer.write_all(buf.as_bytes());
        let _ = sink.writer.flush();
    }

    /// After this, nothing more is written (END).
    pub(crate) fn close(&self) {
        let mut sink = match self.sink.lock() {
            Ok(s) => s,
            Err(poisoned) => poisoned.into_inner(),
        };
        let _ = sink.writer.flush();
        sink.closed = true;
    }
}
