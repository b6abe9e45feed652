//! The engine's settings, from the manager's INFO lines: time, memory, rule, search
//! limits and threads.

use crate::game::Rule;
use crate::search::params::Tunables;
use crate::search::time::{OverheadMeter, TimeControl, UNLIMITED};
use crate::search::{Limits, NetUse, DEFAULT_MAX_DEPTH};

/// Memory the process needs besides the transposition table (code, pattern tables,
/// boards, stacks, allocator slack).
const MEMORY_RESERVE: u64 = 32 << 20;
/// The least `max_memory` the engine runs within, with its smallest table: measured
/// 8-10 MB resident (6.5-8 MB unique set) over games on 15x15 and 32x32. The README
/// states it.
pub(crate) const MEMORY_FLOOR: u64 = 12 << 20;
pub(crate) const MIN_TT_BYTES: u64 = 64 << 10;
pub(crate) const MAX_TT_BYTES: u64 = 1 << 30;
/// Memory limit assumed when the manager sends none or 0 (Gomocup's 350 MB).
const DEFAULT_MEMORY: u64 = 350 << 20;
/// Table bytes per millisecond of a typical move: two searches' nodes when the search
/// visited a node a microsecond (16 bytes an entry); at today's 2 to 2.5 a 1 s turn fills
/// its 16 MiB twice over, yet 64 MiB scored no better at 1 s against Rapfi (88 20×20
/// games each, ARCHITECTURE). A larger table than the search fills is slower, not
/// better: on this machine class (32 MiB of L3 cache) 500,000-node searches on a table
/// in use ran at 1,123K nodes/s with 16 MiB, 1,058K with 64 MiB and 809K with 286 MiB.
const TT_BYTES_PER_MOVE_MS: u64 = 32_000;
/// The table is never made smaller than this for a short time control (memory allows).
const MIN_TIMED_TT_BYTES: u64 = 16 << 20;

pub struct Settings {
    pub(crate) time: TimeControl,
    /// Learns what a move costs the match clock beyond its thinking time.
    pub(crate) meter: OverheadMeter,
    pub(crate) max_memory: u64,
    pub(crate) hash_kib: Option<u64>,
    pub(crate) rule: Rule,
    pub(crate) max_depth: Option<i32>,
    pub(crate) max_nodes: u64,
    pub(crate) threads: usize,
    /// The search's tunable numbers (`INFO tune_NAME VALUE`, for tuning runs).
    pub(crate) tunables: Tunables,
    /// What the network (`INFO nnue_file`'s, else the rule's embedded one) is used for
    /// (`INFO nnue_use`: off, value, policy, both, gated, gated-both).
    pub(crate) net_use: NetUse,
    /// `INFO pondering 1`: think on the opponent's time after our move.
    pub(crate) ponder: bool,
    time_left_seen: bool,
    /// The `max_memory` below the floor already reported (it is said once).
    memory_warned: Option<u64>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            time: TimeControl::default(),
            meter: OverheadMeter::default(),
            max_memory: 0,
            hash_kib: None,
            rule: Rule::Freestyle,
            max_depth: None,
            max_nodes: 0,
            threads: 1,
            net_use: NetUse::default(),
            ponder: false,
            tunables: Tunables::DEFAULT,
            time_left_seen: false,
            memory_warned: None,
        }
    }
}

/// What an INFO line changed that the engine must act on.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Changed {
    Nothing,
    Rule,
    /// Evaluation weights for a tuning run: (table, values).
    Weights(String, String),
    /// A weight file to evaluate with (`INFO eval_file PATH`; empty: the embedded weights).
    EvalFile(String),
    /// A network file to evaluate with (`INFO nnue_file PATH`; empty: none, the tables).
    NnueFile(String),
    /// Yixin-Board's analysis database on or off (`INFO usedatabase`).
    UseDatabase(bool),
}

impl Settings {
    /// Apply `INFO key value`. Unknown keys and bad values are ignored (a reply to INFO
    /// breaks managers).
    pub(crate) fn set(&mut self, key: &str, value: &str, num: Option<i64>) -> Changed {
        match (key, num) {
            // Times beyond UNLIMITED (24.8 days) mean "no limit" and are kept at it, so
            // that the budget's arithmetic cannot overflow (a fuzzer's timeout_turn 2e17
            // once made the soft limit negative).
            ("timeout_turn", Some(v)) => self.time.turn_ms = v.clamp(0, UNLIMITED),
            ("timeout_match", Some(v)) => {
                self.time.match_ms = v.clamp(0, UNLIMITED);
                // Until the manager sends time_left, the whole match time is left.
                if !self.time_left_seen {
                    self.time.left_ms = if v > 0 { v.min(UNLIMITED) } else { UNLIMITED };
                }
            }
            ("time_left", Some(v)) => {
                let v = v.clamp(-UNLIMITED, UNLIMITED);
                self.meter.time_left(&mut self.time, v);
                self.time.left_ms = v;
                self.time_left_seen = true;
            }
            ("time_increment", Some(v)) => self.time.increment_ms = v.clamp(0, UNLIMITED),
            ("max_memory", Some(v)) => self.max_memory = v.max(0) as u64,
            ("hash_size", Some(v)) => self.hash_kib = if v > 0 { Some(v as u64) } else { None },
            ("max_depth", Some(v)) => {
                self.max_depth = if v > 0 {
                    Some(v.min(DEFAULT_MAX_DEPTH as i64) as i32)
                } else {
                    None
                }
            }
            ("max_node", Some(v)) => self.max_nodes = if v > 0 { v as u64 } else { 0 },
            ("thread_num", Some(v)) => self.threads = v.clamp(1, 256) as usize,
            ("pondering", Some(v)) => self.ponder = v != 0,
            ("usedatabase", Some(v)) => return Changed::UseDatabase(v != 0),
            ("rule", Some(v)) => match Rule::from_info(v) {
                Some(rule) if rule != self.rule => {
                    self.rule = rule;
                    return Changed::Rule;
                }
                Some(_) => {}
                None => log::warn!("ignoring unknown rule {v}"),
            },
            // Evaluation weights under test (scripts/tune-eval.py); never needed in play.
            ("eval_own" | "eval_opp" | "eval_line", _) => {
                return Changed::Weights(key[5..].to_string(), value.to_string());
            }
            ("eval_file", _) => return Changed::EvalFile(value.trim().to_string()),
            ("nnue_file", _) => return Changed::NnueFile(value.trim().to_string()),
            ("nnue_use", _) => match NetUse::parse(value.trim()) {
                Some(u) => self.net_use = u,
                None => log::warn!("ignoring INFO nnue_use {value}: off, value, policy, both, gated or gated-both"),
            },
            // Search parameters under test (scripts/tune-search.py); never needed in play.
            (name, Some(v)) if name.starts_with("tune_") => {
                if let Err(e) = self.tunables.set(&name[5..], v) {
                    log::warn!("ignoring INFO {key}: {e}");
                }
            }
            // game_type, folder, evaluate, caution_factor, ... and anything
            // unknown.
            _ => log::debug!("ignored INFO {key} {value}"),
        }
        Changed::Nothing
    }

    /// Transposition table size that keeps the whole process under `max_memory`.
    pub(crate) fn tt_bytes(&self) -> usize {
        let limit = if self.max_memory == 0 {
            DEFAULT_MEMORY
        } else {
            self.max_memory
        };
        let room = limit.saturating_sub(MEMORY_RESERVE) / 10 * 9;
        let wanted = self
            .hash_kib
            .map_or_else(|| self.timed_tt_bytes(), |k| k.saturating_mul(1024));
        wanted.min(room).clamp(MIN_TT_BYTES, MAX_TT_BYTES) as usize
    }

    /// The table the time control needs: what a typical move's searches fill
    /// (`TT_BYTES_PER_MOVE_MS`), at least `MIN_TIMED_TT_BYTES`, rounded down to a power
    /// of two so that small changes of the time settings do not resize (and clear) it.
    fn timed_tt_bytes(&self) -> u64 {
        let bytes = (self.time.typical_move_ms().max(0) as u64).saturating_mul(TT_BYTES_PER_MOVE_MS);
        let bytes = bytes.clamp(MIN_TIMED_TT_BYTES, MAX_TT_BYTES);
        1 << bytes.ilog2()
    }

    /// A `max_memory` we cannot keep to, the first time it is asked about: the text to
    /// tell the manager (we play on with the smallest table).
    pub fn memory_warning(&mut self) -> Option<String> {
        let limit = self.max_memory;
        if limit == 0 || limit >= MEMORY_FLOOR || self.memory_warned == Some(limit) {
            return None;
        }
        self.memory_warned = Some(limit);
        Some(format!(
            "max_memory {limit} is below the {} MiB Sente needs; playing on with the smallest hash table ({} KiB)",
            MEMORY_FLOOR >> 20,
            MIN_TT_BYTES >> 10
        ))
    }

    /// The search limits for a position with `empties` empty points.
    pub(crate) fn limits(&self, empties: usize) -> Limits {
        Limits {
            budget: Some(self.time.budget(empties)),
            max_depth: self.max_depth.unwrap_or(DEFAULT_MAX_DEPTH),
            max_nodes: self.max_nodes,
            excluded: Default::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_and_warnings() {
        let mut s = Settings::default();
        assert!(s.tt_bytes() > 250 << 20, "350 MB by default");
        s.set("max_memory", "1000000", Some(1_000_000));
        assert_eq!(s.tt_bytes() as u64, MIN_TT_BYTES);
        assert!(s.memory_warning().is_some());
        assert!(s.memory_warning().is_none(), "said once");
        s.set("max_memory", "367001600", Some(367_001_600));
        assert!(s.memory_warning().is_none());
        s.set("hash_size", "1024", Some(1024));
        assert_eq!(s.tt_bytes(), 1 << 20);
    }

    #[test]
    fn the_table_follows_the_time_control() {
        let mut s = Settings::default();
        let mut sizes = Vec::new();
        // 0.2 s and 1 s a move, fastgame 5 s / 120 s, the regular leagues' 30 s / 180 s.
        for (turn, total) in [("200", "0"), ("1000", "0"), ("5000", "120000"), ("30000", "180000")] {
            s.set("timeout_turn", turn, turn.parse().ok());
            s.set("timeout_match", total, total.parse().ok());
            sizes.push(s.tt_bytes() >> 20);
        }
        assert_eq!(
            sizes[0] as u64,
            MIN_TIMED_TT_BYTES >> 20,
            "a short time control gets the floor"
        );
        assert!(
            sizes.windows(2).all(|w| w[0] <= w[1]),
            "more time, no smaller table: {sizes:?}"
        );
        assert!(sizes[3] >= 128, "the regular leagues get a large table: {sizes:?}");
        // time_left changes every move; the table does not.
        let before = s.tt_bytes();
        s.set("time_left", "1000", Some(1000));
        assert_eq!(s.tt_bytes(), before);
        // max_memory still caps it, and hash_size still sets it.
        s.set("max_memory", "100000000", Some(100_000_000));
        assert!(s.tt_bytes() < 100_000_000, "capped by max_memory");
        s.set("hash_size", "2048", Some(2048));
        assert_eq!(s.tt_bytes(), 2 << 20);
    }

    #[test]
    fn the_network_s_use() {
        let mut s = Settings::default();
        assert!(
            s.net_use.value && !s.net_use.policy && s.net_use.gated,
            "gated by default"
        );
        let policy_only = NetUse::parse("policy").expect("a use");
        assert!(policy_only.policy && !policy_only.value);
        assert_eq!(s.set("nnue_use", "policy", None), Changed::Nothing);
        assert_eq!(s.net_use, policy_only);
        s.set("nnue_use", "sideways", None);
        assert_eq!(s.net_use, policy_only, "a bad value changes nothing");
        s.set("nnue_use", "both", None);
        assert!(s.net_use.value && s.net_use.policy && !s.net_use.gated);
        s.set("nnue_use", "gated", None);
        assert!(s.net_use.value && !s.net_use.policy && s.net_use.gated);
        s.set("nnue_use", "gated-both", None);
        assert!(s.net_use.value && s.net_use.policy && s.net_use.gated);
        s.set("nnue_use", "off", None);
        assert_eq!(s.net_use, NetUse::OFF);
        assert_eq!(s.set("nnue_file", " n.nnue ", None), Changed::NnueFile("n.nnue".into()));
    }

    #[test]
    fn rule_and_weights() {
        let mut s = Settings::default();
        assert_eq!(s.set("rule", "6", Some(6)), Changed::Rule);
        assert_eq!(s.rule, Rule::Renju);
        assert_eq!(s.set("rule", "4", Some(4)), Changed::Nothing);
        assert_eq!(s.set("rule", "99", Some(99)), Changed::Nothing);
        assert_eq!(
            s.set("eval_own", "1,2", None),
            Changed::Weights("own".into(), "1,2".into())
        );
        assert_eq!(s.set("eval_file", " w.bin ", None), Changed::EvalFile("w.bin".into()));
    }

    #[test]
    fn tunables_are_set_by_name_and_bad_ones_ignored() {
        let mut s = Settings::default();
        assert_eq!(s.set("tune_lmr_scale", "120", Some(120)), Changed::Nothing);
        assert_eq!(s.tunables.lmr_scale, 120);
        s.set("tune_lmr_scale", "100000", Some(100_000));
        s.set("tune_lmr_scale", "x", None);
        s.set("tune_nonsense", "3", Some(3));
        let expected = Tunables {
            lmr_scale: 120,
            ..Tunables::DEFAULT
        };
        assert_eq!(s.tunables, expected, "out of range, not a number or unknown: no change");
    }
}
