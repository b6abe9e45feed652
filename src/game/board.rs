//! The incremental pattern board.
//!
//! Every cell keeps, per direction, the line key of its 10 neighbours and the line
//! pattern that key gives for both colours, plus its threat class for both colours.
//! Placing a stone changes the keys of the 40 cells within 5 steps along its four lines
//! and nothing else, so `make` walks those cells, re-reads their patterns from the
//! tables and adjusts per-class counts; `undo` restores the saved old values. Counts per
//! class make questions such as "does the opponent have a five point?" O(1).

use super::bitset::PosSet;
use super::geometry::{Color, Pos, BLACK, DIRS, DIR_XY, EMPTY, GRID, MAX_SIZE, MIN_SIZE, PAD, STRIDE, WALL, WHITE};
use super::pattern::{offset_slot, LinePattern, PatternTables, Threat, ThreatGroup, FREESTYLE_REACH, HALF};
use super::rule::Rule;
use super::zobrist::Zobrist;

/// Number of unordered combinations of a point's four line patterns (multisets of 4 out
/// of `LinePattern::COUNT`): C(17, 4).
pub(crate) const PATTERN_COMBOS: usize = 2380;

/// `COMBO_OF[nibbles]`: the combination index of four direction nibbles (one colour's
/// line patterns), whatever their order. Nibble values no pattern uses give 0.
static COMBO_OF: [u16; 1 << 16] = {
    let mut out = [0u16; 1 << 16];
    let mut n = 0usize;
    while n < 1 << 16 {
        let mut v = [n & 15, (n >> 4) & 15, (n >> 8) & 15, (n >> 12) & 15];
        if v[0] < LinePattern::COUNT
            && v[1] < LinePattern::COUNT
            && v[2] < LinePattern::COUNT
            && v[3] < LinePattern::COUNT
        {
            // Sort, then rank the multiset as the strict combination (a, b+1, c+2, d+3).
            let mut i = 0;
            while i < 4 {
                let mut j = i + 1;
                while j < 4 {
                    if v[j] < v[i] {
                        let t = v[i];
                        v[i] = v[j];
                        v[j] = t;
                    }
                    j += 1;
                }
                i += 1;
            }
            out[n] = (binomial(v[0], 1) + binomial(v[1] + 1, 2) + binomial(v[2] + 2, 3) + binomial(v[3] + 3, 4)) as u16;
        }
        n += 1;
    }
    out
};

const fn binomial(n: usize, k: usize) -> usize {
    if k > n {
        return 0;
    }
    let mut r = 1;
    let mut i = 0;
    while i < k {
        r = r * (n - i) / (i + 1);
        i += 1;
    }
    r
}

/// The combination index (`0..PATTERN_COMBOS`) of one colour's four line patterns.
#[inline]
pub(crate) fn pattern_combo(pats: [LinePattern; 4]) -> usize {
    let nibbles = pats
        .iter()
        .enumerate()
        .fold(0u16, |n, (d, &lp)| n | (lp as u16) << (4 * d));
    COMBO_OF[nibbles as usize] as usize
}

#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
#[repr(C)]
struct Cell {
    keys: [u32; 4],
    /// Per direction: black's `LinePattern` in the low nibble, white's in the high one.
    pats: [u8; 4],
    /// Per colour: `Threat` class of a stone placed here.
    threat: [u8; 2],
    stone: u8,
}

/// One changed cell of a move: its state before, for undo, and which of its patterns
/// became what (one direction a record), for an incremental evaluation.
#[derive(Clone, Copy)]
struct Saved {
    pos: Pos,
    pats: [u8; 4],
    threat: [u8; 2],
    dir: u8,
    new: u8,
}

/// A cell whose line patterns a move changed: both colours' pattern combinations
/// (`pattern_combo`, black first) before and after the change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PatternChange {
    pub(crate) pos: Pos,
    pub(crate) before: [usize; 2],
    pub(crate) after: [usize; 2],
}

/// The cells a stone makes "near" (move candidates): the 5×5 square plus the lines out to
/// distance 3. Per row dy = -3..=3, bit k stands for dx = k - 3.
const NEAR_ROWS: [u64; 7] = [
    0b1001001, 0b0111110, 0b0111110, 0b1110111, 0b0111110, 0b0111110, 0b1001001,
];
// `mark_near` reaches 3 cells beyond the board on every side: inside the padding.
const _: () = assert!(PAD >= 3);

#[derive(Clone)]
pub struct Board {
    width: usize,
    height: usize,
    rule: Rule,
    tables: &'static PatternTables,
    cells: Vec<Cell>,
    threat_count: [[u16; Threat::COUNT]; 2],
    /// Per colour and `ThreatGroup`: the empty points whose threat class is in the group.
    threat_points: [[PosSet; ThreatGroup::COUNT]; 2],
    hash: u64,
    empty: PosSet,
    near: PosSet,
    moves: Vec<(Pos, Color)>,
    near_stack: Vec<PosSet>,
    saved: Vec<Saved>,
    saved_marks: Vec<u32>,
}

impl Board {
    /// An empty board. Sizes outside `MIN_SIZE..=MAX_SIZE` are a caller error.
    pub fn new(width: usize, height: usize, rule: Rule) -> Board {
        assert!((MIN_SIZE..=MAX_SIZE).contains(&width) && (MIN_SIZE..=MAX_SIZE).contains(&height));
        let mut board = Board {
            width,
            height,
            rule,
            tables: PatternTables::get(rule),
            cells: vec![Cell::default(); GRID],
            threat_count: [[0; Threat::COUNT]; 2],
            threat_points: [[PosSet::default(); ThreatGroup::COUNT]; 2],
            hash: 0,
            empty: PosSet::default(),
            near: PosSet::default(),
            moves: Vec::with_capacity(width * height),
            near_stack: Vec::with_capacity(width * height),
            saved: Vec::with_capacity(4096),
            saved_marks: Vec::with_capacity(width * height),
        };
        for (i, cell) in board.cells.iter_mut().enumerate() {
            let p = Pos::from_index(i);
            let on = board_contains(width, height, p);
            cell.stone = if on { EMPTY } else { WALL };
            if on {
                board.empty.insert(p);
            }
        }
        board.refresh_all();
        board
    }

    /// Rebuild a position from scratch (no incremental updates): the reference that the
    /// incremental state is tested against.
    pub fn from_moves(width: usize, height: usize, rule: Rule, moves: &[(Pos, Color)]) -> Board {
        let mut board = Board::new(width, height, rule);
        for &(p, c) in moves {
            assert!(board.is_empty(p), "from_moves: {p} is not an empty point");
            board.cells[p.index()].stone = c.cell();
            board.empty.remove(p);
            board.hash ^= Zobrist::get().stone(c, p);
            board.moves.push((p, c));
        }
        board.refresh_all();
        board.near = PosSet::default();
        for &(p, _) in moves {
            board.mark_near(p);
        }
        board
    }

    /// Make the empty point `p` permanently unavailable, like the board edge (a blocked
    /// cell of a continuous game). Allowed only before the first move.
    pub(crate) fn block(&mut self, p: Pos) {
        assert!(
            self.moves.is_empty() && self.is_empty(p),
            "block before any move, on an empty point"
        );
        self.cells[p.index()].stone = WALL;
        self.empty.remove(p);
        self.refresh_all();
    }

    /// Recompute every key, pattern, threat and count from the stones.
    fn refresh_all(&mut self) {
        let reach = self.tables.reach() as isize;
        self.threat_count = [[0; Threat::COUNT]; 2];
        self.threat_points = [[PosSet::default(); ThreatGroup::COUNT]; 2];
        for i in 0..GRID {
            let p = Pos::from_index(i);
            if !board_contains(self.width, self.height, p) {
                continue;
            }
            for (d, &step) in DIRS.iter().enumerate() {
                let mut key = 0u32;
                for k in 1..=reach {
                    for signed in [-k, k] {
                        let q = p.index() as isize + signed * step;
                        let code = if q < 0 || q as usize >= GRID {
                            WALL
                        } else {
                            self.cells[q as usize].stone
                        };
                        key |= (code as u32) << (2 * offset_slot(signed));
                    }
                }
                self.cells[i].keys[d] = key;
                self.cells[i].pats[d] = self.tables.line2(key);
            }
            let threat = self.threats_of(&self.cells[i].pats);
            self.cells[i].threat = threat;
            if self.cells[i].stone == EMPTY {
                self.count_cell(p, 1);
            }
        }
    }

    fn threats_of(&self, pats: &[u8; 4]) -> [u8; 2] {
        self.threats_of_nibbles(nibbles_of(pats))
    }

    #[inline]
    fn threats_of_nibbles(&self, nibbles: [u16; 2]) -> [u8; 2] {
        [
            self.tables.threat(Color::Black, nibbles[0]) as u8,
            self.tables.threat(Color::White, nibbles[1]) as u8,
        ]
    }

    /// Add (`sign` = 1) or remove (`sign` = -1) a cell's patterns and threats in the counts.
    #[inline]
    fn count_cell(&mut self, p: Pos, sign: i16) {
        let cell = self.cells[p.index()];
        for c in 0..2 {
            let t = cell.threat[c] as usize;
            self.threat_count[c][t] = self.threat_count[c][t].wrapping_add_signed(sign);
            if let Some(g) = ThreatGroup::of(Threat::from_u8(cell.threat[c])) {
                let set = &mut self.threat_points[c][g as usize];
                if sign > 0 {
                    set.insert(p);
                } else {
                    set.remove(p);
                }
            }
        }
    }

    /// Add the points near `p` to the candidates. Off-board points come along (the padding
    /// is wide enough) but are never empty, and `candidates` keeps only empty points.
    fn mark_near(&mut self, p: Pos) {
        let corner = p.index() - 3 * STRIDE - 3;
        for (row, &bits) in NEAR_ROWS.iter().enumerate() {
            self.near.insert_run(corner + row * STRIDE, bits);
        }
    }

    /// Place a stone of colour `c` on the empty point `p`.
    pub fn make(&mut self, p: Pos, c: Color) {
        debug_assert!(self.is_empty(p), "make on a non-empty point {p}");
        self.near_stack.push(self.near);
        self.saved_marks.push(self.saved.len() as u32);
        self.count_cell(p, -1);
        self.cells[p.index()].stone = c.cell();
        self.empty.remove(p);
        self.hash ^= Zobrist::get().stone(c, p);
        self.moves.push((p, c));
        self.mark_near(p);
        // A constant reach lets the compiler unroll the 4 × 2 × reach cell updates.
        if self.tables.reach() == FREESTYLE_REACH {
            self.update_lines::<FREESTYLE_REACH>(p, c);
        } else {
            self.update_lines::<HALF>(p, c);
        }
    }

    /// Add `c`'s new stone on `p` to the keys of the cells within `REACH` on its lines.
    #[inline]
    fn update_lines<const REACH: usize>(&mut self, p: Pos, c: Color) {
        let code = c.cell() as u32;
        for (d, &step) in DIRS.iter().enumerate() {
            for k in 1..=REACH as isize {
                // The new stone sits at offset -k from the cell k steps ahead, +k behind.
                self.update_cell(p.step(k * step), d, code << (2 * offset_slot(-k)));
                self.update_cell(p.step(-k * step), d, code << (2 * offset_slot(k)));
            }
        }
    }

    /// Take `c`'s stone on `p` out of the keys of the cells within `REACH` on its lines.
    #[inline]
    fn clear_lines<const REACH: usize>(&mut self, p: Pos, c: Color) {
        let code = c.cell() as u32;
        for (d, &step) in DIRS.iter().enumerate() {
            for k in 1..=REACH as isize {
                self.cells[p.step(k * step).index()].keys[d] ^= code << (2 * offset_slot(-k));
                self.cells[p.step(-k * step).index()].keys[d] ^= code << (2 * offset_slot(k));
            }
        }
    }

    #[inline(always)]
    fn update_cell(&mut self, q: Pos, d: usize, xor: u32) {
        let i = q.index();
        let cell = &mut self.cells[i];
        cell.keys[d] ^= xor;
        if cell.stone != EMPTY {
            return;
        }
        let new = self.tables.line2(cell.keys[d]);
        if new == cell.pats[d] {
            return;
        }
        self.saved.push(Saved {
            pos: q,
            pats: cell.pats,
            threat: cell.threat,
            dir: d as u8,
            new,
        });
        cell.pats[d] = new;
        let nibbles = nibbles_of(&cell.pats);
        let threat = self.threats_of_nibbles(nibbles);
        self.threat_change(q, self.cells[i].threat, threat);
        self.cells[i].threat = threat;
    }

    /// Move the empty point `p` from old to new threat classes in the counts and sets.
    #[inline(always)]
    fn threat_change(&mut self, p: Pos, old_threat: [u8; 2], new_threat: [u8; 2]) {
        for c in 0..2 {
            let (o, n) = (old_threat[c], new_threat[c]);
            if o == n {
                continue;
            }
            self.threat_count[c][o as usize] -= 1;
            self.threat_count[c][n as usize] += 1;
            let (go, gn) = (ThreatGroup::of_u8(o), ThreatGroup::of_u8(n));
            if go != gn {
                if go != ThreatGroup::NO_GROUP {
                    self.threat_points[c][go as usize].remove(p);
                }
                if gn != ThreatGroup::NO_GROUP {
                    self.threat_points[c][gn as usize].insert(p);
                }
            }
        }
    }

    /// Take back the last move.
    pub fn undo(&mut self) {
        let (p, c) = self.moves.pop().expect("undo with no moves");
        let mark = self.saved_marks.pop().expect("undo record") as usize;
        while self.saved.len() > mark {
            let s = self.saved.pop().expect("saved cell");
            let i = s.pos.index();
            let threat = self.cells[i].threat;
            self.threat_change(s.pos, threat, s.threat);
            self.cells[i].pats = s.pats;
            self.cells[i].threat = s.threat;
        }
        if self.tables.reach() == FREESTYLE_REACH {
            self.clear_lines::<FREESTYLE_REACH>(p, c);
        } else {
            self.clear_lines::<HALF>(p, c);
        }
        // The point's own patterns and threats are as they were before the move:
        // `update_cell` leaves an occupied cell's alone (only its keys change, and the
        // undos of the later moves restored them).
        self.cells[p.index()].stone = EMPTY;
        self.empty.insert(p);
        self.hash ^= Zobrist::get().stone(c, p);
        self.count_cell(p, 1);
        self.near = self.near_stack.pop().expect("near record");
    }

    // ----- queries -------------------------------------------------------------------

    pub(crate) fn width(&self) -> usize {
        self.width
    }

    pub(crate) fn height(&self) -> usize {
        self.height
    }

    pub(crate) fn rule(&self) -> Rule {
        self.rule
    }

    /// The pattern tables of this board's rule.
    #[inline]
    pub(crate) fn tables(&self) -> &'static PatternTables {
        self.tables
    }

    /// Is (x, y) on this board? Takes signed values so callers can pass raw input.
    pub fn contains_xy(&self, x: i64, y: i64) -> bool {
        x >= 0 && y >= 0 && (x as usize) < self.width && (y as usize) < self.height
    }

    pub fn contains(&self, p: Pos) -> bool {
        board_contains(self.width, self.height, p)
    }

    #[inline]
    pub fn is_empty(&self, p: Pos) -> bool {
        self.cells[p.index()].stone == EMPTY
    }

    /// The stone on `p`, if any (walls and empty points give `None`).
    #[inline]
    pub(crate) fn stone(&self, p: Pos) -> Option<Color> {
        match self.cells[p.index()].stone {
            BLACK => Some(Color::Black),
            WHITE => Some(Color::White),
            _ => None,
        }
    }

    /// The 2-bit code of a cell: empty, black, white or wall.
    #[inline]
    pub(crate) fn cell_code(&self, p: Pos) -> u8 {
        self.cells[p.index()].stone
    }

    #[inline]
    pub fn threat(&self, p: Pos, c: Color) -> Threat {
        Threat::from_u8(self.cells[p.index()].threat[c.index()])
    }

    #[inline]
    pub fn line_pattern(&self, p: Pos, c: Color, dir: usize) -> LinePattern {
        LinePattern::from_u8(self.cells[p.index()].pats[dir] >> (4 * c.index()))
    }

    /// The line key of `p` in direction `dir` (for tools and tests).
    pub(crate) fn line_key(&self, p: Pos, dir: usize) -> u32 {
        self.cells[p.index()].keys[dir]
    }

    /// The pattern combinations (`pattern_combo`) of `p`'s four line patterns, black's
    /// and white's. An occupied point keeps those it had when it was played.
    #[inline]
    pub(crate) fn pattern_combos(&self, p: Pos) -> [usize; 2] {
        combos_of(&self.cells[p.index()].pats)
    }

    /// The changes the `i`-th move (from 0) of this line made, in order: every change of
    /// an empty cell's line pattern (the stone's own cell is not listed). `None` for a
    /// move this board did not make itself (a board built by `from_moves`). This is what
    /// an incremental evaluation needs to follow the line (Stockfish's "dirty" pieces).
    pub(crate) fn changes_of_move(&self, i: usize) -> Option<impl Iterator<Item = PatternChange> + '_> {
        let first_recorded = self.moves.len() - self.saved_marks.len();
        let k = i.checked_sub(first_recorded)?;
        let start = *self.saved_marks.get(k)? as usize;
        let end = self.saved_marks.get(k + 1).map_or(self.saved.len(), |&m| m as usize);
        Some(self.saved[start..end].iter().map(|s| {
            let before = nibbles_of(&s.pats);
            let shift = 4 * s.dir as u32;
            let combos = |c: usize| {
                let was = before[c];
                let now = was & !(15 << shift) | (((s.new >> (4 * c)) & 15) as u16) << shift;
                let was_combo = COMBO_OF[was as usize] as usize;
                let now_combo = if now == was {
                    was_combo
                } else {
                    COMBO_OF[now as usize] as usize
                };
                (was_combo, now_combo)
            };
            let (black, white) = (combos(0), combos(1));
            PatternChange {
                pos: s.pos,
                before: [black.0, white.0],
                after: [black.1, white.1],
            }
        }))
    }

    /// How many empty points have threat class `t` for `c`.
    #[inline]
    pub fn threat_count(&self, c: Color, t: Threat) -> u16 {
        self.threat_count[c.index()][t as usize]
    }

    /// The empty points where a stone of `c` makes a threat of group `g`, in index order.
    #[inline]
    pub(crate) fn threat_points(&self, c: Color, g: ThreatGroup) -> &PosSet {
        &self.threat_points[c.index()][g as usize]
    }

    /// Empty points where a stone of `c` makes at least `t`.
    pub(crate) fn count_at_least(&self, c: Color, t: Threat) -> u32 {
        self.threat_count[c.index()][t as usize..]
            .iter()
            .map(|&n| n as u32)
            .sum()
    }

    /// Zobrist hash of the stones (side to move not included).
    #[inline]
    pub(crate) fn hash(&self) -> u64 {
        self.hash
    }

    /// Moves in the order they were made.
    pub fn moves(&self) -> &[(Pos, Color)] {
        &self.moves
    }

    pub fn last_move(&self) -> Option<(Pos, Color)> {
        self.moves.last().copied()
    }

    pub fn stone_count(&self) -> usize {
        self.moves.len()
    }

    /// Whose turn it is, from the stones of each colour (see `Color::to_move`).
    pub fn side_to_move(&self) -> Color {
        let black = self.moves.iter().filter(|m| m.1 == Color::Black).count();
        Color::to_move(black, self.moves.len() - black)
    }

    pub fn is_full(&self) -> bool {
        self.empty.is_empty()
    }

    pub fn empty_points(&self) -> &PosSet {
        &self.empty
    }

    /// Empty points near stones: the move candidates, in index order.
    pub fn candidates(&self) -> PosSet {
        self.near.intersection(&self.empty)
    }

    /// Every on-board point, in index order.
    pub fn points(&self) -> impl Iterator<Item = Pos> + '_ {
        (0..self.height).flat_map(move |y| (0..self.width).map(move |x| Pos::new(x, y)))
    }

    /// Does the stone on `p` belong to a winning row? A direct scan of the stones, for the
    /// referee: independent of the pattern tables.
    pub fn wins_through(&self, p: Pos) -> bool {
        let Some(c) = self.stone(p) else { return false };
        DIR_XY.iter().any(|&(dx, dy)| {
            let mut cells = [WALL; 2 * MAX_SIZE + 1];
            let centre = MAX_SIZE;
            for k in -(MAX_SIZE as i32)..=MAX_SIZE as i32 {
                let (x, y) = (p.x() as i32 + k * dx, p.y() as i32 + k * dy);
                if self.contains_xy(x as i64, y as i64) {
                    cells[(centre as i32 + k) as usize] = self.cell_code(Pos::new(x as usize, y as usize));
                }
            }
            super::rule::line_wins(self.rule, c, &cells, centre)
        })
    }

    /// A printable picture of the board (`X` black, `O` white), for tools and test failures.
    pub fn picture(&self) -> String {
        let mut s = String::new();
        for y in 0..self.height {
            for x in 0..self.width {
                s.push(match self.stone(Pos::new(x, y)) {
                    Some(Color::Black) => 'X',
                    Some(Color::White) => 'O',
                    None => '.',
                });
                s.push(' ');
            }
            s.push('\n');
        }
        s
    }

    /// Compare every piece of incremental state with another board (for tests).
    pub fn state_differences(&self, other: &Board) -> Vec<String> {
        let mut out = Vec::new();
        for i in 0..GRID {
            let p = Pos::from_index(i);
            if !self.contains(p) {
                continue;
            }
            let (a, b) = (&self.cells[i], &other.cells[i]);
            if a.stone != b.stone || a.keys != b.keys {
                out.push(format!("{p}: stone/keys {:?} vs {:?}", a, b));
            } else if a.stone == EMPTY && (a.pats != b.pats || a.threat != b.threat) {
                out.push(format!("{p}: patterns {:?} vs {:?}", a, b));
            }
        }
        if self.threat_count != other.threat_count {
            out.push(format!(
                "threat counts {:?} vs {:?}",
                self.threat_count, other.threat_count
            ));
        }
        if self.threat_points != other.threat_points {
            out.push("threat point sets".into());
        }
        if self.hash != other.hash {
            out.push("hash".into());
        }
        if self.candidates() != other.candidates() {
            out.push("candidates".into());
        }
        out
    }
}

/// Both colours' pattern combinations of a cell's patterns (black first).
#[inline]
fn combos_of(pats: &[u8; 4]) -> [usize; 2] {
    nibbles_of(pats).map(|n| COMBO_OF[n as usize] as usize)
}

/// One colour's four direction nibbles per colour (black first).
#[inline]
fn nibbles_of(pats: &[u8; 4]) -> [u16; 2] {
    // Byte by byte: gathering them from the four bytes read as one word takes fewer
    // instructions but made make+undo 19 % slower (2026-12-02, bench 8).
    let mut nibbles = [0u16; 2];
    for (d, &p2) in pats.iter().enumerate() {
        nibbles[0] |= ((p2 & 15) as u16) << (4 * d);
        nibbles[1] |= ((p2 >> 4) as u16) << (4 * d);
    }
    nibbles
}

fn board_contains(width: usize, height: usize, p: Pos) -> bool {
    let (col, row) = (p.index() % STRIDE, p.index() / STRIDE);
    (PAD..PAD + width).contains(&col) && (PAD..PAD + height).contains(&row)
}
