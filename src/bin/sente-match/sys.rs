//! The little the runner needs from the operating system beyond `std`: a Ctrl-C flag,
//! and signals to an engine's whole process group (kill; stop and continue for
//! `--suspend`). Safe wrappers from `signal-hook` and `rustix`: no `unsafe` here.

use std::sync::atomic::{AtomicBool, Ordering};

/// Set by Ctrl-C (SIGINT) or SIGTERM: finish cleanly. A second signal exits at once.
pub static STOP: AtomicBool = AtomicBool::new(false);

pub fn stop_requested() -> bool {
    STOP.load(Ordering::SeqCst)
}

#[cfg(unix)]
mod imp {
    use rustix::process::{kill_process_group, Pid, Signal};
    use signal_hook::consts::{SIGINT, SIGTERM};

    pub fn install_handlers() {
        for signal in [SIGINT, SIGTERM] {
            // The first signal sets the flag; with the flag already set, exit (130).
            let _ = signal_hook::flag::register_conditional_shutdown(signal, 130, &super::STOP);
            let _ = signal_hook::flag::register(signal, &super::STOP);
        }
    }

    fn signal_group(pgid: u32, signal: Signal) {
        // pid 0 and 1 would mean our own group and init: never signalled.
        if let Some(pid) = i32::try_from(pgid).ok().filter(|&p| p > 1).and_then(Pid::from_raw) {
            let _ = kill_process_group(pid, signal);
        }
    }

    /// Kill every process in the group `pgid` (an engine started as a group leader, so
    /// its helpers and children go with it).
    pub fn kill_group(pgid: u32) {
        signal_group(pgid, Signal::KILL);
    }

    /// Suspend (`run` false) or resume the group, as GomocupJudge does between moves.
    pub fn pause_group(pgid: u32, run: bool) {
        signal_group(pgid, if run { Signal::CONT } else { Signal::STOP });
    }
}

#[cfg(not(unix))]
mod imp {
    pub fn install_handlers() {}
    pub fn kill_group(_pgid: u32) {}
    pub fn pause_group(_pgid: u32, _run: bool) {}
}

pub use imp::{install_handlers, kill_group, pause_group};
