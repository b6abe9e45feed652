//! VCT by depth-first proof-number search (df-pn).
//!
//! The attacker plays threat moves (`threats::threat_moves`, wide: fours, threes,
//! four-three set-ups); the defender answers a four with the block and a three with the moves that
//! remove every four-three or open-four threat (or with a counter-four, which the
//! attacker must block), and a defender VCF beats a three. The tree is searched by proof
//! and disproof numbers (how many leaves are still to prove or to refute), depth-first
//! with thresholds (df-pn, with the 1+epsilon threshold rule against thrashing), so that
//! long and narrow wins are found without exploring every short line first.
//!
//! Positions are keyed by their hash. The stones fix whose move it is and how many
//! attacker moves were played, so a stored result is valid wherever the position recurs.

use std::collections::HashMap;
use std::rc::Rc;

use crate::game::geometry::{related, DIRS};
use crate::game::pattern::HALF;
use crate::game::zobrist::Zobrist;
use crate::game::{Board, Color, Pos, PosSet, Threat};

use super::threats::{defender_has_vcf, last_stones, replays_as_vcf, threat_moves, Effort, Proof, VcfSolver};

/// "Infinite" proof or disproof number; sums saturate here.
const INF: u32 = u32::MAX / 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Numbers {
    pn: u32,
    dn: u32,
}

const PROVEN: Numbers = Numbers { pn: 0, dn: INF };
const DISPROVEN: Numbers = Numbers { pn: INF, dn: 0 };
const UNKNOWN: Numbers = Numbers { pn: 1, dn: 1 };

/// A move to search and its numbers until it is searched: a child's first proof number
/// estimates how many answers the defender will have (df-pn with initial values, as
/// "df-pn+"), so that narrow threats are followed before wide ones.
#[derive(Clone, Copy)]
struct Child {
    pos: Pos,
    first: Numbers,
}

impl Child {
    fn plain(pos: Pos) -> Child {
        Child { pos, first: UNKNOWN }
    }
}

/// What a node is, found once and remembered.
#[derive(Clone)]
enum Expansion {
    Terminal(Numbers),
    Children(Rc<[Child]>),
    /// A defender node lost to a VCF threat: this attacker VCF wins after any defender
    /// move (every move that could touch it was tried by replaying it).
    Refuted(Rc<[Pos]>),
}

pub struct DfpnSolver<'a> {
    board: &'a mut Board,
    attacker: Color,
    pub effort: Effort<'a>,
    numbers: HashMap<u64, Numbers>,
    expansions: HashMap<u64, Expansion>,
    root_plies: usize,
    max_moves: u32,
    depth_limited: bool,
}

impl<'a> DfpnSolver<'a> {
    pub fn new(board: &'a mut Board, attacker: Color, effort: Effort<'a>) -> Self {
        let root_plies = board.stone_count();
        DfpnSolver {
            board,
            attacker,
            effort,
            numbers: HashMap::new(),
            expansions: HashMap::new(),
            root_plies,
            max_moves: 0,
            depth_limited: false,
        }
    }

    /// Search for a VCT of at most `max_moves` attacker moves; a win comes with a line
    /// (attacker first) that `verify_win_line` accepts.
    pub fn solve(&mut self, max_moves: u32) -> Proof {
        self.max_moves = max_moves;
        self.mid(true, Numbers { pn: INF, dn: INF });
        let root = self.lookup();
        if root.pn == 0 {
            Proof::Win(self.winning_line())
        } else if root.dn == 0 && !self.depth_limited {
            Proof::NoWin
        } else {
            Proof::Unknown
        }
    }

    fn lookup(&self) -> Numbers {
        self.numbers.get(&self.board.hash()).copied().unwrap_or(UNKNOWN)
    }

    /// The numbers of the position after `mover` plays `c`, read by the child's hash
    /// (no make and undo: the stones' hash changes by one key).
    fn child_numbers(&self, c: &Child, mover: Color) -> Numbers {
        let key = self.board.hash() ^ Zobrist::get().stone(mover, c.pos);
        self.numbers.get(&key).copied().unwrap_or(c.first)
    }

    /// Raise the current node's numbers until one of them reaches its threshold.
    /// `or`: the attacker is to move.
    fn mid(&mut self, or: bool, threshold: Numbers) {
        if self.effort.spend() {
            return;
        }
        let key = self.board.hash();
        let children = match self.expand(or) {
            Expansion::Terminal(n) => {
                self.numbers.insert(key, n);
                return;
            }
            Expansion::Refuted(_) => {
                self.numbers.insert(key, PROVEN);
                return;
            }
            Expansion::Children(c) => c,
        };
        let mover = if or { self.attacker } else { self.attacker.opposite() };
        loop {
            // The child to follow minimises pn (OR) or dn (AND); the runner-up value
            // bounds how far it may go before another child is better.
            let (mut best, mut best_n, mut second) = (0, UNKNOWN, INF);
            let (mut min, mut sum) = (INF, 0u32);
            for (i, c) in children.iter().enumerate() {
                let n = self.child_numbers(c, mover);
                let (key_value, other) = if or { (n.pn, n.dn) } else { (n.dn, n.pn) };
                sum = (sum + other).min(INF);
                if key_value < min {
                    second = min;
                    min = key_value;
                    best = i;
                    best_n = n;
                } else if key_value < second {
                    second = key_value;
                }
            }
            let here = if or {
                Numbers { pn: min, dn: sum }
            } else {
                Numbers { pn: sum, dn: min }
            };
            self.numbers.insert(key, here);
            if here.pn >= threshold.pn || here.dn >= threshold.dn || self.effort.is_exhausted() {
                return;
            }
            let child_threshold = if or {
                Numbers {
                    pn: threshold.pn.min(second.saturating_add(second / 4 + 1)),
                    dn: (threshold.dn - here.dn + best_n.dn).min(INF),
                }
            } else {
                Numbers {
                    pn: (threshold.pn - here.pn + best_n.pn).min(INF),
                    dn: threshold.dn.min(second.saturating_add(second / 4 + 1)),
                }
            };
            self.board.make(children[best].pos, mover);
            self.mid(!or, child_threshold);
            self.board.undo();
        }
    }

    /// The node's children (or its value when it is decided without search), cached.
    fn expand(&mut self, or: bool) -> Expansion {
        let key = self.board.hash();
        if let Some(e) = self.expansions.get(&key) {
            return e.clone();
        }
        let e = if or {
            self.expand_attack()
        } else {
            self.expand_defence()
        };
        self.expansions.insert(key, e.clone());
        e
    }

    fn expand_attack(&mut self) -> Expansion {
        let att = self.attacker;
        let def = att.opposite();
        if self.board.five_count(att) > 0 {
            return Expansion::Terminal(PROVEN);
        }
        match self.board.five_count(def) {
            0 => {}
            1 => {
                // The defender's counter-four: the block is the only move.
                let f = self.board.five_point(def).expect("counted five point");
                if !self.board.is_legal(f, att) {
                    return Expansion::Terminal(DISPROVEN);
                }
                return Expansion::Children(Rc::from([Child::plain(f)]));
            }
            _ => return Expansion::Terminal(DISPROVEN),
        }
        let attacker_moves = (self.board.stone_count() - self.root_plies) / 2;
        if attacker_moves >= self.max_moves as usize {
            self.depth_limited = true;
            return Expansion::Terminal(DISPROVEN);
        }
        // Threes and fours may be anywhere; set-ups only next to the attacker's last
        // stones, except at the root, and threes there are tried first (`first_numbers`).
        let anywhere = self.board.stone_count() == self.root_plies;
        let anchors = last_stones(self.board, att);
        let moves: Vec<Child> = threat_moves(self.board, att, true, anywhere)
            .iter()
            .map(|m| {
                let near = anywhere || anchors.iter().any(|&a| related(a, m.pos));
                Child {
                    pos: m.pos,
                    first: first_numbers(self.board.threat(m.pos, att), near),
                }
            })
            .collect();
        if moves.is_empty() {
            return Expansion::Terminal(DISPROVEN);
        }
        Expansion::Children(Rc::from(moves))
    }

    fn expand_defence(&mut self) -> Expansion {
        let att = self.attacker;
        let def = att.opposite();
        if self.board.five_count(def) > 0 {
            return Expansion::Terminal(DISPROVEN); // the defender completes a five first
        }
        match self.board.five_count(att) {
            0 => {}
            1 => {
                let block = self.board.five_point(att).expect("counted five point");
                if !self.board.is_legal(block, def) {
                    return Expansion::Terminal(PROVEN); // renju: the only block is forbidden
                }
                return Expansion::Children(Rc::from([Child::plain(block)]));
            }
            _ => return Expansion::Terminal(PROVEN),
        }
        let defence = self.board.defence(def);
        let vcf = match defence {
            Some(_) => None,
            None => match attacker_vcf(self.board, att, &mut self.effort) {
                Some(line) => Some(line),
                None => return Expansion::Terminal(DISPROVEN), // no threat: a free move
            },
        };
        if defender_has_vcf(self.board, def, &mut self.effort) {
            return Expansion::Terminal(DISPROVEN); // the defender's own VCF beats a threat
        }
        match (defence, vcf) {
            (Some(d), _) if d.moves.is_empty() => Expansion::Terminal(PROVEN),
            (Some(d), _) => Expansion::Children(d.moves.iter().map(Child::plain).collect()),
            (None, Some(line)) => {
                let answers = answers_to_vcf(self.board, att, &line);
                if answers.is_empty() {
                    Expansion::Refuted(Rc::from(line))
                } else {
                    Expansion::Children(answers.into_iter().map(Child::plain).collect())
                }
            }
            (None, None) => unreachable!("no threat returned above"),
        }
    }

    /// Follow proven children from the root (the first in generation order at each
    /// node): a main line of the proof, ending in the five or the unstoppable threat.
    fn winning_line(&mut self) -> Vec<Pos> {
        let mut line = Vec::new();
        let mut made = 0;
        let mut or = true;
        loop {
            let children = match self.expand(or) {
                Expansion::Refuted(vcf) => {
                    // Any defender move loses to the same VCF: show one.
                    let points: Vec<Pos> = answer_zone(self.board, &vcf)
                        .iter()
                        .chain(self.board.empty_points().iter())
                        .collect();
                    let reply = points
                        .into_iter()
                        .find(|&p| self.board.is_legal(p, self.attacker.opposite()));
                    if let Some(p) = reply {
                        line.push(p);
                        line.extend(vcf.iter().copied());
                    }
                    break;
                }
                Expansion::Terminal(_) => {
                    // An attacker node ends in its five; a defender node in a threat that
                    // has no answer.
                    if or {
                        line.extend(self.board.five_point(self.attacker));
                    }
                    break;
                }
                Expansion::Children(c) => c,
            };
            let mover = if or { self.attacker } else { self.attacker.opposite() };
            let next = children.iter().find(|c| self.child_numbers(c, mover).pn == 0);
            let Some(&Child { pos: c, .. }) = next else { break };
            self.board.make(c, mover);
            made += 1;
            line.push(c);
            or = !or;
        }
        for _ in 0..made {
            self.board.undo();
        }
        line
    }
}

/// First proof numbers of attacker moves (the defender's answers start at 1): a four has
/// one answer; a three near the attacker's last stones about three; a quiet set-up and a
/// three far from them are tried only when the near threats look hard. Chosen on 200
/// renju VCT problems (lfz084, every 4th, 800,000 nodes each): with all at 1 the search
/// solved 134, with (four, near three, set-up, far three) = (1, 2, 4, 4) 150, (1, 3, 6,
/// 6) 154, (1, 3, 12, 24) 155, (1, 3, 8, 40) 155. Of the last two only (1, 3, 8, 40)
/// finds the 27-ply win of `tests/search.rs` (`a_long_game_vct_by_proof_numbers`) within
/// 3,000,000 nodes.
const FIRST_PN_FOUR: u32 = 1;
const FIRST_PN_NEAR_THREE: u32 = 3;
const FIRST_PN_SETUP: u32 = 8;
const FIRST_PN_FAR_THREE: u32 = 40;

/// The first numbers of an attacker move of threat class `t` (`near`: next to one of
/// the attacker's last two stones).
fn first_numbers(t: Threat, near: bool) -> Numbers {
    let pn = if t.is_four() {
        FIRST_PN_FOUR
    } else if t.is_three() && near {
        FIRST_PN_NEAR_THREE
    } else if t.is_three() {
        FIRST_PN_FAR_THREE
    } else {
        FIRST_PN_SETUP
    };
    Numbers { pn, dn: 1 }
}

/// Nodes for the attacker's VCF check at a defender node without an open-four or
/// four-three threat.
const THREAT_VCF_NODES: u64 = 2_000;

/// The attacker's VCF if it were the attacker's move (a "VCF threat"), found cheaply.
fn attacker_vcf(board: &mut Board, att: Color, effort: &mut Effort) -> Option<Vec<Pos>> {
    let mut probe = VcfSolver::new(board, att, effort.nested(THREAT_VCF_NODES));
    let proof = probe.solve(20);
    effort.absorb(&probe.effort);
    match proof {
        Proof::Win(line) => Some(line),
        _ => None,
    }
}

/// The empty points that could change the VCF `line`: its own points and every point
/// within the pattern window on a line through one of them. A defender stone anywhere
/// else changes no pattern the line uses (a defender five would need a stone of the line
/// or of the move within reach; a four of the defender's own is in `answers_to_vcf`).
fn answer_zone(board: &Board, line: &[Pos]) -> PosSet {
    let mut zone = PosSet::default();
    for &p in line {
        zone.insert(p);
        for step in DIRS {
            for k in 1..=HALF as isize {
                for q in [p.step(k * step), p.step(-k * step)] {
                    if board.contains(q) && board.is_empty(q) {
                        zone.insert(q);
                    }
                }
            }
        }
    }
    zone
}

/// The defender moves after which the attacker's VCF `line` no longer wins when
/// replayed, among the points that could change it and the defender's own fours. Empty:
/// the line wins against every move.
fn answers_to_vcf(board: &mut Board, att: Color, line: &[Pos]) -> Vec<Pos> {
    let def = att.opposite();
    let candidates = answer_zone(board, line).union(&board.legal_fours(def));
    let mut out = Vec::new();
    for p in candidates.iter() {
        if !board.is_legal(p, def) {
            continue;
        }
        board.make(p, def);
        let refuted = replays_as_vcf(board, att, line);
        board.undo();
        if !refuted {
            out.push(p);
        }
    }
    out
}
