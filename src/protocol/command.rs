//! Parse one protocol line into a typed command. Never panics; bad input becomes a
//! `ParseError` that the session answers with `ERROR` or `UNKNOWN`.
//!
//! Keywords are case-insensitive (Yixin-Board sends lowercase), surrounding white space
//! and a trailing CR are ignored, and coordinates may have spaces around the comma.

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Command {
    /// `START n`, or Yixin-Board's `start W H`.
    Start {
        width: i64,
        height: i64,
    },
    /// `RECTSTART w,h`.
    RectStart {
        width: i64,
        height: i64,
    },
    Restart,
    Begin,
    Turn(i64, i64),
    /// `BOARD`: stone lines follow until `DONE`, then we move.
    Board,
    /// `YXBOARD`: like BOARD, but no move is wanted.
    YxBoard,
    /// `SWAP2BOARD`: `x,y` lines follow until `DONE`.
    Swap2Board,
    Info {
        key: String,
        value: String,
    },
    End,
    About,
    Takeback(i64, i64),
    Play(i64, i64),
    /// `STOP` / `YXSTOP`: answer with the best move found so far.
    Stop,
    /// `YXSHOWFORBID`: list black's forbidden points.
    ShowForbid,
    /// `YXHASHCLEAR`: forget the transposition table.
    HashClear,
    /// `YXHASHDUMP`, `YXHASHLOAD`, `YXSETDATABASE`: a file, named on the same line or
    /// (as Yixin-Board sends it) on the next.
    File {
        use_: FileUse,
        path: Option<String>,
    },
    /// A database command (`YXQUERYDATABASEALL`, …): its arguments (as written) on the
    /// line, the position's moves on the lines after it, up to `DONE`.
    Database {
        op: DbOp,
        args: String,
    },
    /// `YXSHOWHASHUSAGE`: how full the table is.
    ShowHashUsage,
    /// `YXSHOWINFO`: engine limits for Yixin-Board.
    ShowInfo,
    /// `YXNBEST n`: the n best moves (each a MESSAGE line), then play the best.
    NBest(i64),
    /// `YXBALANCEONE N` / `YXBALANCETWO N`: the stone, or our stone and the opponent's,
    /// after which our searched score is nearest N.
    Balance {
        pair: bool,
        target: i64,
    },
    /// `YXSWAP2STEP1..3`: Yixin-Board's swap2, one step at a time, on the position set
    /// (0, 3 or 5 stones); the answer in `MESSAGE SWAP2 …` lines.
    Swap2Step(u8),
    /// `YXSOOSORVSTEP1..6`: one step of renju's Soosorv-8 opening. Every step but the
    /// first is followed by the game's move path (`x,y` lines up to `DONE`); steps 4 and 5
    /// name the number of fifth moves (checked when the path is in).
    Soosorv {
        step: u8,
        fifths: Option<i64>,
    },
    /// `YXSEARCHDEFEND`: every move that holds against the opponent's forced win.
    SearchDefend,
    /// `YXBLOCK`: `x,y` lines follow until `DONE`; we must not play those points.
    Block,
    /// `YXBLOCKUNDO`: `x,y` lines follow until `DONE`; they are allowed again.
    Unblock,
    /// `YXBLOCKRESET`: every point is allowed again.
    BlockReset,
    /// A Yixin-Board command Sente reads whole but does not carry out (the analysis
    /// database, block paths): its keyword (upper case) and what follows it.
    NotCarriedOut {
        keyword: &'static str,
        trailing: Trailing,
    },
    /// A blank line: ignored.
    Nothing,
}

/// What a file named by a command is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FileUse {
    HashDump,
    HashLoad,
    Database,
}

/// Yixin-Board's database commands (as Rapfi answers them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DbOp {
    /// The records of the position's children: `MESSAGE DATABASE x y label …`.
    QueryAll,
    /// The position's record: `MESSAGE DATABASE ONE label value depth …`.
    QueryOne,
    /// The position's comment: `MESSAGE DATABASE TEXT "…"`.
    QueryText,
    /// `QueryAll`, then `QueryText`.
    QueryAllText,
    /// `mask label value depth`: set the fields of mask's bits (1, 2, 4).
    EditTvd,
    /// `"text"`: the position's comment.
    EditText,
    /// `x,y text`: a text on a point of the position.
    EditPointText,
    DeleteOne,
    /// `[nonwl|wl]`: the records that follow the position.
    DeleteAll,
}

const DATABASE_COMMANDS: [(&str, DbOp); 9] = [
    ("YXQUERYDATABASEALL", DbOp::QueryAll),
    ("YXQUERYDATABASEONE", DbOp::QueryOne),
    ("YXQUERYDATABASETEXT", DbOp::QueryText),
    ("YXQUERYDATABASEALLT", DbOp::QueryAllText),
    ("YXEDITTVDDATABASE", DbOp::EditTvd),
    ("YXEDITTEXTDATABASE", DbOp::EditText),
    ("YXEDITLABELDATABASE", DbOp::EditPointText),
    ("YXDELETEDATABASEONE", DbOp::DeleteOne),
    ("YXDELETEDATABASEALL", DbOp::DeleteAll),
];

/// What follows a command on the lines after it (Yixin-Board's `main.c` sends both).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Trailing {
    /// Nothing: the command is one line.
    Nothing,
    /// One line, a file name.
    FileName,
    /// `x,y` lines (the GUI's move path) up to `DONE`.
    Points,
}

/// The Yixin-Board commands Sente reads but does not carry out, and what follows each;
/// each is answered with one MESSAGE, so that the GUI's log says why nothing happened.
pub(crate) const NOT_CARRIED_OUT: [(&str, Trailing); 14] = [
    ("YXSETBESTMOVEDATABASE", Trailing::Points),
    ("YXCLEARBESTMOVEDATABASE", Trailing::Points),
    ("YXBLOCKPATH", Trailing::Points),
    ("YXBLOCKPATHUNDO", Trailing::Points),
    ("YXDBTOPOS", Trailing::FileName),
    ("YXDBTOTXT", Trailing::FileName),
    ("YXTXTTODB", Trailing::FileName),
    ("YXDBCHECK", Trailing::Nothing),
    ("YXDBFIX", Trailing::Nothing),
    ("YXBLOCKPATHRESET", Trailing::Nothing),
    // The GUI's draw and resign offers, forbidden points of the user's, a feature dump.
    ("YXDRAW", Trailing::Nothing),
    ("YXRESIGN", Trailing::Nothing),
    ("YXFORBID", Trailing::Nothing),
    ("YXPRINTFEATURE", Trailing::Nothing),
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ParseError {
    /// Not a command we know: answered with `UNKNOWN`.
    Unknown(String),
    /// A known command with bad arguments: answered with `ERROR`.
    Bad(String),
}

/// One line inside a BOARD / YXBOARD block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum BoardLine {
    Stone { x: i64, y: i64, field: i64 },
    Done,
}

/// Longest keyword or argument echoed back in an error message.
const ECHO_LIMIT: usize = 40;

fn echo(s: &str) -> String {
    let clean: String = s.chars().filter(|c| !c.is_control()).take(ECHO_LIMIT).collect();
    if s.chars().count() > ECHO_LIMIT {
        format!("{clean}...")
    } else {
        clean
    }
}

pub(crate) fn parse(line: &str) -> Result<Command, ParseError> {
    let line = line.trim();
    if line.is_empty() {
        return Ok(Command::Nothing);
    }
    let (word, rest) = match line.find(char::is_whitespace) {
        Some(i) => (&line[..i], line[i..].trim()),
        None => (line, ""),
    };
    let keyword = word.to_ascii_uppercase();
    let no_args = |cmd: Command| {
        if rest.is_empty() {
            Ok(cmd)
        } else {
            Err(ParseError::Bad(format!("{keyword} takes no arguments")))
        }
    };
    match keyword.as_str() {
        "START" => parse_start(rest),
        "RECTSTART" => {
            let (w, h) = parse_pair(rest).map_err(|e| ParseError::Bad(format!("RECTSTART: {e}")))?;
            Ok(Command::RectStart { width: w, height: h })
        }
        "RESTART" => no_args(Command::Restart),
        "BEGIN" => no_args(Command::Begin),
        "TURN" => parse_pair(rest)
            .map(|(x, y)| Command::Turn(x, y))
            .map_err(|e| ParseError::Bad(format!("TURN: {e}"))),
        "BOARD" => no_args(Command::Board),
        "YXBOARD" => no_args(Command::YxBoard),
        "SWAP2BOARD" => no_args(Command::Swap2Board),
        "INFO" => {
            let (key, value) = match rest.find(char::is_whitespace) {
                Some(i) => (&rest[..i], rest[i..].trim()),
                None => (rest, ""),
            };
            if key.is_empty() {
                return Err(ParseError::Bad("INFO needs a key".into()));
            }
            Ok(Command::Info {
                key: key.to_ascii_lowercase(),
                value: value.to_string(),
            })
        }
        "END" => Ok(Command::End),
        "ABOUT" => Ok(Command::About),
        "TAKEBACK" => parse_pair(rest)
            .map(|(x, y)| Command::Takeback(x, y))
            .map_err(|e| ParseError::Bad(format!("TAKEBACK: {e}"))),
        "PLAY" => parse_pair(rest)
            .map(|(x, y)| Command::Play(x, y))
            .map_err(|e| ParseError::Bad(format!("PLAY: {e}"))),
        "STOP" | "YXSTOP" => Ok(Command::Stop),
        "YXSHOWFORBID" => Ok(Command::ShowForbid),
        "YXHASHCLEAR" => Ok(Command::HashClear),
        "YXHASHDUMP" | "YXHASHLOAD" | "YXSETDATABASE" => Ok(Command::File {
            use_: match keyword.as_str() {
                "YXHASHDUMP" => FileUse::HashDump,
                "YXHASHLOAD" => FileUse::HashLoad,
                _ => FileUse::Database,
            },
            path: (!rest.is_empty()).then(|| rest.to_string()),
        }),
        "YXSHOWHASHUSAGE" => no_args(Command::ShowHashUsage),
        "YXSHOWINFO" => Ok(Command::ShowInfo),
        "YXNBEST" => match parse_int(rest) {
            Ok(n) if n >= 1 => Ok(Command::NBest(n)),
            Ok(n) => Err(ParseError::Bad(format!("YXNBEST {n}: the count must be at least 1"))),
            Err(e) => Err(ParseError::Bad(format!("YXNBEST: {e}"))),
        },
        "YXSEARCHDEFEND" => no_args(Command::SearchDefend),
        "YXSWAP2STEP1" => no_args(Command::Swap2Step(1)),
        "YXSWAP2STEP2" => no_args(Command::Swap2Step(2)),
        "YXSWAP2STEP3" => no_args(Command::Swap2Step(3)),
        "YXSOOSORVSTEP1" => no_args(Command::Soosorv { step: 1, fifths: None }),
        "YXSOOSORVSTEP2" => Ok(soosorv(2, rest)),
        "YXSOOSORVSTEP3" => Ok(soosorv(3, rest)),
        "YXSOOSORVSTEP4" => Ok(soosorv(4, rest)),
        "YXSOOSORVSTEP5" => Ok(soosorv(5, rest)),
        "YXSOOSORVSTEP6" => Ok(soosorv(6, rest)),
        "YXBALANCEONE" | "YXBALANCETWO" => {
            let pair = keyword == "YXBALANCETWO";
            // Yixin-Board sends 0 when its user gave no number.
            let target = if rest.is_empty() { Ok(0) } else { parse_int(rest) };
            target
                .map(|target| Command::Balance { pair, target })
                .map_err(|e| ParseError::Bad(format!("{keyword}: {e}")))
        }
        "YXBLOCK" => no_args(Command::Block),
        "YXBLOCKUNDO" => no_args(Command::Unblock),
        "YXBLOCKRESET" => no_args(Command::BlockReset),
        "DONE" => Err(ParseError::Bad("DONE without BOARD".into())),
        other if DATABASE_COMMANDS.iter().any(|(k, _)| *k == other) => {
            let op = DATABASE_COMMANDS.iter().find(|(k, _)| *k == other).expect("listed").1;
            Ok(Command::Database {
                op,
                args: rest.to_string(),
            })
        }
        other => match NOT_CARRIED_OUT.iter().find(|(k, _)| *k == other) {
            // Their arguments (a label, a value) are the GUI's business: not checked.
            Some(&(keyword, trailing)) => Ok(Command::NotCarriedOut { keyword, trailing }),
            None => Err(ParseError::Unknown(format!("unknown command {}", echo(word)))),
        },
    }
}

/// A soosorv step followed by its move path; the number of fifth moves (steps 4 and 5)
/// is checked once the path is in, so that a bad one does not leave the path unread.
fn soosorv(step: u8, rest: &str) -> Command {
    Command::Soosorv {
        step,
        fifths: parse_int(rest).ok(),
    }
}

fn parse_start(rest: &str) -> Result<Command, ParseError> {
    let parts: Vec<&str> = rest
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|s| !s.is_empty())
        .collect();
    let num = |s: &str| parse_int(s).map_err(|e| ParseError::Bad(format!("START: {e}")));
    match parts.as_slice() {
        [n] => {
            let n = num(n)?;
            Ok(Command::Start { width: n, height: n })
        }
        [w, h] => Ok(Command::Start {
            width: num(w)?,
            height: num(h)?,
        }),
        [] => Err(ParseError::Bad("START needs a board size".into())),
        _ => Err(ParseError::Bad("START: too many arguments".into())),
    }
}

/// A decimal integer (sign allowed), bounded so that arithmetic on it cannot overflow.
pub(crate) fn parse_int(s: &str) -> Result<i64, String> {
    let s = s.trim();
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("'{}' is not a number", echo(s)));
    }
    if digits.len() > 12 {
        return Err(format!("'{}' is out of range", echo(s)));
    }
    s.parse::<i64>().map_err(|_| format!("'{}' is not a number", echo(s)))
}

/// `x,y` with optional spaces around the parts.
pub(crate) fn parse_pair(s: &str) -> Result<(i64, i64), String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.len() != 2 {
        return Err(format!("expected x,y but got '{}'", echo(s)));
    }
    Ok((parse_int(parts[0])?, parse_int(parts[1])?))
}

/// A line inside a BOARD block: `x,y,field` or `DONE`.
pub(crate) fn parse_board_line(line: &str) -> Result<BoardLine, String> {
    let line = line.trim();
    if line.eq_ignore_ascii_case("DONE") {
        return Ok(BoardLine::Done);
    }
    let parts: Vec<&str> = line.split(',').collect();
    if parts.len() != 3 {
        return Err(format!("expected x,y,field or DONE but got '{}'", echo(line)));
    }
    Ok(BoardLine::Stone {
        x: parse_int(parts[0])?,
        y: parse_int(parts[1])?,
        field: parse_int(parts[2])?,
    })
}

/// A line inside a SWAP2BOARD block: `x,y` or `DONE`.
pub(crate) fn parse_swap2_line(line: &str) -> Result<Option<(i64, i64)>, String> {
    let line = line.trim();
    if line.eq_ignore_ascii_case("DONE") {
        return Ok(None);
    }
    parse_pair(line).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands() {
        assert_eq!(parse("START 15"), Ok(Command::Start { width: 15, height: 15 }));
        assert_eq!(parse("start 15 15\r"), Ok(Command::Start { width: 15, height: 15 }));
        assert_eq!(parse("  Turn 7, 8 "), Ok(Command::Turn(7, 8)));
        assert_eq!(
            parse("RECTSTART 20,15"),
            Ok(Command::RectStart { width: 20, height: 15 })
        );
        assert_eq!(
            parse("info folder C:/a b/c"),
            Ok(Command::Info {
                key: "folder".into(),
                value: "C:/a b/c".into()
            })
        );
        assert_eq!(parse("yxstop"), Ok(Command::Stop));
        assert_eq!(parse(""), Ok(Command::Nothing));
        assert!(matches!(parse("FOO"), Err(ParseError::Unknown(_))));
        assert!(matches!(parse("TURN 7"), Err(ParseError::Bad(_))));
        assert!(matches!(parse("TURN 7,7,7"), Err(ParseError::Bad(_))));
        assert!(matches!(parse("TURN x,y"), Err(ParseError::Bad(_))));
        assert!(matches!(parse("TURN 99999999999999999999,1"), Err(ParseError::Bad(_))));
        assert!(matches!(parse("START"), Err(ParseError::Bad(_))));
        assert!(matches!(parse("START abc"), Err(ParseError::Bad(_))));
        assert!(matches!(parse("BEGIN now"), Err(ParseError::Bad(_))));
    }

    #[test]
    fn yixin_commands_not_carried_out_are_read_with_their_trailing_lines() {
        for (keyword, trailing) in NOT_CARRIED_OUT {
            let sent = format!("{} x 1", keyword.to_ascii_lowercase());
            assert_eq!(parse(&sent), Ok(Command::NotCarriedOut { keyword, trailing }), "{sent}");
        }
        assert!(matches!(parse("yxquerydatabase"), Err(ParseError::Unknown(_))));
        for (keyword, op) in DATABASE_COMMANDS {
            let sent = format!("{} 7,7 Some Text", keyword.to_ascii_lowercase());
            let args = "7,7 Some Text".to_string();
            assert_eq!(parse(&sent), Ok(Command::Database { op, args }), "{sent}");
        }
    }

    #[test]
    fn board_lines() {
        assert_eq!(parse_board_line("7,7,1"), Ok(BoardLine::Stone { x: 7, y: 7, field: 1 }));
        assert_eq!(parse_board_line("done"), Ok(BoardLine::Done));
        assert!(parse_board_line("7,7").is_err());
        assert!(parse_board_line("a,b,c").is_err());
        assert_eq!(parse_swap2_line("3, 4"), Ok(Some((3, 4))));
        assert_eq!(parse_swap2_line("DONE"), Ok(None));
        assert_eq!(parse("yxnbest 3"), Ok(Command::NBest(3)));
        assert!(matches!(parse("YXNBEST 0"), Err(ParseError::Bad(_))));
        assert!(matches!(parse("YXNBEST"), Err(ParseError::Bad(_))));
        assert_eq!(parse("yxblock"), Ok(Command::Block));
        assert_eq!(parse("YXBLOCKUNDO"), Ok(Command::Unblock));
        assert_eq!(parse("yxblockreset"), Ok(Command::BlockReset));
    }

    #[test]
    fn garbage_never_panics() {
        let long = "x".repeat(1 << 20);
        for s in [
            "\u{0}\u{1}\u{ff}",
            "ÄÖÜ 1,2",
            "TURN ,",
            "TURN -,-",
            "INFO",
            &long,
            "START -",
            "TURN 1,2,",
        ] {
            let _ = parse(s);
            let _ = parse_board_line(s);
        }
        match parse(&long) {
            Err(ParseError::Unknown(msg)) => assert!(msg.len() < 100),
            other => panic!("{other:?}"),
        }
    }
}
