//! The engine facade (in the spirit of Stockfish's `engine.h`): the game, the settings
//! (limits, rule, memory, threads) and search control, behind one small API used by the
//! protocol session, by tests and by tools. It knows nothing of the protocol's text:
//! a refusal is an `EngineError` for the caller to word, and the search reports its
//! progress through a callback.
//!
//! A search is a `Task` (the searcher, a copy of the position, the limits, the stop
//! flag) that can run on any thread; `Engine::finish` takes the searcher back and plays
//! the answer. `Engine::think` does both on the calling thread.
//!
//! Bad input never changes the state: every method checks everything before it
//! modifies anything.

pub mod database;
mod error;
pub(crate) mod game;
pub(crate) mod settings;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use crate::game::geometry::{MAX_SIZE, MIN_SIZE};
use crate::game::pattern::PatternTables;
use crate::game::{Board, Color, Pos, PosSet, Rule};
use crate::nnue::Network;
use crate::search::balance::Balanced;
use crate::search::defend::Defences;
use crate::search::soosorv::{SoosorvAnswer, SoosorvStep, MAX_FIFTHS};
use crate::search::swap2::{self, Swap2Answer};
use crate::search::time::UNLIMITED;
use crate::search::tt_file::{self, TableTag};
use crate::search::{Decision, Limits, SearchEvent, SearchResult, Searcher};

use database::{Database, Position};
pub use error::EngineError;
pub(crate) use game::Game;

/// The analysis database's file unless YXSETDATABASE names another.
const DEFAULT_DATABASE: &str = "sente.db";
pub(crate) use settings::{Settings, MAX_TT_BYTES};

/// What to search for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Job {
    /// Our move.
    Move,
    /// A SWAP2BOARD decision.
    Swap2,
    /// Yixin-Board's YXSWAP2STEP1..3: the same decision on the position set, answered
    /// as its steps (a move to stay white is not played: the GUI asks for it).
    Swap2Step,
    /// YXNBEST: this many best moves, one search each, then play the first.
    NBest(usize),
    /// YXSEARCHDEFEND: every move after which the opponent has no forced win, then the
    /// best of them, played.
    Defend,
    /// YXBALANCEONE / YXBALANCETWO: the stone (`pair` false) or our stone and the
    /// opponent's after which the score for us is nearest `target`; played.
    Balance { pair: bool, target: i32 },
    /// Pondering: the position after our move searched for the opponent, untimed, until
    /// stopped, for what the table learns; no answer.
    Ponder,
    /// Yixin-Board's YXSOOSORVSTEP1..6: one step of renju's Soosorv-8 opening (the
    /// stones we place are played, offers are not).
    Soosorv(SoosorvStep),
}

pub(crate) enum JobResult {
    Soosorv(SoosorvAnswer),
    Move(SearchResult),
    Balance(Balanced),
    Swap2(Swap2Answer),
}

/// What a search tells while it runs.
pub enum Progress<'a> {
    /// What the search itself tells: finished iterations, root moves taken up and done.
    Search(SearchEvent<'a>),
    /// Rank `n` of YXNBEST.
    Rank(usize, &'a SearchResult),
    /// A move decided without the main search (a five, a forced block, a VCF, ...).
    Decided(&'a SearchResult),
    /// The stones a balance search chose, with its target.
    Balanced(&'a Balanced, i32),
    /// YXSEARCHDEFEND's defences, before the move is searched among them.
    Defences(&'a Defences),
    /// YXNBEST found fewer ranks than asked (`found`, `asked`): the turn's time or the
    /// legal moves ran out.
    FewerRanks(usize, usize),
}

/// The answer a finished search gives, already played on the engine's board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Move(Pos),
    /// SWAP2BOARD: the stones placed, on one line (three on an empty board: black, white,
    /// black; two on three stones: white, black).
    Opening(Vec<Pos>),
    /// SWAP2BOARD: we take black.
    Swap,
    /// YXBALANCEONE / YXBALANCETWO: the stones played (ours, then the opponent's), each
    /// on a line of its own, as Yixin-Board places every move line it reads.
    Stones(Vec<Pos>),
    /// No legal move (renju: every empty point forbidden for black).
    NoMove,
    /// Pondering ended: nothing to say.
    Nothing,
    /// YXSWAP2STEP on `stones` stones: what was decided (stones placed are played).
    Swap2Step {
        stones: usize,
        answer: Swap2Answer,
    },
    /// YXSOOSORVSTEPn: what `step` decided.
    Soosorv {
        step: SoosorvStep,
        answer: SoosorvAnswer,
    },
}

/// A search ready to run on any thread.
pub(crate) struct Task {
    searcher: Box<Searcher>,
    board: Board,
    us: Color,
    limits: Limits,
    stop: Arc<AtomicBool>,
    job: Job,
    at: Instant,
}

impl Task {
    /// Run the search; gives the searcher back with the result (for `Engine::finish`).
    pub(crate) fn run(self, progress: &mut dyn FnMut(Progress)) -> (Box<Searcher>, JobResult) {
        let Task {
            mut searcher,
            board,
            us,
            limits,
            stop,
            job,
            at,
        } = self;
        let (board, us, limits, stop, job, at) = (&board, &us, &limits, &*stop, &job, &at);
        // Iterations and ranks both report, never at the same time.
        let progress = std::cell::RefCell::new(progress);
        let mut report = |event: SearchEvent| (progress.borrow_mut())(Progress::Search(event));
        let result = match *job {
            Job::Swap2 | Job::Swap2Step => {
                JobResult::Swap2(swap2::decide(&mut searcher, board, limits, stop, *at, &mut report))
            }
            Job::NBest(n) if n > 1 => {
                let mut found = 0;
                let mut on_rank = |rank: usize, r: &SearchResult| {
                    found = rank;
                    (progress.borrow_mut())(Progress::Rank(rank, r))
                };
                let only = |_| PosSet::default();
                let r = searcher.search_ranked(board, *us, limits, stop, *at, n, &only, &mut report, &mut on_rank);
                if found < n {
                    (progress.borrow_mut())(Progress::FewerRanks(found, n));
                }
                JobResult::Move(r)
            }
            Job::Balance { pair, target } => {
                let stones = 1 + usize::from(pair);
                let b = searcher.search_balanced(board, *us, limits, stop, *at, stones, target, &mut report);
                (progress.borrow_mut())(Progress::Balanced(&b, target));
                JobResult::Balance(b)
            }
            Job::Defend => {
                let mut on_defences = |d: &Defences| (progress.borrow_mut())(Progress::Defences(d));
                let r = searcher.search_defend(board, *us, limits, stop, *at, &mut report, &mut on_defences);
                JobResult::Move(r)
            }
            Job::Ponder => JobResult::Move(searcher.ponder(board, *us, limits, stop, *at)),
            Job::Soosorv(step) => JobResult::Soosorv(searcher.soosorv(board, step, limits, stop, *at, &mut report)),
            _ => {
                let r = searcher.search(board, *us, limits, stop, *at, &mut report);
                if r.decision != Decision::Search {
                    (progress.borrow_mut())(Progress::Decided(&r));
                }
                JobResult::Move(r)
            }
        };
        (searcher, result)
    }
}

/// The search under way: when its command arrived, the match clock then and its hard
/// time limit (for the overhead meter).
struct Running {
    job: Job,
    started: Instant,
    left_ms: i64,
    hard_ms: i64,
}

pub struct Engine {
    pub settings: Settings,
    game: Option<Game>,
    /// The idle searcher; `None` while a `Task` has it.
    searcher: Option<Box<Searcher>>,
    running: Option<Running>,
    stop: Arc<AtomicBool>,
    /// Points we must not play (YXBLOCK), until YXBLOCKRESET or a new game.
    blocked: PosSet,
    /// Weight tables to give the searcher before its next search.
    pending_weights: Vec<(String, String)>,
    /// A weight file to load before the next search (`INFO eval_file`).
    pending_eval_file: Option<String>,
    /// The weight file in use: its path and rule, and the game rule it was last found
    /// not to fit (said once per rule).
    eval_file: Option<(String, Rule, Option<Rule>)>,
    /// A network file to load before the next search (`INFO nnue_file`).
    pending_nnue_file: Option<String>,
    /// The network `INFO nnue_file` loaded: played, where `INFO nnue_use` asks, in the
    /// games of its rule instead of the embedded one.
    nnue_file_net: Option<Arc<Network>>,
    /// The game rule the loaded network was last found not to fit (said once per rule).
    nnue_warned: Option<Rule>,
    /// Things to tell the manager (as MESSAGE lines) when the next search starts.
    notices: Vec<String>,
    /// The pattern tables being built in the background; a new game waits for them.
    tables: Option<JoinHandle<()>>,
    /// Yixin-Board's analysis database: on (`INFO usedatabase 1`), its file (`sente.db`
    /// in the working directory unless YXSETDATABASE names another), and the database
    /// once opened (at its first use). Off, nothing is read or written.
    database_on: bool,
    database_path: PathBuf,
    database: Option<Database>,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

impl Engine {
    pub fn new() -> Engine {
        let settings = Settings::default();
        let searcher = Box::new(Searcher::new(settings.tt_bytes()));
        Engine {
            settings,
            game: None,
            searcher: Some(searcher),
            running: None,
            stop: Arc::new(AtomicBool::new(false)),
            blocked: PosSet::default(),
            pending_weights: Vec::new(),
            pending_eval_file: None,
            eval_file: None,
            pending_nnue_file: None,
            nnue_file_net: None,
            nnue_warned: None,
            notices: Vec::new(),
            // Started at once: the manager is still launching us and sending START.
            tables: std::thread::Builder::new()
                .name("tables".into())
                .spawn(PatternTables::build_all)
                .ok(),
            database_on: false,
            database_path: PathBuf::from(DEFAULT_DATABASE),
            database: None,
        }
    }

    pub fn game(&self) -> Option<&Game> {
        self.game.as_ref()
    }

    fn game_mut(&mut self) -> Result<&mut Game, EngineError> {
        self.game.as_mut().ok_or(EngineError::NoGame)
    }

    fn game_ref(&self) -> Result<&Game, EngineError> {
        self.game.as_ref().ok_or(EngineError::NoGame)
    }

    pub(crate) fn is_searching(&self) -> bool {
        self.running.is_some()
    }

    /// `INFO hash_size` (Yixin-Board's; no tournament manager sends it) takes effect at
    /// once while no search runs (else at the next search), the table's pages mapped now:
    /// the first search after Yixin-Board's `hash_size 524288` (286 MiB) reached depth 5
    /// in 550 ms, where one on the table it already had reached 14. Mapping 286 MiB took
    /// 755 ms on a cold machine: a tournament's clock may be running while the engine
    /// reads `max_memory` (GomocupJudge sends START and the INFO lines together and then
    /// times the first move), so those sizes still take effect at the next search.
    fn allocate_table(&mut self) {
        if let Some(searcher) = self.searcher.as_mut() {
            searcher.resize_tt_now(self.settings.tt_bytes());
        }
    }

    /// The job of the search under way, if one is.
    pub(crate) fn running_job(&self) -> Option<Job> {
        self.running.as_ref().map(|r| r.job)
    }

    /// Ask a running search to stop; its answer follows.
    pub(crate) fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// `INFO key value`.
    pub fn set_option(&mut self, key: &str, value: &str) {
        let num = value.trim().parse::<i64>().ok();
        let changed = self.settings.set(key, value, num);
        if key == "hash_size" {
            self.allocate_table();
        }
        match changed {
            settings::Changed::Nothing => {}
            settings::Changed::Rule => {
                let rule = self.settings.rule;
                if let Some(game) = &self.game {
                    self.game = Some(game.rebuilt(rule));
                }
            }
            settings::Changed::Weights(table, values) => self.pending_weights.push((table, values)),
            settings::Changed::EvalFile(path) => self.pending_eval_file = Some(path),
            settings::Changed::NnueFile(path) => self.pending_nnue_file = Some(path),
            settings::Changed::UseDatabase(on) => {
                self.database_on = on;
                if !on {
                    self.database = None;
                }
            }
        }
    }

    /// The analysis database, opened at its first use; `None` when it is off.
    pub(crate) fn database(&mut self) -> Result<Option<&mut Database>, String> {
        if !self.database_on {
            return Ok(None);
        }
        if self.database.is_none() {
            self.database = Some(Database::open(&self.database_path)?);
        }
        Ok(self.database.as_mut())
    }

    /// YXSETDATABASE: the database of another file (a new one if there is none); how
    /// many records it holds. A file that cannot be read changes nothing.
    pub(crate) fn set_database_file(&mut self, path: &Path) -> Result<usize, String> {
        if !self.database_on {
            return Err("the database is off (INFO usedatabase 1 turns it on)".into());
        }
        let db = Database::open(path)?;
        let n = db.len();
        self.database = Some(db);
        self.database_path = path.to_path_buf();
        Ok(n)
    }

    /// The position of a database command: the moves in order, black first.
    pub(crate) fn database_position(&self, points: &[(i64, i64)]) -> Result<Position, EngineError> {
        let game = self.game_ref()?;
        let mut stones = Vec::new();
        for (i, &(x, y)) in points.iter().enumerate() {
            let p = game.on_board(x, y)?;
            if stones.iter().any(|&(q, _)| q == p) {
                return Err(EngineError::Repeated { x, y });
            }
            stones.push((p, Color::of_ply(i)));
        }
        Ok(Position {
            rule: game.board.rule(),
            width: game.width,
            height: game.height,
            stones,
        })
    }

    /// A point of the board that `pos` leaves empty (a database text's place).
    pub(crate) fn database_point(&self, pos: &Position, x: i64, y: i64) -> Result<Pos, EngineError> {
        let p = self.game_ref()?.on_board(x, y)?;
        if pos.stones.iter().any(|&(q, _)| q == p) {
            return Err(EngineError::Occupied { x, y });
        }
        Ok(p)
    }

    /// A new, empty game (START, RECTSTART, RESTART).
    pub fn new_game(&mut self, width: i64, height: i64) -> Result<(), EngineError> {
        let range = MIN_SIZE as i64..=MAX_SIZE as i64;
        if !range.contains(&width) || !range.contains(&height) {
            return Err(EngineError::BoardSize { width, height });
        }
        if let Some(tables) = self.tables.take() {
            // The first game starts once every rule's tables exist, so that no move
            // (whatever INFO rule comes next) pays for building them.
            let _ = tables.join();
        }
        let same_size = self
            .game
            .as_ref()
            .is_some_and(|g| (g.width, g.height) == (width as usize, height as usize));
        self.game = Some(Game::new(width as usize, height as usize, self.settings.rule));
        self.settings.meter.new_game();
        // Yixin-Board sends START and BOARD for every move and YXBLOCKRESET when it means
        // to clear the blocked points: they stay while the size does.
        if !same_size {
            self.blocked = PosSet::default();
        }
        if let Some(s) = self.searcher.as_mut() {
            // The table is kept for the same board (its rule is checked at the search).
            if same_size {
                s.new_game();
            } else {
                s.clear();
            }
        }
        Ok(())
    }

    /// The same board size again.
    pub(crate) fn restart(&mut self) -> Result<(), EngineError> {
        let g = self.game_ref()?;
        let (w, h) = (g.width as i64, g.height as i64);
        self.new_game(w, h)
    }

    /// BEGIN: we open the game as black.
    pub fn begin(&mut self) -> Result<(), EngineError> {
        let game = self.game_mut()?;
        if !game.moves.is_empty() {
            return Err(EngineError::NotEmpty);
        }
        if game.board.is_full() {
            return Err(EngineError::BoardFull);
        }
        game.ours = Some(Color::Black);
        Ok(())
    }

    /// TURN: the opponent's stone on (x, y); we move next.
    pub fn opponent_move(&mut self, x: i64, y: i64) -> Result<(), EngineError> {
        let game = self.game_mut()?;
        let p = game.empty_point(x, y)?;
        if game.board.empty_points().len() == 1 {
            // No move would be left for us: refuse it whole, never keep the stone and
            // answer ERROR (managers end the game as a draw before this).
            return Err(EngineError::LastPoint { x, y });
        }
        let theirs = match game.ours {
            Some(ours) => ours.opposite(),
            None => game.board.side_to_move(),
        };
        game.ours = Some(theirs.opposite());
        game.play(p, theirs);
        Ok(())
    }

    /// BOARD / YXBOARD: a new position from `(x, y, field)` stones in play order (field
    /// 1 ours, 2 theirs, 3 blocked), checked as `check_board_stone` does. With `to_move`
    /// a board without an empty point is refused.
    pub fn set_position(&mut self, stones: &[(i64, i64, i64)], to_move: bool) -> Result<(), EngineError> {
        let old = self.game_ref()?;
        let (w, h) = (old.width, old.height);
        for (i, &(x, y, field)) in stones.iter().enumerate() {
            check_board_stone(&stones[..i], Some((w, h)), x, y, field)?;
        }
        let own = stones.iter().filter(|s| s.2 == 1).count();
        let theirs = stones.iter().filter(|s| s.2 == 2).count();
        // Under renju the lines come in play order and the first stone is black
        // (protocol.md, BOARD; Rapfi reads it so), which also holds for a set-up position
        // whose counts do not alternate, such as a puzzle with White to move and as many
        // stones as Black. Otherwise we are to move: white when the opponent has more
        // stones (black began), black otherwise.
        let first = stones.iter().find(|s| s.2 != 3);
        let ours = match first {
            Some(s) if self.settings.rule.has_forbidden() => {
                if s.2 == 1 {
                    Color::Black
                } else {
                    Color::White
                }
            }
            _ if theirs > own => Color::White,
            _ => Color::Black,
        };
        let point = |x: i64, y: i64| Pos::new(x as usize, y as usize);
        let blocks: Vec<Pos> = stones.iter().filter(|s| s.2 == 3).map(|s| point(s.0, s.1)).collect();
        let moves: Vec<(Pos, Color)> = stones
            .iter()
            .filter(|s| s.2 != 3)
            .map(|s| (point(s.0, s.1), if s.2 == 1 { ours } else { ours.opposite() }))
            .collect();
        if to_move && blocks.len() + moves.len() == w * h {
            return Err(EngineError::BoardFull);
        }
        self.game = Some(Game::build(w, h, self.settings.rule, blocks, moves, Some(ours)));
        Ok(())
    }

    /// SWAP2BOARD: 0, 3 or 5 stones in play order, black first.
    pub(crate) fn set_swap2_position(&mut self, stones: &[(i64, i64)]) -> Result<(), EngineError> {
        if ![0, 3, 5].contains(&stones.len()) {
            return Err(EngineError::Swap2Stones(stones.len()));
        }
        let moves = self.opening_moves(stones)?;
        let old = self.game_ref()?;
        self.game = Some(Game::build(
            old.width,
            old.height,
            self.settings.rule,
            Vec::new(),
            moves,
            None,
        ));
        Ok(())
    }

    /// YXSOOSORVSTEPn (`step` 1..=6) on the GUI's move path (black first; steps 4 and 5
    /// with the number of fifth moves, step 6 with black's offers after the four
    /// stones). Step 1 empties the board (the GUI's New sends no START); the others set
    /// the path's position (and nothing when refused).
    pub(crate) fn prepare_soosorv(
        &mut self,
        step: u8,
        fifths: Option<i64>,
        path: &[(i64, i64)],
    ) -> Result<Job, EngineError> {
        let refuse = |problem: String| Err(EngineError::Soosorv(problem));
        let stones = match step {
            1 => 0,
            2 | 3 => 3,
            _ => 4,
        };
        let fifths = match (step, fifths) {
            (4 | 5, Some(n)) if (1..=MAX_FIFTHS as i64).contains(&n) => n as usize,
            (4 | 5, _) => return refuse(format!("the number of fifth moves must be 1 to {MAX_FIFTHS}")),
            _ => 0,
        };
        if step == 1 {
            // Yixin-Board asks for it after its own New, without a START: the board is
            // empty whatever the last game left.
            self.set_swap2_position(&[])?;
            return Ok(Job::Soosorv(SoosorvStep::Open));
        }
        let offers = path.len().saturating_sub(stones);
        let fits = if step == 6 {
            (1..=MAX_FIFTHS).contains(&offers)
        } else {
            offers == 0
        };
        if path.len() < stones || !fits {
            let want = if step == 6 {
                format!("4 stones and 1 to {MAX_FIFTHS} offers")
            } else {
                format!("{stones} stones")
            };
            return refuse(format!("a path of {want} expected, {} given", path.len()));
        }
        let moves = self.opening_moves(path)?;
        let mut offered = [Pos::NONE; MAX_FIFTHS];
        for (slot, &(p, _)) in offered.iter_mut().zip(&moves[stones..]) {
            *slot = p;
        }
        let old = self.game_ref()?;
        let game = Game::build(
            old.width,
            old.height,
            self.settings.rule,
            Vec::new(),
            moves[..stones].to_vec(),
            None,
        );
        self.game = Some(game);
        Ok(Job::Soosorv(match step {
            2 => SoosorvStep::SwapAfterThree,
            3 => SoosorvStep::Fourth,
            4 => SoosorvStep::SwapAfterFour { fifths },
            5 => SoosorvStep::Offer { fifths },
            _ => SoosorvStep::Choose { offers: offered },
        }))
    }

    /// A move path's points as moves in turn, black first: each on the board and new.
    fn opening_moves(&self, stones: &[(i64, i64)]) -> Result<Vec<(Pos, Color)>, EngineError> {
        let old = self.game_ref()?;
        let (w, h) = (old.width, old.height);
        let mut moves = Vec::new();
        let mut seen = PosSet::default();
        for (i, &(x, y)) in stones.iter().enumerate() {
            if x < 0 || y < 0 || x >= w as i64 || y >= h as i64 {
                return Err(EngineError::OffBoard {
                    x,
                    y,
                    width: w,
                    height: h,
                });
            }
            let p = Pos::new(x as usize, y as usize);
            if seen.contains(p) {
                return Err(EngineError::Repeated { x, y });
            }
            seen.insert(p);
            moves.push((p, Color::of_ply(i)));
        }
        Ok(moves)
    }

    /// TAKEBACK: remove the stone on (x, y).
    pub(crate) fn takeback(&mut self, x: i64, y: i64) -> Result<(), EngineError> {
        let game = self.game_mut()?;
        let p = game.on_board(x, y)?;
        let index = game
            .moves
            .iter()
            .position(|m| m.0 == p)
            .ok_or(EngineError::NoStone { x, y })?;
        if index + 1 == game.moves.len() {
            game.moves.pop();
            game.board.undo();
        } else {
            let mut moves = game.moves.clone();
            moves.remove(index);
            let rule = game.board.rule();
            *game = Game::build(game.width, game.height, rule, game.blocks.clone(), moves, game.ours);
        }
        Ok(())
    }

    /// PLAY (the answer to a SUGGEST): our stone on (x, y).
    pub(crate) fn play_own(&mut self, x: i64, y: i64) -> Result<(), EngineError> {
        let game = self.game_mut()?;
        let p = game.empty_point(x, y)?;
        let ours = game.us();
        if !game.board.is_legal(p, ours) {
            return Err(EngineError::Forbidden { x, y });
        }
        game.ours = Some(ours);
        game.play(p, ours);
        Ok(())
    }

    /// Black's forbidden points (renju), row by row.
    pub(crate) fn forbidden_points(&mut self) -> Result<Vec<Pos>, EngineError> {
        let game = self.game_mut()?;
        let points: Vec<Pos> = game.board.points().collect();
        Ok(points.into_iter().filter(|&p| game.board.is_forbidden(p)).collect())
    }

    /// YXNBEST: at most `n` ranks (see `prepare_analysis`).
    pub(crate) fn prepare_nbest(&mut self, n: i64) -> Result<Job, EngineError> {
        let empties = self.game_ref()?.board.empty_points().len();
        self.prepare_analysis(Job::NBest(n.min(empties as i64) as usize))
    }

    /// An analysis of the position set (YXNBEST, YXSEARCHDEFEND): the side to move, by
    /// the stones, is us.
    /// YXSWAP2STEPn: the position set must hold the step's stones (3 or 5), black first,
    /// white to move; step 1 empties the board.
    pub(crate) fn prepare_swap2_step(&mut self, step: u8) -> Result<Job, EngineError> {
        if step == 1 {
            // Yixin-Board asks for it after its own New, without a START or a board: the
            // proposal is for an empty board whatever the last game left.
            self.set_swap2_position(&[])?;
        }
        let game = self.game_ref()?;
        let want = [0, 3, 5][usize::from(step.clamp(1, 3)) - 1];
        let alternating = game.moves.iter().enumerate().all(|(i, &(_, c))| c == Color::of_ply(i));
        if game.moves.len() != want || !alternating {
            return Err(EngineError::Swap2Step {
                step,
                stones: game.moves.len(),
            });
        }
        Ok(Job::Swap2Step)
    }

    pub(crate) fn prepare_analysis(&mut self, job: Job) -> Result<Job, EngineError> {
        let game = self.game_mut()?;
        if game.board.is_full() {
            return Err(EngineError::BoardFull);
        }
        game.ours = Some(game.board.side_to_move());
        Ok(job)
    }

    /// YXBLOCK / YXBLOCKUNDO: points we must not play, or may again.
    pub(crate) fn block_points(&mut self, points: &[(i64, i64)], unblock: bool) -> Result<(), EngineError> {
        let game = self.game_ref()?;
        let mut set = self.blocked;
        for &(x, y) in points {
            let p = game.on_board(x, y)?;
            if unblock {
                set.remove(p);
            } else {
                set.insert(p);
            }
        }
        self.blocked = set;
        Ok(())
    }

    pub(crate) fn reset_blocks(&mut self) {
        self.blocked = PosSet::default();
    }

    /// May the engine ponder now? Asked for (`INFO pondering 1`), on a timed turn (not
    /// `timeout_turn 0`), after our move, with the game still open.
    pub(crate) fn may_ponder(&self) -> bool {
        let Some(game) = self.game.as_ref() else {
            return false;
        };
        let Some(&(last, colour)) = game.moves.last() else {
            return false;
        };
        self.settings.ponder
            && self.settings.time.turn_ms > 0
            && game.ours == Some(colour)
            && !game.board.wins_through(last)
            && !game.board.is_full()
    }

    /// YXHASHCLEAR.
    pub(crate) fn clear_hash(&mut self) {
        if let Some(s) = self.searcher.as_mut() {
            s.clear();
        }
    }

    /// YXHASHDUMP: the hash table in a file; the entries written, or why not.
    pub(crate) fn dump_hash(&self, path: &Path) -> Result<usize, String> {
        let tag = table_tag(self.game.as_ref().ok_or_else(|| EngineError::NoGame.to_string())?);
        let searcher = self.searcher.as_ref().expect("idle searcher");
        searcher
            .dump_table(path, tag)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    }

    /// YXHASHLOAD: the hash table from a file made by YXHASHDUMP for this rule and board
    /// size, at the size the settings give; the entries read. A bad file changes nothing.
    pub(crate) fn load_hash(&mut self, path: &Path) -> Result<usize, String> {
        let tag = table_tag(self.game.as_ref().ok_or_else(|| EngineError::NoGame.to_string())?);
        let searcher = self.searcher.as_mut().expect("idle searcher");
        // Checked before the table is resized, so that a bad file leaves it as it was.
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let entries = tt_file::read(&bytes, tag)?;
        searcher.resize_tt(self.settings.tt_bytes());
        Ok(searcher.load_entries(&entries, tag))
    }

    /// YXSHOWHASHUSAGE: per mille of the hash table that holds something, and its size.
    pub(crate) fn hash_usage(&self) -> (usize, usize) {
        self.searcher
            .as_ref()
            .map_or((0, 0), |s| (s.table_usage_permille(), s.tt_bytes()))
    }

    /// Load a weight file asked for since the last search, and check that the one in use
    /// fits the game's rule; a file that cannot be used leaves the embedded weights, and a
    /// notice says why.
    fn use_eval_file(&mut self, searcher: &mut Searcher, rule: Rule) {
        if let Some(path) = self.pending_eval_file.take() {
            if let Some((_, old, _)) = self.eval_file.take() {
                searcher.weights.reset(old);
            }
            if !path.is_empty() {
                match searcher.weights.load_file(&path) {
                    Ok(r) => self.eval_file = Some((path, r, None)),
                    Err(e) => self.notices.push(format!("eval_file: {e}; using the embedded weights")),
                }
            }
        }
        if let Some((path, file_rule, warned)) = &mut self.eval_file {
            if *file_rule != rule && *warned != Some(rule) {
                *warned = Some(rule);
                self.notices.push(format!(
                    "eval_file: {path} holds {} weights, the game is {}: using the embedded weights",
                    file_rule.name(),
                    rule.name()
                ));
            }
        }
    }

    /// Load the network of `INFO nnue_file`, if one was given since the last search: a
    /// bad file is refused with a notice and the network stays as it was; an empty path
    /// goes back to the embedded one. The search gets the loaded network if it is for the
    /// game's rule (another rule's is said once per rule), else the rule's embedded one;
    /// `INFO nnue_use` says what for.
    fn choose_network(&mut self, searcher: &mut Searcher, rule: Rule, (width, height): (usize, usize)) {
        if let Some(path) = self.pending_nnue_file.take() {
            self.nnue_warned = None;
            if path.is_empty() {
                self.nnue_file_net = None;
            } else {
                match Network::load(&path, None) {
                    Ok(net) => self.nnue_file_net = Some(Arc::new(net)),
                    Err(e) => self.notices.push(format!("nnue_file: {e}; the network is unchanged")),
                }
            }
        }
        let file_net = self.nnue_file_net.as_ref().filter(|net| net.rule == rule);
        if let (Some(net), None) = (&self.nnue_file_net, file_net) {
            if self.nnue_warned != Some(rule) {
                self.nnue_warned = Some(rule);
                self.notices.push(format!(
                    "nnue_file: the network is for {}, the game is {}: not used",
                    net.rule.name(),
                    rule.name()
                ));
            }
        }
        searcher.net = file_net
            .cloned()
            .or_else(|| crate::nnue::embedded_for(rule, width, height));
    }

    /// What to tell the manager before the search that `prepare` started (MESSAGE lines).
    pub(crate) fn take_notices(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notices)
    }

    /// Take the searcher and a copy of the position for `job`; the command arrived at
    /// `at` (time budgets count from it). Needs a game and no search under way.
    pub(crate) fn prepare(&mut self, job: Job, at: Instant) -> Task {
        let game = self.game.as_ref().expect("a game to search");
        let board = game.board.clone();
        let mut us = game.ours.unwrap_or(Color::Black);
        let mut limits = self.settings.limits(board.empty_points().len());
        limits.excluded = self.blocked;
        if matches!(job, Job::Swap2 | Job::Swap2Step | Job::Soosorv(_)) {
            limits.budget = Some(self.settings.time.swap2_budget(board.empty_points().len()));
        }
        if job == Job::Ponder {
            // The opponent's moves, for as long as the opponent thinks.
            us = us.opposite();
            limits.budget = None;
            limits.max_nodes = 0;
            limits.excluded = PosSet::default();
        }
        let mut searcher = self.searcher.take().expect("idle searcher");
        searcher.resize_tt(self.settings.tt_bytes());
        searcher.use_table_for(table_tag(game));
        searcher.threads = self.settings.threads.min(available_cores());
        searcher.tunables = self.settings.tunables;
        searcher.net_use = self.settings.net_use;
        for (table, values) in self.pending_weights.drain(..) {
            if let Err(e) = searcher.weights.set(&table, &values) {
                log::warn!("INFO eval_{table}: {e}");
            }
        }
        self.use_eval_file(&mut searcher, board.rule());
        self.choose_network(&mut searcher, board.rule(), (board.width(), board.height()));
        self.stop.store(false, Ordering::Relaxed);
        self.running = Some(Running {
            job,
            started: at,
            left_ms: self.settings.time.left_ms,
            hard_ms: limits.budget.map_or(0, |b| b.hard.as_millis() as i64),
        });
        Task {
            searcher,
            board,
            us,
            limits,
            stop: Arc::clone(&self.stop),
            job,
            at,
        }
    }

    /// A task could not run (no thread): a fresh searcher and any legal move.
    pub(crate) fn abandon(&mut self) -> Answer {
        let job = self.running.take().map(|r| r.job);
        self.searcher = Some(Box::new(Searcher::new(self.settings.tt_bytes())));
        match job {
            Some(Job::Ponder) => Answer::Nothing,
            _ => self.play_legal(None),
        }
    }

    /// The task is done: take the searcher back, charge the clock, play the answer.
    pub(crate) fn finish(&mut self, searcher: Box<Searcher>, result: JobResult) -> Answer {
        self.searcher = Some(searcher);
        let Some(Running {
            job,
            started,
            left_ms,
            hard_ms,
        }) = self.running.take()
        else {
            return Answer::NoMove;
        };
        if job == Job::Ponder {
            return Answer::Nothing; // the opponent's time: our clock is not charged
        }
        let used = started.elapsed().as_millis() as i64;
        let s = &mut self.settings;
        s.meter.moved(&mut s.time, left_ms, used, hard_ms);
        if s.time.left_ms < UNLIMITED {
            // Managers resend time_left before each move; until then, count our own use.
            s.time.left_ms -= used;
        }
        match (job, result) {
            (Job::Move | Job::NBest(_) | Job::Defend, JobResult::Move(r)) => self.play_legal(Some(r.best)),
            (Job::Swap2, JobResult::Swap2(answer)) => self.play_swap2(answer),
            (Job::Swap2Step, JobResult::Swap2(answer)) => self.play_swap2_step(answer),
            (Job::Balance { .. }, JobResult::Balance(b)) => self.play_stones(&b.stones),
            (Job::Soosorv(step), JobResult::Soosorv(answer)) => self.play_soosorv(step, answer),
            _ => Answer::NoMove,
        }
    }

    /// Play a balance search's stones, ours then the opponent's: each, if legal.
    fn play_stones(&mut self, stones: &[Pos]) -> Answer {
        let Some(game) = self.game.as_mut() else {
            return Answer::NoMove;
        };
        let us = game.ours.unwrap_or(Color::Black);
        let mut played = Vec::new();
        for (&p, colour) in stones.iter().zip([us, us.opposite()]) {
            if !game.board.is_legal(p, colour) {
                break;
            }
            game.play(p, colour);
            played.push(p);
        }
        match played.len() {
            0 => self.play_legal(None),
            _ => Answer::Stones(played),
        }
    }

    /// Search and play on this thread (tools and tests).
    pub fn think(&mut self, job: Job, progress: &mut dyn FnMut(Progress)) -> Answer {
        let task = self.prepare(job, Instant::now());
        let (searcher, result) = task.run(progress);
        self.finish(searcher, result)
    }

    /// Play `choice` if it is legal for us, else any legal move.
    fn play_legal(&mut self, choice: Option<Pos>) -> Answer {
        let Some(game) = self.game.as_mut() else {
            return Answer::NoMove;
        };
        let us = game.ours.unwrap_or(Color::Black);
        let mv = match choice {
            Some(p) if game.board.is_legal(p, us) => Some(p),
            _ => game.any_legal_move(),
        };
        match mv {
            Some(p) => {
                game.play(p, us);
                Answer::Move(p)
            }
            None => Answer::NoMove,
        }
    }

    /// A YXSOOSORVSTEP answer: the opening's stones and white's fourth are played.
    fn play_soosorv(&mut self, step: SoosorvStep, answer: SoosorvAnswer) -> Answer {
        if let Some(game) = self.game.as_mut() {
            let placed: &[Pos] = match &answer {
                SoosorvAnswer::Opening(three) => three,
                SoosorvAnswer::Fourth(p, _) => std::slice::from_ref(p),
                _ => &[],
            };
            for &p in placed {
                let colour = Color::of_ply(game.moves.len());
                if !game.board.is_legal(p, colour) {
                    break;
                }
                game.play(p, colour);
            }
        }
        Answer::Soosorv { step, answer }
    }

    /// A YXSWAP2STEP answer: the stones placed are played, a move to stay white is not.
    fn play_swap2_step(&mut self, answer: Swap2Answer) -> Answer {
        let stones = self.game.as_ref().map_or(0, |g| g.moves.len());
        if !matches!(answer, Swap2Answer::Move(_)) {
            self.play_swap2(answer.clone());
        }
        Answer::Swap2Step { stones, answer }
    }

    fn play_swap2(&mut self, answer: Swap2Answer) -> Answer {
        let Some(game) = self.game.as_mut() else {
            return Answer::NoMove;
        };
        match answer {
            Swap2Answer::Opening(stones) => {
                for (i, &p) in stones.iter().enumerate() {
                    game.play(p, Color::of_ply(i));
                }
                Answer::Opening(stones.to_vec())
            }
            Swap2Answer::Swap => Answer::Swap,
            Swap2Answer::Two(stones) => {
                game.play(stones[0], Color::White);
                game.play(stones[1], Color::Black);
                Answer::Opening(stones.to_vec())
            }
            Swap2Answer::Move(p) => {
                game.ours = Some(Color::White);
                game.play(p, Color::White);
                Answer::Move(p)
            }
        }
    }
}

/// Check one BOARD stone against the board size (when known) and the stones before it.
/// What a hash table of `game`'s positions is for.
fn table_tag(game: &Game) -> TableTag {
    TableTag {
        rule: game.board.rule(),
        width: game.width,
        height: game.height,
    }
}

pub(crate) fn check_board_stone(
    before: &[(i64, i64, i64)],
    size: Option<(usize, usize)>,
    x: i64,
    y: i64,
    field: i64,
) -> Result<(), EngineError> {
    if !(1..=3).contains(&field) {
        return Err(EngineError::Field { x, y, field });
    }
    if let Some((width, height)) = size {
        if x < 0 || y < 0 || x >= width as i64 || y >= height as i64 {
            return Err(EngineError::OffBoard { x, y, width, height });
        }
    }
    if before.iter().any(|s| (s.0, s.1) == (x, y)) {
        return Err(EngineError::Repeated { x, y });
    }
    Ok(())
}

pub(crate) fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(size: i64) -> Engine {
        let mut e = Engine::new();
        e.new_game(size, size).unwrap();
        e
    }

    #[test]
    fn every_refusal_names_its_reason_and_changes_nothing() {
        let mut none = Engine::new();
        assert_eq!(none.begin(), Err(EngineError::NoGame));
        assert_eq!(none.restart(), Err(EngineError::NoGame));
        assert_eq!(
            none.new_game(33, 15),
            Err(EngineError::BoardSize { width: 33, height: 15 })
        );

        let mut e = game(15);
        e.opponent_move(7, 7).unwrap();
        assert_eq!(e.begin(), Err(EngineError::NotEmpty));
        assert_eq!(e.takeback(3, 3), Err(EngineError::NoStone { x: 3, y: 3 }));
        let off = EngineError::OffBoard {
            x: -1,
            y: 2,
            width: 15,
            height: 15,
        };
        assert_eq!(e.takeback(-1, 2), Err(off.clone()));
        assert_eq!(e.block_points(&[(1, 1), (-1, 2)], false), Err(off));
        assert!(e.blocked.is_empty(), "a refused block list blocks nothing");
        assert_eq!(e.play_own(7, 7), Err(EngineError::Occupied { x: 7, y: 7 }));
        assert_eq!(e.set_swap2_position(&[(1, 1)]), Err(EngineError::Swap2Stones(1)));
        assert_eq!(
            e.set_swap2_position(&[(1, 1), (2, 2), (1, 1)]),
            Err(EngineError::Repeated { x: 1, y: 1 })
        );
        assert_eq!(e.game().unwrap().moves, vec![(Pos::new(7, 7), Color::Black)]);

        // Renju: black's double three at 7,7 (two open threes through it).
        e.set_option("rule", "4");
        let stones = [
            (5, 7, 1),
            (0, 0, 2),
            (6, 7, 1),
            (0, 2, 2),
            (7, 5, 1),
            (0, 4, 2),
            (7, 6, 1),
            (0, 6, 2),
        ];
        e.set_position(&stones, false).unwrap();
        assert_eq!(e.play_own(7, 7), Err(EngineError::Forbidden { x: 7, y: 7 }));
        assert_eq!(e.game().unwrap().moves.len(), 8);
    }

    #[test]
    fn a_dumped_table_loads_back_and_a_bad_file_changes_nothing() {
        let dir = std::env::temp_dir().join(format!("sente-hash-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (first, second) = (dir.join("first.hash"), dir.join("second.hash"));
        let mut e = game(15);
        e.set_option("max_depth", "5");
        e.opponent_move(7, 7).unwrap();
        e.think(Job::Move, &mut |_| {});
        let stored = e.dump_hash(&first).unwrap();
        assert!(stored > 100, "a depth-5 search stores entries: {stored}");
        // START of the same size keeps the table; a bad file leaves it as it was.
        e.new_game(15, 15).unwrap();
        std::fs::write(&second, b"not a table").unwrap();
        assert!(e.load_hash(&second).unwrap_err().contains("not a hash file"));
        assert!(e.load_hash(&dir.join("missing")).unwrap_err().contains("cannot read"));
        e.set_option("rule", "4");
        assert!(e
            .load_hash(&first)
            .unwrap_err()
            .contains("for freestyle 15x15, the game is renju"));
        assert_eq!(e.dump_hash(&second).unwrap(), stored);
        assert_eq!(std::fs::read(&first).unwrap(), std::fs::read(&second).unwrap());
        // Into another engine: every entry comes back.
        let mut other = game(15);
        assert_eq!(other.load_hash(&first).unwrap(), stored);
        assert_eq!(other.dump_hash(&second).unwrap(), stored);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_network_is_the_loaded_one_for_its_rule_else_the_embedded_one() {
        let dir = std::env::temp_dir().join(format!("sente-nnue-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (renju_file, bad_file) = (dir.join("renju.nnue"), dir.join("bad.nnue"));
        let mut renju = Network::zero(Rule::Renju);
        renju.heads[0].out_bias = 7;
        std::fs::write(&renju_file, renju.to_bytes()).unwrap();
        std::fs::write(&bad_file, b"SENTNNUE and then nothing").unwrap();
        let embedded = crate::nnue::embedded(Rule::Freestyle).expect("freestyle has a network");
        let mut e = Engine::new();
        let mut s = Searcher::new(1 << 20);
        let net_for = |e: &mut Engine, s: &mut Searcher, rule| {
            e.choose_network(s, rule, (15, 15));
            s.net.clone()
        };
        assert_eq!(net_for(&mut e, &mut s, Rule::Freestyle), Some(Arc::clone(&embedded)));
        // The embedded network only on the sizes it was measured on; a file's on any.
        e.choose_network(&mut s, Rule::Freestyle, (20, 20));
        assert_eq!(s.net, None, "20x20 keeps the tables");
        assert_eq!(net_for(&mut e, &mut s, Rule::Renju), None, "renju keeps its tables");
        e.set_option("nnue_file", renju_file.to_str().unwrap());
        assert_eq!(net_for(&mut e, &mut s, Rule::Renju).as_deref(), Some(&renju));
        e.choose_network(&mut s, Rule::Renju, (20, 20));
        assert_eq!(s.net.as_deref(), Some(&renju));
        assert_eq!(net_for(&mut e, &mut s, Rule::Freestyle), Some(Arc::clone(&embedded)));
        assert!(e.take_notices()[0].ends_with("the game is freestyle: not used"));
        // A bad file is said and changes nothing.
        e.set_option("nnue_file", bad_file.to_str().unwrap());
        assert_eq!(net_for(&mut e, &mut s, Rule::Renju).as_deref(), Some(&renju));
        assert!(e.take_notices()[0].ends_with("; the network is unchanged"));
        e.set_option("nnue_file", "");
        assert_eq!(net_for(&mut e, &mut s, Rule::Renju), None);
        assert_eq!(net_for(&mut e, &mut s, Rule::Freestyle), Some(embedded));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_full_board_leaves_no_move() {
        let mut e = game(5);
        let stones: Vec<(i64, i64, i64)> = (0..25).map(|i| (i % 5, i / 5, 3)).collect();
        assert_eq!(e.set_position(&stones, true), Err(EngineError::BoardFull));
        e.set_position(&stones, false).unwrap();
        assert_eq!(e.prepare_nbest(2).err(), Some(EngineError::BoardFull));
        assert_eq!(e.begin(), Err(EngineError::BoardFull));
    }

    #[test]
    fn a_refusal_reads_as_a_sentence() {
        assert_eq!(
            EngineError::OffBoard {
                x: 20,
                y: 0,
                width: 20,
                height: 20
            }
            .to_string(),
            "20,0 is outside the 20x20 board"
        );
        assert_eq!(EngineError::Swap2Stones(4).to_string(), "4 stones: expected 0, 3 or 5");
    }
}
