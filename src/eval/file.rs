//! The weight file: one rule's evaluation tables in a small binary file.
//!
//! Layout (all integers little-endian):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `SENTEVAL` |
//! | 8 | 2 | format version (`VERSION`) |
//! | 10 | 1 | rule, as `INFO rule` numbers it (0 freestyle, 1 standard, 4 renju, 8 caro, 9 caro exact) |
//! | 11 | 1 | bytes per value: 2 |
//! | 12 | 2 | pattern combinations: 2380 |
//! | 14 | 1 | threat levels: 5 |
//! | 15 | 1 | flags: bit 0 (`FLAG_BY_INITIATIVE`) the point values follow the initiative (`eval::point_sides`); other bits 0 |
//! | 16 | 4 | checksum: 32-bit FNV-1a of the bytes after the header |
//! | 20 | … | `i16` point values `[colour: black, white][side: to move, not][combination]`, then the threat table `[level of the side to move][level of the other]` |
//!
//! The embedded defaults (`src/eval/weights/*.bin`) are learned for the rules in `LEARNED`
//! (by `scripts/train-eval.sh`, kept after an SPRT against the file before them; see the
//! README): all five rules since 2026-11-28. A rule not listed there must hold the
//! hand-set weights, written by `pbrain-sente evalfile hand-set RULE FILE` (a test checks
//! it); they are also where every fit starts.

use std::sync::Arc;

use super::PointValues;
use super::{RuleTables, LEVELS};
use crate::game::board::PATTERN_COMBOS;
use crate::game::Rule;

pub(crate) const MAGIC: &[u8; 8] = b"SENTEVAL";
pub(crate) const VERSION: u16 = 1;
pub(crate) const HEADER_LEN: usize = 20;
/// Header flag: the tables' `by_initiative`. A reader that does not know a flag refuses
/// the file (as a layout it cannot read) instead of scoring with it wrongly.
pub(crate) const FLAG_BY_INITIATIVE: u8 = 1;
/// Values in a file: the point values, then the threat table.
pub(crate) const VALUE_COUNT: usize = 2 * 2 * PATTERN_COMBOS + LEVELS * LEVELS;
/// The length of every weight file of this version.
pub(crate) const FILE_LEN: usize = HEADER_LEN + 2 * VALUE_COUNT;

/// The rules whose embedded weights were learned (a rule not listed holds the hand-set
/// weights).
/// Each table passed an SPRT (elo0 0 / elo1 30, 0.2 s a move; standard's and renju's last
/// elo1 20) against the one before; the last fits (README "Training the evaluation"):
/// freestyle 219,944 self-play positions, point values by the initiative (2026-11-30,
/// +40.0 ± 31.1 Elo, 445 games), standard 437,870 (of 486,570), by the initiative
/// (2026-12-01, +21.0 ± 17.1, 1,377 games), renju 236,896 (of 261,942), by the initiative
/// (2026-12-01, +35.6 ± 25.8, 647 games), caro 121,619 (2026-11-28, +59.8 ± 42.3, 229
/// games), caro exact 148,284 (2026-11-28, +139.8 ± 73.8 against the hand-set weights, 89
/// games).
#[cfg(test)]
pub(crate) const LEARNED: [Rule; 5] = [
    Rule::Freestyle,
    Rule::Standard,
    Rule::Renju,
    Rule::Caro,
    Rule::CaroExact,
];

/// The weight file compiled into the engine for `rule`.
pub(crate) fn embedded(rule: Rule) -> &'static [u8] {
    match rule {
        Rule::Freestyle => include_bytes!("weights/freestyle.bin"),
        Rule::Standard => include_bytes!("weights/standard.bin"),
        Rule::Renju => include_bytes!("weights/renju.bin"),
        Rule::Caro => include_bytes!("weights/caro.bin"),
        Rule::CaroExact => include_bytes!("weights/caro-exact.bin"),
    }
}

/// 32-bit FNV-1a.
pub(crate) fn checksum(bytes: &[u8]) -> u32 {
    bytes
        .iter()
        .fold(0x811c_9dc5u32, |h, &b| (h ^ b as u32).wrapping_mul(0x0100_0193))
}

/// Every value of `t` in file order.
pub(crate) fn values(t: &RuleTables) -> Vec<i32> {
    let mut out = Vec::with_capacity(VALUE_COUNT);
    for colour in &t.points.values {
        for side in colour {
            out.extend_from_slice(side);
        }
    }
    for row in &t.threat {
        out.extend_from_slice(row);
    }
    out
}

/// Tables from values in file order (`VALUE_COUNT` of them).
pub(crate) fn from_values(rule: Rule, v: &[i32]) -> RuleTables {
    assert_eq!(v.len(), VALUE_COUNT);
    let mut points = PointValues::default();
    let mut it = v.iter().copied();
    for colour in points.values.iter_mut() {
        for side in colour.iter_mut() {
            for x in side.iter_mut() {
                *x = it.next().expect("value");
            }
        }
    }
    let mut threat = [[0; LEVELS]; LEVELS];
    for row in threat.iter_mut() {
        for x in row.iter_mut() {
            *x = it.next().expect("value");
        }
    }
    RuleTables {
        rule,
        points: Arc::new(points),
        threat,
        by_initiative: false,
    }
}

/// The file of `t`; an error if a value does not fit in 16 bits.
pub(crate) fn to_bytes(t: &RuleTables) -> Result<Vec<u8>, String> {
    let mut payload = Vec::with_capacity(2 * VALUE_COUNT);
    for v in values(t) {
        let v = i16::try_from(v).map_err(|_| format!("value {v} does not fit in 16 bits"))?;
        payload.extend_from_slice(&v.to_le_bytes());
    }
    let mut out = Vec::with_capacity(FILE_LEN);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.push(t.rule.info_value() as u8);
    out.push(2);
    out.extend_from_slice(&(PATTERN_COMBOS as u16).to_le_bytes());
    out.push(LEVELS as u8);
    out.push(if t.by_initiative { FLAG_BY_INITIATIVE } else { 0 });
    out.extend_from_slice(&checksum(&payload).to_le_bytes());
    out.extend_from_slice(&payload);
    Ok(out)
}

/// Read a weight file. With `rule`, a file for another rule is an error too.
pub(crate) fn from_bytes(bytes: &[u8], rule: Option<Rule>) -> Result<RuleTables, String> {
    if bytes.len() < HEADER_LEN || &bytes[..8] != MAGIC {
        return Err("not a Sente weight file (no SENTEVAL header)".into());
    }
    let u16_at = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]);
    let version = u16_at(8);
    if version != VERSION {
        return Err(format!(
            "weight file format version {version}; this engine reads version {VERSION}"
        ));
    }
    let file_rule = Rule::from_info_value(bytes[10] as i64)
        .ok_or_else(|| format!("weight file for an unknown rule {}", bytes[10]))?;
    if let Some(r) = rule {
        if r != file_rule {
            return Err(format!("the weight file is for {}, not {}", file_rule.name(), r.name()));
        }
    }
    if bytes[11] != 2
        || u16_at(12) as usize != PATTERN_COMBOS
        || bytes[14] as usize != LEVELS
        || bytes[15] & !FLAG_BY_INITIATIVE != 0
    {
        return Err("weight file header describes another table layout".into());
    }
    if bytes.len() != FILE_LEN {
        return Err(format!(
            "weight file has {} bytes, {FILE_LEN} expected (truncated or corrupt)",
            bytes.len()
        ));
    }
    let stored = u32::from_le_bytes([bytes[16], bytes[17], bytes[18], bytes[19]]);
    let payload = &bytes[HEADER_LEN..];
    if checksum(payload) != stored {
        return Err("weight file checksum does not match (corrupt file)".into());
    }
    let v: Vec<i32> = payload
        .chunks_exact(2)
        .map(|c| i16::from_le_bytes([c[0], c[1]]) as i32)
        .collect();
    Ok(RuleTables {
        by_initiative: bytes[15] & FLAG_BY_INITIATIVE != 0,
        ..from_values(file_rule, &v)
    })
}

/// Read the weight file at `path`.
pub(crate) fn load(path: &str, rule: Option<Rule>) -> Result<RuleTables, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    from_bytes(&bytes, rule).map_err(|e| format!("{path}: {e}"))
}

/// Write `t` to `path`.
pub(crate) fn save(t: &RuleTables, path: &str) -> Result<(), String> {
    let bytes = to_bytes(t)?;
    std::fs::write(path, bytes).map_err(|e| format!("cannot write {path}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{Weights, LINE, OPP, OWN};

    fn sample() -> RuleTables {
        let mut t = RuleTables::from_hand_set(Rule::Renju, &OWN, &OPP, &LINE);
        t.threat[3][1] = -77;
        t.threat[0][4] = 1234;
        t
    }

    #[test]
    fn round_trip() {
        for by_initiative in [false, true] {
            let t = RuleTables {
                by_initiative,
                ..sample()
            };
            let bytes = to_bytes(&t).unwrap();
            assert_eq!(bytes.len(), FILE_LEN);
            assert_eq!(bytes[15], u8::from(by_initiative));
            assert_eq!(from_bytes(&bytes, Some(Rule::Renju)).unwrap(), t);
            assert_eq!(from_bytes(&bytes, None).unwrap(), t);
        }
    }

    #[test]
    fn bad_files_are_rejected() {
        let good = to_bytes(&sample()).unwrap();
        let err = |bytes: &[u8], rule| from_bytes(bytes, rule).unwrap_err();
        assert!(err(b"hello", None).contains("not a Sente weight file"));
        assert!(err(&good[..100], None).contains("truncated"));
        let mut v = good.clone();
        v[8] = 2;
        assert!(err(&v, None).contains("version 2"), "{}", err(&v, None));
        let mut corrupt = good.clone();
        corrupt[5000] ^= 1;
        assert!(err(&corrupt, None).contains("checksum"));
        let mut corrupt = good.clone();
        corrupt[18] ^= 0x40;
        assert!(err(&corrupt, None).contains("checksum"));
        assert_eq!(
            err(&good, Some(Rule::Freestyle)),
            "the weight file is for renju, not freestyle"
        );
        let mut unknown = good.clone();
        unknown[10] = 3;
        assert!(err(&unknown, None).contains("unknown rule"));
        let mut flag = good.clone();
        flag[15] = 2;
        assert!(err(&flag, None).contains("another table layout"));
        let mut big = sample();
        Arc::make_mut(&mut big.points).values[0][0][7] = 40_000;
        assert!(to_bytes(&big).unwrap_err().contains("16 bits"));
    }

    #[test]
    fn embedded_files_are_learned_or_hand_set() {
        // Regenerate a hand-set one with `pbrain-sente evalfile hand-set RULE
        // src/eval/weights/RULE.bin`.
        for rule in Rule::ALL {
            let hand = RuleTables::from_hand_set(rule, &OWN, &OPP, &LINE);
            let embedded_tables = from_bytes(embedded(rule), Some(rule)).expect("a valid file for its rule");
            assert_eq!(Weights::default().tables(rule), &embedded_tables);
            if LEARNED.contains(&rule) {
                assert!(embedded_tables != hand, "{} is listed as learned", rule.name());
            } else {
                assert!(
                    to_bytes(&hand).unwrap() == embedded(rule),
                    "src/eval/weights/{}.bin is stale",
                    rule.name()
                );
            }
        }
    }

    #[test]
    fn load_and_save() {
        let dir = std::env::temp_dir().join(format!("sente-evalfile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("w.bin");
        let path = path.to_str().unwrap();
        save(&sample(), path).unwrap();
        assert_eq!(load(path, Some(Rule::Renju)).unwrap(), sample());
        assert!(load(&format!("{path}.missing"), None)
            .unwrap_err()
            .starts_with("cannot read"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
