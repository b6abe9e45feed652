//! Training positions: one line per position, written by `selfplay`, read by `train` and
//! `evalcheck`.
//!
//! A line has seven tab-separated fields:
//! `GAME RULE SIZE MOVES SIDE SCORE RESULT`, e.g.
//! `17 freestyle 15 h8i9j10 w -35 B` (with tabs):
//! the game's number, the rule's name, the board size, the moves from the empty board in
//! play order (a pos string, `-` for none), the side to move (`b` or `w`), the search
//! score for the side to move, and the game's result (`B` black won, `W` white won, `D`
//! draw). Lines starting with `#` are comments.

use crate::game::{Board, Color, Pos, Rule};

use crate::tools::positions::moves_from_pos_string;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Record {
    pub(crate) game: u64,
    pub(crate) rule: Rule,
    pub(crate) size: usize,
    pub(crate) moves: Vec<(Pos, Color)>,
    pub(crate) side: Color,
    pub(crate) score: i32,
    /// The winner, `None` for a draw.
    pub(crate) winner: Option<Color>,
}

impl Record {
    pub(crate) fn to_line(&self) -> String {
        let moves: String = if self.moves.is_empty() {
            "-".into()
        } else {
            self.moves.iter().map(|(p, _)| p.to_string()).collect()
        };
        format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}",
            self.game,
            self.rule.name(),
            self.size,
            moves,
            if self.side == Color::Black { 'b' } else { 'w' },
            self.score,
            match self.winner {
                Some(Color::Black) => 'B',
                Some(Color::White) => 'W',
                None => 'D',
            }
        )
    }

    pub(crate) fn parse(line: &str) -> Result<Record, String> {
        let f: Vec<&str> = line.trim_end_matches(['\r', '\n']).split('\t').collect();
        if f.len() != 7 {
            return Err(format!("{} fields, 7 expected", f.len()));
        }
        let game = f[0].parse().map_err(|_| format!("bad game number '{}'", f[0]))?;
        let rule = Rule::from_name(f[1]).ok_or_else(|| format!("unknown rule '{}'", f[1]))?;
        let size: usize = f[2].parse().map_err(|_| format!("bad size '{}'", f[2]))?;
        if !(crate::game::geometry::MIN_SIZE..=crate::game::geometry::MAX_SIZE).contains(&size) {
            return Err(format!("unsupported size {size}"));
        }
        let moves = if f[3] == "-" {
            Vec::new()
        } else {
            moves_from_pos_string(f[3], size)?
        };
        let mut seen = crate::game::PosSet::default();
        for &(p, _) in &moves {
            if seen.contains(p) {
                return Err(format!("{p} is played twice"));
            }
            seen.insert(p);
        }
        let side = match f[4] {
            "b" => Color::Black,
            "w" => Color::White,
            s => return Err(format!("bad side to move '{s}'")),
        };
        let score = f[5].parse().map_err(|_| format!("bad score '{}'", f[5]))?;
        let winner = match f[6] {
            "B" => Some(Color::Black),
            "W" => Some(Color::White),
            "D" => None,
            s => return Err(format!("bad result '{s}'")),
        };
        Ok(Record {
            game,
            rule,
            size,
            moves,
            side,
            score,
            winner,
        })
    }

    /// The position.
    pub(crate) fn board(&self) -> Board {
        Board::from_moves(self.size, self.size, self.rule, &self.moves)
    }

    /// The game's result for the side to move: 1 win, 0.5 draw, 0 loss.
    pub(crate) fn result(&self) -> f64 {
        match self.winner {
            None => 0.5,
            Some(c) if c == self.side => 1.0,
            Some(_) => 0.0,
        }
    }
}

/// Every record of a data file; a malformed line is an error naming it.
pub(crate) fn read(path: &str) -> Result<Vec<Record>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    parse(&text).map_err(|e| format!("{path}: {e}"))
}

pub(crate) fn parse(text: &str) -> Result<Vec<Record>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, l)| Record::parse(l).map_err(|e| format!("line {}: {e}", i + 1)))
        .collect()
}

/// The games held out for validation: about one in `every`, chosen by the moves of the
/// game's last position, so that games that are the same (self-play repeats a game when
/// its random plies choose alike) all fall on the same side and none is both trained on
/// and used to validate.
pub(crate) fn validation_games(records: &[Record], every: u64) -> std::collections::HashSet<u64> {
    let mut last: std::collections::HashMap<u64, &Record> = std::collections::HashMap::new();
    for r in records {
        let e = last.entry(r.game).or_insert(r);
        if r.moves.len() >= e.moves.len() {
            *e = r;
        }
    }
    last.into_iter()
        .filter(|(_, r)| {
            let h = r.moves.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, (p, _)| {
                (h ^ p.index() as u64).wrapping_mul(0x100_0000_01b3)
            });
            every > 0 && h % every == every - 1
        })
        .map(|(g, _)| g)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_round_trip() {
        let moves = moves_from_pos_string("h8i9j10", 15).unwrap();
        let r = Record {
            game: 17,
            rule: Rule::Renju,
            size: 15,
            moves,
            side: Color::White,
            score: -35,
            winner: Some(Color::Black),
        };
        let line = r.to_line();
        assert_eq!(line, "17\trenju\t15\th8i9j10\tw\t-35\tB");
        assert_eq!(Record::parse(&line).unwrap(), r);
        assert_eq!(r.result(), 0.0);
        let empty = Record::parse("0\tfreestyle\t20\t-\tb\t0\tD").unwrap();
        assert!(empty.moves.is_empty());
        assert_eq!(empty.result(), 0.5);
        for bad in [
            "1\tfreestyle\t15\th8h8\tw\t0\tD",
            "1\tgo\t15\th8\tw\t0\tD",
            "1\tfreestyle\t15\th8\tx\t0\tD",
            "1\tfreestyle\t15\th8\tw\t0",
            "1\tfreestyle\t15\tz99\tw\t0\tD",
        ] {
            assert!(Record::parse(bad).is_err(), "{bad}");
        }
        // Equal games fall on the same side of the validation split.
        let game = |g: u64, moves: &str| Record {
            game: g,
            moves: moves_from_pos_string(moves, 15).unwrap(),
            ..r.clone()
        };
        let mut records = Vec::new();
        for g in 0..200u64 {
            let last = if g % 2 == 0 { "h8i9j10" } else { "h8i9j10k11" };
            records.push(game(g, "h8"));
            records.push(game(g, &format!("{last}{}", ["", "a1"][(g % 4 / 2) as usize])));
        }
        let v = validation_games(&records, 3);
        for g in 0..196u64 {
            assert_eq!(v.contains(&g), v.contains(&(g + 4)), "game {g}");
        }
        assert!(validation_games(&records, 0).is_empty());
        assert!(parse("# comment\n\n0\tfreestyle\t15\t-\tb\t0\tD\nbroken\n")
            .unwrap_err()
            .starts_with("line 4"));
    }
}
