//! Yixin-Board's database commands, answered in the lines its `main.c` reads and, where
//! it reads none, as Rapfi answers them. The position is the moves the GUI sends after
//! the command (black first); the records are `engine::database`'s.
//!
//! | command | answer |
//! |---|---|
//! | `YXQUERYDATABASEALL` | `MESSAGE DATABASE REFRESH`, per child with a record or text `MESSAGE DATABASE x y label value depth 0 has_comment text`, `MESSAGE DATABASE DONE` |
//! | `YXQUERYDATABASEONE` | `MESSAGE DATABASE ONE label value depth 0 label_text` (`ONE 0 0 0 0`: none) |
//! | `YXQUERYDATABASETEXT` | `MESSAGE DATABASE TEXT "comment"` |
//! | `YXEDITTVDDATABASE mask label value depth` | mask bit 1 sets the label (-1 clears it), 2 the value, 4 the depth; then as ONE |
//! | `YXEDITTEXTDATABASE "text"`, `YXEDITLABELDATABASE x,y text` | the comment / a text on a point; no answer |
//! | `YXDELETEDATABASEONE`, `YXDELETEDATABASEALL [nonwl\|wl]` | the record / those that follow; ALL then answers as QUERYALL |
//!
//! With the database off (`INFO usedatabase 0`) queries get no answer and changes one
//! MESSAGE; a bad argument or a file that cannot be written one ERROR, nothing changed.

use crate::engine::database::{Database, DeleteFilter, Position, Record, LABEL_LOSS, LABEL_WIN};
use crate::engine::Engine;
use crate::game::Pos;

use super::command::{parse_pair, DbOp};

/// The lines that answer `op` with `args` on the position of `points`.
pub(crate) fn answer(engine: &mut Engine, op: DbOp, args: &str, points: &[(i64, i64)]) -> Vec<String> {
    let keyword = name(op);
    let pos = match engine.database_position(points) {
        Ok(pos) => pos,
        Err(e) => return vec![format!("ERROR {keyword}: {e}; nothing changed")],
    };
    // YXEDITLABELDATABASE's `x,y text`: the point checked by the engine, as moves are.
    let point = match op {
        DbOp::EditPointText => {
            let (xy, text) = args.split_once(char::is_whitespace).unwrap_or((args, ""));
            let checked =
                parse_pair(xy).and_then(|(x, y)| engine.database_point(&pos, x, y).map_err(|e| e.to_string()));
            match checked {
                Ok(p) => Some((p, text.trim())),
                Err(e) => return vec![format!("ERROR {keyword}: {e}; nothing changed")],
            }
        }
        _ => None,
    };
    let db = match engine.database() {
        Ok(Some(db)) => db,
        Ok(None) if is_query(op) => return Vec::new(),
        Ok(None) => {
            return vec![format!(
                "MESSAGE {keyword}: the database is off (INFO usedatabase 1 turns it on)"
            )]
        }
        Err(e) => return vec![format!("ERROR {keyword}: {e}")],
    };
    match run(db, op, args, &pos, point) {
        Ok(lines) => lines,
        Err(e) => vec![format!("ERROR {keyword}: {e}; nothing changed")],
    }
}

fn is_query(op: DbOp) -> bool {
    matches!(
        op,
        DbOp::QueryAll | DbOp::QueryOne | DbOp::QueryText | DbOp::QueryAllText
    )
}

fn name(op: DbOp) -> &'static str {
    match op {
        DbOp::QueryAll => "YXQUERYDATABASEALL",
        DbOp::QueryOne => "YXQUERYDATABASEONE",
        DbOp::QueryText => "YXQUERYDATABASETEXT",
        DbOp::QueryAllText => "YXQUERYDATABASEALLT",
        DbOp::EditTvd => "YXEDITTVDDATABASE",
        DbOp::EditText => "YXEDITTEXTDATABASE",
        DbOp::EditPointText => "YXEDITLABELDATABASE",
        DbOp::DeleteOne => "YXDELETEDATABASEONE",
        DbOp::DeleteAll => "YXDELETEDATABASEALL",
    }
}

fn run(
    db: &mut Database,
    op: DbOp,
    args: &str,
    pos: &Position,
    point: Option<(Pos, &str)>,
) -> Result<Vec<String>, String> {
    Ok(match op {
        DbOp::QueryAll => children(db, pos),
        DbOp::QueryOne => vec![one(db.get(pos))],
        DbOp::QueryText => vec![text(db.get(pos))],
        DbOp::QueryAllText => {
            let mut lines = children(db, pos);
            lines.push(text(db.get(pos)));
            lines
        }
        DbOp::EditTvd => {
            let fields: Vec<i32> = args
                .split_whitespace()
                .map(|w| w.parse::<i32>().map_err(|_| format!("'{w}' is not a number")))
                .collect::<Result<_, _>>()?;
            let [mask, label, value, depth] = fields[..] else {
                return Err("expected: mask label value depth".into());
            };
            db.edit(pos, |r| {
                if mask & 1 != 0 {
                    r.label = label.max(0);
                }
                if mask & 2 != 0 {
                    r.value = value;
                }
                if mask & 4 != 0 {
                    r.depth = depth;
                }
            })?;
            vec![one(db.get(pos))]
        }
        DbOp::EditText => {
            let comment = unquote(args)?;
            db.edit(pos, |r| r.comment = comment)?;
            Vec::new()
        }
        DbOp::EditPointText => {
            let (p, text) = point.expect("checked in answer");
            db.set_point_text(pos, p, text)?;
            Vec::new()
        }
        DbOp::DeleteOne => {
            db.delete(pos)?;
            Vec::new()
        }
        DbOp::DeleteAll => {
            let filter = DeleteFilter::parse(args.trim()).ok_or(format!("unknown kind '{args}': nonwl or wl"))?;
            let n = db.delete_following(pos, filter)?;
            let mut lines = vec![format!("MESSAGE deleted {n} records")];
            lines.extend(children(db, pos));
            lines
        }
    })
}

/// The label as the GUI draws it: W and L as its win and loss marks, none as -1.
fn shown_label(r: &Record) -> i32 {
    match r.label {
        0 => -1,
        LABEL_WIN => b'w' as i32,
        LABEL_LOSS => b'l' as i32,
        l => l,
    }
}

fn children(db: &Database, pos: &Position) -> Vec<String> {
    let mut lines = vec!["MESSAGE DATABASE REFRESH".to_string()];
    for c in db.children(pos) {
        let r = c.record.cloned().unwrap_or_default();
        let label = if c.record.is_some() { shown_label(&r) } else { -1 };
        lines.push(
            format!(
                "MESSAGE DATABASE {} {} {label} {} {} 0 {} {}",
                c.point.x(),
                c.point.y(),
                r.value,
                r.depth,
                u8::from(!r.comment.is_empty()),
                c.point_text.unwrap_or("")
            )
            .trim_end()
            .to_string(),
        );
    }
    lines.push("MESSAGE DATABASE DONE".to_string());
    lines
}

fn one(r: Option<&Record>) -> String {
    match r {
        Some(r) => {
            let text = char::from_u32(r.label as u32).filter(|_| r.label > 0).map(String::from);
            let line = format!(
                "MESSAGE DATABASE ONE {} {} {} 0 {}",
                r.label,
                r.value,
                r.depth,
                text.unwrap_or_default()
            );
            line.trim_end().to_string()
        }
        None => "MESSAGE DATABASE ONE 0 0 0 0".to_string(),
    }
}

fn text(r: Option<&Record>) -> String {
    let comment = r.map_or("", |r| r.comment.as_str());
    format!(
        "MESSAGE DATABASE TEXT \"{}\"",
        comment.replace('\\', "\\\\").replace('"', "\\\"")
    )
}

/// A text in double quotes (`\"` and `\\` inside), as Rapfi reads it; a bare one as is.
fn unquote(s: &str) -> Result<String, String> {
    let s = s.trim();
    let Some(inner) = s.strip_prefix('"') else {
        return Ok(s.to_string());
    };
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Ok(out),
            '\\' => out.push(chars.next().ok_or("the text ends in a backslash")?),
            c => out.push(c),
        }
    }
    Err("the text's closing quote is missing".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_quoted_both_ways() {
        assert_eq!(unquote("\"a \\\"b\\\" c\"").unwrap(), "a \"b\" c");
        assert_eq!(unquote("plain words").unwrap(), "plain words");
        assert!(unquote("\"open").is_err());
        let r = Record {
            comment: "say \"hi\"".into(),
            ..Default::default()
        };
        assert_eq!(text(Some(&r)), "MESSAGE DATABASE TEXT \"say \\\"hi\\\"\"");
        assert_eq!(
            unquote(&text(Some(&r))["MESSAGE DATABASE TEXT ".len()..]).unwrap(),
            r.comment
        );
    }
}
