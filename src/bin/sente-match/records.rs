//! Game records: an SGF game tree per game (GM[4], Gomoku/Renju, readable by common
//! gomoku tools) and one JSON object per line per game.

use std::fmt::Write as _;

use sente::game::{Color, Pos};

use crate::cli::Config;
use crate::types::{color_name, GameRecord, Outcome, Reason};

/// The result as a PGN-style string: `1-0` (black won), `0-1`, `1/2-1/2`, `*` (aborted).
pub fn result_string(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Win(Color::Black) => "1-0",
        Outcome::Win(Color::White) => "0-1",
        Outcome::Draw => "1/2-1/2",
        Outcome::Aborted => "*",
    }
}

/// SGF point: letters `a`..`z` then `A`..`Z` (FF[4]), x first, y from the top.
fn sgf_point(x: usize, y: usize) -> String {
    let l = |v: usize| {
        if v < 26 {
            (b'a' + v as u8) as char
        } else {
            (b'A' + (v - 26) as u8) as char
        }
    };
    format!("{}{}", l(x), l(y))
}

fn sgf_text(s: &str) -> String {
    s.replace('\\', "\\\\").replace(']', "\\]")
}

/// One game as an SGF game tree (one line).
pub fn sgf(cfg: &Config, names: &[String], rec: &GameRecord) -> String {
    let size = if cfg.width == cfg.height {
        cfg.width.to_string()
    } else {
        format!("{}:{}", cfg.width, cfg.height)
    };
    let re = match (rec.outcome, rec.reason) {
        (Outcome::Win(c), r) => {
            let side = if c == Color::Black { "B" } else { "W" };
            let how = match r {
                Reason::Five => "",
                Reason::Fault(crate::types::FaultKind::Timeout) => "T",
                _ => "F",
            };
            format!("{side}+{how}")
        }
        (Outcome::Draw, _) => "0".to_string(),
        (Outcome::Aborted, _) => "Void".to_string(),
    };
    let mut comment = format!("{}: {}", result_string(rec.outcome), rec.reason.name());
    for f in &rec.faults {
        let _ = write!(
            comment,
            "; {} {} ({}): {}",
            names[f.engine],
            f.kind.name(),
            color_name(f.color),
            f.detail
        );
    }
    let mut s = format!(
        "(;FF[4]GM[4]CA[UTF-8]AP[sente-match:{}]SZ[{size}]RU[{}]PB[{}]PW[{}]RE[{re}]GN[game {}]",
        env!("CARGO_PKG_VERSION"),
        cfg.rule.name(),
        sgf_text(&names[rec.spec.black]),
        sgf_text(&names[rec.spec.white]),
        rec.spec.number
    );
    if !rec.spec.opening.stones.is_empty() {
        let _ = write!(
            s,
            "GC[opening {} (line {}, symmetry {})]",
            rec.spec.opening.notation(),
            rec.spec.opening.line,
            rec.spec.symmetry
        );
    }
    let _ = write!(s, "C[{}]", sgf_text(&comment));
    let opening = rec
        .spec
        .opening
        .stones
        .iter()
        .enumerate()
        .map(|(i, &(x, y))| (x, y, Color::of_ply(i)));
    for (x, y, c) in opening.chain(rec.moves.iter().map(|m| (m.x, m.y, m.color))) {
        let tag = if c == Color::Black { "B" } else { "W" };
        let _ = write!(s, ";{tag}[{}]", sgf_point(x, y));
    }
    s.push(')');
    s
}

/// A JSON string literal.
pub fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// One game as a JSON object on one line.
pub fn json(cfg: &Config, names: &[String], rec: &GameRecord) -> String {
    let spec = &rec.spec;
    let winner = match rec.outcome {
        Outcome::Win(c) => json_str(&names[rec.engine(c)]),
        _ => "null".to_string(),
    };
    let moves: Vec<String> = rec
        .moves
        .iter()
        .map(|m| {
            let mut o = format!(
                "{{\"move\":{},\"x\":{},\"y\":{},\"color\":\"{}\",\"ms\":{}",
                json_str(&Pos::new(m.x, m.y).to_string()),
                m.x,
                m.y,
                color_name(m.color),
                m.ms
            );
            if cfg.messages {
                let msgs: Vec<String> = m.messages.iter().map(|t| json_str(t)).collect();
                let _ = write!(o, ",\"messages\":[{}]", msgs.join(","));
            }
            o.push('}');
            o
        })
        .collect();
    let faults: Vec<String> = rec
        .faults
        .iter()
        .map(|f| {
            format!(
                "{{\"engine\":{},\"color\":\"{}\",\"kind\":\"{}\",\"detail\":{}}}",
                json_str(&names[f.engine]),
                color_name(f.color),
                f.kind.name(),
                json_str(&f.detail)
            )
        })
        .collect();
    format!(
        "{{\"game\":{},\"black\":{},\"white\":{},\"rule\":\"{}\",\"width\":{},\"height\":{},\
         \"opening\":{},\"opening_line\":{},\"symmetry\":{},\"result\":\"{}\",\"winner\":{},\
         \"reason\":\"{}\",\"plies\":{},\"duration_ms\":{},\"peak_uss\":[{},{}],\"moves\":[{}],\"faults\":[{}]}}",
        spec.number,
        json_str(&names[spec.black]),
        json_str(&names[spec.white]),
        cfg.rule.name(),
        cfg.width,
        cfg.height,
        json_str(&spec.opening.notation()),
        spec.opening.line,
        spec.symmetry,
        result_string(rec.outcome),
        winner,
        rec.reason.name(),
        spec.opening.stones.len() + rec.moves.len(),
        rec.duration.as_millis(),
        rec.peak_uss[0],
        rec.peak_uss[1],
        moves.join(","),
        faults.join(",")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(json_str("a\"b\\c\nd\u{1}"), "\"a\\\"b\\\\c\\nd\\u0001\"");
        assert_eq!(sgf_text("x]y\\"), "x\\]y\\\\");
        assert_eq!(sgf_point(7, 7), "hh");
        assert_eq!(sgf_point(27, 0), "Ba");
    }
}
