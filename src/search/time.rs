//! Time management: how long to think for one move.
//!
//! Inputs are the manager's INFO values. `time_left` is the real budget when the match
//! clock is limited (c-gomoku-cli allows no tolerance on it); `timeout_turn` caps every
//! move. Both get a safety margin, because the engine may share a loaded machine and the
//! manager's clock starts before our reader sees the command.

use std::time::Duration;

/// `time_left` / `timeout_match` value that means "no limit".
pub const UNLIMITED: i64 = 2_147_483_647;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// `timeout_turn` in ms; 0 means "as fast as possible".
    pub turn_ms: i64,
    /// `timeout_match` in ms; 0 means no match limit.
    pub match_ms: i64,
    /// `time_left` in ms; `UNLIMITED` when the manager says so or never sent it.
    pub left_ms: i64,
    /// `time_increment` in ms per move (Yixin-Board).
    pub increment_ms: i64,
}

impl Default for TimeControl {
    /// The official skeleton's defaults: 30 s a move, no match limit.
    fn default() -> Self {
        TimeControl {
            turn_ms: 30_000,
            match_ms: 0,
            left_ms: UNLIMITED,
            increment_ms: 0,
        }
    }
}

/// How long to think: stop starting new iterations after `soft`, abort at `hard`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub soft: Duration,
    pub hard: Duration,
}

impl Budget {
    /// An equal share for one of `parts` searches (at least 1 ms to abort in).
    pub fn split(self, parts: u32) -> Budget {
        let parts = parts.max(1);
        Budget {
            soft: self.soft / parts,
            hard: (self.hard / parts).max(Duration::from_millis(1)),
        }
    }
}

/// Thinking time when `timeout_turn` is 0 ("play as fast as possible").
const INSTANT_MS: i64 = 25;

impl TimeControl {
    pub fn match_is_limited(&self) -> bool {
        self.match_ms > 0 && self.left_ms < UNLIMITED
    }

    /// The budget for the next move, with `empties` empty points left on the board.
    pub fn budget(&self, empties: usize) -> Budget {
        let mut hard = i64::MAX;
        let mut soft = i64::MAX;
        if self.turn_ms <= 0 {
            hard = INSTANT_MS;
            soft = INSTANT_MS;
        } else {
            // 10% (at least 50 ms, at most 1 s) plus 30 ms: enough for a loaded 2-core
            // machine where the search thread may wait for a core.
            // Very short turns keep two thirds of the time.
            let margin = ((self.turn_ms / 10).clamp(50, 1000) + 30).min(self.turn_ms / 3);
            hard = hard.min(self.turn_ms - margin);
            // An unfinished iteration still improves the move, so use most of the turn.
            soft = soft.min(hard * 3 / 4);
        }
        if self.left_ms < UNLIMITED {
            // Keep a reserve for the rest of the game; never bet more than a fifth of the
            // clock on one move. Expect up to ~20 more own moves while the board is open.
            let reserve = (self.left_ms / 10).clamp(0, 500) + 60;
            let available = self.left_ms - reserve + self.increment_ms;
            let moves_to_go = ((empties as i64) / 6).clamp(8, 22);
            hard = hard.min(available / 5);
            soft = soft.min(available / moves_to_go + self.increment_ms * 4 / 5);
        }
        let hard = hard.max(1);
        let soft = soft.clamp(1, hard);
        Budget {
            soft: Duration::from_millis(soft as u64),
            hard: Duration::from_millis(hard as u64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(b: Budget) -> (u64, u64) {
        (b.soft.as_millis() as u64, b.hard.as_millis() as u64)
    }

    /// A time per move only (no match clock).
    fn per_turn(turn_ms: i64) -> TimeControl {
        TimeControl {
            turn_ms,
            ..Default::default()
        }
    }

    #[test]
    fn turn_limit_keeps_a_margin() {
        let tc = per_turn(1000);
        let (soft, hard) = ms(tc.budget(200));
        assert!((820..=900).contains(&hard), "{hard}");
        assert!(soft < hard);
    }

    #[test]
    fn short_turns_still_think() {
        let tc = per_turn(50);
        let (soft, hard) = ms(tc.budget(200));
        assert!((30..=40).contains(&hard), "{hard}");
        assert!(soft >= 15, "{soft}");
        let tc = per_turn(200);
        assert!((120..=140).contains(&ms(tc.budget(200)).1));
    }

    #[test]
    fn split_shares_and_keeps_a_millisecond() {
        let b = Budget {
            soft: Duration::from_millis(600),
            hard: Duration::from_millis(900),
        };
        assert_eq!(ms(b.split(3)), (200, 300));
        assert_eq!(ms(b.split(0)), (600, 900));
        assert_eq!(ms(b.split(5000)).1, 1);
    }

    #[test]
    fn zero_turn_time_is_instant() {
        let tc = per_turn(0);
        assert!(ms(tc.budget(200)).1 <= 30);
    }

    #[test]
    fn match_clock_limits_every_move() {
        let tc = TimeControl {
            turn_ms: 30_000,
            match_ms: 180_000,
            left_ms: 180_000,
            increment_ms: 0,
        };
        let (soft, hard) = ms(tc.budget(200));
        assert!(hard <= 180_000 / 5);
        assert!(soft <= 180_000 / 8);
        // Almost out of time: still a positive, tiny budget.
        let low = TimeControl { left_ms: 50, ..tc };
        assert!(ms(low.budget(200)).1 <= 5);
        let negative = TimeControl { left_ms: -500, ..tc };
        assert_eq!(ms(negative.budget(200)), (1, 1));
    }

    #[test]
    fn unlimited_match_uses_the_turn_time() {
        let tc = TimeControl {
            turn_ms: 5000,
            match_ms: 0,
            left_ms: UNLIMITED,
            increment_ms: 0,
        };
        let (_, hard) = ms(tc.budget(100));
        assert!(hard > 4000 && hard < 5000);
    }
}
