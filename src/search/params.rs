//! Every tunable number of the search, named, in one place (as Rapfi's `parameter.h`).
//!
//! Depths here are whole plies (the search counts depth in `ONE_PLY` units). Each pruning
//! or reduction rule in `alphabeta` names the constants it uses here; the SPRT result that
//! justified it is in the commit that introduced it.

use crate::game::Threat;

/// Plies the search tree may reach (stack sizes).
pub const MAX_PLY: usize = 128;

/// Search depth is counted in fractions of a ply (as Rapfi's fractional depth and
/// Stockfish's reductions), so reductions and extensions may be fractional. Constants
/// below named "plies" are whole plies; depths passed to `negamax` are in these units.
pub const ONE_PLY: i32 = 4;

// ----- iterative deepening ---------------------------------------------------------------

/// First depth searched with an aspiration window.
pub const ASPIRATION_MIN_DEPTH: i32 = 4;
/// Half-width of the first aspiration window.
pub const ASPIRATION_DELTA: i32 = 40;
/// Beyond this half-width the window opens fully.
pub const ASPIRATION_MAX_DELTA: i32 = 2000;

// ----- the root -------------------------------------------------------------------------

/// The longest VCF the root looks for, in fours.
pub const ROOT_VCF_FOURS: u32 = 128;
/// Attacker moves in the root's VCT checks (the short VCT to play, the opponent's VCT
/// the root moves are filtered by).
pub const ROOT_VCT_MOVES: u32 = 10;
/// YXSEARCHDEFEND's checks of one move: nodes for the opponent's VCF (to the end of its
/// four tree, as a rule, within them) and for their VCT. Not tuned: an analysis command,
/// whose time is the user's.
pub const DEFEND_VCF_NODES: u64 = 200_000;
pub const DEFEND_VCT_NODES: u64 = 50_000;
/// Swap2 (`search::swap2`; not tuned, the scale is sigmoid(score / 300)): three stones
/// whose score for white is within this of even (47.5 % to 52.5 %) are answered with two
/// more stones, the colour left to the opponent; openings within `OPENING_TIE` of the
/// most balanced one are proposed at random.
pub const PUT_TWO_WITHIN: i32 = 30;
pub const OPENING_TIE: i32 = 15;
/// The longest win that no search shortens: a four-three, which the board proves before
/// any threat search (`Board::quick_win`: 3 or 5 plies).
pub const QUICK_WIN_PLIES: i32 = 5;
/// The deepest short search (a shorter win, the only move's score) when neither time nor
/// nodes bound it.
pub const SHORT_SEARCH_MAX_DEPTH: i32 = 8;
/// The least time one rank of a YXNBEST search gets; when less is left, ranking stops.
pub const MIN_RANK_MS: u64 = 5;

// ----- the root's time plan (`root::TimePlan`) ------------------------------------------

/// Deadlines of the root's threat checks before the search, in eighths of the move's
/// soft time counted from the start of the move: the VCF check, the short VCT to play,
/// and the filter of the root moves by the opponent's VCT.
pub const VCF_CHECK_EIGHTHS: u32 = 2;
pub const VCT_CHECK_EIGHTHS: u32 = 1;
pub const VCT_FILTER_EIGHTHS: u32 = 3;
/// A short search inside the move (a shorter win after a threat win, the only move's
/// score) takes this share of the soft and of the hard time, from when it begins.
pub const SHORT_SEARCH_SHARE: u32 = 4;

/// Nodes per ms of the soft time the root's up-front VCF check may spend, and its floor
/// and cap. The VCF solver visits about a node a microsecond, so a large four tree is
/// ended by the check's deadline rather than by its node count: long VCFs of 30 to 50
/// fours take it 30,000 to 2.3 M nodes.
pub const VCF_NODES_PER_MS: u64 = 400;
pub const VCF_MIN_NODES: u64 = 2_000;
pub const VCF_MAX_NODES: u64 = 1_600_000;
/// The VCF check's nodes when the move has no time limit (a depth or node search).
pub const VCF_UNTIMED_NODES: u64 = 200_000;
/// Nodes per ms of the soft time for one root VCT check, and their floor and cap.
pub const THREAT_NODES_PER_MS: u64 = 5;
pub const THREAT_MIN_NODES: u64 = 500;
pub const THREAT_MAX_NODES: u64 = 100_000;
/// Nodes for one VCT check when the move has no time limit.
pub const THREAT_UNTIMED_NODES: u64 = 20_000;
/// Under a node limit (`INFO max_node`), the VCF check may spend at most this share of
/// it, one VCT check this share.
pub const VCF_CHECK_NODE_SHARE: u64 = 4;
pub const VCT_CHECK_NODE_SHARE: u64 = 8;
/// The VCT filter checks each root move with this share of a VCT check's nodes, plus a
/// few.
pub const VCT_FILTER_MOVE_SHARE: u64 = 4;
pub const VCT_FILTER_MOVE_EXTRA_NODES: u64 = 200;

// ----- quiescence (VCF) --------------------------------------------------------------------

/// Attacker fours the quiescence search plays in a row at most.
pub const QUIESCENCE_MAX_FOURS: i32 = 10;
/// After this many fours in a row a plain four must also make something (a three, a
/// blocked three) to be tried.
pub const QUIESCENCE_PLAIN_FOURS: i32 = 2;

// ----- move ordering -----------------------------------------------------------------------

/// Ordering value of the threat class a move makes for the mover (index `Threat as usize`).
pub const ORDER_BY_ATTACK: [i32; Threat::COUNT] = [
    0,     // None
    0,     // Forbidden (legal only when the double three is false; see `movepick::move_value`)
    4,     // One
    20,    // Two
    14,    // BlockedThree
    45,    // DoubleTwo
    55,    // BlockedThreePlus
    80,    // Three
    110,   // ThreePlus
    450,   // DoubleThree
    40,    // Four
    130,   // FourPlus
    1000,  // FourThree
    1800,  // OpenFour
    20000, // Five
];

/// Ordering value of the threat class a move takes away from the opponent.
pub const ORDER_BY_DEFENCE: [i32; Threat::COUNT] = [
    0,    // None
    0,    // Forbidden: black cannot play there anyway
    2,    // One
    12,   // Two
    8,    // BlockedThree
    28,   // DoubleTwo
    32,   // BlockedThreePlus
    45,   // Three
    65,   // ThreePlus
    260,  // DoubleThree
    25,   // Four
    75,   // FourPlus
    550,  // FourThree
    900,  // OpenFour
    8000, // Five
];

/// Moves whose ordering value reaches this are "attacks", tried before killers.
pub const ATTACK_ORDER_MIN: i32 = 80;
/// History scores are divided by this before they are added to ordering values.
pub const HISTORY_ORDER_DIV: i32 = 64;
/// Ordering value points per logit of the network's policy, when it joins the order
/// (`INFO nnue_use policy`). A quiet move's value is 0 to about 80, a three's 80 or more.
pub const POLICY_ORDER_PER_LOGIT: i32 = 20;
/// `INFO nnue_use gated`: the network evaluates only where the tables' value lies within
/// this of the node's window (Rapfi's gate between its classical and neural values).
pub const NET_GATE_MARGIN: i32 = 200;
/// The policy orders only nodes with at least this many plies to go: nearer the leaves
/// the network's catch-up costs more than the order gains.
pub const POLICY_MIN_DEPTH: i32 = 3;
/// History bonus cap per cut-off (depth² up to this).
pub const HISTORY_BONUS_MAX: i32 = 400;

/// Correction of the static evaluation by threat signature: stored in 1/SCALE units,
/// kept within ±LIMIT (±LIMIT/SCALE evaluation units).
pub const CORRECTION_SCALE: i32 = 16;
pub const CORRECTION_LIMIT: i32 = 256 * CORRECTION_SCALE;
/// A search of this many plies moves the correction by its whole error (shallower ones by
/// a share), by at most `CORRECTION_MAX_STEP` at once.
pub const CORRECTION_FULL_STEP_PLIES: i32 = 8;
pub const CORRECTION_MAX_STEP: i32 = CORRECTION_LIMIT / 4;

// ----- extensions --------------------------------------------------------------------------

/// A defence with at most this many answers is nearly forced and costs no depth.
pub const FEW_DEFENCES: usize = 3;
/// At the horizon, a defence with at most this many answers is searched before the VCF
/// search (which sees only fours) stands pat.
pub const HORIZON_DEFENCES: usize = 8;

// ----- pruning -----------------------------------------------------------------------------

/// Static-evaluation pruning of a node: depth limit and margin per ply (one ply less
/// when the position improves).
pub const RFP_MAX_DEPTH: i32 = 6;
pub const RFP_MARGIN: i32 = 80;

/// Internal iterative reduction: from this depth a node without a TT move is searched one
/// ply shallower.
pub const IIR_MIN_DEPTH: i32 = 4;

/// Fail-high reduction: at an expected cut-node whose evaluation is this far above beta
/// (`BASE + PER_PLY · depth`, more when the opponent can make a four), every move but a
/// four is searched one ply shallower (Rapfi's margins, `failHighMargin`).
pub const FHR_MARGIN_BASE: i32 = -9;
pub const FHR_MARGIN_PER_PLY: i32 = 15;
pub const FHR_MARGIN_OPPONENT_FOUR: i32 = 87;

/// Futility pruning of quiet moves: depth limit and margin per ply.
pub const FUTILITY_MAX_DEPTH: i32 = 2;
pub const FUTILITY_MARGIN: i32 = 90;

/// Late-move reductions: `ln(depth) · ln(move) · LMR_SCALE / 100 + LMR_BASE / 100`
/// plies, kept to the quarter ply (integers, so every machine reduces alike).
pub const LMR_MIN_DEPTH: i32 = 2;
/// Moves searched before reductions start (two more at PV nodes).
pub const LMR_MIN_MOVES: usize = 1;
pub const LMR_SCALE: i32 = 90;
pub const LMR_BASE: i32 = 45;
/// Less reduction for tactical moves: our threes and double twos (or blocked threes with
/// more), fours' neighbours and blocks of the opponent's threes.
pub const LMR_TACTICAL: i32 = 1;
/// More reduction off the PV where the position is not improving (when the reduction is
/// above a ply), in plies.
pub const LMR_NOT_IMPROVING: i32 = 1;
/// Less reduction for special moves: the killers, the counter move and a three after our
/// own three (a continued attack), in plies.
pub const LMR_SPECIAL: i32 = 1;
/// More reduction at an expected cut-node, in plies.
pub const LMR_CUT_NODE: i32 = 1;
/// Less reduction at a PV node, in plies.
pub const LMR_PV_NODE: i32 = 1;

/// `ln(n) × 100` for the late-move reduction (integers, so every machine reduces alike).
const LN100: [i32; 64] = [
    0, 0, 69, 110, 139, 161, 179, 195, 208, 220, 230, 240, 248, 256, 264, 271, 277, 283, 289, 294, 300, 304, 309, 314,
    318, 322, 326, 330, 333, 337, 340, 343, 347, 350, 353, 356, 358, 361, 364, 366, 369, 371, 374, 376, 378, 381, 383,
    385, 387, 389, 391, 393, 395, 397, 399, 401, 403, 404, 406, 408, 409, 411, 413, 414,
];

/// Move-count pruning: moves tried at a node of `depth` (PV or not) before the later
/// quiet ones are pruned, `LATE_MOVE_BASE + depth^1.3`. Beyond the table nothing is pruned.
pub const LATE_MOVE_BASE: i32 = 3;
pub const LATE_MOVE_LIMIT: [usize; 13] = [3, 4, 5, 7, 9, 11, 13, 15, 18, 20, 23, 25, 28];
/// Tactical moves (threes, double twos, plain fours, blocks of threes) are pruned after
/// this many times the quiet limit.
pub const LATE_TACTICAL_FACTOR: usize = 2;

// ----- tuning --------------------------------------------------------------------------

/// The numbers above that a tuning run may change at run time (`INFO tune_NAME VALUE`,
/// `scripts/tune-search.py`), as Stockfish's `TUNE` exposes its parameters to SPSA. The
/// search reads them from here; `Tunables::DEFAULT` is the constants above, so play and
/// `bench` are as before unless a tuning run sets them. Reductions are in `ONE_PLY` units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tunables {
    pub rfp_max_depth: i32,
    pub rfp_margin: i32,
    pub futility_max_depth: i32,
    pub futility_margin: i32,
    pub fhr_margin_base: i32,
    pub fhr_margin_per_ply: i32,
    pub lmr_scale: i32,
    pub lmr_base: i32,
    pub lmr_tactical: i32,
    pub lmr_not_improving: i32,
    pub lmr_special: i32,
    pub lmr_cut_node: i32,
    pub lmr_pv_node: i32,
    /// Move-count limit `late_move_base + (LATE_MOVE_LIMIT[d] − LATE_MOVE_BASE) ·
    /// late_move_percent / 100`.
    pub late_move_base: i32,
    pub late_move_percent: i32,
    /// `LATE_TACTICAL_FACTOR`, in per cent.
    pub late_tactical_percent: i32,
    pub aspiration_delta: i32,
}

/// A tunable's name, lowest and highest value, and its field.
type TunableField = (&'static str, i32, i32, fn(&mut Tunables) -> &mut i32);

impl Tunables {
    pub const DEFAULT: Tunables = Tunables {
        rfp_max_depth: RFP_MAX_DEPTH,
        rfp_margin: RFP_MARGIN,
        futility_max_depth: FUTILITY_MAX_DEPTH,
        futility_margin: FUTILITY_MARGIN,
        fhr_margin_base: FHR_MARGIN_BASE,
        fhr_margin_per_ply: FHR_MARGIN_PER_PLY,
        lmr_scale: LMR_SCALE,
        lmr_base: LMR_BASE,
        lmr_tactical: LMR_TACTICAL * ONE_PLY,
        lmr_not_improving: LMR_NOT_IMPROVING * ONE_PLY,
        lmr_special: LMR_SPECIAL * ONE_PLY,
        lmr_cut_node: LMR_CUT_NODE * ONE_PLY,
        lmr_pv_node: LMR_PV_NODE * ONE_PLY,
        late_move_base: LATE_MOVE_BASE,
        late_move_percent: 100,
        late_tactical_percent: LATE_TACTICAL_FACTOR as i32 * 100,
        aspiration_delta: ASPIRATION_DELTA,
    };

    /// Each tunable's name (as `INFO tune_NAME` spells it), the range it may take and its
    /// place in the struct.
    const FIELDS: [TunableField; 17] = [
        ("rfp_max_depth", 0, 12, |t| &mut t.rfp_max_depth),
        ("rfp_margin", 10, 400, |t| &mut t.rfp_margin),
        ("futility_max_depth", 0, 8, |t| &mut t.futility_max_depth),
        ("futility_margin", 10, 400, |t| &mut t.futility_margin),
        ("fhr_margin_base", -200, 200, |t| &mut t.fhr_margin_base),
        ("fhr_margin_per_ply", 0, 100, |t| &mut t.fhr_margin_per_ply),
        ("lmr_scale", 0, 300, |t| &mut t.lmr_scale),
        ("lmr_base", -200, 300, |t| &mut t.lmr_base),
        ("lmr_tactical", -8, 16, |t| &mut t.lmr_tactical),
        ("lmr_not_improving", -8, 16, |t| &mut t.lmr_not_improving),
        ("lmr_special", -8, 16, |t| &mut t.lmr_special),
        ("lmr_cut_node", -8, 16, |t| &mut t.lmr_cut_node),
        ("lmr_pv_node", -8, 16, |t| &mut t.lmr_pv_node),
        ("late_move_base", 1, 20, |t| &mut t.late_move_base),
        ("late_move_percent", 20, 400, |t| &mut t.late_move_percent),
        ("late_tactical_percent", 100, 1000, |t| &mut t.late_tactical_percent),
        ("aspiration_delta", 5, 400, |t| &mut t.aspiration_delta),
    ];

    /// Set the tunable `name` to `value`; an unknown name or a value out of its range is
    /// an error and changes nothing.
    pub fn set(&mut self, name: &str, value: i64) -> Result<(), String> {
        let (_, low, high, field) = Self::FIELDS
            .iter()
            .find(|f| f.0 == name)
            .ok_or_else(|| format!("no tunable named {name}"))?;
        if value < i64::from(*low) || value > i64::from(*high) {
            return Err(format!("{name} must lie in {low}..={high}, not {value}"));
        }
        *field(self) = value as i32;
        Ok(())
    }

    /// Every tunable with its value, in declaration order.
    pub fn values(&self) -> Vec<(&'static str, i32)> {
        self.table().into_iter().map(|(name, value, _)| (name, value)).collect()
    }

    /// Every tunable with its value and range, in declaration order (`pbrain-sente
    /// tunables` prints it for the tuning script).
    pub fn table(&self) -> Vec<(&'static str, i32, (i32, i32))> {
        let mut copy = *self;
        Self::FIELDS
            .iter()
            .map(|(name, low, high, field)| (*name, *field(&mut copy), (*low, *high)))
            .collect()
    }

    /// The margin of static-evaluation pruning at `depth` (`ONE_PLY` units), one ply
    /// less when the position improves: a node whose evaluation is this far above beta
    /// returns it. `None` beyond `rfp_max_depth`.
    #[inline]
    pub fn static_eval_margin(&self, depth: i32, improving: bool) -> Option<i32> {
        (depth <= self.rfp_max_depth * ONE_PLY)
            .then(|| self.rfp_margin * (depth - ONE_PLY * i32::from(improving)) / ONE_PLY)
    }

    /// The margin of futility pruning at `depth` (`ONE_PLY` units): a quiet move is not
    /// tried when the evaluation plus this stays at or below alpha. `None` beyond
    /// `futility_max_depth`.
    #[inline]
    pub fn futility_margin_at(&self, depth: i32) -> Option<i32> {
        (depth <= self.futility_max_depth * ONE_PLY).then(|| self.futility_margin * depth / ONE_PLY)
    }

    /// How far above beta an expected cut-node's evaluation must be for the fail-high
    /// reduction at `depth` (`ONE_PLY` units); more when the opponent can make a four.
    #[inline]
    pub fn fail_high_margin(&self, depth: i32, opponent_four: bool) -> i32 {
        self.fhr_margin_base
            + self.fhr_margin_per_ply * depth / ONE_PLY
            + FHR_MARGIN_OPPONENT_FOUR * i32::from(opponent_four)
    }

    /// The late-move reduction, in `ONE_PLY` units (fractional: not rounded to plies),
    /// of the `move_count`-th move at `depth` (whole plies), before the adjustments by
    /// the move and the node (`alphabeta::Context::reduction`).
    #[inline]
    pub fn late_move_reduction(&self, depth: i32, move_count: usize) -> i32 {
        let d = LN100[(depth.max(0) as usize).min(63)];
        let m = LN100[move_count.min(63)];
        (d * m * self.lmr_scale / 100 + self.lmr_base * 100) * ONE_PLY / 10_000
    }

    /// Move-count pruning's limits at `depth` (whole plies): the quiet moves tried before
    /// the later ones are pruned, and the moves tried before every move of at most a
    /// four is (`LATE_TACTICAL_FACTOR`). Beyond the table nothing is pruned (both
    /// `usize::MAX`).
    pub fn late_move_limits(&self, depth: i32) -> (usize, usize) {
        match LATE_MOVE_LIMIT.get(depth.max(0) as usize) {
            Some(&l) => {
                let growth = (l as i32 - LATE_MOVE_BASE) * self.late_move_percent / 100;
                let quiet = (self.late_move_base + growth).max(1) as usize;
                (quiet, quiet * self.late_tactical_percent as usize / 100)
            }
            None => (usize::MAX, usize::MAX),
        }
    }
}

impl Default for Tunables {
    fn default() -> Self {
        Tunables::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_move_count_limits_are_the_table() {
        let t = Tunables::DEFAULT;
        for (d, &l) in LATE_MOVE_LIMIT.iter().enumerate() {
            assert_eq!(t.late_move_limits(d as i32), (l, l * LATE_TACTICAL_FACTOR));
        }
        let beyond = LATE_MOVE_LIMIT.len() as i32;
        assert_eq!(t.late_move_limits(beyond), (usize::MAX, usize::MAX));
    }

    #[test]
    fn setting_a_tunable_checks_its_name_and_range() {
        let mut t = Tunables::DEFAULT;
        t.set("rfp_margin", 65).unwrap();
        assert_eq!(t.rfp_margin, 65);
        assert!(t.set("rfp_margin", 5).is_err());
        assert!(t.set("no_such_thing", 1).is_err());
        assert_eq!(t.rfp_margin, 65, "a refused value changes nothing");
        let names: Vec<_> = t.values().into_iter().map(|(n, _)| n).collect();
        assert_eq!(names.len(), Tunables::FIELDS.len());
        for (name, value) in Tunables::DEFAULT.values() {
            let mut u = Tunables::DEFAULT;
            u.set(name, i64::from(value)).unwrap();
            assert_eq!(u, Tunables::DEFAULT, "{name}: the default lies in its range");
        }
    }
}
