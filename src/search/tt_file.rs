//! The transposition table in a file (YXHASHDUMP / YXHASHLOAD), so that an analysis
//! outlives the process. Little-endian:
//!
//! | offset | bytes | field |
//! |---|---|---|
//! | 0 | 8 | magic `SENTETT1` |
//! | 8 | 2 | format version (1) |
//! | 10 | 1 | rule (`Rule::index`) |
//! | 11 | 1, 1 | board width, height |
//! | 13 | 3 | zero |
//! | 16 | 8 | n, the entries that follow |
//! | 24 | 16 n | per entry its key and its data word (`tt::pack`'s layout) |
//! | 24 + 16 n | 4 | checksum: 32-bit FNV-1a of every byte before it |
//!
//! Only entries that hold something are written, and they are inserted by key, so a
//! file loads into a table of any size. Positions are keyed by their stones only, so a
//! file is for one rule and board size and is refused for another.

use crate::eval::file::checksum;
use crate::game::Rule;

use super::tt::TranspositionTable;

const MAGIC: &[u8; 8] = b"SENTETT1";
const VERSION: u16 = 1;
const HEADER: usize = 24;
const ENTRY: usize = 16;

/// What a table's positions are: the rule and the board size.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct TableTag {
    pub rule: Rule,
    pub width: usize,
    pub height: usize,
}

impl TableTag {
    fn describe(rule: Option<Rule>, width: usize, height: usize) -> String {
        let rule = rule.map_or("an unknown rule", Rule::name);
        format!("{rule} {width}x{height}")
    }
}

/// The file's bytes for `tt`, whose positions are `tag`'s.
pub(crate) fn write(tt: &TranspositionTable, tag: TableTag) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + 4);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&[tag.rule.index() as u8, tag.width as u8, tag.height as u8, 0, 0, 0]);
    out.extend_from_slice(&[0; 8]); // the count, once known
    let mut n = 0u64;
    for (key, data) in tt.entries() {
        out.extend_from_slice(&key.to_le_bytes());
        out.extend_from_slice(&data.to_le_bytes());
        n += 1;
    }
    out[16..24].copy_from_slice(&n.to_le_bytes());
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// The entries of a file's `bytes`, if it is whole, of this format and for `tag`.
pub(crate) fn read(bytes: &[u8], tag: TableTag) -> Result<Vec<(u64, u64)>, String> {
    if bytes.len() < HEADER + 4 || &bytes[..8] != MAGIC {
        return Err("not a hash file of this engine".into());
    }
    let version = u16::from_le_bytes([bytes[8], bytes[9]]);
    if version != VERSION {
        return Err(format!("format version {version}, this engine reads {VERSION}"));
    }
    let (body, sum) = bytes.split_at(bytes.len() - 4);
    if checksum(body) != u32::from_le_bytes(sum.try_into().expect("4 bytes")) {
        return Err("the checksum does not match: the file is damaged".into());
    }
    let n = u64::from_le_bytes(body[16..24].try_into().expect("8 bytes"));
    if Some(body.len() - HEADER) != usize::try_from(n).ok().and_then(|n| n.checked_mul(ENTRY)) {
        return Err(format!("{n} entries announced, {} bytes of them", body.len() - HEADER));
    }
    let rule = Rule::ALL.get(bytes[10] as usize).copied();
    let (width, height) = (bytes[11] as usize, bytes[12] as usize);
    if rule != Some(tag.rule) || (width, height) != (tag.width, tag.height) {
        return Err(format!(
            "the file is for {}, the game is {}",
            TableTag::describe(rule, width, height),
            TableTag::describe(Some(tag.rule), tag.width, tag.height)
        ));
    }
    let word = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
    Ok(body[HEADER..]
        .chunks_exact(ENTRY)
        .map(|e| (word(&e[..8]), word(&e[8..])))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Pos;
    use crate::search::tt::Bound;

    const TAG: TableTag = TableTag {
        rule: Rule::Renju,
        width: 15,
        height: 15,
    };

    fn filled() -> TranspositionTable {
        let mut tt = TranspositionTable::new(1 << 16);
        tt.new_search();
        for k in 1..200u64 {
            let key = k.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            tt.store(
                key,
                0,
                Pos::new(3, (k % 10) as usize),
                k as i32,
                -(k as i32),
                5,
                Bound::Lower,
            );
        }
        tt
    }

    #[test]
    fn a_dump_loads_into_a_table_of_another_size() {
        let tt = filled();
        let bytes = write(&tt, TAG);
        let mut bigger = TranspositionTable::new(1 << 20);
        for (key, data) in read(&bytes, TAG).expect("a good file") {
            bigger.insert(key, data);
        }
        for k in 1..200u64 {
            let key = k.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let (a, b) = (tt.probe(key, 0), bigger.probe(key, 0));
            assert_eq!(
                a.map(|h| (h.best, h.score, h.eval, h.depth)),
                b.map(|h| (h.best, h.score, h.eval, h.depth))
            );
        }
        assert!(bigger.probe(12345, 0).is_none());
    }

    #[test]
    fn a_damaged_truncated_foreign_or_newer_file_is_refused() {
        let bytes = write(&filled(), TAG);
        assert!(read(&bytes, TAG).is_ok());
        let mut flipped = bytes.clone();
        flipped[HEADER + 5] ^= 1;
        assert!(read(&flipped, TAG).unwrap_err().contains("checksum"));
        assert!(read(&bytes[..bytes.len() - 20], TAG).is_err());
        assert!(read(b"hello", TAG).unwrap_err().contains("not a hash file"));
        let other = TableTag {
            width: 20,
            height: 20,
            ..TAG
        };
        assert!(read(&bytes, other).unwrap_err().contains("renju 15x15"));
        let freestyle = TableTag {
            rule: Rule::Freestyle,
            ..TAG
        };
        assert!(read(&bytes, freestyle).is_err());
        let mut newer = bytes.clone();
        newer[8] = 2;
        let body = newer.len() - 4;
        let sum = checksum(&newer[..body]);
        newer[body..].copy_from_slice(&sum.to_le_bytes());
        assert!(read(&newer, TAG).unwrap_err().contains("version 2"));
    }
}
