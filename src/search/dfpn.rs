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

use crate::game::{Board, Color, Pos, Threat};

use super::movepick::{find_five_point, generate, has_strong_threat};
use super::threats::{defender_has_vcf, threat_moves, Effort, Proof};

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

/// What a node is, found once and remembered.
#[derive(Clone)]
enum Expansion {
    Terminal(Numbers),
    Children(Rc<[Pos]>),
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
            Expansion::Children(c) => c,
        };
        let mover = if or { self.attacker } else { self.attacker.opposite() };
        loop {
            // The child to follow minimises pn (OR) or dn (AND); the runner-up value
            // bounds how far it may go before another child is better.
            let (mut best, mut best_n, mut second) = (0, UNKNOWN, INF);
            let (mut min, mut sum) = (INF, 0u32);
            for (i, &c) in children.iter().enumerate() {
                self.board.make(c, mover);
                let n = self.lookup();
                self.board.undo();
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
            self.board.make(children[best], mover);
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
        if self.board.threat_count(att, Threat::Five) > 0 {
            return Expansion::Terminal(PROVEN);
        }
        match self.board.threat_count(def, Threat::Five) {
            0 => {}
            1 => {
                // The defender's counter-four: the block is the only move.
                let f = find_five_point(self.board, def).expect("counted five point");
                if !self.board.is_legal(f, att) {
                    return Expansion::Terminal(DISPROVEN);
                }
                return Expansion::Children(Rc::from([f]));
            }
            _ => return Expansion::Terminal(DISPROVEN),
        }
        let attacker_moves = (self.board.stone_count() - self.root_plies) / 2;
        if attacker_moves >= self.max_moves as usize {
            self.depth_limited = true;
            return Expansion::Terminal(DISPROVEN);
        }
        let moves: Vec<Pos> = threat_moves(self.board, att, true).iter().map(|m| m.pos).collect();
        if moves.is_empty() {
            return Expansion::Terminal(DISPROVEN);
        }
        Expansion::Children(Rc::from(moves))
    }

    fn expand_defence(&mut self) -> Expansion {
        let att = self.attacker;
        let def = att.opposite();
        if self.board.threat_count(def, Threat::Five) > 0 {
            return Expansion::Terminal(DISPROVEN); // the defender completes a five first
        }
        match self.board.threat_count(att, Threat::Five) {
            0 => {}
            1 => {
                let block = find_five_point(self.board, att).expect("counted five point");
                if !self.board.is_legal(block, def) {
                    return Expansion::Terminal(PROVEN); // renju: the only block is forbidden
                }
                return Expansion::Children(Rc::from([block]));
            }
            _ => return Expansion::Terminal(PROVEN),
        }
        if !has_strong_threat(self.board, att) {
            return Expansion::Terminal(DISPROVEN);
        }
        if defender_has_vcf(self.board, def, &mut self.effort) {
            return Expansion::Terminal(DISPROVEN); // the defender's own VCF beats a three
        }
        let mut answers = Vec::new();
        generate(self.board, def, &mut answers);
        if answers.is_empty() {
            return Expansion::Terminal(PROVEN);
        }
        Expansion::Children(answers.iter().map(|m| m.pos).collect())
    }

    /// Follow proven children from the root (the first in generation order at each
    /// node): a main line of the proof, ending in the five or the unstoppable threat.
    fn winning_line(&mut self) -> Vec<Pos> {
        let mut line = Vec::new();
        let mut made = 0;
        let mut or = true;
        loop {
            let children = match self.expand(or) {
                Expansion::Terminal(_) => {
                    // An attacker node ends in its five; a defender node in a threat that
                    // has no answer.
                    if or {
                        line.extend(find_five_point(self.board, self.attacker));
                    }
                    break;
                }
                Expansion::Children(c) => c,
            };
            let mover = if or { self.attacker } else { self.attacker.opposite() };
            let mut next = None;
            for &c in children.iter() {
                self.board.make(c, mover);
                let proven = self.lookup().pn == 0;
                self.board.undo();
                if proven {
                    next = Some(c);
                    break;
                }
            }
            let Some(c) = next else { break };
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
