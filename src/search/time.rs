//! Time management: how long to think for one move.
//!
//! Inputs are the manager's INFO values. `time_left` is the real budget when the match
//! clock is limited (c-gomoku-cli allows no tolerance on it); `timeout_turn` caps every
//! move. Both get a safety margin, because the engine may share a loaded machine and the
//! manager's clock starts before our reader sees the command.
//!
//! On the match clock every move costs more than its thinking time: our own overshoot of
//! the budget, the pipes, scheduling on a loaded machine, and the manager's own work
//! (Piskvork charges 13-29 ms a move). `OverheadMeter` learns that cost from the
//! `time_left` values, and `budget` keeps it in reserve for every move the game may
//! still need, so that even a game that fills the board ends with time on the clock.

use std::time::Duration;

use crate::game::Pos;
use crate::score::is_decisive;

/// `time_left` / `timeout_match` value that means "no limit".
pub(crate) const UNLIMITED: i64 = 2_147_483_647;

/// A move never takes longer than the turn limit or this, whichever is more, on an idle
/// machine (README, "INFO keys"): `timeout_turn` 0 or 1 still gets an answer this fast.
pub const TURN_FLOOR_MS: i64 = 10;

/// The cost of a move beyond its thinking time assumed before any is measured.
pub(crate) const DEFAULT_OVERHEAD_MS: i64 = 4;

/// Kept in reserve once against a stall of the whole machine (measured: a loaded 2-core
/// machine now and then holds a move up by 150 ms and more), or the longest stall seen.
const STALL_FLOOR_MS: i64 = 100;
const MAX_STALL_MS: i64 = 500;

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
    /// What a move costs the match clock beyond its thinking time (see `OverheadMeter`).
    pub overhead_ms: i64,
    /// The longest single stall seen lately (see `OverheadMeter`).
    pub stall_ms: i64,
}

impl Default for TimeControl {
    /// The official skeleton's defaults: 30 s a move, no match limit.
    fn default() -> Self {
        TimeControl {
            turn_ms: 30_000,
            match_ms: 0,
            left_ms: UNLIMITED,
            increment_ms: 0,
            overhead_ms: DEFAULT_OVERHEAD_MS,
            stall_ms: 0,
        }
    }
}

/// How long to think: stop starting new iterations after `soft`, abort at `hard`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub soft: Duration,
    pub hard: Duration,
    /// The match clock set `soft` (not the turn): it may be scaled by what the
    /// iterations say (`soft_scaled`), the time saved staying on the clock.
    pub match_clock: bool,
}

impl Budget {
    /// A budget with these limits that the iterations do not scale, as a turn's (for a
    /// search that is not one game move on the match clock).
    pub(crate) fn fixed(soft: Duration, hard: Duration) -> Budget {
        Budget {
            soft,
            hard,
            match_clock: false,
        }
    }

    /// An equal share for one of `parts` searches (at least 1 ms to abort in).
    pub(crate) fn split(self, parts: u32) -> Budget {
        let parts = parts.max(1);
        Budget {
            soft: self.soft / parts,
            hard: (self.hard / parts).max(Duration::from_millis(1)),
            match_clock: self.match_clock,
        }
    }

    /// When to start no new iteration: the soft limit scaled by `per_mille` (from
    /// `Stability::per_mille`, which bounds it), at most the share of the hard limit a turn
    /// would use. Only a budget the match clock set is scaled, the time saved staying on
    /// the clock for later moves. A budget the turn alone sets already uses that share,
    /// and a turn's time not used is lost, so it stays as it is.
    pub(crate) fn soft_scaled(self, per_mille: u32) -> Duration {
        if !self.match_clock {
            return self.soft;
        }
        let ceiling = (self.hard * SOFT_SHARE_PERCENT as u32 / 100).max(self.soft);
        (self.soft * per_mille / 1000).min(ceiling)
    }
}

/// Iterations before this depth are too quick to say whether the best move is stable.
const STABILITY_MIN_DEPTH: i32 = 4;
/// A new best move adds this (per mille of the soft time), halved at every iteration.
const BEST_CHANGE_PER_MILLE: u32 = 1000;
/// Per mille of the soft time for each point the score fell below our previous move's,
/// and the bounds of that factor.
const FALL_PER_POINT: i32 = 4;
const FALL_MIN_PER_MILLE: i32 = 750;
const FALL_MAX_PER_MILLE: i32 = 1500;
/// One best move through this many iterations: the soft time shrinks to `STABLE_PER_MILLE`.
const STABLE_ITERATIONS: i32 = 6;
const STABLE_PER_MILLE: u32 = 650;
/// Bounds of the whole factor.
const SCALE_MIN_PER_MILLE: u32 = 500;
const SCALE_MAX_PER_MILLE: u32 = 2000;

/// What the finished iterations say about the move, as Stockfish's time manager reads
/// them: think longer after the best move changed or when the score fell below our last
/// move's, shorter when one move has held for several iterations.
pub(crate) struct Stability {
    previous_score: Option<i32>,
    best: Option<Pos>,
    /// Best-move changes, per mille, halved at every iteration.
    changes: u32,
    /// The depth from which the best move has held.
    held_from: i32,
    /// The last iteration's depth and score.
    depth: i32,
    score: i32,
}

impl Stability {
    /// `previous_score`: our last move's score (same side to move), if it was searched.
    pub(crate) fn new(previous_score: Option<i32>) -> Stability {
        Stability {
            previous_score,
            best: None,
            changes: 0,
            held_from: 0,
            depth: 0,
            score: 0,
        }
    }

    /// An iteration of `depth` finished with `best` and `score`.
    pub(crate) fn record(&mut self, depth: i32, best: Pos, score: i32) {
        self.changes /= 2;
        if self.best != Some(best) {
            if depth >= STABILITY_MIN_DEPTH && self.best.is_some() {
                self.changes += BEST_CHANGE_PER_MILLE;
            }
            self.held_from = depth;
        }
        self.best = Some(best);
        self.depth = depth;
        self.score = score;
    }

    /// The factor for `Budget::soft_scaled` after the last iteration, per mille.
    pub(crate) fn per_mille(&self) -> u32 {
        let instability = 1000 + self.changes;
        let falling = match self.previous_score {
            Some(before) if !is_decisive(before) && !is_decisive(self.score) => {
                (1000 + FALL_PER_POINT * (before - self.score)).clamp(FALL_MIN_PER_MILLE, FALL_MAX_PER_MILLE) as u32
            }
            _ => 1000,
        };
        let held = if self.depth - self.held_from >= STABLE_ITERATIONS {
            STABLE_PER_MILLE
        } else {
            1000
        };
        let scale = instability as u64 * falling as u64 * held as u64 / 1_000_000;
        (scale as u32).clamp(SCALE_MIN_PER_MILLE, SCALE_MAX_PER_MILLE)
    }
}

/// Thinking time when `timeout_turn` is 0 ("play as fast as possible"): enough for the
/// quick threat checks, well inside `TURN_FLOOR_MS` with the rest of a move's work.
const INSTANT_SOFT_MS: i64 = 2;
const INSTANT_HARD_MS: i64 = 4;

/// No new iteration starts after this share of the hard limit of a turn.
const SOFT_SHARE_PERCENT: i64 = 80;

impl TimeControl {
    /// The budget for the next move, with `empties` empty points left on the board.
    pub(crate) fn budget(&self, empties: usize) -> Budget {
        let mut hard = i64::MAX;
        let mut soft = i64::MAX;
        let mut match_clock = false;
        if self.turn_ms <= 0 {
            hard = INSTANT_HARD_MS;
            soft = INSTANT_SOFT_MS;
        } else {
            // Every manager allows by default 1 s or more beyond `timeout_turn` before a
            // timeout (protocol.md §12), so the margin only covers our own stop
            // latency and the pipes: 5 % (20 to 500 ms) plus 10 ms. Very short turns keep
            // two thirds of the time.
            let margin = ((self.turn_ms / 20).clamp(20, 500) + 10).min(self.turn_ms / 3);
            hard = hard.min(self.turn_ms - margin);
            // An unfinished iteration still improves the move, so use most of the turn.
            soft = soft.min(hard * SOFT_SHARE_PERCENT / 100);
        }
        if self.left_ms < UNLIMITED {
            // Keep for every move we may still have to make (as if the game filled the
            // board) its least cost: 1 ms of thought plus the overhead; then a twentieth
            // of the clock (at most 0.5 s) and one stall. Never bet more than a fifth of
            // the rest on one move; expect up to ~20 more own moves while the board is
            // open.
            let moves_left = (empties as i64 + 1) / 2;
            let per_move = (self.overhead_ms.max(0) + 1 - self.increment_ms).max(0);
            let stall = self.stall_ms.clamp(STALL_FLOOR_MS, MAX_STALL_MS);
            let reserve = moves_left * per_move + (self.left_ms / 20).clamp(0, 500) + stall;
            let available = self.left_ms - reserve + self.increment_ms;
            let moves_to_go = ((empties as i64) / 6).clamp(8, 22);
            hard = hard.min(available / 5);
            let share = available / moves_to_go + self.increment_ms * 4 / 5;
            match_clock = share < soft;
            soft = soft.min(share);
        }
        let hard = hard.max(1);
        let soft = soft.clamp(1, hard);
        Budget {
            soft: Duration::from_millis(soft as u64),
            hard: Duration::from_millis(hard as u64),
            match_clock,
        }
    }

    /// The time of a swap2 step: the whole of a move's hard limit (no iteration stops
    /// early), as it is one decision that sets the colours. GomocupJudge times these
    /// answers as moves (`new_protocol.py` wait: the turn's limit, or the time left).
    pub(crate) fn swap2_budget(&self, empties: usize) -> Budget {
        let b = self.budget(empties);
        Budget::fixed(b.hard, b.hard)
    }

    /// The thinking time of a typical move in this match: the soft budget of a move early
    /// in a 15x15 game with the whole match clock. It depends only on `timeout_turn` and
    /// `timeout_match`, which stay the same through a match (not on `time_left`).
    pub(crate) fn typical_move_ms(&self) -> i64 {
        let whole = TimeControl {
            left_ms: if self.match_ms > 0 { self.match_ms } else { UNLIMITED },
            overhead_ms: DEFAULT_OVERHEAD_MS,
            stall_ms: 0,
            ..*self
        };
        whole.budget(15 * 15).soft.as_millis() as i64
    }
}

/// Learns `TimeControl::overhead_ms`: per move, how far we ran past the hard budget and
/// how much more than our own measured time the manager charged (the difference between
/// consecutive `time_left` values). Each estimate moves half-way up towards a higher
/// sample and an eighth down towards a lower one, so one stall does not empty the clock
/// and a steady cost is learnt within a few moves. The largest sample (fading by a
/// sixteenth a move) is `TimeControl::stall_ms`: one more such stall stays in reserve.
#[derive(Clone, Debug)]
pub struct OverheadMeter {
    /// Our last move: the clock when it began and the time we measured for it.
    last: Option<(i64, i64)>,
    overshoot_ms: i64,
    manager_ms: i64,
    stall_ms: i64,
}

impl Default for OverheadMeter {
    fn default() -> Self {
        OverheadMeter {
            last: None,
            overshoot_ms: 0,
            manager_ms: DEFAULT_OVERHEAD_MS,
            stall_ms: 0,
        }
    }
}

/// Largest single sample: a longer stall says nothing about the next move.
const MAX_SAMPLE_MS: i64 = 100;

fn follow(estimate: i64, sample: i64) -> i64 {
    let sample = sample.clamp(0, MAX_SAMPLE_MS);
    if sample > estimate {
        estimate + (sample - estimate + 1) / 2
    } else {
        estimate - (estimate - sample) / 8
    }
}

impl OverheadMeter {
    /// A new game: the clock starts again (the estimates stay: same manager).
    pub(crate) fn new_game(&mut self) {
        self.last = None;
    }

    /// A move of ours ended. It began with `tc.left_ms` = `left_ms`, took `used_ms` by
    /// our own clock and was allowed `hard_ms`.
    pub(crate) fn moved(&mut self, tc: &mut TimeControl, left_ms: i64, used_ms: i64, hard_ms: i64) {
        self.overshoot_ms = follow(self.overshoot_ms, used_ms - hard_ms);
        self.stall(tc, used_ms - hard_ms);
        self.last = (left_ms < UNLIMITED).then_some((left_ms, used_ms));
        tc.overhead_ms = self.overshoot_ms + self.manager_ms;
    }

    fn stall(&mut self, tc: &mut TimeControl, sample: i64) {
        self.stall_ms = (self.stall_ms - self.stall_ms / 16).max(sample.clamp(0, MAX_STALL_MS));
        tc.stall_ms = self.stall_ms;
    }

    /// The manager sent `time_left` = `left_ms`: what it charged for our last move beyond
    /// our own measure is its overhead.
    pub(crate) fn time_left(&mut self, tc: &mut TimeControl, left_ms: i64) {
        if let Some((before, used)) = self.last.take() {
            if left_ms < UNLIMITED {
                let charged = before + tc.increment_ms - left_ms;
                self.manager_ms = follow(self.manager_ms, charged - used);
                self.stall(tc, charged - used);
                tc.overhead_ms = self.overshoot_ms + self.manager_ms;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(b: Budget) -> (u64, u64) {
        (b.soft.as_millis() as u64, b.hard.as_millis() as u64)
    }

    #[test]
    fn a_swap2_step_uses_the_whole_turn_and_never_more() {
        let fastgame = TimeControl {
            turn_ms: 5000,
            match_ms: 120_000,
            left_ms: 120_000,
            ..Default::default()
        };
        let (move_soft, move_hard) = ms(fastgame.budget(225));
        assert_eq!(ms(fastgame.swap2_budget(225)), (move_hard, move_hard));
        assert!(move_soft < move_hard && move_hard < 5000);
        let short = TimeControl {
            left_ms: 4000,
            ..fastgame
        };
        assert_eq!(ms(short.swap2_budget(225)).1, ms(short.budget(225)).1);
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
        assert!((920..=960).contains(&hard), "{hard}");
        assert!(soft >= hard * 3 / 4, "{soft}");
        assert!(soft < hard);
    }

    #[test]
    fn short_turns_still_think() {
        let tc = per_turn(50);
        let (soft, hard) = ms(tc.budget(200));
        assert!((30..=40).contains(&hard), "{hard}");
        assert!(soft >= 15, "{soft}");
        let tc = per_turn(200);
        assert!((160..=180).contains(&ms(tc.budget(200)).1));
    }

    #[test]
    fn split_shares_and_keeps_a_millisecond() {
        let b = Budget::fixed(Duration::from_millis(600), Duration::from_millis(900));
        assert_eq!(ms(b.split(3)), (200, 300));
        assert_eq!(ms(b.split(0)), (600, 900));
        assert_eq!(ms(b.split(5000)).1, 1);
    }

    #[test]
    fn zero_turn_time_is_instant() {
        let tc = per_turn(0);
        assert!(ms(tc.budget(200)).1 <= TURN_FLOOR_MS as u64 / 2);
        assert_eq!(ms(per_turn(1).budget(200)), (1, 1));
    }

    /// Play a game on the clock: every move uses its whole hard budget plus `cost_ms`
    /// that the manager charges; returns the lowest clock.
    fn simulate(match_ms: i64, cost_ms: i64, empties: usize) -> i64 {
        simulate_with_stall(match_ms, cost_ms, empties, usize::MAX, 0)
    }

    /// The same, and our move number `stall_at` takes `stall_ms` longer (a machine stall).
    fn simulate_with_stall(match_ms: i64, cost_ms: i64, empties: usize, stall_at: usize, stall_ms: i64) -> i64 {
        let mut tc = TimeControl {
            turn_ms: match_ms,
            match_ms,
            left_ms: match_ms,
            ..Default::default()
        };
        let mut meter = OverheadMeter::default();
        let mut lowest = match_ms;
        for (n, e) in (1..=empties).rev().step_by(2).enumerate() {
            let hard = ms(tc.budget(e)).1 as i64;
            let used = hard + if n == stall_at { stall_ms } else { 0 };
            let left = tc.left_ms;
            meter.moved(&mut tc, left, used, hard);
            let now = left - used - cost_ms;
            meter.time_left(&mut tc, now);
            tc.left_ms = now;
            lowest = lowest.min(now);
        }
        lowest
    }

    #[test]
    fn a_game_that_fills_the_board_keeps_time() {
        // 15x15 at 2 s: 113 moves of ours; a manager costing 0, 3 and 25 ms a move (the
        // last is learnt: 113 x 25 ms is more than the clock, so it needs 5 s).
        assert!(simulate(2000, 0, 225) >= 0);
        assert!(simulate(2000, 3, 225) >= 0);
        assert!(simulate(5000, 25, 225) >= 0);
        assert!(simulate(120_000, 25, 400) >= 0);
    }

    #[test]
    fn a_stall_near_the_end_is_covered() {
        // 15x15 at 2 s, 113 moves of ours, each using its whole hard budget: a stall of
        // 90 ms on any of the last ten still ends above zero (the soak saw 150 ms, once
        // in 2000 games, on a loaded machine; real moves mostly stop near the soft limit).
        for at in 103..113 {
            assert!(simulate_with_stall(2000, 3, 225, at, 90) >= 0, "stall on move {at}");
        }
        // A stall seen is kept in reserve afterwards.
        let mut tc = TimeControl {
            match_ms: 10_000,
            left_ms: 5000,
            ..Default::default()
        };
        let before = ms(tc.budget(100)).1;
        OverheadMeter::default().moved(&mut tc, 5000, 450, 50);
        assert_eq!(tc.stall_ms, 400);
        assert!(ms(tc.budget(100)).1 < before);
    }

    #[test]
    fn the_meter_follows_the_manager() {
        let mut tc = TimeControl {
            match_ms: 10_000,
            left_ms: 10_000,
            ..Default::default()
        };
        let mut meter = OverheadMeter::default();
        let mut left = 10_000;
        for _ in 0..10 {
            meter.moved(&mut tc, left, 50, 100);
            left -= 50 + 20;
            meter.time_left(&mut tc, left);
        }
        assert!((18..=21).contains(&tc.overhead_ms), "{}", tc.overhead_ms);
        // One 100 ms stall moves it half-way, not all the way.
        meter.moved(&mut tc, left, 50, 100);
        left -= 50 + 300;
        meter.time_left(&mut tc, left);
        assert!(tc.overhead_ms < 70, "{}", tc.overhead_ms);
        // Without a fresh time_left nothing is learnt about the manager.
        let before = tc.overhead_ms;
        meter.moved(&mut tc, left, 50, 100);
        meter.moved(&mut tc, left, 50, 100);
        assert_eq!(tc.overhead_ms, before);
    }

    #[test]
    fn match_clock_limits_every_move() {
        let tc = TimeControl {
            turn_ms: 30_000,
            match_ms: 180_000,
            left_ms: 180_000,
            ..Default::default()
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
    fn only_a_budget_the_match_clock_sets_is_scaled() {
        // Whatever the turn, and with a match clock that leaves the turn's share alone.
        for turn_ms in [0, 50, 171, 200, 333, 1000, 5000, 30_000] {
            let turn = per_turn(turn_ms).budget(200);
            assert!(!turn.match_clock);
            for per_mille in [500, 1000, 2000] {
                assert_eq!(turn.soft_scaled(per_mille), turn.soft, "{turn_ms} ms, {per_mille}");
            }
        }
        // A fresh match clock of `match_ms` with turns of `turn_ms`.
        let fresh = |turn_ms, match_ms| TimeControl {
            turn_ms,
            match_ms,
            left_ms: match_ms,
            ..Default::default()
        };
        assert_eq!(fresh(1000, 1_000_000).budget(200), per_turn(1000).budget(200));
        let clock = fresh(30_000, 180_000).budget(200);
        assert!(clock.match_clock);
        let ceiling = clock.hard * SOFT_SHARE_PERCENT as u32 / 100;
        assert!(clock.soft < ceiling);
        assert!(clock.soft_scaled(2000) > clock.soft && clock.soft_scaled(2000) <= ceiling);
        assert_eq!(clock.soft_scaled(1000), clock.soft);
        assert_eq!(clock.soft_scaled(SCALE_MIN_PER_MILLE), clock.soft / 2);
    }

    #[test]
    fn a_new_best_move_or_a_falling_score_asks_for_more_time() {
        let (a, b) = (Pos::new(7, 7), Pos::new(8, 8));
        let mut steady = Stability::new(None);
        for depth in 1..=5 {
            steady.record(depth, a, 30);
        }
        assert_eq!(steady.per_mille(), 1000);
        let mut changed = Stability::new(None);
        for depth in 1..=4 {
            changed.record(depth, a, 30);
        }
        changed.record(5, b, 30);
        assert!(changed.per_mille() > 1000);
        // The change fades as the new move holds.
        let after_one = changed.per_mille();
        changed.record(6, b, 30);
        assert!(changed.per_mille() < after_one);
        // Against our last move's score of 100: a fall asks for more, a rise for less.
        let mut falling = Stability::new(Some(100));
        falling.record(5, a, 20);
        let mut rising = Stability::new(Some(100));
        rising.record(5, a, 180);
        assert!(falling.per_mille() > 1000);
        assert!(rising.per_mille() < 1000);
        // A proven result says nothing about a fall.
        let mut lost = Stability::new(Some(100));
        lost.record(5, a, -crate::score::WIN + 9);
        assert_eq!(lost.per_mille(), 1000);
    }

    #[test]
    fn a_move_held_through_many_iterations_takes_less() {
        let mut held = Stability::new(None);
        for depth in 1..=5 {
            held.record(depth, Pos::new(7, 7), 50);
        }
        assert!(held.per_mille() >= 1000);
        for depth in 6..=12 {
            held.record(depth, Pos::new(7, 7), 50);
        }
        assert!(held.per_mille() < 1000);
        // With a rising score as well, the factor stops at its floor: half the time.
        let mut rising = Stability::new(Some(0));
        for depth in 1..=12 {
            rising.record(depth, Pos::new(7, 7), 200);
        }
        assert_eq!(rising.per_mille(), SCALE_MIN_PER_MILLE);
    }

    #[test]
    fn unlimited_match_uses_the_turn_time() {
        let tc = TimeControl {
            turn_ms: 5000,
            ..Default::default()
        };
        let (_, hard) = ms(tc.budget(100));
        assert!(hard > 4000 && hard < 5000);
    }
}
