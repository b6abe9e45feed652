//! The game data format: the contract between the self-play generator (`selfplay
//! --format games`) and the trainers. Whole games as move lists, with what the search
//! said at every position it searched, compact and checked.
//!
//! A file is a header and then game records, each complete or, at the end of a file a
//! generator was stopped in, cut short (the reader stops there; the generator cuts it off
//! and carries on). All numbers are little-endian.
//!
//! ```text
//! header   8 bytes  magic "SNTGAMES"
//!          u32      format version (FORMAT_VERSION)
//!          u32      0 (reserved)
//! game     u32      length of the payload, in bytes
//!          payload:
//!            u8     rule, as `INFO rule` numbers it (0 freestyle, 1 standard, 4 renju,
//!                   8 caro, 9 caro-exact), as in the weight files
//!            u8     width, u8 height
//!            u8     opening plies: the first moves, from an opening, were not searched
//!            i8     result: 1 black won, -1 white won, 0 draw (full board, or stopped)
//!            u8     0 (reserved)
//!            u16    plies (N)
//!            u32    nodes per move of the search that played the game
//!            N plies, black's first move first, colours alternating:
//!              u8 x, u8 y   the move played
//!              u8 kind      how the search decided (KIND_*); KIND_NONE: not searched
//!              u8 k         root moves that follow (0..=MAX_ROOT)
//!              i16 score    the search's score for the side to move (mate scores as
//!                           the engine's: WIN − plies), or NO_SCORE
//!              u8 x, u8 y   the search's best move (the move played may differ: the
//!                           random plies after the opening)
//!              k × (u8 x, u8 y, i16 score)  the next root moves in the search's final
//!                           order, with their last scores (bounds: only the best is exact)
//!          u32      checksum of the payload (FNV-1a, 32 bits)
//! ```

use std::io::{Read, Write};

use crate::game::{Board, Color, Pos, Rule};
use crate::search::Decision;

pub(crate) const MAGIC: &[u8; 8] = b"SNTGAMES";
pub(crate) const FORMAT_VERSION: u32 = 1;
const HEADER_BYTES: usize = 16;
/// Root moves kept per position besides the best.
pub(crate) const MAX_ROOT: usize = 3;
/// The score of a position that was not searched.
pub(crate) const NO_SCORE: i16 = i16::MIN;

/// How a position's move was decided (`search::Decision`), as stored: `KIND_SEARCH` by
/// the main search, the others without it (a five, a forced block, a threat win, ...).
pub(crate) const KIND_NONE: u8 = 255;
pub(crate) const KIND_SEARCH: u8 = 0;

/// The code of a decision in the format.
pub(crate) fn kind_code(d: Decision) -> u8 {
    match d {
        Decision::Search => KIND_SEARCH,
        Decision::WinNow => 1,
        Decision::ForcedBlock => 2,
        Decision::BoardWin => 3,
        Decision::Vcf => 4,
        Decision::Vct => 5,
        Decision::OnlyMove => 6,
        Decision::WonLine => 7,
        Decision::NoLegalMove => 8,
    }
}

/// What the search said at one position of a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Ply {
    /// The move played.
    pub(crate) mv: Pos,
    /// `KIND_NONE`, or the decision's code (`kind_code`).
    pub(crate) kind: u8,
    /// The search's score for the side to move, `NO_SCORE` when not searched.
    pub(crate) score: i16,
    /// The search's best move (`Pos::NONE` when not searched).
    pub(crate) best: Pos,
    /// The next root moves with their scores (at most `MAX_ROOT`).
    pub(crate) root: Vec<(Pos, i16)>,
}

impl Ply {
    /// A move that was not searched (an opening stone).
    pub(crate) fn unsearched(mv: Pos) -> Ply {
        Ply {
            mv,
            kind: KIND_NONE,
            score: NO_SCORE,
            best: Pos::NONE,
            root: Vec::new(),
        }
    }

    pub(crate) fn searched(&self) -> bool {
        self.kind != KIND_NONE
    }
}

/// One game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Game {
    pub(crate) rule: Rule,
    pub(crate) width: usize,
    pub(crate) height: usize,
    pub(crate) opening_plies: usize,
    /// The winner; `None` for a draw.
    pub(crate) winner: Option<Color>,
    pub(crate) nodes: u32,
    pub(crate) plies: Vec<Ply>,
}

/// FNV-1a, 32 bits.
fn checksum(bytes: &[u8]) -> u32 {
    bytes
        .iter()
        .fold(0x811c_9dc5u32, |h, &b| (h ^ b as u32).wrapping_mul(0x0100_0193))
}

fn push_pos(out: &mut Vec<u8>, p: Pos) {
    if p.is_none() {
        out.extend_from_slice(&[255, 255]);
    } else {
        out.extend_from_slice(&[p.x() as u8, p.y() as u8]);
    }
}

impl Game {
    /// The colour that plays ply `i` (black first, alternating).
    pub(crate) fn colour(i: usize) -> Color {
        Color::of_ply(i)
    }

    /// The board after the first `plies` moves.
    pub(crate) fn board_after(&self, plies: usize) -> Board {
        let mut b = Board::new(self.width, self.height, self.rule);
        for (i, ply) in self.plies[..plies].iter().enumerate() {
            b.make(ply.mv, Game::colour(i));
        }
        b
    }

    /// The record, as written to a file.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut p = Vec::with_capacity(16 + self.plies.len() * 8);
        let result: i8 = match self.winner {
            Some(Color::Black) => 1,
            Some(Color::White) => -1,
            None => 0,
        };
        p.extend_from_slice(&[
            self.rule.info_value() as u8,
            self.width as u8,
            self.height as u8,
            self.opening_plies as u8,
            result as u8,
            0,
        ]);
        p.extend_from_slice(&(self.plies.len() as u16).to_le_bytes());
        p.extend_from_slice(&self.nodes.to_le_bytes());
        for ply in &self.plies {
            push_pos(&mut p, ply.mv);
            let root = &ply.root[..ply.root.len().min(MAX_ROOT)];
            p.extend_from_slice(&[ply.kind, root.len() as u8]);
            p.extend_from_slice(&ply.score.to_le_bytes());
            push_pos(&mut p, ply.best);
            for &(m, s) in root {
                push_pos(&mut p, m);
                p.extend_from_slice(&s.to_le_bytes());
            }
        }
        let mut out = Vec::with_capacity(p.len() + 8);
        out.extend_from_slice(&(p.len() as u32).to_le_bytes());
        out.extend_from_slice(&p);
        out.extend_from_slice(&checksum(&p).to_le_bytes());
        out
    }

    /// Read one payload (checksum already checked); every move is checked to be on an
    /// empty point of the board.
    fn decode(p: &[u8]) -> Result<Game, String> {
        let mut r = Cursor { bytes: p, at: 0 };
        let rule = Rule::from_info_value(r.u8()? as i64).ok_or("unknown rule code")?;
        let (width, height) = (r.u8()? as usize, r.u8()? as usize);
        let range = crate::game::geometry::MIN_SIZE..=crate::game::geometry::MAX_SIZE;
        if !range.contains(&width) || !range.contains(&height) {
            return Err(format!("unsupported board {width}x{height}"));
        }
        let opening_plies = r.u8()? as usize;
        let winner = match r.u8()? as i8 {
            1 => Some(Color::Black),
            -1 => Some(Color::White),
            0 => None,
            v => return Err(format!("bad result {v}")),
        };
        r.u8()?;
        let n = r.u16()? as usize;
        let nodes = r.u32()?;
        let mut seen = crate::game::PosSet::default();
        let mut pos = |r: &mut Cursor, must_be_new: bool| -> Result<Pos, String> {
            let (x, y) = (r.u8()?, r.u8()?);
            if (x, y) == (255, 255) && !must_be_new {
                return Ok(Pos::NONE);
            }
            if x as usize >= width || y as usize >= height {
                return Err(format!("{x},{y} is off the {width}x{height} board"));
            }
            let p = Pos::new(x as usize, y as usize);
            if must_be_new {
                if seen.contains(p) {
                    return Err(format!("{p} is played twice"));
                }
                seen.insert(p);
            }
            Ok(p)
        };
        let mut plies = Vec::with_capacity(n);
        for _ in 0..n {
            let mv = pos(&mut r, true)?;
            let (kind, k) = (r.u8()?, r.u8()? as usize);
            if k > MAX_ROOT {
                return Err(format!("{k} root moves"));
            }
            let score = r.i16()?;
            let best = pos(&mut r, false)?;
            let mut root = Vec::with_capacity(k);
            for _ in 0..k {
                let m = pos(&mut r, false)?;
                root.push((m, r.i16()?));
            }
            plies.push(Ply {
                mv,
                kind,
                score,
                best,
                root,
            });
        }
        if r.at != p.len() {
            return Err(format!("{} bytes left over", p.len() - r.at));
        }
        Ok(Game {
            rule,
            width,
            height,
            opening_plies,
            winner,
            nodes,
            plies,
        })
    }
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let b = self.bytes.get(self.at..self.at + N).ok_or("the record ends early")?;
        self.at += N;
        Ok(b.try_into().expect("N bytes"))
    }
    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take::<1>()?[0])
    }
    fn u16(&mut self) -> Result<u16, String> {
        Ok(u16::from_le_bytes(self.take()?))
    }
    fn i16(&mut self) -> Result<i16, String> {
        Ok(i16::from_le_bytes(self.take()?))
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take()?))
    }
}

/// The file header.
pub(crate) fn header() -> Vec<u8> {
    let mut h = MAGIC.to_vec();
    h.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    h.extend_from_slice(&0u32.to_le_bytes());
    h
}

/// What a file holds: its complete games, and where the complete part ends (the length a
/// cut-short last record is cut back to).
#[derive(Debug)]
pub(crate) struct Contents {
    pub(crate) games: Vec<Game>,
    pub(crate) complete_bytes: u64,
}

/// Read every complete game of `bytes` (a whole file). A record cut short at the end is
/// left out; a bad header, a record whose checksum or contents are wrong before the end
/// is an error.
pub(crate) fn parse(bytes: &[u8]) -> Result<Contents, String> {
    if bytes.len() < HEADER_BYTES || &bytes[..8] != MAGIC {
        return Err("not a Sente games file".into());
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if version != FORMAT_VERSION {
        return Err(format!("format version {version}, this build reads {FORMAT_VERSION}"));
    }
    let mut at = HEADER_BYTES;
    let mut games = Vec::new();
    while at + 4 <= bytes.len() {
        let len = u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes")) as usize;
        let end = at + 4 + len + 4;
        if end > bytes.len() {
            break; // cut short: the generator was stopped while writing it
        }
        let payload = &bytes[at + 4..at + 4 + len];
        let sum = u32::from_le_bytes(bytes[end - 4..end].try_into().expect("4 bytes"));
        if sum != checksum(payload) {
            return Err(format!("game {} (byte {at}): bad checksum", games.len()));
        }
        games.push(Game::decode(payload).map_err(|e| format!("game {} (byte {at}): {e}", games.len()))?);
        at = end;
    }
    Ok(Contents {
        games,
        complete_bytes: at as u64,
    })
}

/// Read a games file.
pub(crate) fn read(path: &str) -> Result<Vec<Game>, String> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|e| format!("cannot read {path}: {e}"))?;
    Ok(parse(&bytes).map_err(|e| format!("{path}: {e}"))?.games)
}

/// Open `path` to append games: a new file gets the header; an existing one is read,
/// cut back to its complete games, and their number returned.
pub(crate) fn open_for_append(path: &str) -> Result<(std::fs::File, u64), String> {
    let existing = std::fs::read(path).ok().filter(|b| !b.is_empty());
    let games = match &existing {
        Some(bytes) => {
            let c = parse(bytes).map_err(|e| format!("{path}: {e}"))?;
            if c.complete_bytes < bytes.len() as u64 {
                let f = std::fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(|e| format!("cannot write {path}: {e}"))?;
                f.set_len(c.complete_bytes)
                    .map_err(|e| format!("cannot cut {path}: {e}"))?;
            }
            c.games.len() as u64
        }
        None => 0,
    };
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| format!("cannot open {path}: {e}"))?;
    if existing.is_none() {
        f.write_all(&header())
            .map_err(|e| format!("cannot write {path}: {e}"))?;
    }
    Ok((f, games))
}

/// What a games file holds, checked: every game replayed, each move legal for its side
/// and the result the one the moves give.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Summary {
    pub(crate) games: u64,
    pub(crate) plies: u64,
    /// Positions the search decided (not the opening's).
    pub(crate) searched: u64,
    /// Of those, decided by the main search.
    pub(crate) main_search: u64,
    pub(crate) black_wins: u64,
    pub(crate) white_wins: u64,
    pub(crate) draws: u64,
}

/// Check and count `games`.
pub(crate) fn summarise(games: &[Game]) -> Result<Summary, String> {
    let mut s = Summary::default();
    for (g, game) in games.iter().enumerate() {
        let mut board = game.board_after(0);
        let mut five = None;
        for (i, ply) in game.plies.iter().enumerate() {
            let us = Game::colour(i);
            if five.is_some() {
                return Err(format!("game {g}: a move after the five"));
            }
            if !board.is_legal(ply.mv, us) {
                return Err(format!("game {g}: ply {i} {} is not legal", ply.mv));
            }
            board.make(ply.mv, us);
            if board.wins_through(ply.mv) {
                five = Some(us);
            }
            s.searched += u64::from(ply.searched());
            s.main_search += u64::from(ply.kind == KIND_SEARCH);
        }
        if five != game.winner {
            return Err(format!("game {g}: the result does not follow from the moves"));
        }
        s.games += 1;
        s.plies += game.plies.len() as u64;
        match game.winner {
            Some(Color::Black) => s.black_wins += 1,
            Some(Color::White) => s.white_wins += 1,
            None => s.draws += 1,
        }
    }
    Ok(s)
}

/// `pbrain-sente games FILE...`: check games files and say what they hold.
pub fn run(args: &[String]) -> i32 {
    if args.is_empty() || args.iter().any(|a| a.starts_with('-')) {
        println!("usage: pbrain-sente games FILE...   check games files (selfplay --format games) and count them");
        return 2;
    }
    let mut failed = false;
    for path in args {
        match read(path).and_then(|g| summarise(&g)) {
            Ok(s) => println!(
                "{path}: {} games, {} plies, {} searched ({} by the main search); black {} white {} draws {}",
                s.games, s.plies, s.searched, s.main_search, s.black_wins, s.white_wins, s.draws
            ),
            Err(e) => {
                println!("{e}");
                failed = true;
            }
        }
    }
    i32::from(failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Game {
        let mut plies = vec![Ply::unsearched(Pos::new(7, 7)), Ply::unsearched(Pos::new(8, 8))];
        plies.push(Ply {
            mv: Pos::new(6, 8),
            kind: 0,
            score: -35,
            best: Pos::new(6, 8),
            root: vec![(Pos::new(9, 9), -60), (Pos::new(0, 14), -29_990)],
        });
        plies.push(Ply {
            mv: Pos::new(9, 6),
            kind: 3,
            score: 29_990,
            best: Pos::new(9, 7),
            root: Vec::new(),
        });
        Game {
            rule: Rule::Renju,
            width: 15,
            height: 15,
            opening_plies: 2,
            winner: Some(Color::White),
            nodes: 10_000,
            plies,
        }
    }

    #[test]
    fn games_round_trip_and_a_cut_short_record_is_left_out() {
        let (a, b) = (
            sample(),
            Game {
                rule: Rule::Freestyle,
                width: 20,
                height: 16,
                winner: None,
                ..sample()
            },
        );
        let mut file = header();
        file.extend(a.encode());
        file.extend(b.encode());
        let c = parse(&file).unwrap();
        assert_eq!(c.games, vec![a.clone(), b.clone()]);
        assert_eq!(c.complete_bytes, file.len() as u64);
        // Stopped while writing a third: the two complete ones are read.
        let whole = file.len();
        file.extend(&a.encode()[..10]);
        let c = parse(&file).unwrap();
        assert_eq!(c.games.len(), 2);
        assert_eq!(c.complete_bytes, whole as u64);
    }

    #[test]
    fn a_damaged_or_foreign_file_is_refused() {
        let mut file = header();
        file.extend(sample().encode());
        let mut flipped = file.clone();
        flipped[HEADER_BYTES + 9] ^= 1;
        assert!(parse(&flipped).unwrap_err().contains("checksum"));
        let mut version = file.clone();
        version[8] = 2;
        assert!(parse(&version).unwrap_err().contains("version"));
        assert!(parse(b"h8i9j10\n").is_err());
        // A record whose checksum fits but whose move repeats a point.
        let mut twice = sample();
        twice.plies[3].mv = Pos::new(7, 7);
        let mut bad = header();
        bad.extend(twice.encode());
        assert!(parse(&bad).unwrap_err().contains("twice"));
    }

    #[test]
    fn appending_continues_a_file_cut_short() {
        let dir = std::env::temp_dir().join(format!("sente-games-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.games");
        let path = path.to_str().unwrap();
        let (mut f, n) = open_for_append(path).unwrap();
        assert_eq!(n, 0);
        f.write_all(&sample().encode()).unwrap();
        f.write_all(&sample().encode()[..7]).unwrap();
        drop(f);
        let (mut f, n) = open_for_append(path).unwrap();
        assert_eq!(n, 1, "the cut-short record is dropped");
        f.write_all(&sample().encode()).unwrap();
        drop(f);
        assert_eq!(read(path).unwrap(), vec![sample(), sample()]);
        let board = sample().board_after(4);
        assert_eq!(board.stone_count(), 4);
        assert_eq!(board.stone(Pos::new(9, 6)), Some(Color::White));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
