//! Pattern tables: what a stone on a cell makes along one line, and what the four lines
//! together make on that cell.
//!
//! A cell's line key packs the 10 cells around it in one direction (5 each side, 2 bits
//! each: empty, black, white, wall). `PatternTables::line` maps a key to the
//! `LinePattern` that a black and a white stone on the centre would make (one nibble
//! each); `PatternTables::threat` maps the four nibbles of one colour to a `Threat` class.
//!
//! The tables are built once per rule, on first use, by a memoised recursion over keys
//! (a line's pattern is defined by the best patterns reachable by adding stones), and are
//! the single source of truth for "what does this line make". Every five counted here
//! passes through the centre cell, so a cell next to an old four is not itself a four.

use std::sync::OnceLock;

use super::geometry::{Color, EMPTY, WALL};
use super::rule::{line_wins, run_length, Rule};

/// Cells on each side of the centre in a line key.
pub(crate) const HALF: usize = 5;
/// Cells in the window, centre included.
pub(crate) const WINDOW: usize = 2 * HALF + 1;
/// Number of distinct line keys (10 cells of 2 bits).
pub(crate) const KEY_COUNT: usize = 1 << (4 * HALF);
/// How far freestyle's line patterns look (a five needs no cell farther out).
pub(crate) const FREESTYLE_REACH: usize = 4;

/// What one stone on the centre makes along one line, for one colour.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[repr(u8)]
pub enum LinePattern {
    /// No five can ever pass through the centre on this line.
    Dead = 0,
    /// The stone makes six or more that does not win (black's forbidden overline in renju).
    Overline,
    /// Renju, black: the stone makes two fours on this one line (forbidden).
    DoubleFour,
    /// One stone away from `B2`, and so on: "blocked" (B) patterns lead to fours, "flex"
    /// (F) patterns lead to open fours.
    B1,
    F1,
    B2,
    F2,
    /// A two with two ways to become an open three.
    F2x,
    B3,
    /// An open three: one more stone makes an open four.
    F3,
    /// An open three with two points that make an open four.
    F3x,
    /// A four: exactly one point completes the five.
    B4,
    /// An open four (or, outside renju black, two fours on the line): unstoppable.
    F4,
    Five,
}

impl LinePattern {
    pub(crate) const COUNT: usize = 14;
    const ALL: [LinePattern; 14] = [
        LinePattern::Dead,
        LinePattern::Overline,
        LinePattern::DoubleFour,
        LinePattern::B1,
        LinePattern::F1,
        LinePattern::B2,
        LinePattern::F2,
        LinePattern::F2x,
        LinePattern::B3,
        LinePattern::F3,
        LinePattern::F3x,
        LinePattern::B4,
        LinePattern::F4,
        LinePattern::Five,
    ];

    #[inline]
    pub(crate) fn from_u8(v: u8) -> LinePattern {
        Self::ALL[v as usize & 15]
    }

    pub fn is_four(self) -> bool {
        matches!(self, LinePattern::B4 | LinePattern::F4)
    }

    pub(crate) fn is_open_three(self) -> bool {
        matches!(self, LinePattern::F3 | LinePattern::F3x)
    }
}

/// What one stone on a cell makes over all four lines, for one colour, strongest last.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[repr(u8)]
pub enum Threat {
    None = 0,
    /// Renju, black: overline, double four or (maybe false) double three. The exact test is
    /// `Board::is_forbidden`.
    Forbidden,
    One,
    Two,
    BlockedThree,
    DoubleTwo,
    BlockedThreePlus,
    Three,
    ThreePlus,
    DoubleThree,
    Four,
    FourPlus,
    FourThree,
    OpenFour,
    Five,
}

impl Threat {
    pub(crate) const COUNT: usize = 15;
    pub(crate) const ALL: [Threat; 15] = [
        Threat::None,
        Threat::Forbidden,
        Threat::One,
        Threat::Two,
        Threat::BlockedThree,
        Threat::DoubleTwo,
        Threat::BlockedThreePlus,
        Threat::Three,
        Threat::ThreePlus,
        Threat::DoubleThree,
        Threat::Four,
        Threat::FourPlus,
        Threat::FourThree,
        Threat::OpenFour,
        Threat::Five,
    ];

    #[inline]
    pub(crate) fn from_u8(v: u8) -> Threat {
        Self::ALL[v as usize]
    }

    /// Does a stone here make a four (or better)?
    #[inline]
    pub(crate) fn is_four(self) -> bool {
        self >= Threat::Four
    }

    /// Does a stone here make an open three (or better)?
    #[inline]
    pub(crate) fn is_three(self) -> bool {
        self >= Threat::Three
    }
}

/// The threat classes the search looks up by point (`Board::threat_points`).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ThreatGroup {
    /// The stone completes a five.
    Five,
    /// The stone makes a four or better (but no five): `Four` to `OpenFour`.
    Four,
    /// The stone makes an open three but no four: `Three` to `DoubleThree`.
    Three,
    /// Renju, black: the point may be forbidden (its exact test is `Board::is_forbidden`).
    Forbidden,
}

impl ThreatGroup {
    pub(crate) const COUNT: usize = 4;

    /// `of` for every threat class as a number, `NO_GROUP` for none: one table load
    /// where the board moves a point between classes on every make and undo.
    const OF_U8: [u8; 16] = {
        let mut out = [Self::NO_GROUP; 16];
        let mut t = 0;
        while t < Threat::COUNT {
            out[t] = match Self::of(Threat::ALL[t]) {
                Some(g) => g as u8,
                None => Self::NO_GROUP,
            };
            t += 1;
        }
        out
    };
    pub(crate) const NO_GROUP: u8 = 0xFF;

    /// The group of the threat class numbered `t` (`Threat as u8`), or `NO_GROUP`.
    #[inline]
    pub(crate) fn of_u8(t: u8) -> u8 {
        Self::OF_U8[t as usize & 15]
    }

    #[inline]
    pub(crate) const fn of(t: Threat) -> Option<ThreatGroup> {
        match t {
            Threat::Five => Some(ThreatGroup::Five),
            Threat::Four | Threat::FourPlus | Threat::FourThree | Threat::OpenFour => Some(ThreatGroup::Four),
            Threat::Three | Threat::ThreePlus | Threat::DoubleThree => Some(ThreatGroup::Three),
            Threat::Forbidden => Some(ThreatGroup::Forbidden),
            _ => None,
        }
    }
}

/// Map a line slot (0..10) to its index in an 11-cell window (centre = `HALF`).
#[inline]
pub(crate) const fn slot_index(slot: usize) -> usize {
    if slot < HALF {
        slot
    } else {
        slot + 1
    }
}

/// The key slot of the cell at offset `k` (±1..=±5) from the centre.
#[inline]
pub(crate) const fn offset_slot(k: isize) -> usize {
    if k < 0 {
        (k + HALF as isize) as usize
    } else {
        (k + HALF as isize - 1) as usize
    }
}

/// Unpack a key into an 11-cell window with `centre` on the centre cell.
pub(crate) fn decode_key(key: u32, centre: u8) -> [u8; WINDOW] {
    let mut cells = [0u8; WINDOW];
    for s in 0..2 * HALF {
        cells[slot_index(s)] = ((key >> (2 * s)) & 3) as u8;
    }
    cells[HALF] = centre;
    cells
}

pub struct PatternTables {
    /// Black's pattern in the low nibble, white's in the high one, indexed by
    /// `(key >> shift) & mask`: the cells within `reach` of the centre.
    line: Vec<u8>,
    reach: usize,
    shift: u32,
    mask: u32,
    /// Per colour, 65536 entries indexed by the four direction nibbles.
    threat: [Vec<u8>; 2],
}

impl PatternTables {
    /// The tables for `rule`, built on first use and shared by every board.
    pub(crate) fn get(rule: Rule) -> &'static PatternTables {
        static TABLES: [OnceLock<PatternTables>; 5] = [
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
        ];
        let slot = Rule::ALL.iter().position(|&r| r == rule).expect("known rule");
        TABLES[slot].get_or_init(|| PatternTables::build(rule))
    }

    /// Build the tables of every rule now, so that no move pays for them later (the
    /// engine does this before its first START answers OK, which no manager charges to a
    /// move's clock). One rule after the other: threads would leave more freed memory
    /// behind in their allocator arenas.
    pub(crate) fn build_all() {
        for rule in Rule::ALL {
            PatternTables::get(rule);
        }
    }

    fn build(rule: Rule) -> PatternTables {
        // Black's patterns become the table; white's are merged in (one temporary table
        // instead of two: less for the allocator to keep).
        let mut full = classify_all(rule, Color::Black);
        for (b, w) in full.iter_mut().zip(classify_all(rule, Color::White)) {
            *b |= w << 4;
        }
        let threat = [build_threats(rule, Color::Black), build_threats(rule, Color::White)];
        // Five or more wins in freestyle, so nothing beyond 4 cells from the centre matters:
        // a 64 KiB table (it stays in cache) instead of 1 MiB, and fewer cells to update.
        let reach = if rule == Rule::Freestyle { FREESTYLE_REACH } else { HALF };
        // The key's slots run from the far left cell to the far right one, 2 bits each.
        let shift = 2 * (HALF - reach) as u32;
        let mask = (1u32 << (4 * reach)) - 1;
        let line = if reach == HALF {
            full
        } else {
            (0..=mask).map(|k| full[(k << shift) as usize]).collect()
        };
        PatternTables {
            line,
            reach,
            shift,
            mask,
            threat,
        }
    }

    /// How far from a point its line patterns look: `FREESTYLE_REACH` cells for freestyle,
    /// `HALF` for the rules that must see an overline. Board keys hold the cells beyond it
    /// as empty.
    #[inline]
    pub(crate) fn reach(&self) -> usize {
        self.reach
    }

    /// Both colours' line patterns for a key, packed (black low nibble).
    #[inline]
    pub(crate) fn line2(&self, key: u32) -> u8 {
        self.line[((key >> self.shift) & self.mask) as usize]
    }

    #[inline]
    pub(crate) fn line(&self, key: u32, c: Color) -> LinePattern {
        LinePattern::from_u8(self.line2(key) >> (4 * c.index()))
    }

    /// Threat class of a cell from its four line patterns for `c`.
    #[inline]
    pub(crate) fn threat_of(&self, c: Color, pats: [LinePattern; 4]) -> Threat {
        let nibbles = pats
            .iter()
            .enumerate()
            .fold(0u16, |n, (d, &lp)| n | (lp as u16) << (4 * d));
        self.threat(c, nibbles)
    }

    /// Threat class from the four direction nibbles of one colour.
    #[inline]
    pub(crate) fn threat(&self, c: Color, nibbles: u16) -> Threat {
        Threat::from_u8(self.threat[c.index()][nibbles as usize])
    }
}

const UNKNOWN: u8 = 0xFF;

/// The pattern of every key for one colour (centre = that colour's stone). Only keys in
/// `canonical` form are classified (an eighth of them; their children are canonical too);
/// the others copy theirs.
fn classify_all(rule: Rule, c: Color) -> Vec<u8> {
    let mut memo = vec![UNKNOWN; KEY_COUNT];
    for key in 0..KEY_COUNT as u32 {
        if canonical(key) == key {
            classify(rule, c, key, &mut memo);
        }
    }
    for key in 0..KEY_COUNT as u32 {
        let k = canonical(key);
        if k != key {
            memo[key as usize] = memo[k as usize];
        }
    }
    memo
}

/// The key with every cell beyond the first wall on each side made a wall too. A five
/// cannot pass a wall, so what a line makes depends only on the cells before it. (Blocked
/// points are walls inside the board, so keys with cells beyond a wall do occur.)
fn canonical(key: u32) -> u32 {
    let is_wall = |s: usize| (key >> (2 * s)) & 3 == WALL as u32;
    let mut k = key;
    // Left side: slot HALF - 1 is next to the centre, slot 0 the farthest.
    if let Some(w) = (0..HALF).rev().find(|&s| is_wall(s)) {
        for s in 0..w {
            k |= 3 << (2 * s);
        }
    }
    // Right side: slot HALF is next to the centre.
    if let Some(w) = (HALF..2 * HALF).find(|&s| is_wall(s)) {
        for s in w + 1..2 * HALF {
            k |= 3 << (2 * s);
        }
    }
    k
}

fn classify(rule: Rule, c: Color, key: u32, memo: &mut [u8]) -> u8 {
    let known = memo[key as usize];
    if known != 0xFF {
        return known;
    }
    let pattern = classify_window(rule, c, key, |child| classify(rule, c, child, memo));
    memo[key as usize] = pattern as u8;
    pattern as u8
}

/// The definition of a line pattern, given the patterns of the keys with one more stone.
/// Shared by the table builder and the slow reference in the tests.
pub(crate) fn classify_window(rule: Rule, c: Color, key: u32, mut child: impl FnMut(u32) -> u8) -> LinePattern {
    let me = c.cell();
    let mut cells = decode_key(key, me);
    if line_wins(rule, c, &cells, HALF) {
        return LinePattern::Five;
    }
    if rule.overline_is_dead(c) && run_length(c, &cells, HALF) >= 6 {
        return LinePattern::Overline;
    }
    let empty_slots = (0..2 * HALF).filter(|&s| (key >> (2 * s)) & 3 == EMPTY as u32);
    let mut five_points = arrayvec::ArrayVec::<usize, 10>::new();
    for s in empty_slots.clone() {
        let i = slot_index(s);
        cells[i] = me;
        if line_wins(rule, c, &cells, HALF) {
            five_points.push(i);
        }
        cells[i] = EMPTY;
    }
    match five_points.len() {
        0 => {}
        1 => return LinePattern::B4,
        n => {
            // A straight four has its two five points exactly five cells apart; anything
            // else is two fours on one line, which renju forbids to black.
            let straight = n == 2 && five_points[1] - five_points[0] == 5;
            if rule.has_forbidden() && c == Color::Black && !straight {
                return LinePattern::DoubleFour;
            }
            return LinePattern::F4;
        }
    }
    let (mut open_fours, mut four, mut threes, mut b3, mut f2, mut b2) = (0, false, 0, false, false, false);
    for s in empty_slots {
        match LinePattern::from_u8(child(key | (me as u32) << (2 * s))) {
            LinePattern::F4 => open_fours += 1,
            LinePattern::B4 => four = true,
            LinePattern::F3 | LinePattern::F3x => threes += 1,
            LinePattern::B3 => b3 = true,
            LinePattern::F2 | LinePattern::F2x => f2 = true,
            LinePattern::B2 => b2 = true,
            _ => {}
        }
    }
    if open_fours >= 2 {
        LinePattern::F3x
    } else if open_fours == 1 {
        LinePattern::F3
    } else if four {
        LinePattern::B3
    } else if threes >= 2 {
        LinePattern::F2x
    } else if threes == 1 {
        LinePattern::F2
    } else if b3 {
        LinePattern::B2
    } else if f2 {
        LinePattern::F1
    } else if b2 {
        LinePattern::B1
    } else {
        LinePattern::Dead
    }
}

fn build_threats(rule: Rule, c: Color) -> Vec<u8> {
    let renju_black = rule.has_forbidden() && c == Color::Black;
    (0..1u32 << 16)
        .map(|nibbles| {
            let raw = [0, 1, 2, 3].map(|d| (nibbles >> (4 * d)) as usize & 15);
            if raw.iter().any(|&v| v >= LinePattern::COUNT) {
                return Threat::None as u8; // nibble values no line pattern uses
            }
            combine(raw.map(|v| LinePattern::from_u8(v as u8)), renju_black) as u8
        })
        .collect()
}

/// The threat class of a cell from its four line patterns.
pub(crate) fn combine(pats: [LinePattern; 4], renju_black: bool) -> Threat {
    use LinePattern as P;
    let count = |f: &dyn Fn(P) -> bool| pats.iter().filter(|&&p| f(p)).count();
    let fives = count(&|p| p == P::Five);
    let bad = count(&|p| p == P::Overline || p == P::DoubleFour);
    let open_fours = count(&|p| p == P::F4);
    let fours = count(&|p| p == P::B4);
    let threes = count(&|p| p.is_open_three());
    let b3 = count(&|p| p == P::B3);
    let f2 = count(&|p| p == P::F2 || p == P::F2x);
    let weak = count(&|p| matches!(p, P::B2 | P::F1 | P::B1));
    if fives > 0 {
        return Threat::Five;
    }
    if renju_black && (bad > 0 || open_fours + fours >= 2 || threes >= 2) {
        return Threat::Forbidden;
    }
    if open_fours > 0 || fours >= 2 {
        return Threat::OpenFour;
    }
    if fours == 1 {
        return if threes > 0 {
            Threat::FourThree
        } else if b3 + f2 > 0 {
            Threat::FourPlus
        } else {
            Threat::Four
        };
    }
    if threes >= 2 {
        return Threat::DoubleThree;
    }
    if threes == 1 {
        return if b3 + f2 > 0 { Threat::ThreePlus } else { Threat::Three };
    }
    if b3 >= 1 && b3 + f2 >= 2 {
        return Threat::BlockedThreePlus;
    }
    if f2 >= 2 {
        return Threat::DoubleTwo;
    }
    if b3 == 1 {
        return Threat::BlockedThree;
    }
    if f2 == 1 {
        return Threat::Two;
    }
    if weak > 0 {
        return Threat::One;
    }
    Threat::None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::geometry::{BLACK, WHITE};
    use LinePattern as P;

    /// Build a key from an 11-character picture such as `"..XX?XX...."`: `X` black, `O`
    /// white, `.` empty, `#` wall; the centre character is ignored.
    fn key_from_picture(picture: &str) -> u32 {
        let cells: Vec<u8> = picture
            .chars()
            .map(|ch| match ch {
                'X' | 'x' => BLACK,
                'O' | 'o' => WHITE,
                '#' => WALL,
                _ => EMPTY,
            })
            .collect();
        assert_eq!(cells.len(), WINDOW, "picture must have {WINDOW} cells");
        (0..2 * HALF).fold(0u32, |key, s| key | (cells[slot_index(s)] as u32) << (2 * s))
    }

    fn pat(rule: Rule, c: Color, picture: &str) -> LinePattern {
        PatternTables::get(rule).line(key_from_picture(picture), c)
    }

    #[test]
    fn basic_shapes_freestyle() {
        let r = Rule::Freestyle;
        let b = Color::Black;
        assert_eq!(pat(r, b, "...XX?XX..."), P::Five);
        assert_eq!(pat(r, b, "..XXX?XX..."), P::Five, "freestyle: six wins");
        assert_eq!(pat(r, b, "....X?XX..."), P::F4);
        assert_eq!(pat(r, b, "...OX?XX..."), P::B4);
        assert_eq!(pat(r, b, "....X?X...."), P::F3x);
        assert_eq!(pat(r, b, "...#X?X...."), P::B3);
        assert_eq!(pat(r, b, "..#.X?X...."), P::F3);
        assert_eq!(pat(r, b, "....X?.X..."), P::F3);
        assert_eq!(pat(r, b, "...OX?X...."), P::B3);
        assert_eq!(pat(r, b, ".....?X...."), P::F2x);
        assert_eq!(pat(r, b, ".....?....."), P::F1);
        assert_eq!(pat(r, b, "OOOO.?.OOOO"), P::Dead);
        assert_eq!(pat(r, b, "X.XX.?....."), P::F3);
        assert_eq!(
            pat(Rule::Renju, b, "X.XX.?....."),
            P::B3,
            "renju: the far five point makes six"
        );
        assert_eq!(pat(r, b, ".XXX.?.XXX."), P::F4, "two fours on one line");
        assert_eq!(pat(r, Color::White, ".OOO.?.OOO."), P::F4);
    }

    #[test]
    fn exact_five_rules() {
        let b = Color::Black;
        assert_eq!(pat(Rule::Standard, b, "..XXX?XX..."), P::Overline);
        assert_eq!(pat(Rule::Standard, Color::White, "..OOO?OO..."), P::Overline);
        assert_eq!(pat(Rule::Renju, b, "..XXX?XX..."), P::Overline);
        assert_eq!(pat(Rule::Renju, Color::White, "..OOO?OO..."), P::Five);
        // X X X ? X . X : the only five point would make an overline.
        assert_eq!(pat(Rule::Standard, b, "..XXX?.X..."), P::B4);
        assert_eq!(pat(Rule::Standard, b, "..X.X?X.X.."), P::F4);
        assert_eq!(pat(Rule::Renju, b, "..X.X?X.X.."), P::DoubleFour);
        assert_eq!(pat(Rule::Renju, b, "...X.?XX.X."), P::DoubleFour);
        assert_eq!(pat(Rule::Renju, b, "....X?XX..."), P::F4);
        // .XXX?.X : filling the gap makes six, so only the left end is a five point.
        assert_eq!(pat(Rule::Renju, b, "..XXX?.X..."), P::B4);
        assert_eq!(pat(Rule::Freestyle, b, "..XXX?.X..."), P::F4);
    }

    #[test]
    fn caro_blocked_fives() {
        let b = Color::Black;
        assert_eq!(pat(Rule::Caro, b, "OXXXX?....."), P::Five);
        assert_eq!(pat(Rule::Caro, b, "OXXXX?O...."), P::Dead, "capped at both ends");
        assert_eq!(pat(Rule::Standard, b, "OXXXX?O...."), P::Five);
        assert_eq!(pat(Rule::Caro, b, "#XXXX?O...."), P::Five, "the edge is not a block");
        assert_eq!(pat(Rule::Caro, b, "..XXX?XX..."), P::Five, "caro 8: overline wins");
        assert_eq!(pat(Rule::CaroExact, b, "..XXX?XX..."), P::Overline);
        assert_eq!(
            pat(Rule::Caro, b, "...OX?XX.O."),
            P::Dead,
            "its only five would be capped"
        );
        assert_eq!(pat(Rule::Freestyle, b, "...OX?XX.O."), P::B4);
    }

    #[test]
    fn freestyle_patterns_ignore_the_outer_cells() {
        // The compact freestyle table is only right if cells 5 away never matter.
        let full = classify_all(Rule::Freestyle, Color::Black);
        let outer = 3u32 | (3 << 18);
        for key in (0..KEY_COUNT as u32).step_by(7) {
            let inner = key & !outer;
            for edge in [0, 1 << 18 | 2, 3 | 3 << 18, 1 | 2 << 18] {
                assert_eq!(full[key as usize], full[(inner | edge) as usize], "key {key:#x}");
            }
        }
        let t = PatternTables::get(Rule::Freestyle);
        for key in (0..KEY_COUNT as u32).step_by(5) {
            assert_eq!(t.line(key, Color::Black) as u8, full[key as usize]);
        }
    }

    #[test]
    fn canonical_keys_give_the_same_tables() {
        // The plain definition: every key classified on its own.
        for rule in Rule::ALL {
            for c in [Color::Black, Color::White] {
                let mut every = vec![UNKNOWN; KEY_COUNT];
                for key in 0..KEY_COUNT as u32 {
                    classify(rule, c, key, &mut every);
                }
                assert!(every == classify_all(rule, c), "{rule:?} {c:?}");
            }
        }
        assert_eq!(
            canonical(key_from_picture("X#X..?..O#.")),
            key_from_picture("##X..?..O##")
        );
    }

    #[test]
    fn threat_combination() {
        let t = |p: [P; 4], rb| combine(p, rb);
        assert_eq!(t([P::Five, P::Overline, P::Dead, P::Dead], true), Threat::Five);
        assert_eq!(t([P::B4, P::B4, P::Dead, P::Dead], false), Threat::OpenFour);
        assert_eq!(t([P::B4, P::B4, P::Dead, P::Dead], true), Threat::Forbidden);
        assert_eq!(t([P::B4, P::F3, P::Dead, P::Dead], true), Threat::FourThree);
        assert_eq!(t([P::F3, P::F3x, P::Dead, P::Dead], false), Threat::DoubleThree);
        assert_eq!(t([P::F3, P::F3x, P::Dead, P::Dead], true), Threat::Forbidden);
        assert_eq!(t([P::F4, P::F3, P::Dead, P::Dead], true), Threat::OpenFour);
        assert_eq!(t([P::Dead; 4], false), Threat::None);
    }
}
