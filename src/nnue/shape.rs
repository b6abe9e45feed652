//! The network's inputs: per cell and direction, the shape of the line through it, and
//! per empty cell the pair of threat classes a stone of each colour would make there.
//!
//! A line shape is the cell's own state (empty, black, white) and the `REACH` cells
//! around it on the line each side (the board's line key without its outer cells: the
//! threat pair carries what the patterns see farther out). Beyond a wall (the board edge
//! or a blocked point) nothing matters, as no five can cross it, so every cell past the
//! first wall counts as a wall; and a line read the other way is the same shape, so a
//! shape and its mirror share one id. With `REACH` 4 that leaves 121 ways for each side,
//! 7,381 pairs up to mirroring, 22,143 shapes.

use crate::game::geometry::{BLACK, EMPTY, WALL, WHITE};
use crate::game::pattern::Threat;
use crate::game::{Board, Pos};

/// Cells each side of the centre a shape looks at (at most the board key's 5).
pub const REACH: usize = 3;
/// Ways one side of a shape can look (walls only from some cell outward): Σ 3^k, k ≤ REACH.
const SIDES: usize = {
    let (mut sum, mut pow, mut k) = (0, 1, 0);
    while k <= REACH {
        sum += pow;
        pow *= 3;
        k += 1;
    }
    sum
};
/// One side's cells as 2-bit codes, nearest first.
const SIDE_CODES: usize = 1 << (2 * REACH);
/// Line shapes, up to mirroring, times the 3 states of the centre.
pub const SHAPES: usize = 3 * (SIDES * (SIDES + 1) / 2);
/// Threat-class pairs (black's, white's) of an empty cell.
pub const THREAT_PAIRS: usize = Threat::COUNT * Threat::COUNT;

/// `SIDE_OF[nearest-first 2-bit codes of one side]`: the side's number in `0..SIDES`,
/// with every cell beyond the first wall read as a wall.
static SIDE_OF: [u8; SIDE_CODES] = {
    let mut out = [0u8; SIDE_CODES];
    // Number the canonical sides: k free cells (3^k ways), then walls.
    let mut code = 0usize;
    while code < SIDE_CODES {
        // Canonical form: after the first wall, walls only.
        let mut canon = 0usize;
        let mut walled = false;
        let mut i = 0;
        while i < REACH {
            let c = if walled { WALL as usize } else { (code >> (2 * i)) & 3 };
            if c == WALL as usize {
                walled = true;
            }
            canon |= c << (2 * i);
            i += 1;
        }
        // Its number: free cells k before the wall, their values in base 3, offset by
        // the sides with fewer free cells.
        let mut free = 0;
        while free < REACH && (canon >> (2 * free)) & 3 != WALL as usize {
            free += 1;
        }
        let mut offset = 0;
        let mut k = 0;
        let mut pow = 1;
        while k < free {
            offset += pow;
            pow *= 3;
            k += 1;
        }
        let mut value = 0;
        let mut j = free;
        while j > 0 {
            j -= 1;
            value = value * 3 + ((canon >> (2 * j)) & 3);
        }
        out[code] = (offset + value) as u8;
        code += 1;
    }
    out
};

/// The id (`0..SHAPES`) of a line shape: the centre's state (`EMPTY`, `BLACK` or
/// `WHITE`) and each side's cells, nearest first, as 2-bit codes (side `a` the cells
/// before the centre, `b` those after).
#[inline]
pub const fn shape_id(centre: u8, a: u8, b: u8) -> usize {
    let (a, b) = (SIDE_OF[a as usize] as usize, SIDE_OF[b as usize] as usize);
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    // Unordered pairs lo <= hi, numbered row by row of hi.
    let pair = hi * (hi + 1) / 2 + lo;
    debug_assert!(centre != WALL);
    pair * 3 + centre as usize
}

/// The board's line key has 5 cells each side (`pattern::HALF`); a shape reads the
/// inner `REACH` of each.
const KEY_SIDE: usize = 5;
const INNER_KEYS: usize = 1 << (4 * REACH);

/// `SIDES_OF_KEY[inner bits of a board line key]`: the two sides (before the centre,
/// after it) as nearest-first codes.
static SIDES_OF_KEY: [(u8, u8); INNER_KEYS] = {
    let mut out = [(0u8, 0u8); INNER_KEYS];
    let mut key = 0usize;
    while key < INNER_KEYS {
        // Slots 0..REACH are the cells -REACH..-1 (the nearest at slot REACH - 1), slots
        // REACH..2·REACH the cells 1..REACH (the nearest at slot REACH).
        let mut before = 0u8;
        let mut after = 0u8;
        let mut i = 0;
        while i < REACH {
            before |= (((key >> (2 * (REACH - 1 - i))) & 3) as u8) << (2 * i);
            after |= (((key >> (2 * (REACH + i))) & 3) as u8) << (2 * i);
            i += 1;
        }
        out[key] = (before, after);
        key += 1;
    }
    out
};

/// `SHAPE_OF_KEY[centre · INNER_KEYS + inner bits of a line key]`: the shape id (24 KB),
/// one lookup where the catch-up reads a shape.
static SHAPE_OF_KEY: [u16; 3 * INNER_KEYS] = {
    let mut out = [0u16; 3 * INNER_KEYS];
    let mut i = 0;
    while i < 3 * INNER_KEYS {
        let (a, b) = SIDES_OF_KEY[i % INNER_KEYS];
        out[i] = shape_id((i / INNER_KEYS) as u8, a, b) as u16;
        i += 1;
    }
    out
};

/// The shape id of `p`'s line in direction `d` on `board` (`p` not a wall).
#[inline]
pub fn board_shape(board: &Board, p: Pos, d: usize) -> usize {
    let key = (board.line_key(p, d) >> (2 * (KEY_SIDE - REACH))) & (INNER_KEYS as u32 - 1);
    SHAPE_OF_KEY[board.cell_code(p) as usize * INNER_KEYS + key as usize] as usize
}

/// The threat-pair id of an empty cell.
#[inline]
pub fn threat_pair(black: Threat, white: Threat) -> usize {
    black as usize * Threat::COUNT + white as usize
}

/// The threat-pair id of `p` (`None` for an occupied point).
#[inline]
pub fn board_threat_pair(board: &Board, p: Pos) -> Option<usize> {
    use crate::game::Color;
    board
        .is_empty(p)
        .then(|| threat_pair(board.threat(p, Color::Black), board.threat(p, Color::White)))
}

const _: () = assert!(EMPTY == 0 && BLACK == 1 && WHITE == 2 && WALL == 3);
const _: () = assert!(REACH <= KEY_SIDE && (REACH != 4 || SHAPES == 22_143));

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::geometry::DIR_XY;
    use crate::game::{Color, Rule};

    /// The shape read cell by cell from the board, the slow way.
    fn slow_shape(board: &Board, p: Pos, d: usize) -> usize {
        let (dx, dy) = DIR_XY[d];
        let side = |sign: i32| {
            let mut code = 0u8;
            let mut walled = false;
            for k in 1..=REACH as i32 {
                let (x, y) = (p.x() as i32 + sign * k * dx, p.y() as i32 + sign * k * dy);
                let c = if walled || !board.contains_xy(x as i64, y as i64) {
                    WALL
                } else {
                    board.cell_code(Pos::new(x as usize, y as usize))
                };
                walled |= c == WALL;
                code |= c << (2 * (k - 1));
            }
            code
        };
        shape_id(board.cell_code(p), side(-1), side(1))
    }

    #[test]
    fn shape_ids_are_dense_and_mirror_blind() {
        let mut seen = vec![false; SHAPES];
        for centre in [EMPTY, BLACK, WHITE] {
            for a in 0..SIDE_CODES {
                for b in 0..SIDE_CODES {
                    let (a, b) = (a as u8, b as u8);
                    let id = shape_id(centre, a, b);
                    assert!(id < SHAPES);
                    assert_eq!(id, shape_id(centre, b, a), "a line read the other way");
                    seen[id] = true;
                }
            }
        }
        assert!(seen.iter().all(|&s| s), "every id is some shape");
        // Cells beyond a wall do not count.
        let wall_first = WALL;
        assert_eq!(
            shape_id(EMPTY, wall_first, 0),
            shape_id(EMPTY, wall_first | BLACK << 2, 0)
        );
        assert_ne!(shape_id(EMPTY, BLACK, 0), shape_id(EMPTY, WHITE, 0));
        assert_ne!(shape_id(EMPTY, BLACK, 0), shape_id(BLACK, BLACK, 0));
    }

    #[test]
    fn the_board_gives_the_shapes_of_its_lines() {
        for rule in [Rule::Freestyle, Rule::Renju] {
            let mut b = Board::new(15, 15, rule);
            b.block(Pos::new(3, 7));
            for (x, y, c) in [
                (7, 7, Color::Black),
                (8, 7, Color::White),
                (5, 7, Color::Black),
                (1, 1, Color::White),
            ] {
                b.make(Pos::new(x, y), c);
            }
            for p in b.points().filter(|&p| b.cell_code(p) != WALL).collect::<Vec<_>>() {
                for d in 0..4 {
                    assert_eq!(board_shape(&b, p, d), slow_shape(&b, p, d), "{p} {d}");
                }
            }
        }
    }
}
