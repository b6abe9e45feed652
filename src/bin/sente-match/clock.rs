//! Time controls and the per-game clock.
//!
//! Accounting follows GomocupJudge (protocol.md §8): a move may take
//! `tolerance + min(turn time, match time left)` of wall time, measured from the moment the
//! command is written until the move line is read; the time used is charged to the
//! engine's match clock, which can go negative within the tolerance; `time_left` sent
//! before each move is what remains. The increment (not a Gomocup feature) is added after
//! each move.

use std::time::Duration;

/// `INFO time_left` / `timeout_*` value meaning "unlimited".
pub const UNLIMITED: i64 = 2_147_483_647;

/// A time control. Zero means "no limit" for `turn_ms` and `match_ms`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    pub turn_ms: u64,
    pub match_ms: u64,
    pub increment_ms: u64,
}

/// Gomocup presets by name (protocol.md §9).
pub const PRESETS: [(&str, TimeControl); 3] = [
    ("fastgame", TimeControl::new(5_000, 120_000, 0)),
    ("group", TimeControl::new(30_000, 180_000, 0)),
    ("final", TimeControl::new(300_000, 1_000_000, 0)),
];

impl TimeControl {
    pub const fn new(turn_ms: u64, match_ms: u64, increment_ms: u64) -> TimeControl {
        TimeControl {
            turn_ms,
            match_ms,
            increment_ms,
        }
    }

    /// Parse a preset name or `TURN[/MATCH][+INC]` in seconds (decimals allowed):
    /// `fastgame`, `5/120`, `0.2/10+0.1`, `1` (1 s a move, no game limit), `0/60` (60 s a
    /// game, no per-move limit).
    pub fn parse(s: &str) -> Result<TimeControl, String> {
        if let Some((_, tc)) = PRESETS.iter().find(|(n, _)| n.eq_ignore_ascii_case(s)) {
            return Ok(*tc);
        }
        let err = || {
            format!(
                "bad time control '{s}': use TURN[/MATCH][+INC] in seconds or one of {}",
                PRESETS.map(|p| p.0).join(", ")
            )
        };
        let (main, inc) = match s.split_once('+') {
            Some((m, i)) => (m, seconds_to_ms(i).ok_or_else(err)?),
            None => (s, 0),
        };
        let (turn, game) = match main.split_once('/') {
            Some((t, m)) => (seconds_to_ms(t).ok_or_else(err)?, seconds_to_ms(m).ok_or_else(err)?),
            None => (seconds_to_ms(main).ok_or_else(err)?, 0),
        };
        if turn == 0 && game == 0 && inc == 0 && main.trim() != "0/0" {
            return Err(err());
        }
        Ok(TimeControl::new(turn, game, inc))
    }

    /// The `INFO timeout_turn` value: the turn limit; with only a game limit, the game time
    /// (as c-gomoku-cli does); with neither, "unlimited" (not 0, which means "instantly").
    pub fn info_turn(&self) -> i64 {
        match (self.turn_ms, self.match_ms) {
            (0, 0) => UNLIMITED,
            (0, m) => m as i64,
            (t, _) => t as i64,
        }
    }

    /// The `INFO timeout_match` value (0 = no limit, as in the protocol).
    pub fn info_match(&self) -> i64 {
        self.match_ms as i64
    }
}

impl std::fmt::Display for TimeControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let secs = |ms: u64| {
            let s = format!("{:.3}", ms as f64 / 1000.0);
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        };
        write!(f, "{}/{}", secs(self.turn_ms), secs(self.match_ms))?;
        if self.increment_ms > 0 {
            write!(f, "+{}", secs(self.increment_ms))?;
        }
        Ok(())
    }
}

fn seconds_to_ms(s: &str) -> Option<u64> {
    let v: f64 = s.trim().parse().ok()?;
    (v.is_finite() && v >= 0.0).then(|| (v * 1000.0).round() as u64)
}

/// One engine's clock in one game.
#[derive(Clone, Debug)]
pub struct Clock {
    tc: TimeControl,
    tolerance_ms: u64,
    /// Match time left in ms (meaningful only with a match limit).
    left_ms: i64,
}

impl Clock {
    pub fn new(tc: TimeControl, tolerance_ms: u64) -> Clock {
        Clock {
            tc,
            tolerance_ms,
            left_ms: tc.match_ms as i64,
        }
    }

    /// The `INFO time_left` value before a move.
    pub fn info_time_left(&self) -> i64 {
        if self.tc.match_ms == 0 {
            UNLIMITED
        } else {
            self.left_ms
        }
    }

    /// The longest a move may take before it is a timeout (`None` = no limit).
    pub fn allowance(&self) -> Option<Duration> {
        let turn = (self.tc.turn_ms > 0).then_some(self.tc.turn_ms as i64);
        let game = (self.tc.match_ms > 0).then_some(self.left_ms.max(0));
        let limit = match (turn, game) {
            (Some(t), Some(g)) => t.min(g),
            (Some(t), None) => t,
            (None, Some(g)) => g,
            (None, None) => return None,
        };
        Some(Duration::from_millis(limit as u64 + self.tolerance_ms))
    }

    /// Charge a move that took `elapsed`. Returns false when it overstepped a limit.
    pub fn charge(&mut self, elapsed: Duration) -> bool {
        let within = self.allowance().is_none_or(|a| elapsed <= a);
        if self.tc.match_ms > 0 {
            self.left_ms -= elapsed.as_millis() as i64;
            self.left_ms += self.tc.increment_ms as i64;
        }
        within
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_presets_and_specs() {
        assert_eq!(TimeControl::parse("fastgame"), Ok(TimeControl::new(5000, 120_000, 0)));
        assert_eq!(TimeControl::parse("FINAL"), Ok(TimeControl::new(300_000, 1_000_000, 0)));
        assert_eq!(TimeControl::parse("0.2/10+0.05"), Ok(TimeControl::new(200, 10_000, 50)));
        assert_eq!(TimeControl::parse("1"), Ok(TimeControl::new(1000, 0, 0)));
        assert_eq!(TimeControl::parse("0/60"), Ok(TimeControl::new(0, 60_000, 0)));
        for bad in ["", "x", "1/y", "-1/5", "0", "5/120+"] {
            assert!(TimeControl::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(TimeControl::new(200, 10_000, 50).to_string(), "0.2/10+0.05");
    }

    #[test]
    fn info_values() {
        let tc = TimeControl::new(0, 60_000, 0);
        assert_eq!((tc.info_turn(), tc.info_match()), (60_000, 60_000));
        let tc = TimeControl::new(0, 0, 0);
        assert_eq!((tc.info_turn(), tc.info_match()), (UNLIMITED, 0));
        assert_eq!(Clock::new(tc, 0).info_time_left(), UNLIMITED);
        assert_eq!(Clock::new(tc, 0).allowance(), None);
    }

    #[test]
    fn clock_charges_and_detects_timeouts() {
        let mut c = Clock::new(TimeControl::new(1000, 2500, 100), 50);
        assert_eq!(c.info_time_left(), 2500);
        assert_eq!(c.allowance(), Some(Duration::from_millis(1050)));
        assert!(c.charge(Duration::from_millis(1040)));
        assert_eq!(c.info_time_left(), 1560);
        assert!(c.charge(Duration::from_millis(900)));
        assert_eq!(c.info_time_left(), 760);
        // Now the game clock is the tighter limit: 760 + 50.
        assert_eq!(c.allowance(), Some(Duration::from_millis(810)));
        assert!(!c.charge(Duration::from_millis(811)));
        assert_eq!(c.info_time_left(), 49);
        // Turn limit alone.
        let mut t = Clock::new(TimeControl::new(300, 0, 0), 0);
        assert!(t.charge(Duration::from_millis(300)));
        assert!(!t.charge(Duration::from_millis(301)));
        assert_eq!(t.info_time_left(), UNLIMITED);
    }
}
