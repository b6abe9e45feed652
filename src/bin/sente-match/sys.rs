//! The little the runner needs from the operating system beyond `std`: a Ctrl-C flag and
//! killing an engine's whole process group. Self-written FFI to the C library that `std`
//! already links, instead of a crate (see the README, "Matches").

use std::sync::atomic::{AtomicBool, Ordering};

/// Set by Ctrl-C (SIGINT) or SIGTERM: finish cleanly. A second signal exits at once.
pub static STOP: AtomicBool = AtomicBool::new(false);

pub fn stop_requested() -> bool {
    STOP.load(Ordering::SeqCst)
}

#[cfg(unix)]
mod imp {
    use std::os::raw::c_int;
    use std::sync::atomic::Ordering;

    extern "C" {
        fn signal(signum: c_int, handler: extern "C" fn(c_int)) -> usize;
        fn kill(pid: c_int, sig: c_int) -> c_int;
        fn _exit(status: c_int) -> !;
    }

    const SIGINT: c_int = 2;
    const SIGKILL: c_int = 9;
    const SIGTERM: c_int = 15;

    extern "C" fn on_signal(_: c_int) {
        // Only async-signal-safe work here: an atomic swap, and _exit on the second signal.
        if super::STOP.swap(true, Ordering::SeqCst) {
            unsafe { _exit(130) }
        }
    }

    pub fn install_handlers() {
        unsafe {
            signal(SIGINT, on_signal);
            signal(SIGTERM, on_signal);
        }
    }

    /// Kill every process in the group `pgid` (an engine started as a group leader, so its
    /// helpers and children go with it).
    pub fn kill_group(pgid: u32) {
        if pgid > 1 {
            unsafe {
                kill(-(pgid as c_int), SIGKILL);
            }
        }
    }
}

#[cfg(not(unix))]
mod imp {
    pub fn install_handlers() {}
    pub fn kill_group(_pgid: u32) {}
}

pub use imp::{install_handlers, kill_group};
