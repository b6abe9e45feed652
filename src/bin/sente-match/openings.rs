//! Opening files: the Gomocup offset format and the "pos" format, validated on the board,
//! and the board symmetries used to vary them.
//!
//! - **offset** (GomocupJudge, Piskvork, c-gomoku-cli's default): `dx,dy, dx,dy, …`, offsets
//!   from the centre `(width/2, height/2)`, black first.
//! - **pos** (c-gomoku-cli): `h8i9j10`, letter = column from the left, number = row from
//!   the top (1-based), black first.
//!
//! Blank lines and lines starting with `#` are skipped. `auto` picks offset when the line
//! has a comma. An opening must fit the board, repeat no point, contain no five, and under
//! renju contain no forbidden black stone; lines that fail are skipped with a warning.

use std::path::Path;

use sente::game::geometry::parse_pos_string;
use sente::game::{Board, Color, Pos, Rule};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Auto,
    Offset,
    Pos,
}

impl Format {
    pub fn parse(s: &str) -> Option<Format> {
        match s.to_ascii_lowercase().as_str() {
            "auto" => Some(Format::Auto),
            "offset" => Some(Format::Offset),
            "pos" => Some(Format::Pos),
            _ => None,
        }
    }
}

/// One opening: absolute points, in play order (black first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// 1-based line number in the file (0 for the empty opening).
    pub line: usize,
    pub stones: Vec<(usize, usize)>,
}

impl Opening {
    pub fn empty() -> Opening {
        Opening {
            line: 0,
            stones: Vec::new(),
        }
    }

    /// The opening in pos notation (`h8i9`).
    pub fn notation(&self) -> String {
        self.stones.iter().map(|&(x, y)| Pos::new(x, y).to_string()).collect()
    }

    /// The opening seen through symmetry `sym` (see [`transform`]).
    pub fn transformed(&self, sym: usize, width: usize, height: usize) -> Opening {
        Opening {
            line: self.line,
            stones: self.stones.iter().map(|&p| transform(p, sym, width, height)).collect(),
        }
    }
}

/// How many symmetries a board has: 8 when square, 4 otherwise.
pub fn symmetry_count(width: usize, height: usize) -> usize {
    if width == height {
        8
    } else {
        4
    }
}

/// Symmetry `sym` of the board: 0 identity, 1 mirror left-right, 2 mirror top-bottom,
/// 3 rotate 180°; on square boards also 4 transpose, 5–7 the transposed versions of 1–3.
pub fn transform((x, y): (usize, usize), sym: usize, width: usize, height: usize) -> (usize, usize) {
    let (mx, my) = (width - 1 - x, height - 1 - y);
    let (a, b) = match sym % 4 {
        0 => (x, y),
        1 => (mx, y),
        2 => (x, my),
        _ => (mx, my),
    };
    if sym >= 4 {
        (b, a)
    } else {
        (a, b)
    }
}

/// Read an opening file. Returns the valid openings and a warning for each skipped line.
pub fn load(
    path: &Path,
    format: Format,
    width: usize,
    height: usize,
    rule: Rule,
) -> Result<(Vec<Opening>, Vec<String>), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read openings {}: {e}", path.display()))?;
    let mut openings = Vec::new();
    let mut warnings = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match parse_line(line, format, width, height)
            .and_then(|stones| validate(&stones, width, height, rule).map(|_| stones))
        {
            Ok(stones) => openings.push(Opening {
                line: i + 1,
                stones: stones.iter().map(|&(x, y)| (x as usize, y as usize)).collect(),
            }),
            Err(e) => warnings.push(format!("{}:{}: {e}, skipped", path.display(), i + 1)),
        }
    }
    if openings.is_empty() {
        return Err(format!("no usable opening in {}", path.display()));
    }
    Ok((openings, warnings))
}

/// Parse one line into absolute points (not yet checked against the board).
pub fn parse_line(line: &str, format: Format, width: usize, height: usize) -> Result<Vec<(i64, i64)>, String> {
    let offset = match format {
        Format::Auto => line.contains(','),
        Format::Offset => true,
        Format::Pos => false,
    };
    if !offset {
        let points = parse_pos_string(line).ok_or("not in pos notation (like h8i9)")?;
        return Ok(points.into_iter().map(|(x, y)| (x as i64, y as i64)).collect());
    }
    let numbers: Vec<i64> = line
        .split(',')
        .map(|t| t.trim().parse::<i64>())
        .collect::<Result<_, _>>()
        .map_err(|_| "not in offset notation (like 0,0, 1,-1)")?;
    if !numbers.len().is_multiple_of(2) {
        return Err("odd number of offsets".to_string());
    }
    let (cx, cy) = ((width / 2) as i64, (height / 2) as i64);
    Ok(numbers.chunks(2).map(|c| (c[0] + cx, c[1] + cy)).collect())
}

/// Check that the stones can be played in order on an empty board.
pub fn validate(stones: &[(i64, i64)], width: usize, height: usize, rule: Rule) -> Result<(), String> {
    let mut board = Board::new(width, height, rule);
    for (i, &(x, y)) in stones.iter().enumerate() {
        let color = Color::of_ply(i);
        if !board.contains_xy(x, y) {
            return Err(format!("stone {} ({x},{y}) is off the {width}x{height} board", i + 1));
        }
        let p = Pos::new(x as usize, y as usize);
        if !board.is_empty(p) {
            return Err(format!("stone {} repeats {p}", i + 1));
        }
        if color == Color::Black && board.is_forbidden(p) {
            return Err(format!("stone {} ({p}) is forbidden for black", i + 1));
        }
        board.make(p, color);
        if board.wins_through(p) {
            return Err(format!("stone {} ({p}) makes a five", i + 1));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offset_and_pos_agree() {
        // Offsets from the centre (7,7) of 15x15; h8 = (7,7).
        let off = parse_line("0,0, 1,-1, -2,3", Format::Auto, 15, 15).unwrap();
        let pos = parse_line("h8i7f11", Format::Auto, 15, 15).unwrap();
        assert_eq!(off, vec![(7, 7), (8, 6), (5, 10)]);
        assert_eq!(off, pos);
        // 20x20: centre (10,10); c-gomoku-cli's example `8,-3` is s8.
        assert_eq!(parse_line("8,-3", Format::Offset, 20, 20).unwrap(), vec![(18, 7)]);
        assert!(parse_line("0,0, 1", Format::Offset, 15, 15).is_err());
        assert!(parse_line("h8,x", Format::Offset, 15, 15).is_err());
        assert!(parse_line("h8 i", Format::Pos, 15, 15).is_err());
    }

    #[test]
    fn validation() {
        assert!(validate(&[(7, 7), (8, 8)], 15, 15, Rule::Freestyle).is_ok());
        assert!(validate(&[(7, 7), (15, 8)], 15, 15, Rule::Freestyle).is_err());
        assert!(validate(&[(7, 7), (7, 7)], 15, 15, Rule::Freestyle).is_err());
        assert!(validate(&[(-1, 7)], 15, 15, Rule::Freestyle).is_err());
        // Black five in the opening.
        let five = [(0, 0), (0, 5), (1, 0), (1, 5), (2, 0), (2, 5), (3, 0), (3, 5), (4, 0)];
        assert!(validate(&five, 15, 15, Rule::Freestyle).unwrap_err().contains("five"));
        // Renju: black's ninth stone i8 is a double three (g8 h8 + i7 i6).
        let dt: Vec<(i64, i64)> = parse_line("g8a1h8o1i7a15i6o15i8", Format::Pos, 15, 15).unwrap();
        assert!(validate(&dt, 15, 15, Rule::Renju).unwrap_err().contains("forbidden"));
        assert!(validate(&dt, 15, 15, Rule::Freestyle).is_ok());
    }

    #[test]
    fn symmetries_are_distinct_bijections() {
        for (w, h) in [(15, 15), (20, 15)] {
            let n = symmetry_count(w, h);
            let mut images = Vec::new();
            for sym in 0..n {
                let mut seen = std::collections::HashSet::new();
                for y in 0..h {
                    for x in 0..w {
                        let (tx, ty) = transform((x, y), sym, w, h);
                        assert!(tx < w && ty < h);
                        assert!(seen.insert((tx, ty)));
                    }
                }
                images.push(transform((1, 2), sym, w, h));
            }
            images.sort();
            images.dedup();
            assert_eq!(images.len(), n, "{w}x{h}");
        }
        assert_eq!(transform((0, 1), 5, 15, 15), (1, 14));
    }

    #[test]
    fn loads_files_and_skips_bad_lines() {
        let dir = std::env::temp_dir().join(format!("sente-openings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("o.txt");
        std::fs::write(&f, "# comment\n\n0,0, 1,1\nh8i9j10\n9,9\nzz\n").unwrap();
        let (ops, warn) = load(&f, Format::Auto, 15, 15, Rule::Freestyle).unwrap();
        assert_eq!(ops.len(), 2);
        assert_eq!((ops[0].line, ops[0].notation().as_str()), (3, "h8i9"));
        assert_eq!(ops[1].notation(), "h8i9j10");
        assert_eq!(warn.len(), 2, "{warn:?}");
        std::fs::write(&f, "9,9\n").unwrap();
        assert!(load(&f, Format::Auto, 15, 15, Rule::Freestyle).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
