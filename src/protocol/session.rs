//! The protocol state machine: one line at a time, translated into calls on the
//! `Engine` (game, settings, search control), whose answers become reply lines.
//!
//! A search runs on its own thread; meanwhile the session keeps reading: STOP/YXSTOP stop
//! the search (the move follows at once), END exits, and every other line waits in a
//! queue until the move is out. Every reply goes through `Output`.
//!
//! Bad input never changes the state: the engine checks each command completely before
//! it modifies anything, and the session answers with one `ERROR` (or `UNKNOWN`) line.

use std::collections::VecDeque;
use std::sync::mpsc::Sender;
use std::time::Instant;

use crate::engine::{available_cores, check_board_stone, Answer, Engine, EngineError, Job, JobResult, MAX_TT_BYTES};
use crate::game::{Color, Pos};
use crate::score::MAX_EVAL;
use crate::search::soosorv::{SoosorvAnswer, SoosorvStep};
use crate::search::swap2::Swap2Answer;
use crate::search::Searcher;

use super::command::{
    parse, parse_board_line, parse_swap2_line, BoardLine, Command, DbOp, FileUse, ParseError, Trailing,
};
use super::database;
use super::output::Output;
use super::report::{Display, Reporter};

pub(crate) const ENGINE_NAME: &str = "Sente";
pub(crate) const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// What the reader thread and the search thread tell the session.
pub(crate) enum Event {
    Line { at: Instant, text: String },
    Eof,
    Done(Box<Searcher>, JobResult),
}

#[derive(PartialEq, Eq, Debug)]
pub(crate) enum Flow {
    Continue,
    Exit,
}

/// Lines collected between BOARD / YXBOARD / SWAP2BOARD and DONE.
enum BlockInput {
    /// Stones checked line by line: a bad line is answered at once and left out.
    Board {
        yixin: bool,
        at: Instant,
        stones: Vec<(i64, i64, i64)>,
    },
    Swap2 {
        at: Instant,
        stones: Vec<(i64, i64)>,
        error: Option<String>,
    },
    /// YXBLOCK (`unblock` false) or YXBLOCKUNDO (true).
    Blocked {
        unblock: bool,
        points: Vec<(i64, i64)>,
        error: Option<String>,
    },
    /// YXHASHDUMP, YXHASHLOAD, YXSETDATABASE: the next line names the file.
    FileName(FileUse),
    /// A database command: the position's moves, up to DONE.
    Database {
        op: DbOp,
        args: String,
        points: Vec<(i64, i64)>,
        error: Option<String>,
    },
    /// YXSOOSORVSTEP2..6: the game's move path, up to DONE.
    Soosorv {
        step: u8,
        fifths: Option<i64>,
        at: Instant,
        points: Vec<(i64, i64)>,
        error: Option<String>,
    },
    /// The lines after a command not carried out (`NOT_CARRIED_OUT`): read, not used.
    Skipped { keyword: &'static str, trailing: Trailing },
}

pub(crate) struct Session {
    out: Output,
    events: Sender<Event>,
    engine: Engine,
    queue: VecDeque<(Instant, String)>,
    block: Option<BlockInput>,
    display: Display,
    /// The game's moves after our last move, while pondering on them is wanted (until a
    /// ponder search ends on its own or the position changes).
    ponder_on: Option<Vec<(Pos, Color)>>,
    /// The ponder search under way was stopped by a command (so it may start again).
    ponder_stopped: bool,
}

impl Session {
    pub(crate) fn new(out: Output, events: Sender<Event>) -> Session {
        Session {
            out,
            events,
            engine: Engine::new(),
            queue: VecDeque::new(),
            block: None,
            display: Display::default(),
            ponder_on: None,
            ponder_stopped: false,
        }
    }

    pub(crate) fn is_searching(&self) -> bool {
        self.engine.is_searching()
    }

    /// Stop a running search (END, EOF): the thread finishes on its own.
    pub(crate) fn abort(&self) {
        self.engine.stop();
    }

    pub(crate) fn handle(&mut self, event: Event) -> Flow {
        let flow = self.handle_event(event);
        if flow == Flow::Continue {
            self.maybe_ponder();
        }
        flow
    }

    fn handle_event(&mut self, event: Event) -> Flow {
        match event {
            Event::Line { at, text } => {
                if self.is_searching() {
                    return self.while_searching(at, text);
                }
                let flow = self.on_line(at, &text);
                if flow == Flow::Continue {
                    self.drain_queue()
                } else {
                    flow
                }
            }
            Event::Eof => {
                self.abort();
                Flow::Exit
            }
            Event::Done(searcher, result) => {
                let job = self.engine.running_job();
                let answer = self.engine.finish(searcher, result);
                match (job, &answer) {
                    (Some(Job::Ponder), _) if !self.ponder_stopped => self.ponder_on = None, // ended by itself
                    (Some(Job::Ponder), _) => {}
                    (Some(Job::Move), Answer::Move(_)) => self.ponder_on = self.engine.game().map(|g| g.moves.clone()),
                    _ => self.ponder_on = None,
                }
                self.answer(answer);
                self.drain_queue()
            }
        }
    }

    fn while_searching(&mut self, at: Instant, text: String) -> Flow {
        if self.engine.running_job() == Some(Job::Ponder) && !matches!(parse(&text), Ok(Command::End)) {
            // Any command ends pondering at once; it is then read as if none had run.
            // STOP ends it until our next move; after others it may start again.
            self.engine.stop();
            self.ponder_stopped = true;
            if matches!(parse(&text), Ok(Command::Stop)) {
                self.ponder_on = None;
            }
            self.queue.push_back((at, text));
            return Flow::Continue;
        }
        match parse(&text) {
            Ok(Command::Stop) => self.engine.stop(),
            Ok(Command::End) => {
                self.abort();
                self.out.close();
                return Flow::Exit;
            }
            _ => self.queue.push_back((at, text)),
        }
        Flow::Continue
    }

    fn drain_queue(&mut self) -> Flow {
        while !self.is_searching() {
            let Some((at, text)) = self.queue.pop_front() else {
                break;
            };
            if self.on_line(at, &text) == Flow::Exit {
                return Flow::Exit;
            }
        }
        Flow::Continue
    }

    /// Ponder (`Job::Ponder`) when idle, nothing is waiting and the position is still
    /// the one after our move.
    fn maybe_ponder(&mut self) {
        let idle = !self.is_searching() && self.queue.is_empty() && self.block.is_none();
        let unchanged = self.ponder_on.is_some() && self.engine.game().map(|g| &g.moves) == self.ponder_on.as_ref();
        if idle && unchanged && self.engine.may_ponder() {
            self.ponder_stopped = false;
            self.start_search(Job::Ponder, Instant::now());
        }
    }

    fn reply(&self, text: &str) {
        self.out.line(text);
    }

    fn error(&self, text: &str) {
        self.out.line(&format!("ERROR {text}"));
    }

    /// `ERROR COMMAND: why` for a command the engine refused, which changed nothing.
    fn refuse(&self, command: &str, e: &EngineError) {
        self.error(&format!("{command}: {e}; nothing changed"));
    }

    /// `OK` or the refusal.
    fn ok_or_refuse(&self, command: &str, r: Result<(), EngineError>) {
        match r {
            Ok(()) => self.reply("OK"),
            Err(e) => self.refuse(command, &e),
        }
    }

    /// Search for `job` once `ready` says the position is set, else report why not.
    fn go(&mut self, command: &str, ready: Result<Job, EngineError>, at: Instant) {
        match ready {
            Ok(job) => self.start_search(job, at),
            Err(e) => self.refuse(command, &e),
        }
    }

    /// One line, when no search is running.
    fn on_line(&mut self, at: Instant, text: &str) -> Flow {
        log::debug!("<< {text}");
        // Lets the tests prove that a panic never reaches the pipe (see tests/panic_hook.rs).
        if text.trim() == "SENTE-TEST-PANIC" && std::env::var_os("SENTE_TEST_PANIC").is_some() {
            panic!("requested by SENTE_TEST_PANIC");
        }
        if self.block.is_some() {
            return self.on_block_line(text);
        }
        let command = match parse(text) {
            Ok(c) => c,
            Err(ParseError::Unknown(msg)) => {
                self.reply(&format!("UNKNOWN {msg}"));
                return Flow::Continue;
            }
            Err(ParseError::Bad(msg)) => {
                self.error(&msg);
                return Flow::Continue;
            }
        };
        let e = &mut self.engine;
        match command {
            Command::Nothing | Command::Stop => {}
            Command::End => {
                self.abort();
                self.out.close();
                return Flow::Exit;
            }
            Command::About => self.reply(&format!(
                "name=\"{ENGINE_NAME}\", version=\"{ENGINE_VERSION}\", author=\"Sente developers\", country=\"International\""
            )),
            Command::Info { key, value } => {
                if key == "show_detail" {
                    // Bit 1 asks for the realtime lines (bit 2, Rapfi's INFO lines: not kept).
                    if let Ok(v) = value.trim().parse::<i64>() {
                        self.display.show_detail = Some(v & 1 != 0);
                    }
                }
                e.set_option(&key, &value)
            }
            Command::Start { width, height } | Command::RectStart { width, height } => {
                let r = e.new_game(width, height);
                self.ok_or_refuse("START", r)
            }
            Command::Restart => {
                let r = e.restart();
                self.ok_or_refuse("RESTART", r)
            }
            Command::Begin => {
                let r = e.begin().map(|()| Job::Move);
                self.go("BEGIN", r, at)
            }
            Command::Turn(x, y) => {
                let r = e.opponent_move(x, y).map(|()| Job::Move);
                self.go("TURN", r, at)
            }
            Command::Board => self.block = Some(BlockInput::Board { yixin: false, at, stones: Vec::new() }),
            Command::YxBoard => self.block = Some(BlockInput::Board { yixin: true, at, stones: Vec::new() }),
            Command::Soosorv { step: 1, .. } => {
                let r = e.prepare_soosorv(1, None, &[]);
                self.go("YXSOOSORVSTEP1", r, at)
            }
            Command::Soosorv { step, fifths } => {
                self.block = Some(BlockInput::Soosorv {
                    step,
                    fifths,
                    at,
                    points: Vec::new(),
                    error: None,
                })
            }
            Command::Swap2Board => self.block = Some(BlockInput::Swap2 { at, stones: Vec::new(), error: None }),
            Command::Takeback(x, y) => {
                let r = e.takeback(x, y);
                self.ok_or_refuse("TAKEBACK", r)
            }
            Command::Play(x, y) => match e.play_own(x, y) {
                Ok(()) => self.reply(&format!("{x},{y}")),
                Err(err) => self.refuse("PLAY", &err),
            },
            Command::ShowForbid => match e.forbidden_points() {
                Ok(points) => {
                    let list: String = points.iter().map(|p| format!("{:02}{:02}", p.x(), p.y())).collect();
                    self.reply(&format!("FORBID {list}."))
                }
                Err(err) => self.refuse("YXSHOWFORBID", &err),
            },
            Command::HashClear => e.clear_hash(),
            Command::File { use_, path: Some(path) } => self.file(use_, &path),
            Command::File { use_, path: None } => self.block = Some(BlockInput::FileName(use_)),
            Command::Database { op, args } => {
                self.block = Some(BlockInput::Database { op, args, points: Vec::new(), error: None })
            }
            Command::ShowHashUsage => {
                let (permille, bytes) = e.hash_usage();
                let mib = bytes >> 20;
                self.reply(&format!("MESSAGE hash usage {}.{}% of {mib} MiB", permille / 10, permille % 10));
            }
            Command::NBest(n) => {
                let r = e.prepare_nbest(n);
                self.go("YXNBEST", r, at)
            }
            Command::Balance { pair, target } => {
                let target = target.clamp(-i64::from(MAX_EVAL), i64::from(MAX_EVAL)) as i32;
                let r = e.prepare_analysis(Job::Balance { pair, target });
                let command = if pair { "YXBALANCETWO" } else { "YXBALANCEONE" };
                self.go(command, r, at)
            }
            Command::Swap2Step(step) => {
                let r = e.prepare_swap2_step(step);
                self.go(&format!("YXSWAP2STEP{step}"), r, at)
            }
            Command::SearchDefend => {
                let r = e.prepare_analysis(Job::Defend);
                self.go("YXSEARCHDEFEND", r, at)
            }
            Command::Block => self.block = Some(BlockInput::Blocked { unblock: false, points: Vec::new(), error: None }),
            Command::Unblock => self.block = Some(BlockInput::Blocked { unblock: true, points: Vec::new(), error: None }),
            Command::BlockReset => e.reset_blocks(),
            Command::NotCarriedOut { keyword, trailing } => match trailing {
                Trailing::Nothing => self.not_carried_out(keyword),
                _ => self.block = Some(BlockInput::Skipped { keyword, trailing }),
            },
            Command::ShowInfo => {
                self.display.gui = true;
                self.reply(&format!("MESSAGE {ENGINE_NAME} {ENGINE_VERSION}"));
                self.reply(&format!("MESSAGE INFO MAX_THREAD_NUM {}", available_cores()));
                // Yixin-Board reads it as log2 of KiB, the unit of `INFO hash_size`.
                self.reply(&format!("MESSAGE INFO MAX_HASH_SIZE {}", (MAX_TT_BYTES >> 10).ilog2()));
            }
        }
        Flow::Continue
    }

    fn on_block_line(&mut self, text: &str) -> Flow {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Flow::Continue;
        }
        if trimmed.eq_ignore_ascii_case("END") {
            self.abort();
            self.out.close();
            return Flow::Exit;
        }
        // A new game ends the block: managers send START again after a timeout.
        if let Ok(Command::Start { .. } | Command::RectStart { .. } | Command::Restart) = parse(trimmed) {
            self.block = None;
            return self.on_line(Instant::now(), trimmed);
        }
        if let Some(BlockInput::FileName(use_)) = self.block {
            self.block = None;
            self.file(use_, trimmed);
            return Flow::Continue;
        }
        if let Some(BlockInput::Skipped { keyword, trailing }) = self.block {
            if trailing == Trailing::FileName || trimmed.eq_ignore_ascii_case("DONE") {
                self.block = None;
                self.not_carried_out(keyword);
            }
            return Flow::Continue;
        }
        let size = self.engine.game().map(|g| (g.width, g.height));
        let mut bad = None;
        let done = match self.block.as_mut().expect("in a block") {
            BlockInput::Board { stones, yixin, .. } => match parse_board_line(trimmed) {
                Ok(BoardLine::Done) => true,
                Ok(BoardLine::Stone { x, y, field }) => {
                    match check_board_stone(stones, size, x, y, field) {
                        Ok(()) => stones.push((x, y, field)),
                        Err(e) => bad = Some((*yixin, e.to_string())),
                    }
                    false
                }
                Err(e) => {
                    bad = Some((*yixin, e));
                    false
                }
            },
            BlockInput::Swap2 {
                stones: points, error, ..
            }
            | BlockInput::Blocked { points, error, .. }
            | BlockInput::Soosorv { points, error, .. }
            | BlockInput::Database { points, error, .. } => match parse_swap2_line(trimmed) {
                Ok(None) => true,
                Ok(Some(xy)) => {
                    points.push(xy);
                    false
                }
                Err(e) => {
                    error.get_or_insert(e);
                    false
                }
            },
            BlockInput::Skipped { .. } | BlockInput::FileName(_) => unreachable!("read above"),
        };
        if let Some((yixin, e)) = bad {
            // As the Gomocup judge and Rapfi do: report the line, keep the others.
            let command = if yixin { "YXBOARD" } else { "BOARD" };
            self.error(&format!("{command}: {e}; line ignored"));
        }
        if done {
            match self.block.take().expect("in a block") {
                BlockInput::Board { yixin, at, stones } => {
                    let command = if yixin { "YXBOARD" } else { "BOARD" };
                    match self.engine.set_position(&stones, !yixin) {
                        Ok(()) if yixin => {}
                        Ok(()) => self.start_search(Job::Move, at),
                        Err(e) => self.refuse(command, &e),
                    }
                }
                BlockInput::Swap2 { at, stones, error } => match error {
                    Some(e) => self.error(&format!("SWAP2BOARD: {e}; nothing changed")),
                    None => match self.engine.set_swap2_position(&stones) {
                        Ok(()) => self.start_search(Job::Swap2, at),
                        Err(e) => self.refuse("SWAP2BOARD", &e),
                    },
                },
                BlockInput::Skipped { .. } | BlockInput::FileName(_) => unreachable!("read above"),
                BlockInput::Soosorv {
                    step,
                    fifths,
                    at,
                    points,
                    error,
                } => {
                    let command = format!("YXSOOSORVSTEP{step}");
                    match error {
                        Some(e) => self.error(&format!("{command}: {e}; nothing changed")),
                        None => {
                            let r = self.engine.prepare_soosorv(step, fifths, &points);
                            self.go(&command, r, at);
                        }
                    }
                }
                BlockInput::Database {
                    op,
                    args,
                    points,
                    error,
                } => match error {
                    Some(e) => self.error(&format!("database: {e}; nothing changed")),
                    None => {
                        for line in database::answer(&mut self.engine, op, &args, &points) {
                            self.reply(&line);
                        }
                    }
                },
                BlockInput::Blocked { unblock, points, error } => {
                    let command = if unblock { "YXBLOCKUNDO" } else { "YXBLOCK" };
                    match error {
                        Some(e) => self.error(&format!("{command}: {e}; nothing changed")),
                        None => {
                            if let Err(e) = self.engine.block_points(&points, unblock) {
                                self.refuse(command, &e);
                            }
                        }
                    }
                }
            }
        }
        Flow::Continue
    }

    /// YXHASHDUMP, YXHASHLOAD or YXSETDATABASE of `path`: a MESSAGE when done, one ERROR
    /// (nothing changed) when not.
    fn file(&mut self, use_: FileUse, path: &str) {
        let file = std::path::Path::new(path);
        let e = &mut self.engine;
        let (command, done) = match use_ {
            FileUse::HashLoad => (
                "YXHASHLOAD",
                e.load_hash(file)
                    .map(|n| format!("hash table loaded from {path}: {n} entries")),
            ),
            FileUse::HashDump => (
                "YXHASHDUMP",
                e.dump_hash(file)
                    .map(|n| format!("hash table dumped to {path}: {n} entries")),
            ),
            FileUse::Database => (
                "YXSETDATABASE",
                e.set_database_file(file)
                    .map(|n| format!("database {path}: {n} records")),
            ),
        };
        match done {
            Ok(text) => self.reply(&format!("MESSAGE {text}")),
            Err(why) => self.error(&format!("{command}: {why}; nothing changed")),
        }
    }

    /// The answer to a command read whole but not carried out: one MESSAGE.
    fn not_carried_out(&self, keyword: &str) {
        self.reply(&format!("MESSAGE {keyword}: not carried out by this engine"));
    }

    /// Start `job` on the search thread; its progress becomes MESSAGE lines and its end
    /// an `Event::Done`.
    fn start_search(&mut self, job: Job, at: Instant) {
        let silent = job == Job::Ponder;
        if let Some(text) = self.engine.settings.memory_warning().filter(|_| !silent) {
            // The protocol's place for a problem found in INFO: with the next move.
            self.reply(&format!("MESSAGE {text}"));
        }
        let shows_lists = matches!(job, Job::NBest(n) if n > 1) || job == Job::Defend;
        let width = self.engine.game().map_or(0, |g| g.width);
        let mut reporter = Reporter::new(self.out.clone(), &self.display, width, shows_lists);
        let task = self.engine.prepare(job, at);
        if !silent {
            for text in self.engine.take_notices() {
                self.reply(&format!("MESSAGE {text}"));
            }
        }
        let events = self.events.clone();
        let work = move || {
            let (searcher, result) = task.run(&mut |p| {
                if !silent {
                    reporter.progress(p)
                }
            });
            let _ = events.send(Event::Done(searcher, result));
        };
        if let Err(e) = std::thread::Builder::new()
            .name("search".into())
            .stack_size(64 << 20)
            .spawn(work)
        {
            log::error!("cannot start the search thread: {e}");
            // Without a thread the move still comes, from a fallback.
            let answer = self.engine.abandon();
            self.answer(answer);
        }
    }

    /// The reply to a finished search.
    fn answer(&self, answer: Answer) {
        let xy = |p: &Pos| format!("{},{}", p.x(), p.y());
        match answer {
            Answer::Move(p) => self.reply(&xy(&p)),
            Answer::Opening(stones) => self.reply(&stones.iter().map(xy).collect::<Vec<_>>().join(" ")),
            Answer::Swap => self.reply("SWAP"),
            Answer::Stones(stones) => stones.iter().for_each(|p| self.reply(&xy(p))),
            Answer::NoMove => self.error("no legal move"),
            Answer::Nothing => {}
            Answer::Swap2Step { stones, answer } => self.swap2_step(stones, answer),
            Answer::Soosorv { step, answer } => self.soosorv_step(step, answer),
        }
    }

    /// A YXSOOSORVSTEP answer as Yixin-Board reads it (`MESSAGE SOOSORV …`; a point is
    /// `x y`; SWAP1 is the choice on three stones, SWAP2 on four, Y takes the other colour).
    fn soosorv_step(&self, step: SoosorvStep, answer: SoosorvAnswer) {
        let say = |what: String| self.reply(&format!("MESSAGE SOOSORV {what}"));
        match answer {
            SoosorvAnswer::Opening(three) => {
                for (n, p) in (1..).zip(three) {
                    say(format!("MOVE{n} {} {}", p.x(), p.y()));
                }
            }
            SoosorvAnswer::Swap(swap) => say(format!(
                "SWAP{} {}",
                if step == SoosorvStep::SwapAfterThree { 1 } else { 2 },
                if swap { "Y" } else { "N" }
            )),
            SoosorvAnswer::Fourth(p, n) => say(format!("MOVE4 {} {} {n}", p.x(), p.y())),
            SoosorvAnswer::Offers(offers) => {
                for p in offers {
                    say(format!("MOVE5 {} {}", p.x(), p.y()));
                }
                say("MOVE5 DONE".into());
            }
            // No space: main.c reads the letter right after MOVE5.
            SoosorvAnswer::Choice(p) => say(format!("MOVE5C {} {}", p.x(), p.y())),
        }
    }

    /// A YXSWAP2STEP answer as Yixin-Board reads it (`MESSAGE SWAP2 …`; a point is `x y`).
    fn swap2_step(&self, stones: usize, answer: Swap2Answer) {
        let at = |n: usize, p: Pos| self.reply(&format!("MESSAGE SWAP2 MOVE{n} {} {}", p.x(), p.y()));
        // SWAP1 is the choice on three stones, SWAP2 on five; YES takes black.
        let choice = if stones == 3 { "SWAP1" } else { "SWAP2" };
        match answer {
            Swap2Answer::Opening(three) => (1..).zip(three).for_each(|(n, p)| at(n, p)),
            Swap2Answer::Two(two) => (4..).zip(two).for_each(|(n, p)| at(n, p)),
            Swap2Answer::Swap => self.reply(&format!("MESSAGE SWAP2 {choice} YES")),
            Swap2Answer::Move(_) => self.reply(&format!("MESSAGE SWAP2 {choice} NO")),
        }
    }
}
