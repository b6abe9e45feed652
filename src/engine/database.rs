//! Yixin-Board's analysis database: what a user records about positions (a label shown
//! on the board, a value, a depth, a comment, and texts on points), found again under
//! any of the board's symmetries, kept in a file of its own checked format.
//!
//! A position is its rule, board size and stones; its key is the smallest encoding of
//! its stones over the symmetries (`symmetric`), so a position and its mirror images
//! share one record. Texts on points are kept in the key's orientation.
//!
//! The file, little-endian: magic `SENTEDB1`, u16 version (1), u32 record count, then
//! per record u16 key length and the key, i32 label, value, depth, u32 comment length
//! and UTF-8, u16 point-text count and per text u8 x, u8 y, u32 length and UTF-8; last a
//! u32 FNV-1a checksum of every byte before it. It is written whole (to a temporary file,
//! then renamed) after every change.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::eval::file::checksum;
use crate::game::geometry::{symmetric, symmetry_count};
use crate::game::{Color, Pos, Rule};

const MAGIC: &[u8; 8] = b"SENTEDB1";
const VERSION: u16 = 1;

/// Labels with a meaning of their own (Yixin-Board's `dbedittag` W, L, D, X); any
/// other is a character to show.
pub const LABEL_WIN: i32 = b'W' as i32;
pub const LABEL_LOSS: i32 = b'L' as i32;

/// One position's entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    /// 0: none; else a character code (W win, L loss, D draw, X blocked, or a letter).
    pub label: i32,
    pub value: i32,
    pub depth: i32,
    pub comment: String,
    /// Texts on points, in the key's orientation.
    pub point_texts: BTreeMap<(u8, u8), String>,
}

/// A position as the database sees it: the stones in play order, black first.
#[derive(Clone, Debug)]
pub struct Position {
    pub rule: Rule,
    pub width: usize,
    pub height: usize,
    pub stones: Vec<(Pos, Color)>,
}

impl Position {
    /// The key and the symmetry that gives it.
    fn key(&self) -> (Vec<u8>, u32) {
        (0..symmetry_count(self.width, self.height))
            .map(|s| (self.key_under(s), s))
            .min()
            .expect("a symmetry")
    }

    fn key_under(&self, s: u32) -> Vec<u8> {
        let mut stones: Vec<(u8, u8, u8)> = self
            .stones
            .iter()
            .map(|&(p, c)| {
                let q = symmetric(p, s, self.width, self.height);
                (q.y() as u8, q.x() as u8, c.index() as u8)
            })
            .collect();
        stones.sort_unstable();
        let mut key = vec![self.rule.index() as u8, self.width as u8, self.height as u8];
        key.extend(stones.iter().flat_map(|&(y, x, c)| [x, y, c]));
        key
    }

    /// The position after `p` for the side to move.
    pub fn child(&self, p: Pos) -> Position {
        let mut child = self.clone();
        child.stones.push((p, Color::of_ply(self.stones.len())));
        child
    }

    fn occupied(&self, p: Pos) -> bool {
        self.stones.iter().any(|&(q, _)| q == p)
    }
}

/// Which records YXDELETEDATABASEALL removes among those that follow a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeleteFilter {
    All,
    /// All but those labelled a win or a loss (`nonwl`).
    NotWinLoss,
    /// Only those labelled a win or a loss (`wl`).
    WinLoss,
}

impl DeleteFilter {
    pub fn parse(word: &str) -> Option<DeleteFilter> {
        match word.to_ascii_lowercase().as_str() {
            "" => Some(DeleteFilter::All),
            "nonwl" => Some(DeleteFilter::NotWinLoss),
            "wl" => Some(DeleteFilter::WinLoss),
            _ => None,
        }
    }

    fn deletes(self, r: &Record) -> bool {
        let win_loss = r.label == LABEL_WIN || r.label == LABEL_LOSS;
        match self {
            DeleteFilter::All => true,
            DeleteFilter::NotWinLoss => !win_loss,
            DeleteFilter::WinLoss => win_loss,
        }
    }
}

/// A child of a position with something recorded: its record, or a text on its point.
pub struct Child<'a> {
    pub point: Pos,
    pub record: Option<&'a Record>,
    pub point_text: Option<&'a str>,
}

#[derive(Debug)]
pub struct Database {
    path: PathBuf,
    records: BTreeMap<Vec<u8>, Record>,
}

impl Database {
    /// The database of the file at `path`, or an empty one if there is no such file
    /// (nothing is written until something changes).
    pub fn open(path: &Path) -> Result<Database, String> {
        let records = match std::fs::read(path) {
            Ok(bytes) => read(&bytes).map_err(|e| format!("{}: {e}", path.display()))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        Ok(Database {
            path: path.to_path_buf(),
            records,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    pub fn get(&self, pos: &Position) -> Option<&Record> {
        self.records.get(&pos.key().0)
    }

    /// Every empty point of `pos` whose child has a record or that has a text, in the
    /// board's order (rows, then columns).
    pub fn children(&self, pos: &Position) -> Vec<Child<'_>> {
        let (key, s) = pos.key();
        let own = self.records.get(&key);
        let mut out = Vec::new();
        for y in 0..pos.height {
            for x in 0..pos.width {
                let p = Pos::new(x, y);
                if pos.occupied(p) {
                    continue;
                }
                let q = symmetric(p, s, pos.width, pos.height);
                let point_text = own
                    .and_then(|r| r.point_texts.get(&(q.x() as u8, q.y() as u8)))
                    .map(String::as_str);
                let record = self.get(&pos.child(p));
                if record.is_some() || point_text.is_some() {
                    out.push(Child {
                        point: p,
                        record,
                        point_text,
                    });
                }
            }
        }
        out
    }

    /// Change `pos`'s record with `edit` (a new one if it has none), then save.
    pub fn edit(&mut self, pos: &Position, edit: impl FnOnce(&mut Record)) -> Result<(), String> {
        edit(self.records.entry(pos.key().0).or_default());
        self.save()
    }

    /// The text on point `p` of `pos` (empty: none), then save.
    pub fn set_point_text(&mut self, pos: &Position, p: Pos, text: &str) -> Result<(), String> {
        let (key, s) = pos.key();
        let q = symmetric(p, s, pos.width, pos.height);
        let record = self.records.entry(key).or_default();
        if text.is_empty() {
            record.point_texts.remove(&(q.x() as u8, q.y() as u8));
        } else {
            record.point_texts.insert((q.x() as u8, q.y() as u8), text.to_string());
        }
        self.save()
    }

    /// Remove `pos`'s record; whether it had one.
    pub fn delete(&mut self, pos: &Position) -> Result<bool, String> {
        let had = self.records.remove(&pos.key().0).is_some();
        if had {
            self.save()?;
        }
        Ok(had)
    }

    /// Remove the records `filter` picks among the positions that follow `pos` (its
    /// stones and more, under any symmetry); how many.
    pub fn delete_following(&mut self, pos: &Position, filter: DeleteFilter) -> Result<usize, String> {
        let own: Vec<Vec<u8>> = (0..symmetry_count(pos.width, pos.height))
            .map(|s| pos.key_under(s))
            .collect();
        let before = self.records.len();
        self.records.retain(|key, record| {
            let follows = own.iter().any(|o| follows(key, o));
            !(follows && filter.deletes(record))
        });
        let removed = before - self.records.len();
        if removed > 0 {
            self.save()?;
        }
        Ok(removed)
    }

    fn save(&self) -> Result<(), String> {
        let bytes = write(&self.records);
        let tmp = self.path.with_extension("tmp");
        std::fs::write(&tmp, &bytes)
            .and_then(|()| std::fs::rename(&tmp, &self.path))
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }
}

/// Does the position of `key` follow the one of `own` (same rule and board, every stone
/// of `own` in it, and more)?
fn follows(key: &[u8], own: &[u8]) -> bool {
    if key.len() <= own.len() || key[..3] != own[..3] {
        return false;
    }
    let stones: Vec<&[u8]> = key[3..].chunks(3).collect();
    own[3..].chunks(3).all(|s| stones.contains(&s))
}

fn write(records: &BTreeMap<Vec<u8>, Record>) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(records.len() as u32).to_le_bytes());
    let text = |out: &mut Vec<u8>, t: &str| {
        out.extend_from_slice(&(t.len() as u32).to_le_bytes());
        out.extend_from_slice(t.as_bytes());
    };
    for (key, r) in records {
        out.extend_from_slice(&(key.len() as u16).to_le_bytes());
        out.extend_from_slice(key);
        for v in [r.label, r.value, r.depth] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        text(&mut out, &r.comment);
        out.extend_from_slice(&(r.point_texts.len() as u16).to_le_bytes());
        for (&(x, y), t) in &r.point_texts {
            out.extend_from_slice(&[x, y]);
            text(&mut out, t);
        }
    }
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// Reads the fields of a file in order; every read checks the length first.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or("truncated")?;
        let part = &self.bytes[self.at..end];
        self.at = end;
        Ok(part)
    }

    fn u16(&mut self) -> Result<u16, String> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into().expect("2 bytes")))
    }

    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }

    fn text(&mut self) -> Result<String, String> {
        let n = self.u32()? as usize;
        String::from_utf8(self.take(n)?.to_vec()).map_err(|_| "a text is not UTF-8".to_string())
    }
}

fn read(bytes: &[u8]) -> Result<BTreeMap<Vec<u8>, Record>, String> {
    if bytes.len() < 18 || &bytes[..8] != MAGIC {
        return Err("not a database of this engine".into());
    }
    let (body, sum) = bytes.split_at(bytes.len() - 4);
    if checksum(body) != u32::from_le_bytes(sum.try_into().expect("4 bytes")) {
        return Err("the checksum does not match: the file is damaged".into());
    }
    let mut r = Reader { bytes: body, at: 8 };
    let version = r.u16()?;
    if version != VERSION {
        return Err(format!("format version {version}, this engine reads {VERSION}"));
    }
    let count = r.u32()?;
    let mut records = BTreeMap::new();
    for _ in 0..count {
        let n = r.u16()? as usize;
        let key = r.take(n)?.to_vec();
        if key.len() < 3 || (key.len() - 3) % 3 != 0 {
            return Err("a record's key is malformed".into());
        }
        let [label, value, depth] = [r.u32()? as i32, r.u32()? as i32, r.u32()? as i32];
        let comment = r.text()?;
        let mut point_texts = BTreeMap::new();
        for _ in 0..r.u16()? {
            let xy = r.take(2)?;
            let (x, y) = (xy[0], xy[1]);
            point_texts.insert((x, y), r.text()?);
        }
        records.insert(
            key,
            Record {
                label,
                value,
                depth,
                comment,
                point_texts,
            },
        );
    }
    if r.at != body.len() {
        return Err("bytes after the last record".into());
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(stones: &[(usize, usize)]) -> Position {
        Position {
            rule: Rule::Freestyle,
            width: 15,
            height: 15,
            stones: stones
                .iter()
                .enumerate()
                .map(|(i, &(x, y))| (Pos::new(x, y), Color::of_ply(i)))
                .collect(),
        }
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("sente-db-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("sente.db")
    }

    #[test]
    fn a_record_is_found_under_every_symmetry_and_in_the_file() {
        let path = scratch("symmetry");
        let mut db = Database::open(&path).unwrap();
        assert!(db.is_empty() && !path.exists(), "nothing is written before a change");
        let pos = position(&[(7, 7), (8, 7), (9, 9)]);
        db.edit(&pos, |r| {
            r.label = b'a' as i32;
            r.value = -42;
            r.comment = "a comment, ünïcode".into();
        })
        .unwrap();
        db.set_point_text(&pos, Pos::new(10, 9), "x").unwrap();
        let db = Database::open(&path).unwrap();
        for s in 0..8 {
            let image = Position {
                stones: pos.stones.iter().map(|&(p, c)| (symmetric(p, s, 15, 15), c)).collect(),
                ..pos.clone()
            };
            let r = db.get(&image).expect("the same position");
            assert_eq!(
                (r.label, r.value, r.comment.as_str()),
                (b'a' as i32, -42, "a comment, ünïcode")
            );
            // The text on a point turns with the position.
            let texts: Vec<Pos> = db.children(&image).iter().map(|c| c.point).collect();
            assert_eq!(texts, vec![symmetric(Pos::new(10, 9), s, 15, 15)], "symmetry {s}");
        }
        // Another colour on the same points is another position.
        assert!(db.get(&position(&[(8, 7), (7, 7), (9, 9)])).is_none());
    }

    #[test]
    fn children_and_deletions_follow_the_tree() {
        let path = scratch("tree");
        let mut db = Database::open(&path).unwrap();
        // Off the centre: no symmetry maps one of these positions onto another.
        let root = position(&[(3, 4)]);
        let win = root.child(Pos::new(4, 5));
        let other = root.child(Pos::new(2, 5));
        let deeper = other.child(Pos::new(6, 6));
        db.edit(&win, |r| r.label = LABEL_WIN).unwrap();
        db.edit(&other, |r| r.label = b'b' as i32).unwrap();
        db.edit(&deeper, |r| r.value = 3).unwrap();
        db.edit(&root, |r| r.depth = 9).unwrap();
        let children: Vec<Pos> = db.children(&root).iter().map(|c| c.point).collect();
        assert_eq!(children, vec![Pos::new(2, 5), Pos::new(4, 5)], "in row order");
        // On the centre the mirror images of a child are children too.
        let centre = position(&[(7, 7)]);
        db.edit(&centre.child(Pos::new(8, 8)), |r| r.value = 1).unwrap();
        assert_eq!(db.children(&centre).len(), 4);
        assert_eq!(db.delete_following(&root, DeleteFilter::NotWinLoss).unwrap(), 2);
        assert!(db.get(&win).is_some() && db.get(&root).is_some() && db.get(&deeper).is_none());
        assert_eq!(db.delete_following(&root, DeleteFilter::WinLoss).unwrap(), 1);
        assert!(db.delete(&root).unwrap());
        assert!(!db.delete(&root).unwrap());
        assert_eq!(Database::open(&path).unwrap().len(), 1, "the centre's child is left");
    }

    #[test]
    fn a_damaged_truncated_or_foreign_file_is_refused() {
        let path = scratch("bad");
        let mut db = Database::open(&path).unwrap();
        db.edit(&position(&[(7, 7)]), |r| r.comment = "kept".into()).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert!(read(&bytes).is_ok());
        let mut flipped = bytes.clone();
        flipped[20] ^= 1;
        assert!(read(&flipped).unwrap_err().contains("checksum"));
        assert!(read(&bytes[..bytes.len() - 3]).is_err());
        assert!(read(b"SENTETT1 something else").unwrap_err().contains("not a database"));
        std::fs::write(&path, b"garbage").unwrap();
        assert!(Database::open(&path).unwrap_err().contains("not a database"));
    }
}
