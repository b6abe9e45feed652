//! Threat-space search: VCF (victory by continuous fours).
//!
//! The attacker plays only fours; the defender's reply to a four is forced (block the
//! five point) unless the defender completes a five first. In renju a four whose only
//! block is forbidden for black wins for white. Depth is counted in attacker fours and
//! deepened iteratively, so the first line found is among the shortest. Positions that
//! failed at a depth are remembered. A reported win is a line that can be replayed.
//!
//! Also here: VCT by iterative deepening (`VctSolver`, the engine's quick root checks) and
//! the attacker's threat moves shared with the proof-number VCT (`dfpn`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::game::geometry::related;
use crate::game::{Board, Color, Pos, Threat};

use super::movepick::{move_value, sort_moves, ScoredMove};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Proof {
    /// A winning line: attacker, defender, attacker, ... ending in the attacker's five (or
    /// in a four the defender cannot stop).
    Win(Vec<Pos>),
    /// No VCF exists (the whole four tree was searched).
    NoWin,
    /// The node budget or the stop flag ended the search first.
    Unknown,
}

/// Depths a solver deepens one at a time: few when it only asks "is there a win?", more
/// for the wins the engine announces and plays (see `shortest_first`).
const EXACT_DEPTHS: u32 = 4;
const EXACT_DEPTHS_SHORTEST: u32 = 8;

/// Depths for iterative deepening: one at a time up to `exact` (so a short win is found
/// at its shortest), then growing by half, so that a 50-four VCF does not pay for fifty
/// re-searches. Ends with `max`.
fn deepening(max: u32, exact: u32) -> impl Iterator<Item = u32> {
    let mut next = 1u32;
    std::iter::from_fn(move || {
        if next > max {
            return None;
        }
        let d = next;
        next = if d >= max {
            max + 1
        } else {
            (d + 1).max(if d < exact { 0 } else { d * 3 / 2 }).min(max)
        };
        Some(d)
    })
}

/// What a threat search may spend: nodes, a deadline and a stop flag.
pub struct Effort<'a> {
    pub nodes: u64,
    node_limit: u64,
    stop: Option<&'a AtomicBool>,
    deadline: Option<Instant>,
    /// The node count at which the stop flag and the clock are looked at next.
    next_poll: u64,
    exhausted: bool,
}

/// Nodes between two looks at the stop flag and the clock.
const POLL_NODES: u64 = 256;

impl<'a> Effort<'a> {
    pub fn new(node_limit: u64, stop: Option<&'a AtomicBool>, deadline: Option<Instant>) -> Effort<'a> {
        Effort {
            nodes: 0,
            node_limit,
            stop,
            deadline,
            next_poll: POLL_NODES,
            exhausted: false,
        }
    }

    /// A budget of `node_limit` nodes for a nested search, under the same stop flag and
    /// deadline; give it back with `absorb`.
    pub(super) fn nested(&self, node_limit: u64) -> Effort<'a> {
        Effort::new(node_limit, self.stop, self.deadline)
    }

    /// Count a nested search's nodes here; if it was interrupted (stop, deadline), so is
    /// this one.
    pub(super) fn absorb(&mut self, nested: &Effort) {
        self.nodes += nested.nodes;
        if nested.exhausted && self.interrupted() {
            self.exhausted = true;
        }
    }

    /// Has the budget run out?
    pub fn is_exhausted(&self) -> bool {
        self.exhausted
    }

    fn interrupted(&self) -> bool {
        self.stop.is_some_and(|s| s.load(Ordering::Relaxed)) || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Count a node; true once the budget is spent. The stop flag and the clock are
    /// looked at every `POLL_NODES` nodes, nested searches' nodes included.
    pub(super) fn spend(&mut self) -> bool {
        self.nodes += 1;
        if self.node_limit > 0 && self.nodes > self.node_limit {
            self.exhausted = true;
        } else if self.nodes >= self.next_poll {
            self.next_poll = self.nodes + POLL_NODES;
            if self.interrupted() {
                self.exhausted = true;
            }
        }
        self.exhausted
    }
}

pub struct VcfSolver<'a> {
    board: &'a mut Board,
    attacker: Color,
    pub effort: Effort<'a>,
    failed: HashMap<u64, u32>,
    line: Vec<Pos>,
    depth_limited: bool,
    /// Depths deepened one at a time (`deepening`).
    exact_depths: u32,
}

impl<'a> VcfSolver<'a> {
    pub fn new(board: &'a mut Board, attacker: Color, effort: Effort<'a>) -> Self {
        VcfSolver {
            board,
            attacker,
            effort,
            failed: HashMap::new(),
            line: Vec::new(),
            depth_limited: false,
            exact_depths: EXACT_DEPTHS,
        }
    }

    /// Deepen one attacker move at a time for longer, so that the win found is the
    /// shortest within `EXACT_DEPTHS_SHORTEST` moves: for wins the engine announces and plays.
    pub fn shortest_first(mut self) -> Self {
        self.exact_depths = EXACT_DEPTHS_SHORTEST;
        self
    }

    /// Search for a VCF of at most `max_fours` attacker fours.
    pub fn solve(&mut self, max_fours: u32) -> Proof {
        for depth in deepening(max_fours, self.exact_depths) {
            self.depth_limited = false;
            self.line.clear();
            if self.attack(depth) {
                return Proof::Win(std::mem::take(&mut self.line));
            }
            if self.effort.exhausted {
                return Proof::Unknown;
            }
            if !self.depth_limited {
                return Proof::NoWin;
            }
        }
        Proof::Unknown
    }

    fn attack(&mut self, depth: u32) -> bool {
        if self.effort.spend() {
            return false;
        }
        let att = self.attacker;
        let def = att.opposite();
        if self.board.five_count(att) > 0 {
            let five = self.board.five_point(att).expect("counted five point");
            self.line.push(five);
            return true;
        }
        // A block that made a four for the defender must be answered, ideally by a four.
        let forced = if self.board.five_count(def) > 0 {
            if self.board.five_count(def) >= 2 {
                return false;
            }
            let f = self.board.five_point(def).expect("counted five point");
            if !self.board.is_legal_four(f, att) {
                return false;
            }
            Some(f)
        } else {
            None
        };
        if depth == 0 {
            self.depth_limited = true;
            return false;
        }
        let key = self.board.hash();
        if self.failed.get(&key).is_some_and(|&d| d >= depth) {
            return false;
        }
        let mut moves: Vec<ScoredMove> = Vec::new();
        match forced {
            Some(f) => moves.push(ScoredMove { pos: f, score: 0 }),
            None => {
                for p in self.board.legal_fours(att).iter() {
                    moves.push(ScoredMove {
                        pos: p,
                        score: move_value(self.board, p, att),
                    });
                }
                sort_moves(&mut moves);
            }
        }
        for m in moves {
            self.board.make(m.pos, att);
            self.line.push(m.pos);
            let win = self.defend(depth - 1);
            self.board.undo();
            if win {
                return true;
            }
            self.line.pop();
            if self.effort.exhausted {
                return false;
            }
        }
        if !self.effort.exhausted {
            self.failed.insert(key, depth);
        }
        false
    }

    /// The defender answers the attacker's four.
    fn defend(&mut self, depth: u32) -> bool {
        let att = self.attacker;
        let def = att.opposite();
        if self.board.five_count(def) > 0 {
            return false; // the defender wins first
        }
        match self.board.five_count(att) {
            0 => return false,
            1 => {}
            _ => return true, // an open four (or two fours): cannot be stopped
        }
        let block = self.board.five_point(att).expect("counted five point");
        if !self.board.is_legal(block, def) {
            return true; // renju: black's only block is forbidden
        }
        self.board.make(block, def);
        self.line.push(block);
        let win = self.attack(depth);
        self.board.undo();
        if !win {
            self.line.pop();
        }
        win
    }
}

/// VCT (victory by continuous threats): the attacker plays fours and threes (moves after
/// which it threatens an open four or a four-three); the defender answers a four with
/// the forced block and a three with any move that removes every such threat, or with a
/// counter-four. Depth counts attacker moves. An AND-OR search with iterative deepening;
/// positions that failed at a depth are remembered.
pub struct VctSolver<'a> {
    board: &'a mut Board,
    attacker: Color,
    pub effort: Effort<'a>,
    /// Stones on the board when the search began.
    root_stones: usize,
    /// May the first threat be anywhere, not only next to the attacker's last stones?
    first_threat_anywhere: bool,
    failed: HashMap<u64, u32>,
    depth_limited: bool,
    /// Depths deepened one at a time (`deepening`).
    exact_depths: u32,
}

/// Counter-fours the defender may interpose in a row before answering a three.
const MAX_COUNTER_FOURS: u32 = 3;
/// Nodes for the defender's own VCF check at each answer to a three.
const DEFENDER_VCF_NODES: u64 = 3_000;

impl<'a> VctSolver<'a> {
    pub fn new(board: &'a mut Board, attacker: Color, effort: Effort<'a>) -> Self {
        let root_stones = board.stone_count();
        VctSolver {
            board,
            attacker,
            effort,
            root_stones,
            first_threat_anywhere: false,
            failed: HashMap::new(),
            depth_limited: false,
            exact_depths: EXACT_DEPTHS,
        }
    }

    /// Deepen one attacker move at a time for longer, so that the win found is the
    /// shortest within `EXACT_DEPTHS_SHORTEST` moves: for wins the engine announces and plays.
    pub fn shortest_first(mut self) -> Self {
        self.exact_depths = EXACT_DEPTHS_SHORTEST;
        self
    }

    /// Let the first threat be anywhere on the board: when a win is known already and a
    /// shorter one is looked for, the attacker's last stones may be forced blocks far
    /// from it. (Elsewhere the threats build on the last stones, which finds most wins
    /// with fewer nodes.)
    pub fn first_threat_anywhere(mut self) -> Self {
        self.first_threat_anywhere = true;
        self
    }

    /// Search for a VCT of at most `max_moves` attacker moves. A win comes with its main
    /// line (the defender's most stubborn answer at each step).
    pub fn solve(&mut self, max_moves: u32) -> Proof {
        for depth in deepening(max_moves, self.exact_depths) {
            self.depth_limited = false;
            if let Some(win) = self.attack(depth) {
                return Proof::Win(win.line);
            }
            if self.effort.exhausted {
                return Proof::Unknown;
            }
            if !self.depth_limited {
                return Proof::NoWin;
            }
        }
        Proof::Unknown
    }

    /// Attacker to move. `Some(win)` when the attacker wins.
    fn attack(&mut self, depth: u32) -> Option<Win> {
        if self.effort.spend() {
            return None;
        }
        let att = self.attacker;
        let def = att.opposite();
        if self.board.five_count(att) > 0 {
            return Some(Win::five(self.board.five_point(att).expect("counted five point")));
        }
        if self.board.five_count(def) > 0 {
            // The defender's counter-four: block it (no depth used), then the defender moves.
            if self.board.five_count(def) >= 2 {
                return None;
            }
            let f = self.board.five_point(def).expect("counted five point");
            if !self.board.is_legal(f, att) {
                return None;
            }
            self.board.make(f, att);
            let r = self.defend(depth, 0);
            self.board.undo();
            return r.map(|w| w.after(f));
        }
        if depth == 0 {
            self.depth_limited = true;
            return None;
        }
        let key = self.board.hash();
        if self.failed.get(&key).is_some_and(|&d| d >= depth) {
            return None;
        }
        let anywhere = self.first_threat_anywhere && self.board.stone_count() == self.root_stones;
        for m in threat_moves(self.board, att, false, anywhere) {
            self.board.make(m.pos, att);
            let r = self.defend(depth - 1, 0);
            self.board.undo();
            if let Some(w) = r {
                return Some(w.after(m.pos));
            }
            if self.effort.exhausted {
                return None;
            }
        }
        if !self.effort.exhausted {
            self.failed.insert(key, depth);
        }
        None
    }

    /// Defender to move after an attacker threat. `Some(win)` when every answer loses;
    /// its line follows the answer that holds out longest.
    fn defend(&mut self, depth: u32, counters: u32) -> Option<Win> {
        if self.effort.spend() {
            return None;
        }
        let att = self.attacker;
        let def = att.opposite();
        if self.board.five_count(def) > 0 {
            return None; // the defender wins first
        }
        match self.board.five_count(att) {
            0 => {}
            1 => {
                let block = self.board.five_point(att).expect("counted five point");
                if !self.board.is_legal(block, def) {
                    return Some(Win::unstoppable(2)); // renju: black's only block is forbidden
                }
                self.board.make(block, def);
                let r = self.attack(depth);
                self.board.undo();
                return r.map(|w| w.after(block));
            }
            _ => return Some(Win::unstoppable(2)), // two five points
        }
        let Some(defence) = self.board.defence(def) else {
            return None; // no winning threat: the defender has a free move
        };
        if defender_has_vcf(self.board, def, &mut self.effort) {
            return None;
        }
        let mut answers: Vec<ScoredMove> = defence
            .moves
            .iter()
            .map(|p| ScoredMove {
                pos: p,
                score: move_value(self.board, p, def),
            })
            .collect();
        if counters >= MAX_COUNTER_FOURS && answers.iter().any(|m| self.board.threat(m.pos, def).is_four()) {
            // More counter-fours than we follow: unproven (dropping them would claim a
            // win the defender may escape).
            return None;
        }
        sort_moves(&mut answers);
        // No answer at all: the threat wins in the plies the board says.
        let mut longest = Win::unstoppable(defence.loss_plies as u32);
        for (i, m) in answers.into_iter().enumerate() {
            let counter = self.board.threat(m.pos, def).is_four();
            self.board.make(m.pos, def);
            let r = if counter {
                self.attack_after_counter(depth, counters + 1)
            } else {
                self.attack(depth)
            };
            self.board.undo();
            match r {
                Some(w) if i == 0 || w.plies + 1 > longest.plies => longest = w.after(m.pos),
                Some(_) => {}
                None => return None,
            }
        }
        Some(longest)
    }

    /// After a defender counter-four: the attacker blocks, then the defender moves again.
    fn attack_after_counter(&mut self, depth: u32, counters: u32) -> Option<Win> {
        let att = self.attacker;
        let def = att.opposite();
        if self.board.five_count(att) > 0 {
            return Some(Win::five(self.board.five_point(att).expect("counted five point")));
        }
        if self.board.five_count(def) != 1 {
            return None;
        }
        let f = self.board.five_point(def).expect("counted five point");
        if !self.board.is_legal(f, att) {
            return None;
        }
        self.board.make(f, att);
        let r = self.defend(depth, counters);
        self.board.undo();
        r.map(|w| w.after(f))
    }
}

/// A proven win inside the VCT search: the main line and its length in plies, which
/// counts the plies after the line's end when it ends on a threat nobody can stop.
struct Win {
    line: Vec<Pos>,
    plies: u32,
}

impl Win {
    /// The attacker completes a five at `p`.
    fn five(p: Pos) -> Win {
        Win {
            line: vec![p],
            plies: 1,
        }
    }

    /// The defender, to move, loses within `plies` whatever it plays.
    fn unstoppable(plies: u32) -> Win {
        Win {
            line: Vec::new(),
            plies,
        }
    }

    /// The same win one move earlier: `p` played first.
    fn after(mut self, p: Pos) -> Win {
        self.line.insert(0, p);
        self.plies += 1;
        self
    }
}

/// The attacker's threat moves, best first: fours and threes (for renju black also the
/// points classed forbidden that are legal: false double threes) near one of its last
/// two moves (anywhere when `anywhere`), and four-threes anywhere. `wide` (for the
/// proof-number search, which orders them by `dfpn::Child`) takes every four and three
/// wherever it is and the quiet moves near the last moves that set up a four-three or a
/// VCF; while the defender has an open-four or four-three point, only the fours, and the
/// threes and set-ups that block that point (the defender wins first after any other
/// move).
pub(super) fn threat_moves(board: &mut Board, att: Color, wide: bool, anywhere: bool) -> Vec<ScoredMove> {
    let anchors = if anywhere { Vec::new() } else { last_stones(board, att) };
    let def = att.opposite();
    let must_block = if wide && board.five_count(def) == 0 && board.has_winning_threat(def) {
        board.defence(att).map(|d| d.blocks)
    } else {
        None
    };
    let setups = wide && must_block.is_none() && !board.has_winning_threat(att);
    let mut moves: Vec<ScoredMove> = Vec::new();
    for p in board.candidates().iter() {
        let t = board.threat(p, att);
        let near = anchors.is_empty() || anchors.iter().any(|&a| related(a, p));
        let threat = if t >= Threat::FourThree {
            true
        } else if t.is_three() || t == Threat::Forbidden {
            match &must_block {
                Some(blocks) => t.is_four() || blocks.contains(p),
                None => near || wide,
            }
        } else {
            let may_set_up = match &must_block {
                // A block that sets up a threat may go on to win (lfz084 珠々の詰連珠
                // 087: a four, then such a block).
                Some(blocks) => blocks.contains(p),
                None => setups && near,
            };
            may_set_up && t >= Threat::Two && sets_up_a_threat(board, p, att)
        };
        if !threat || (t == Threat::Forbidden && !board.is_legal(p, att)) {
            continue;
        }
        moves.push(ScoredMove {
            pos: p,
            score: move_value(board, p, att),
        });
    }
    sort_moves(&mut moves);
    moves
}

/// The last two stones `c` played (the ones its next threats build on).
pub(super) fn last_stones(board: &Board, c: Color) -> Vec<Pos> {
    board
        .moves()
        .iter()
        .rev()
        .filter(|m| m.1 == c)
        .take(2)
        .map(|m| m.0)
        .collect()
}

/// Against a three, does the defender have a VCF of its own (which beats it)? A short
/// check, charged to `effort`.
pub(super) fn defender_has_vcf(board: &mut Board, def: Color, effort: &mut Effort) -> bool {
    let mut probe = VcfSolver::new(board, def, effort.nested(DEFENDER_VCF_NODES));
    let win = matches!(probe.solve(12), Proof::Win(_));
    effort.absorb(&probe.effort);
    win
}

/// Does a stone of `c` on `p` leave `c` a four-three or open-four point, or two four
/// points, one of them next to it (where a VCF may start: a two that meets a blocked
/// three, for instance)? Whether that VCF exists is the defender node's question
/// (`dfpn::attacker_vcf`); asking it here for every candidate cost the proof-number
/// search most of its time.
fn sets_up_a_threat(board: &mut Board, p: Pos, c: Color) -> bool {
    board.make(p, c);
    let fours = *board.threat_points(c, crate::game::ThreatGroup::Four);
    let yes = board.has_winning_threat(c) || fours.len() >= 2 && fours.iter().any(|q| related(p, q));
    board.undo();
    yes
}

/// Convenience: find a VCF for `attacker` within `node_limit` nodes.
pub fn find_vcf(board: &mut Board, attacker: Color, max_fours: u32, node_limit: u64) -> Proof {
    VcfSolver::new(board, attacker, Effort::new(node_limit, None, None)).solve(max_fours)
}

/// Does the VCF `line` (attacker first: fours, the forced blocks, the five) still win
/// on `board` when played out? The board is left as it was.
pub(crate) fn replays_as_vcf(board: &mut Board, att: Color, line: &[Pos]) -> bool {
    let def = att.opposite();
    let mut made = 0;
    let mut wins = false;
    for (i, &p) in line.iter().enumerate() {
        let mover = if i % 2 == 0 { att } else { def };
        if !board.is_empty(p) {
            break;
        }
        if mover == att {
            if board.five_count(def) > 0 {
                break; // the defender has a five to make: not a VCF any more
            }
            if board.threat(p, att) == Threat::Five {
                wins = true;
                break;
            }
            if !board.is_legal_four(p, att) {
                break;
            }
        } else {
            match board.five_count(att) {
                0 => break,
                1 if board.five_point(att) == Some(p) => {}
                1 => break,
                _ => {
                    wins = true; // two five points: the defender cannot stop both
                    break;
                }
            }
            if !board.is_legal(p, def) {
                wins = true; // renju: black's only block is forbidden
                break;
            }
        }
        board.make(p, mover);
        made += 1;
    }
    for _ in 0..made {
        board.undo();
    }
    wins
}

/// Replay a winning line and check it: attacker moves are fours (or the final five),
/// defender moves are the forced blocks, and the line ends in a five or an unstoppable
/// four. Used by tests and `solve` to make sure reported wins are real.
pub fn verify_win_line(board: &Board, attacker: Color, line: &[Pos]) -> Result<(), String> {
    win_plies(board, attacker, line).map(|_| ())
}

/// The length in plies of the win that `line` proves (the attacker's five included), as
/// `verify_win_line` checks it: when the line ends on a threat the defender cannot meet,
/// the plies that threat still needs are counted, so a mate announced from a line is
/// never shorter than the game.
pub fn win_plies(board: &Board, attacker: Color, line: &[Pos]) -> Result<i32, String> {
    let mut b = board.clone();
    let mut side = attacker;
    let len = line.len() as i32;
    for (i, &p) in line.iter().enumerate() {
        if !b.contains(p) || !b.is_empty(p) {
            return Err(format!("move {i} ({p}) is not an empty point"));
        }
        if side == Color::Black && b.is_forbidden(p) {
            return Err(format!("move {i} ({p}) is forbidden for black"));
        }
        b.make(p, side);
        if side == attacker && b.wins_through(p) {
            return if i == line.len() - 1 {
                Ok(len)
            } else {
                Err(format!("five at move {i} before the end"))
            };
        }
        side = side.opposite();
    }
    // Ended on an attacker threat the defender cannot meet: two five points, a five point
    // that renju forbids black to block, or (VCT) no answer that stops the threat.
    if side == attacker.opposite() && b.five_count(side) == 0 {
        let fives = b.five_count(attacker);
        if fives >= 2 {
            return Ok(len + 2);
        }
        if fives == 1 {
            let f = b.five_point(attacker).expect("counted five point");
            if !b.is_legal(f, side) {
                return Ok(len + 2);
            }
        } else if let Some(d) = b.defence(side).filter(|d| d.moves.is_empty()) {
            return Ok(len + d.loss_plies);
        }
    }
    Err("the line does not end in a win".into())
}
