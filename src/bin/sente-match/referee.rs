//! One game between two engines, refereed by the project's own game module.

use std::time::{Duration, Instant};

use sente::game::{Board, Color, Pos};

use crate::cli::{Config, EngineConfig};
use crate::clock::Clock;
use crate::engine::{Engine, Reply};
use crate::types::{Fault, FaultKind, GameRecord, GameSpec, MoveRecord, Outcome, Reason};

/// One side of the board: its engine's settings and (maybe running) process.
pub struct Seat<'a> {
    pub index: usize,
    pub name: &'a str,
    pub config: &'a EngineConfig,
    pub engine: &'a mut Option<Engine>,
}

/// Why a step stopped the game.
enum Halt {
    Fault(FaultKind, String),
    Stopped,
}

fn crash(e: std::io::Error) -> Halt {
    Halt::Fault(FaultKind::Crash, format!("write failed: {e}"))
}

/// Play one game. `seats` is [black, white]. Engines that faulted are killed (the next
/// game restarts them); the others are ended unless the match reuses processes.
pub fn play(cfg: &Config, spec: GameSpec, seats: [Seat; 2]) -> GameRecord {
    let began = Instant::now();
    let mut seats = seats;
    let mut g = Game {
        cfg,
        board: Board::new(cfg.width, cfg.height, cfg.rule),
        moves: Vec::new(),
        faults: Vec::new(),
        peak_uss: [0; 2],
        swapped: false,
    };
    for (i, &(x, y)) in spec.opening.stones.iter().enumerate() {
        g.board.make(Pos::new(x, y), Color::of_ply(i));
    }
    let (outcome, reason) = g.run(&mut seats);
    let mut spec = spec;
    if g.swapped {
        // Swap2 gave the second engine black: the record names engines by colour.
        std::mem::swap(&mut spec.black, &mut spec.white);
    }
    let stopped = outcome == Outcome::Aborted;
    for (i, seat) in seats.iter_mut().enumerate() {
        let Some(engine) = seat.engine.as_mut() else {
            continue;
        };
        let faulted = g.faults.iter().any(|f| f.color.index() == i && f.kind.loses());
        if faulted || stopped {
            engine.kill();
            *seat.engine = None;
        } else if !cfg.reuse {
            if !engine.shutdown(Duration::from_millis(cfg.end_grace_ms)) {
                g.faults.push(Fault {
                    engine: seat.index,
                    color: Color::from_index(i),
                    kind: FaultKind::HangOnEnd,
                    detail: format!("still running {} ms after END, killed", cfg.end_grace_ms),
                });
            }
            *seat.engine = None;
        }
    }
    GameRecord {
        spec,
        moves: g.moves,
        outcome,
        reason,
        faults: g.faults,
        duration: began.elapsed(),
        peak_uss: g.peak_uss,
    }
}

struct Game<'c> {
    cfg: &'c Config,
    board: Board,
    moves: Vec<MoveRecord>,
    faults: Vec<Fault>,
    /// The largest unique set size measured per colour, in bytes.
    peak_uss: [u64; 2],
    /// Swap2 gave black to the engine that was to play white.
    swapped: bool,
}

/// An answer to SWAP2BOARD.
enum Swap2Reply {
    Swap,
    Stones(Vec<(i64, i64)>),
}

/// An engine's answer to a move request.
struct Asked {
    x: i64,
    y: i64,
    ms: u64,
    messages: Vec<String>,
    /// Lines that were not a move, MESSAGE or DEBUG (ignored unless `--strict`).
    ignored: Vec<String>,
    /// The unique set size of the engine's process tree after the move.
    uss: Option<u64>,
}

impl Game<'_> {
    fn run(&mut self, seats: &mut [Seat; 2]) -> (Outcome, Reason) {
        // Start both engines; a side that cannot start loses.
        let mut failed = [false; 2];
        for (i, seat) in seats.iter_mut().enumerate() {
            match self.start(seat) {
                Ok(()) => {}
                Err(Halt::Stopped) => return (Outcome::Aborted, Reason::Aborted),
                Err(Halt::Fault(kind, detail)) => {
                    self.fault(seat.index, Color::from_index(i), kind, detail);
                    failed[i] = true;
                }
            }
        }
        match failed {
            [true, true] => return (Outcome::Draw, Reason::BothFaulted),
            [true, false] => return (Outcome::Win(Color::White), self.last_fault_reason()),
            [false, true] => return (Outcome::Win(Color::Black), self.last_fault_reason()),
            [false, false] => {}
        }
        let mut clocks = [0, 1].map(|i| Clock::new(self.cfg.tc_of(seats[i].index), self.cfg.tolerance_ms));
        if self.cfg.swap2 {
            match self.swap2_opening(seats, &mut clocks) {
                Ok(false) => {}
                Ok(true) => {
                    seats.swap(0, 1);
                    clocks.swap(0, 1);
                    self.swapped = true;
                }
                Err((_, Halt::Stopped)) => return (Outcome::Aborted, Reason::Aborted),
                Err((i, Halt::Fault(kind, detail))) => {
                    // Until the colours are settled, seat 0 is black.
                    self.fault(seats[i].index, Color::from_index(i), kind, detail);
                    return (Outcome::Win(Color::from_index(1 - i)), Reason::Fault(kind));
                }
            }
        }
        let mut informed = [false; 2];
        let mut to_move = self.board.side_to_move();
        loop {
            if self.board.is_full() {
                return (Outcome::Draw, Reason::BoardFull);
            }
            if self.cfg.draw_after.is_some_and(|n| self.board.stone_count() >= n) {
                return (Outcome::Draw, Reason::MoveLimit);
            }
            let i = to_move.index();
            let seat = &mut seats[i];
            let asked = self.ask(seat, &mut clocks[i], !informed[i]);
            informed[i] = true;
            let result = asked.and_then(|a| {
                for line in a.ignored {
                    log::warn!("{}: not a move, ignored: {line}", seat.name);
                    self.fault(
                        seat.index,
                        to_move,
                        FaultKind::IgnoredLine,
                        format!("'{}' ignored", clip(&line)),
                    );
                }
                if let Some(uss) = a.uss {
                    self.peak_uss[i] = self.peak_uss[i].max(uss);
                    let limit = seat.config.memory;
                    if limit > 0 && uss > limit {
                        return Err(Halt::Fault(
                            FaultKind::Memory,
                            format!("unique set size {} KiB over max_memory {} KiB", uss >> 10, limit >> 10),
                        ));
                    }
                }
                self.place(to_move, a.x, a.y)?;
                self.moves.push(MoveRecord {
                    x: a.x as usize,
                    y: a.y as usize,
                    color: to_move,
                    ms: a.ms,
                    messages: a.messages,
                });
                Ok(())
            });
            match result {
                Ok(()) => {}
                Err(Halt::Stopped) => return (Outcome::Aborted, Reason::Aborted),
                Err(Halt::Fault(kind, detail)) => {
                    self.fault(seat.index, to_move, kind, detail);
                    return (Outcome::Win(to_move.opposite()), Reason::Fault(kind));
                }
            }
            let last = self.board.last_move().expect("a move was made").0;
            if self.board.wins_through(last) {
                return (Outcome::Win(to_move), Reason::Five);
            }
            to_move = to_move.opposite();
        }
    }

    fn fault(&mut self, engine: usize, color: Color, kind: FaultKind, detail: String) {
        log::info!(
            "game fault: {} {}: {detail}",
            crate::types::color_name(color),
            kind.name()
        );
        self.faults.push(Fault {
            engine,
            color,
            kind,
            detail,
        });
    }

    fn last_fault_reason(&self) -> Reason {
        Reason::Fault(self.faults.last().expect("a fault").kind)
    }

    /// Make sure the engine runs, START it and send the game's INFO lines.
    fn start(&self, seat: &mut Seat) -> Result<(), Halt> {
        if seat.engine.is_none() {
            let e = Engine::spawn(&seat.config.launch, seat.name)
                .map_err(|e| Halt::Fault(FaultKind::Crash, e.to_string()))?;
            *seat.engine = Some(e);
        }
        let engine = seat.engine.as_mut().expect("engine present");
        engine.drain();
        let (w, h) = (self.cfg.width, self.cfg.height);
        let start = if w == h {
            format!("START {w}")
        } else {
            format!("RECTSTART {w},{h}")
        };
        engine.send(&start).map_err(crash)?;
        let deadline = Instant::now() + Duration::from_millis(self.cfg.start_timeout_ms);
        loop {
            match engine.recv(Some(deadline)) {
                Reply::Line(l, _) if l.eq_ignore_ascii_case("OK") => break,
                Reply::Line(l, _) if has_keyword(&l, "ERROR") || has_keyword(&l, "UNKNOWN") => {
                    return Err(Halt::Fault(
                        FaultKind::NoStartOk,
                        format!("answered '{}' to {start}", clip(&l)),
                    ))
                }
                Reply::Line(..) => continue,
                Reply::Eof => return Err(Halt::Fault(FaultKind::Crash, engine.exit_report())),
                Reply::Timeout => {
                    return Err(Halt::Fault(
                        FaultKind::NoStartOk,
                        format!("no OK to {start} within {} ms", self.cfg.start_timeout_ms),
                    ))
                }
                Reply::Stopped => return Err(Halt::Stopped),
            }
        }
        let tc = self.cfg.tc_of(seat.index);
        let c = seat.config;
        let mut info = vec![
            format!("INFO timeout_turn {}", tc.info_turn()),
            format!("INFO timeout_match {}", tc.info_match()),
            format!("INFO max_memory {}", c.memory),
            "INFO game_type 1".to_string(),
            format!("INFO rule {}", self.cfg.rule.info_value()),
        ];
        let optional = [
            ("time_increment", (tc.increment_ms > 0).then_some(tc.increment_ms)),
            ("thread_num", c.threads),
            ("max_depth", c.depth),
            ("max_node", c.nodes),
        ];
        for (key, v) in optional {
            if let Some(v) = v {
                info.push(format!("INFO {key} {v}"));
            }
        }
        for (k, v) in &c.options {
            info.push(format!("INFO {k} {v}"));
        }
        for line in info {
            engine.send(&line).map_err(crash)?;
        }
        if self.cfg.suspend {
            // As GomocupJudge: the engine sleeps until it is on move.
            engine.set_running(false);
        }
        Ok(())
    }

    /// Ask the engine on move for its move: BEGIN or BOARD the first time, TURN after.
    /// Returns the raw coordinates, the time taken, the lines before the move and the
    /// memory measured after it.
    fn ask(&self, seat: &mut Seat, clock: &mut Clock, first: bool) -> Result<Asked, Halt> {
        let engine = seat.engine.as_mut().expect("started engine");
        engine.set_running(true);
        for l in engine.drain() {
            log::debug!("{}: output between moves dropped: {l}", seat.name);
        }
        let mut commands = vec![format!("INFO time_left {}", clock.info_time_left())];
        let moves = self.board.moves();
        if !first {
            let (p, _) = moves.last().expect("the opponent moved");
            commands.push(format!("TURN {},{}", p.x(), p.y()));
        } else if moves.is_empty() {
            commands.push("BEGIN".to_string());
        } else {
            let me = Color::of_ply(moves.len());
            commands.push("BOARD".to_string());
            for &(p, c) in moves {
                commands.push(format!("{},{},{}", p.x(), p.y(), if c == me { 1 } else { 2 }));
            }
            commands.push("DONE".to_string());
        }
        for c in &commands {
            engine.send(c).map_err(crash)?;
        }
        let sent = Instant::now();
        let allowance = clock.allowance();
        let deadline = allowance.map(|a| sent + a);
        let mut messages = Vec::new();
        let mut ignored = Vec::new();
        loop {
            match engine.recv(deadline) {
                Reply::Line(l, at) => {
                    if has_keyword(&l, "MESSAGE") {
                        if self.cfg.messages {
                            messages.push(l[7..].trim().to_string());
                        }
                        continue;
                    }
                    if has_keyword(&l, "DEBUG") {
                        continue;
                    }
                    let Some((x, y)) = parse_move(&l) else {
                        if self.cfg.strict {
                            return Err(Halt::Fault(
                                FaultKind::NotAMove,
                                format!("'{}' is not a move", clip(&l)),
                            ));
                        }
                        // The Gomocup judge waits for a move and ignores the rest.
                        ignored.push(l);
                        continue;
                    };
                    let elapsed = at.saturating_duration_since(sent);
                    let ms = elapsed.as_millis() as u64;
                    if !clock.charge(elapsed) {
                        return Err(Halt::Fault(
                            FaultKind::Timeout,
                            format!("move after {ms} ms, allowed {}", allowance_ms(allowance)),
                        ));
                    }
                    let uss = engine.unique_set_size();
                    if self.cfg.suspend {
                        engine.set_running(false);
                    }
                    return Ok(Asked {
                        x,
                        y,
                        ms,
                        messages,
                        ignored,
                        uss,
                    });
                }
                Reply::Eof => return Err(Halt::Fault(FaultKind::Crash, engine.exit_report())),
                Reply::Timeout => {
                    return Err(Halt::Fault(
                        FaultKind::Timeout,
                        format!("no move within {}", allowance_ms(allowance)),
                    ))
                }
                Reply::Stopped => return Err(Halt::Stopped),
            }
        }
    }

    /// Swap2 as GomocupJudge plays it: seat 0 proposes three stones, seat 1 answers SWAP
    /// (it takes black), one move (it stays white) or two stones, on which seat 0 answers
    /// SWAP (black) or a move (white). Whether seat 1 plays black; a fault names its seat.
    fn swap2_opening(&mut self, seats: &mut [Seat; 2], clocks: &mut [Clock; 2]) -> Result<bool, (usize, Halt)> {
        let three = self
            .ask_swap2(&mut seats[0], &mut clocks[0], &[3])
            .map_err(|h| (0, h))?;
        self.place_all(three).map_err(|h| (0, h))?;
        match self
            .ask_swap2(&mut seats[1], &mut clocks[1], &[0, 1, 2])
            .map_err(|h| (1, h))?
        {
            Swap2Reply::Swap => Ok(true),
            Swap2Reply::Stones(one) if one.len() == 1 => {
                self.place_all(Swap2Reply::Stones(one)).map_err(|h| (1, h))?;
                Ok(false)
            }
            two => {
                self.place_all(two).map_err(|h| (1, h))?;
                match self
                    .ask_swap2(&mut seats[0], &mut clocks[0], &[0, 1])
                    .map_err(|h| (0, h))?
                {
                    Swap2Reply::Swap => Ok(false),
                    sixth => {
                        self.place_all(sixth).map_err(|h| (0, h))?;
                        Ok(true)
                    }
                }
            }
        }
    }

    /// Play a swap2 answer's stones in turn.
    fn place_all(&mut self, reply: Swap2Reply) -> Result<(), Halt> {
        let Swap2Reply::Stones(stones) = reply else {
            return Ok(());
        };
        for (x, y) in stones {
            let color = self.board.side_to_move();
            self.place(color, x, y)?;
            self.moves.push(MoveRecord {
                x: x as usize,
                y: y as usize,
                color,
                ms: 0,
                messages: Vec::new(),
            });
        }
        Ok(())
    }

    /// SWAP2BOARD with the stones so far; the answer must be SWAP (except on the empty
    /// board, whose `counts` is `[3]`) or as many moves as one of `counts`, on one line.
    /// Timed as a move (GomocupJudge's `new_protocol.py` waits for it as for one).
    fn ask_swap2(&self, seat: &mut Seat, clock: &mut Clock, counts: &[usize]) -> Result<Swap2Reply, Halt> {
        let engine = seat.engine.as_mut().expect("started engine");
        engine.set_running(true);
        engine.drain();
        let mut commands = vec![
            format!("INFO time_left {}", clock.info_time_left()),
            "SWAP2BOARD".to_string(),
        ];
        let to_move = self.board.side_to_move();
        for &(p, c) in self.board.moves() {
            commands.push(match seat.config.swap2_fields {
                true => format!("{},{},{}", p.x(), p.y(), if c == to_move { 1 } else { 2 }),
                false => format!("{},{}", p.x(), p.y()),
            });
        }
        commands.push("DONE".to_string());
        for c in &commands {
            engine.send(c).map_err(crash)?;
        }
        let sent = Instant::now();
        let allowance = clock.allowance();
        let deadline = allowance.map(|a| sent + a);
        loop {
            match engine.recv(deadline) {
                Reply::Line(l, _) if has_keyword(&l, "MESSAGE") || has_keyword(&l, "DEBUG") => continue,
                Reply::Line(l, at) => {
                    let elapsed = at.saturating_duration_since(sent);
                    if !clock.charge(elapsed) {
                        return Err(Halt::Fault(
                            FaultKind::Timeout,
                            format!(
                                "swap2 answer after {} ms, allowed {}",
                                elapsed.as_millis(),
                                allowance_ms(allowance)
                            ),
                        ));
                    }
                    if self.cfg.suspend {
                        engine.set_running(false);
                    }
                    let stones: Option<Vec<(i64, i64)>> = l.split_whitespace().map(parse_move).collect();
                    return match stones {
                        _ if l.trim().eq_ignore_ascii_case("SWAP") && !counts.contains(&3) => Ok(Swap2Reply::Swap),
                        Some(s) if counts.contains(&s.len()) && !s.is_empty() => Ok(Swap2Reply::Stones(s)),
                        _ => Err(Halt::Fault(
                            FaultKind::NotAMove,
                            format!("'{}' to SWAP2BOARD with {} stones", clip(&l), self.board.stone_count()),
                        )),
                    };
                }
                Reply::Eof => return Err(Halt::Fault(FaultKind::Crash, engine.exit_report())),
                Reply::Timeout => {
                    return Err(Halt::Fault(
                        FaultKind::Timeout,
                        format!("no swap2 answer within {}", allowance_ms(allowance)),
                    ))
                }
                Reply::Stopped => return Err(Halt::Stopped),
            }
        }
    }

    /// Check a move against the rules and play it.
    fn place(&mut self, color: Color, x: i64, y: i64) -> Result<(), Halt> {
        if !self.board.contains_xy(x, y) {
            return Err(Halt::Fault(
                FaultKind::OffBoard,
                format!("{x},{y} is off the {}x{} board", self.cfg.width, self.cfg.height),
            ));
        }
        let p = Pos::new(x as usize, y as usize);
        if !self.board.is_empty(p) {
            return Err(Halt::Fault(FaultKind::Occupied, format!("{x},{y} ({p}) is occupied")));
        }
        if color == Color::Black && self.board.is_forbidden(p) {
            return Err(Halt::Fault(
                FaultKind::Forbidden,
                format!("{x},{y} ({p}) is forbidden for black"),
            ));
        }
        self.board.make(p, color);
        Ok(())
    }
}

fn allowance_ms(a: Option<Duration>) -> String {
    match a {
        Some(a) => format!("{} ms", a.as_millis()),
        None => "unlimited".to_string(),
    }
}

/// Does the line start with `word` (any case) followed by the end or a space?
fn has_keyword(line: &str, word: &str) -> bool {
    let n = word.len();
    line.len() >= n
        && line.is_char_boundary(n)
        && line[..n].eq_ignore_ascii_case(word)
        && line[n..].chars().next().is_none_or(char::is_whitespace)
}

/// A move line: exactly `x,y`, two integers (spaces around them allowed).
pub fn parse_move(line: &str) -> Option<(i64, i64)> {
    let (x, y) = line.split_once(',')?;
    Some((x.trim().parse().ok()?, y.trim().parse().ok()?))
}

fn clip(s: &str) -> String {
    const MAX: usize = 80;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(MAX).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_lines() {
        assert_eq!(parse_move("7,8"), Some((7, 8)));
        assert_eq!(parse_move(" 10 , 3 "), Some((10, 3)));
        assert_eq!(parse_move("-1,5"), Some((-1, 5)));
        for bad in ["7", "7,8,9", "a,b", "7,8 extra", "OK", "", "7;8"] {
            assert_eq!(parse_move(bad), None, "{bad}");
        }
    }

    #[test]
    fn keywords() {
        assert!(has_keyword("MESSAGE depth 5", "MESSAGE"));
        assert!(has_keyword("message", "MESSAGE"));
        assert!(!has_keyword("MESSAGES", "MESSAGE"));
        assert!(!has_keyword("MES", "MESSAGE"));
        assert!(!has_keyword("Error: bad", "ERROR"));
        assert!(has_keyword("ERROR bad", "ERROR"));
    }
}
