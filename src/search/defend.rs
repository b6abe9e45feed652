//! YXSEARCHDEFEND: every move after which the opponent has no forced win.
//!
//! Each legal point is tried (the candidates near the stones first, then the rest of the
//! board, since a far point can still cut a long threat line): the opponent's VCF after
//! it is searched to the end of its four tree where the nodes allow, then a VCT of up to
//! `ROOT_VCT_MOVES` threats, the same check that filters the root moves before every
//! search. A move holds when neither finds a win; a move the time did not settle is
//! reported apart. The checks take half the turn; the move played is then searched among
//! the moves that hold.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::game::{Board, Color, Pos, PosSet, Threat};

use super::params::{DEFEND_VCF_NODES, DEFEND_VCT_NODES, ROOT_VCT_MOVES};
use super::root::{find_vct, VctPurpose};
use super::threats::{find_vcf, Effort, Proof};
use super::{Limits, SearchEvent, SearchResult, Searcher};

/// The checks' time when the search has no time limit (a depth or node search).
const UNTIMED_CHECKS: Duration = Duration::from_secs(60);

/// What YXSEARCHDEFEND found, every legal move in one of its lists.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Defences {
    /// Would the opponent have a forced win if it were their move? If not, every move
    /// holds and the lists are empty.
    pub threatened: bool,
    pub holds: Vec<Pos>,
    /// Moves after which the opponent wins by VCF, and by a VCT (not a VCF).
    pub lose_to_vcf: Vec<Pos>,
    pub lose_to_vct: Vec<Pos>,
    /// Moves the time (or the stop flag) left unsettled.
    pub unsettled: Vec<Pos>,
}

impl Defences {
    /// The moves the search after the checks must not choose: every one that loses, and
    /// the unsettled when some move is known to hold.
    pub fn excluded(&self) -> PosSet {
        let mut out = PosSet::default();
        let lost = self.lose_to_vcf.iter().chain(&self.lose_to_vct);
        let unsettled = self.unsettled.iter().filter(|_| !self.holds.is_empty());
        for &p in lost.chain(unsettled) {
            out.insert(p);
        }
        out
    }
}

/// What the opponent has after a move.
enum Verdict {
    Vcf,
    /// A VCT, and no VCF.
    Vct,
    Nothing,
    /// The nodes, the time or the stop flag ended a check first.
    Unsettled,
}

/// Does `attacker` have a forced win on `board`: a VCF (its four tree searched to the end
/// where `DEFEND_VCF_NODES` allow), else a VCT of up to `ROOT_VCT_MOVES` threats?
fn forced_win(board: &mut Board, attacker: Color, stop: &AtomicBool, deadline: Instant) -> Verdict {
    match find_vcf(board, attacker, u32::MAX, DEFEND_VCF_NODES) {
        Proof::Win(_) => return Verdict::Vcf,
        Proof::Unknown => return Verdict::Unsettled,
        Proof::NoWin => {}
    }
    let effort = Effort::new(DEFEND_VCT_NODES, Some(stop), Some(deadline));
    match find_vct(board, attacker, effort, ROOT_VCT_MOVES, VctPurpose::Threat).0 {
        Proof::Win(_) => Verdict::Vct,
        Proof::NoWin => Verdict::Nothing,
        Proof::Unknown => Verdict::Unsettled,
    }
}

/// Sort every legal move of `us` on `board` into the lists of `Defences`. The checks end
/// at half the hard limit of `limits` from `start`; its excluded points are left out.
pub(super) fn defences(board: &Board, us: Color, limits: &Limits, stop: &AtomicBool, start: Instant) -> Defences {
    let mut board = board.clone();
    let them = us.opposite();
    let deadline = start + limits.budget.map_or(UNTIMED_CHECKS, |b| b.hard / 2);
    let mut found = Defences {
        threatened: board.five_count(them) > 0
            || matches!(
                forced_win(&mut board, them, stop, deadline),
                Verdict::Vcf | Verdict::Vct
            ),
        ..Defences::default()
    };
    if !found.threatened {
        return found;
    }
    let near = board.candidates();
    let empties = *board.empty_points();
    for p in near.iter().chain(empties.iter().filter(|&p| !near.contains(p))) {
        if limits.excluded.contains(p) || !board.is_legal(p, us) {
            continue;
        }
        if Instant::now() >= deadline || stop.load(Ordering::Relaxed) {
            found.unsettled.push(p);
            continue;
        }
        if board.threat(p, us) == Threat::Five {
            found.holds.push(p);
            continue;
        }
        board.make(p, us);
        let verdict = forced_win(&mut board, them, stop, deadline);
        board.undo();
        match verdict {
            Verdict::Vcf => found.lose_to_vcf.push(p),
            Verdict::Vct => found.lose_to_vct.push(p),
            Verdict::Nothing => found.holds.push(p),
            Verdict::Unsettled => found.unsettled.push(p),
        }
    }
    found
}

impl Searcher {
    /// YXSEARCHDEFEND: the defences (`on_defences` hears them), then the move, searched
    /// among those that hold (among all when none holds or nothing threatens), in what
    /// is left of the turn.
    #[allow(clippy::too_many_arguments)]
    pub fn search_defend(
        &mut self,
        board: &Board,
        us: Color,
        limits: &Limits,
        stop: &AtomicBool,
        start: Instant,
        report: &mut dyn FnMut(SearchEvent),
        on_defences: &mut dyn FnMut(&Defences),
    ) -> SearchResult {
        let found = defences(board, us, limits, stop, start);
        on_defences(&found);
        let mut part = *limits;
        if !found.holds.is_empty() {
            for p in found.excluded().iter() {
                part.excluded.insert(p);
            }
        }
        self.search(board, us, &part, stop, start, report)
    }
}
