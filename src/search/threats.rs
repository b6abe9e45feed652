//! Threat-space search: VCF (victory by continuous fours).
//!
//! The attacker plays only fours; the defender's reply to a four is forced (block the
//! five point) unless the defender completes a five first. In renju a four whose only
//! block is forbidden for black wins for white. Depth is counted in attacker fours and
//! deepened iteratively, so the first line found is among the shortest. Positions that
//! failed at a depth are remembered. A reported win is a line that can be replayed.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::game::{Board, Color, Pos, Rule, Threat};

use super::movepick::{find_five_point, move_value, sort_moves, ScoredMove};

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

pub struct VcfSolver<'a> {
    board: &'a mut Board,
    attacker: Color,
    pub nodes: u64,
    node_limit: u64,
    stop: Option<&'a AtomicBool>,
    failed: HashMap<u64, u32>,
    line: Vec<Pos>,
    depth_limited: bool,
    out_of_budget: bool,
}

impl<'a> VcfSolver<'a> {
    pub fn new(board: &'a mut Board, attacker: Color, node_limit: u64, stop: Option<&'a AtomicBool>) -> Self {
        VcfSolver {
            board,
            attacker,
            nodes: 0,
            node_limit,
            stop,
            failed: HashMap::new(),
            line: Vec::new(),
            depth_limited: false,
            out_of_budget: false,
        }
    }

    /// Search for a VCF of at most `max_fours` attacker fours.
    pub fn solve(&mut self, max_fours: u32) -> Proof {
        for depth in 1..=max_fours {
            self.depth_limited = false;
            self.line.clear();
            if self.attack(depth) {
                return Proof::Win(std::mem::take(&mut self.line));
            }
            if self.out_of_budget {
                return Proof::Unknown;
            }
            if !self.depth_limited {
                return Proof::NoWin;
            }
        }
        Proof::Unknown
    }

    fn budget_spent(&mut self) -> bool {
        self.nodes += 1;
        if (self.node_limit > 0 && self.nodes > self.node_limit)
            || (self.nodes & 1023 == 0 && self.stop.is_some_and(|s| s.load(Ordering::Relaxed)))
        {
            self.out_of_budget = true;
        }
        self.out_of_budget
    }

    fn attack(&mut self, depth: u32) -> bool {
        if self.budget_spent() {
            return false;
        }
        let att = self.attacker;
        let def = att.opposite();
        if self.board.threat_count(att, Threat::Five) > 0 {
            let five = find_five_point(self.board, att).expect("counted five point");
            self.line.push(five);
            return true;
        }
        // A block that made a four for the defender must be answered, ideally by a four.
        let forced = if self.board.threat_count(def, Threat::Five) > 0 {
            if self.board.threat_count(def, Threat::Five) >= 2 {
                return false;
            }
            let f = find_five_point(self.board, def).expect("counted five point");
            if !is_legal_four(self.board, f, att) {
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
                for p in self.board.candidates().iter() {
                    if is_legal_four(self.board, p, att) {
                        moves.push(ScoredMove {
                            pos: p,
                            score: move_value(self.board, p, att),
                        });
                    }
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
            if self.out_of_budget {
                return false;
            }
        }
        if !self.out_of_budget {
            self.failed.insert(key, depth);
        }
        false
    }

    /// The defender answers the attacker's four.
    fn defend(&mut self, depth: u32) -> bool {
        let att = self.attacker;
        let def = att.opposite();
        if self.board.threat_count(def, Threat::Five) > 0 {
            return false; // the defender wins first
        }
        match self.board.threat_count(att, Threat::Five) {
            0 => return false,
            1 => {}
            _ => return true, // an open four (or two fours): cannot be stopped
        }
        let block = find_five_point(self.board, att).expect("counted five point");
        if def == Color::Black && self.board.rule() == Rule::Renju && self.board.is_forbidden(block) {
            return true;
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

/// Is a stone of `c` on `p` a four (or better) that `c` may play?
fn is_legal_four(board: &Board, p: Pos, c: Color) -> bool {
    let t = board.threat(p, c);
    t.is_four() && t != Threat::Forbidden
}

/// Convenience: find a VCF for `attacker` on a copy-free borrowed board.
pub fn find_vcf(board: &mut Board, attacker: Color, max_fours: u32, node_limit: u64) -> Proof {
    VcfSolver::new(board, attacker, node_limit, None).solve(max_fours)
}

/// Replay a winning line and check it: attacker moves are fours (or the final five),
/// defender moves are the forced blocks, and the line ends in a five or an unstoppable
/// four. Used by tests and `solve` to make sure reported wins are real.
pub fn verify_win_line(board: &Board, attacker: Color, line: &[Pos]) -> Result<(), String> {
    let mut b = board.clone();
    let mut side = attacker;
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
                Ok(())
            } else {
                Err(format!("five at move {i} before the end"))
            };
        }
        side = side.opposite();
    }
    // Ended on an attacker four the defender cannot stop?
    if side == attacker.opposite() && b.threat_count(side, Threat::Five) == 0 {
        let fives = b.threat_count(attacker, Threat::Five);
        if fives >= 2 {
            return Ok(());
        }
        if fives == 1 && attacker == Color::White && b.rule() == Rule::Renju {
            if let Some(f) = find_five_point(&b, attacker) {
                if b.is_forbidden(f) {
                    return Ok(());
                }
            }
        }
    }
    Err("the line does not end in a win".into())
}
