//! Board geometry: points on a padded grid, directions, colours.
//!
//! A `Pos` indexes a grid of `STRIDE × STRIDE` cells: the playing area (at most
//! `MAX_SIZE × MAX_SIZE`) sits inside a border of `PAD` wall cells, so walking up to
//! `PAD` steps in any direction from an on-board point is one add and never leaves the
//! array. Index order (row-major) is also the tie-break order for moves everywhere.

use std::fmt;

pub(crate) const MIN_SIZE: usize = 5;
pub(crate) const MAX_SIZE: usize = 32;
/// Wall cells around the board: the pattern window reaches 5 cells each way.
pub(crate) const PAD: usize = 5;
pub(crate) const STRIDE: usize = MAX_SIZE + 2 * PAD;
pub(crate) const GRID: usize = STRIDE * STRIDE;

/// The four line directions as index steps: horizontal, vertical, diagonal, anti-diagonal.
pub const DIRS: [isize; 4] = [1, STRIDE as isize, STRIDE as isize + 1, STRIDE as isize - 1];
/// The same directions as (dx, dy).
pub(crate) const DIR_XY: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (-1, 1)];

#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Pos(u16);

impl Pos {
    /// A point that is never on the board (the grid's top-left wall corner).
    pub(crate) const NONE: Pos = Pos(0);

    /// The point at column `x`, row `y` (0-based). The caller checks the range.
    #[inline]
    pub fn new(x: usize, y: usize) -> Pos {
        debug_assert!(x < MAX_SIZE && y < MAX_SIZE);
        Pos(((y + PAD) * STRIDE + x + PAD) as u16)
    }

    #[inline]
    pub(crate) fn from_index(i: usize) -> Pos {
        debug_assert!(i < GRID);
        Pos(i as u16)
    }

    #[inline]
    pub(crate) fn index(self) -> usize {
        self.0 as usize
    }

    #[inline]
    pub fn x(self) -> usize {
        (self.0 as usize % STRIDE).wrapping_sub(PAD)
    }

    #[inline]
    pub fn y(self) -> usize {
        (self.0 as usize / STRIDE).wrapping_sub(PAD)
    }

    #[inline]
    pub fn step(self, delta: isize) -> Pos {
        Pos((self.0 as isize + delta) as u16)
    }

    #[inline]
    pub(crate) fn is_none(self) -> bool {
        self == Pos::NONE
    }
}

impl fmt::Debug for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_none() {
            write!(f, "none")
        } else {
            write!(f, "{}", self)
        }
    }
}

/// Points print in the "pos" notation used by the shared test data and c-gomoku-cli:
/// a letter for the column (`a` = x 0), a number for the row counted from the top.
impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_none() {
            return write!(f, "--");
        }
        write!(f, "{}{}", column_letter(self.x()), self.y() + 1)
    }
}

fn column_letter(x: usize) -> char {
    if x < 26 {
        (b'a' + x as u8) as char
    } else {
        (b'A' + (x - 26) as u8) as char
    }
}

/// Parse one point in pos notation (`h8`, `k11`); columns past `z` continue with `A`.
pub fn parse_pos_token(s: &str) -> Option<(usize, usize)> {
    let mut chars = s.chars();
    let c = chars.next()?;
    let x = match c {
        'a'..='z' => c as usize - 'a' as usize,
        'A'..='Z' => 26 + c as usize - 'A' as usize,
        _ => return None,
    };
    let rest = chars.as_str();
    if rest.is_empty() || !rest.bytes().all(|b| b.is_ascii_digit()) || rest.len() > 2 {
        return None;
    }
    let y: usize = rest.parse().ok()?;
    if y == 0 {
        return None;
    }
    Some((x, y - 1))
}

/// Parse a whole move string in pos notation: `h8i9j10` or `h8 i9 j10`.
pub fn parse_pos_string(s: &str) -> Option<Vec<(usize, usize)>> {
    let mut out = Vec::new();
    let bytes: Vec<char> = s.chars().filter(|c| !c.is_whitespace()).collect();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        i += 1;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        let token: String = bytes[start..i].iter().collect();
        out.push(parse_pos_token(&token)?);
    }
    Some(out)
}

/// Are `a` and `b` close enough to work together: within the 5×5 square, or on one line
/// at most 4 apart?
/// How many symmetries a `w × h` board has: 8 when square, else 4 (no transposition).
pub fn symmetry_count(w: usize, h: usize) -> u32 {
    if w == h {
        8
    } else {
        4
    }
}

/// A point under symmetry `s` (bit 0: mirror x, bit 1: mirror y, bit 2: transpose; only
/// a square board has the last) of a `w × h` board.
pub fn symmetric(p: Pos, s: u32, w: usize, h: usize) -> Pos {
    let (mut x, mut y) = (p.x(), p.y());
    if s & 1 != 0 {
        x = w - 1 - x;
    }
    if s & 2 != 0 {
        y = h - 1 - y;
    }
    if s & 4 != 0 {
        std::mem::swap(&mut x, &mut y);
    }
    Pos::new(x, y)
}

pub(crate) fn related(a: Pos, b: Pos) -> bool {
    let dx = a.x() as i32 - b.x() as i32;
    let dy = a.y() as i32 - b.y() as i32;
    let (ax, ay) = (dx.abs(), dy.abs());
    ax.max(ay) <= 2 || ((dx == 0 || dy == 0 || ax == ay) && ax.max(ay) <= 4)
}

#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Color {
    Black = 0,
    White = 1,
}

impl Color {
    #[inline]
    pub fn opposite(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The 2-bit cell code of a stone of this colour.
    #[inline]
    pub(crate) fn cell(self) -> u8 {
        self as u8 + 1
    }

    pub fn from_index(i: usize) -> Color {
        if i == 0 {
            Color::Black
        } else {
            Color::White
        }
    }

    /// Whose turn it is with `black` and `white` stones on the board: the side with
    /// fewer stones, black on a tie. The one home of this rule (`Board::side_to_move`,
    /// the protocol, the tools and the match runner use it).
    pub(crate) fn to_move(black: usize, white: usize) -> Color {
        if black > white {
            Color::White
        } else {
            Color::Black
        }
    }

    /// Who plays the stone after `ply` stones played alternately, black first.
    pub fn of_ply(ply: usize) -> Color {
        Color::to_move(ply.div_ceil(2), ply / 2)
    }
}

/// 2-bit cell codes used in line keys.
pub(crate) const EMPTY: u8 = 0;
pub(crate) const BLACK: u8 = 1;
pub(crate) const WHITE: u8 = 2;
pub(crate) const WALL: u8 = 3;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whose_turn() {
        assert_eq!(Color::to_move(0, 0), Color::Black);
        assert_eq!(Color::to_move(3, 2), Color::White);
        assert_eq!(Color::to_move(2, 2), Color::Black);
        assert_eq!(Color::to_move(1, 3), Color::Black);
        let plies: Vec<Color> = (0..4).map(Color::of_ply).collect();
        assert_eq!(plies, [Color::Black, Color::White, Color::Black, Color::White]);
    }

    #[test]
    fn pos_roundtrip_and_text() {
        for y in 0..MAX_SIZE {
            for x in 0..MAX_SIZE {
                let p = Pos::new(x, y);
                assert_eq!((p.x(), p.y()), (x, y));
                assert!(!p.is_none());
                let text = p.to_string();
                assert_eq!(parse_pos_token(&text), Some((x, y)));
            }
        }
        assert_eq!(Pos::new(7, 7).to_string(), "h8");
        assert_eq!(parse_pos_string("h8i9j10"), Some(vec![(7, 7), (8, 8), (9, 9)]));
        assert_eq!(parse_pos_string("h8 i9"), Some(vec![(7, 7), (8, 8)]));
        assert_eq!(parse_pos_string("h0"), None);
        assert_eq!(parse_pos_string("8h"), None);
    }

    #[test]
    fn padding_is_enough_for_the_pattern_window() {
        for &(x, y) in &[
            (0, 0),
            (MAX_SIZE - 1, 0),
            (0, MAX_SIZE - 1),
            (MAX_SIZE - 1, MAX_SIZE - 1),
        ] {
            let p = Pos::new(x, y);
            for d in DIRS {
                for k in -(PAD as isize)..=(PAD as isize) {
                    let q = p.index() as isize + k * d;
                    assert!(q >= 0 && (q as usize) < GRID);
                }
            }
        }
    }
}
