//! Integer scores. Mate scores sit above every evaluation: `WIN - n` means the side to
//! move wins in `n` plies from the root; they are stored in the TT relative to the node.

pub(crate) const WIN: i32 = 30000;
pub(crate) const INFINITY: i32 = 31000;
/// Any score at least this large (in absolute value) is a proven result.
pub const WIN_THRESHOLD: i32 = WIN - 1000;
/// Static evaluations are clamped to this range.
pub(crate) const MAX_EVAL: i32 = 20000;

#[inline]
pub(crate) fn win_in(ply: i32) -> i32 {
    WIN - ply
}

#[inline]
pub(crate) fn loss_in(ply: i32) -> i32 {
    -WIN + ply
}

#[inline]
pub(crate) fn is_decisive(score: i32) -> bool {
    score.abs() >= WIN_THRESHOLD
}

/// Score as stored in the TT: mate distances counted from this node.
#[inline]
pub(crate) fn to_tt(score: i32, ply: i32) -> i32 {
    if score >= WIN_THRESHOLD {
        score + ply
    } else if score <= -WIN_THRESHOLD {
        score - ply
    } else {
        score
    }
}

#[inline]
pub(crate) fn from_tt(score: i32, ply: i32) -> i32 {
    if score >= WIN_THRESHOLD {
        score - ply
    } else if score <= -WIN_THRESHOLD {
        score + ply
    } else {
        score
    }
}

/// Human-readable score: `+M7` / `-M4` for proven results (plies), else the number.
pub fn format_score(score: i32) -> String {
    if score >= WIN_THRESHOLD {
        format!("+M{}", WIN - score)
    } else if score <= -WIN_THRESHOLD {
        format!("-M{}", WIN + score)
    } else {
        score.to_string()
    }
}
