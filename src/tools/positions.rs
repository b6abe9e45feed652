//! Positions from text: move strings in pos notation and the shared test-data TSV format
//! (`id, rule, board_size, side_to_move, stones, expected, notes`; stones as
//! `b:h8 w:i9 ...`).

use crate::game::geometry::parse_pos_token;
use crate::game::{Board, Color, Pos, Rule};

#[derive(Clone, Debug)]
pub struct Puzzle {
    pub id: String,
    pub rule: Rule,
    pub size: usize,
    pub to_move: Color,
    pub stones: Vec<(Pos, Color)>,
    pub expected: String,
    pub notes: String,
}

impl Puzzle {
    pub fn board(&self) -> Board {
        Board::from_moves(self.size, self.size, self.rule, &self.stones)
    }
}

/// Moves in play order from a pos string (`h8i9j10` or `h8 i9 j10`), black first.
pub fn moves_from_pos_string(s: &str, size: usize) -> Result<Vec<(Pos, Color)>, String> {
    let pts = crate::game::geometry::parse_pos_string(s).ok_or_else(|| format!("bad move string '{s}'"))?;
    let mut color = Color::Black;
    let mut out = Vec::new();
    for (x, y) in pts {
        if x >= size || y >= size {
            return Err(format!("move {x},{y} is off a {size}x{size} board"));
        }
        out.push((Pos::new(x, y), color));
        color = color.opposite();
    }
    Ok(out)
}

/// The `size`×`size` board of `stones` (`b:h8 w:i9 ...`, placed in that order) under `rule`.
pub fn board_from_stones(rule: Rule, size: usize, stones: &str) -> Result<Board, String> {
    Ok(Board::from_moves(size, size, rule, &parse_stones(stones, size)?))
}

/// Parse the `stones` column: `b:h8 w:i9 ...`.
pub fn parse_stones(s: &str, size: usize) -> Result<Vec<(Pos, Color)>, String> {
    let mut out = Vec::new();
    for token in s.split_whitespace() {
        let (c, p) = token.split_once(':').ok_or_else(|| format!("bad stone '{token}'"))?;
        let color = match c {
            "b" => Color::Black,
            "w" => Color::White,
            _ => return Err(format!("bad colour in '{token}'")),
        };
        let (x, y) = parse_pos_token(p).ok_or_else(|| format!("bad point in '{token}'"))?;
        if x >= size || y >= size {
            return Err(format!("'{token}' is off the board"));
        }
        out.push((Pos::new(x, y), color));
    }
    Ok(out)
}

/// All rows of a puzzles TSV (the header line is skipped).
pub fn parse_puzzles(text: &str) -> Result<Vec<Puzzle>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if n == 0 && line.starts_with("id\t") || line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() < 6 {
            return Err(format!("line {}: expected at least 6 columns", n + 1));
        }
        let rule = Rule::from_name(cols[1]).ok_or_else(|| format!("line {}: unknown rule {}", n + 1, cols[1]))?;
        let size: usize = cols[2].parse().map_err(|_| format!("line {}: bad size", n + 1))?;
        let to_move = match cols[3] {
            "black" => Color::Black,
            "white" => Color::White,
            other => return Err(format!("line {}: bad side {other}", n + 1)),
        };
        out.push(Puzzle {
            id: cols[0].to_string(),
            rule,
            size,
            to_move,
            stones: parse_stones(cols[4], size).map_err(|e| format!("line {}: {e}", n + 1))?,
            expected: cols[5].to_string(),
            notes: cols.get(6).unwrap_or(&"").to_string(),
        });
    }
    Ok(out)
}

/// Points listed in an `expected` text after a marker, e.g. `answer points: g3 g4`.
pub fn points_after(text: &str, marker: &str) -> Vec<Pos> {
    let Some(i) = text.find(marker) else {
        return Vec::new();
    };
    text[i + marker.len()..]
        .split(|c: char| c.is_whitespace() || c == ',' || c == ';')
        .map_while(|t| {
            if t.is_empty() {
                Some(None)
            } else {
                parse_pos_token(t).map(|(x, y)| Some(Pos::new(x, y)))
            }
        })
        .flatten()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rows() {
        let text = "id\trule\tboard_size\tside_to_move\tstones\texpected\tnotes\n\
                    x:1\trenju\t15\tblack\tb:h8 w:i9 b:j10\tanswer points: g3 g4; more\tnote\n";
        let p = &parse_puzzles(text).unwrap()[0];
        assert_eq!(p.rule, Rule::Renju);
        assert_eq!(p.stones.len(), 3);
        assert_eq!(p.stones[1], (Pos::new(8, 8), Color::White));
        assert_eq!(
            points_after(&p.expected, "answer points:"),
            vec![Pos::new(6, 2), Pos::new(6, 3)]
        );
        assert_eq!(
            moves_from_pos_string("h8i9", 15).unwrap()[1],
            (Pos::new(8, 8), Color::White)
        );
        assert!(moves_from_pos_string("p1", 15).is_err());
    }
}
