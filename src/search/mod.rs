//! The searcher: how a move is decided, top to bottom (`Searcher::decide`): the answers
//! that need no search (a five to make or block, a win the board proves, a VCF or a short
//! VCT), the root moves without those that let the opponent win by VCT, zero or one move
//! left, and iterative deepening over the alpha-beta search.
//!
//! The searcher knows nothing of the protocol: it takes a board, the side to move and
//! limits, reports each finished iteration through a callback and returns its choice.

pub(crate) mod alphabeta;
pub mod balance;
mod deepening;
pub mod defend;
pub mod dfpn;
pub(crate) mod history;
pub(crate) mod movepick;
pub(crate) mod params;
pub use params::Tunables;
pub(crate) mod root;
pub mod soosorv;
pub mod swap2;
mod table_memory;
pub mod threats;
pub mod time;
pub(crate) mod tt;
pub mod tt_file;

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::eval::Weights;
use crate::game::{Board, Color, Pos, PosSet, Threat};
use crate::nnue::Network;
use crate::score::{is_decisive, loss_in, win_in};

pub use alphabeta::NetUse;
use alphabeta::{Context, Control, SearchStats, Shared};
use deepening::{iterate, search_threads};
use history::History;
use movepick::ScoredMove;
use params::{MIN_RANK_MS, QUICK_WIN_PLIES};
use root::{drop_moves_that_allow_a_vct, forced_answer, root_moves, Forced, ThreatWin, TimePlan};
use time::Budget;
use tt::TranspositionTable;
pub use tt_file::TableTag;

pub const DEFAULT_MAX_DEPTH: i32 = 64;

#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Thinking time; `None` means only depth/node limits apply.
    pub budget: Option<Budget>,
    /// Deepest iteration (`INFO max_depth`).
    pub max_depth: i32,
    /// Node limit, 0 = none (`INFO max_node`).
    pub max_nodes: u64,
    /// Root moves not to choose (Yixin-Board's YXBLOCK, the earlier picks of YXNBEST).
    /// Ignored when every legal move is excluded.
    pub excluded: PosSet,
}

impl Limits {
    pub fn depth(depth: i32) -> Limits {
        Limits {
            budget: None,
            max_depth: depth,
            max_nodes: 0,
            excluded: PosSet::default(),
        }
    }
}

/// One finished iteration, for `MESSAGE` lines and analysis.
pub struct IterationInfo<'a> {
    pub depth: i32,
    pub seldepth: u32,
    pub score: i32,
    pub nodes: u64,
    pub elapsed_ms: u64,
    pub best: Pos,
    pub pv: &'a [Pos],
}

/// What a search tells while it runs: each finished iteration, and each root move as it
/// is taken up and finished (the live display of an analysis GUI).
pub enum SearchEvent<'a> {
    Iteration(&'a IterationInfo<'a>),
    /// The root begins to search `pos` at `depth`.
    RootMoveStarted {
        pos: Pos,
        depth: i32,
        elapsed_ms: u64,
    },
    /// The root finished `pos`: its score, exact when it raised alpha (`best`: the
    /// iteration's best so far), else an upper bound; a loss either way is proven.
    RootMoveSearched {
        pos: Pos,
        depth: i32,
        score: i32,
        best: bool,
        elapsed_ms: u64,
    },
}

/// What decided the move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// We complete a five.
    WinNow,
    /// The opponent threatens a five: the block is the only move (a loss when they have
    /// two, or when black's only block is forbidden).
    ForcedBlock,
    /// A win the board proves: an open four or a real four-three.
    BoardWin,
    /// A VCF was proven before the main search.
    Vcf,
    /// A VCT was proven before the main search.
    Vct,
    /// Only one legal move (or one defence).
    OnlyMove,
    /// The result of the iterative deepening search.
    Search,
    /// The next move of a win announced earlier (`Searcher::keep_the_win`).
    WonLine,
    /// No legal move at all (renju: every empty point is forbidden for black); `best`
    /// is `Pos::NONE`.
    NoLegalMove,
}

#[derive(Clone, Debug)]
pub struct SearchResult {
    pub best: Pos,
    pub score: i32,
    pub depth: i32,
    pub nodes: u64,
    pub elapsed_ms: u64,
    pub pv: Vec<Pos>,
    pub decision: Decision,
    pub stats: SearchStats,
    /// Root moves with their last known score (exact for the best one only).
    pub root_moves: Vec<(Pos, i32)>,
}

pub struct Searcher {
    tt: TranspositionTable,
    history: History,
    /// Evaluation weights (the defaults unless a tuning run set others).
    pub weights: Weights,
    /// The search's tunable numbers (`params::Tunables::DEFAULT` unless a tuning run set
    /// others, `INFO tune_NAME`).
    pub tunables: Tunables,
    /// Search threads (`INFO thread_num`); 1 keeps node counts deterministic.
    pub threads: usize,
    /// The network that evaluates its rule's games instead of the tables (`INFO
    /// nnue_file`), if one is loaded.
    pub net: Option<Arc<Network>>,
    /// What the network is used for (`INFO nnue_use`).
    pub net_use: NetUse,
    /// The last win announced, to convert it even when a short turn does not find it again.
    won_line: Option<WonLine>,
    /// Our last move when the main search chose it: the side, the stones on the board
    /// before it and its score (the time manager's reference for a falling score).
    last_score: Option<(Color, usize, i32)>,
    /// The rule and board of the table's positions, once a search or a load filled it.
    table_for: Option<TableTag>,
}

/// A proven win: the stones on the board when it was found, and its line from there.
struct WonLine {
    moves: Vec<(Pos, Color)>,
    pv: Vec<Pos>,
    score: i32,
}

impl Searcher {
    pub fn new(tt_bytes: usize) -> Searcher {
        Searcher {
            tt: TranspositionTable::new(tt_bytes),
            history: History::default(),
            weights: Weights::default(),
            tunables: Tunables::DEFAULT,
            threads: 1,
            net: None,
            net_use: NetUse::default(),
            won_line: None,
            last_score: None,
            table_for: None,
        }
    }

    pub fn tt_bytes(&self) -> usize {
        self.tt.size_bytes()
    }

    pub fn resize_tt(&mut self, bytes: usize) {
        if bytes != self.tt.size_bytes() {
            self.tt = TranspositionTable::new(bytes);
        }
    }

    /// `resize_tt`, and a new table's pages mapped now (while idle), so that no search
    /// pays for them.
    pub fn resize_tt_now(&mut self, bytes: usize) {
        if bytes != self.tt.size_bytes() {
            self.tt = TranspositionTable::new(bytes);
            self.tt.prefault();
        }
    }

    /// Forget everything learned (YXHASHCLEAR).
    pub fn clear(&mut self) {
        self.tt.clear();
        self.new_game();
    }

    /// A new game: what belongs to the last one is forgotten, the table is kept (its
    /// positions may come again: Yixin-Board sends START before every move).
    pub fn new_game(&mut self) {
        self.history.clear();
        self.won_line = None;
        self.last_score = None;
    }

    /// The next search is of `tag`'s positions: a table of another rule or board is
    /// cleared.
    pub fn use_table_for(&mut self, tag: TableTag) {
        if self.table_for != Some(tag) {
            self.tt.clear();
            self.table_for = Some(tag);
        }
    }

    /// YXHASHDUMP: the table in the file at `path` (`tt_file`'s format); the entries
    /// written.
    pub fn dump_table(&self, path: &Path, tag: TableTag) -> std::io::Result<usize> {
        let bytes = tt_file::write(&self.tt, self.table_for.unwrap_or(tag));
        std::fs::write(path, &bytes)?;
        Ok(self.tt.entries().count())
    }

    /// YXHASHLOAD: `entries` (`tt_file::read`'s, checked for `tag`) in place of what
    /// the table held; how many.
    pub fn load_entries(&mut self, entries: &[(u64, u64)], tag: TableTag) -> usize {
        self.tt.clear();
        self.tt.new_search();
        for &(key, data) in entries {
            self.tt.insert(key, data);
        }
        self.table_for = Some(tag);
        entries.len()
    }

    /// YXSHOWHASHUSAGE: per mille of the table in use.
    pub fn table_usage_permille(&self) -> usize {
        self.tt.usage_permille()
    }

    /// Choose a move for `us` on `board`. `start` is when the command arrived; time
    /// budgets count from it.
    pub fn search(
        &mut self,
        board: &Board,
        us: Color,
        limits: &Limits,
        stop: &AtomicBool,
        start: Instant,
        report: &mut dyn FnMut(SearchEvent),
    ) -> SearchResult {
        let mut result = self.decide(board, us, limits, stop, start, report);
        if limits.excluded.is_empty() {
            self.keep_the_win(board, us, &mut result);
            // A search with excluded moves (a YXNBEST rank) scores another move than ours.
            self.last_score = (result.decision == Decision::Search).then_some((us, board.moves().len(), result.score));
        }
        result
    }

    /// Pondering: `board` searched for `us` (the opponent) until `stop`, for the table
    /// only; what this searcher keeps of our own moves (the win announced, the last
    /// score) is left alone.
    pub fn ponder(
        &mut self,
        board: &Board,
        us: Color,
        limits: &Limits,
        stop: &AtomicBool,
        start: Instant,
    ) -> SearchResult {
        self.decide(board, us, limits, stop, start, &mut |_| {})
    }

    /// Every win announced is converted, as fast as announced. A win found in the last
    /// search was proven against every defence; when the opponent answered as its line
    /// expects and this search (perhaps a short turn, or a root threat search that found a
    /// longer win first) proved no win as short, the line's next move is played, with the
    /// same mate.
    fn keep_the_win(&mut self, board: &Board, us: Color, result: &mut SearchResult) {
        let now = board.moves();
        let next_in_line = self.won_line.take().filter(|line| {
            let before = line.moves.len();
            now.len() == before + 2
                && now[..before] == line.moves[..]
                && now[before..] == [(line.pv[0], us), (line.pv[1], us.opposite())]
                && board.clone().is_legal(line.pv[2], us)
        });
        let found_win = is_decisive(result.score) && result.score > 0;
        let shorter = next_in_line.filter(|line| !found_win || result.score < line.score + 2);
        if let Some(line) = shorter {
            let next = line.pv[2];
            *result = SearchResult {
                best: next,
                score: line.score + 2,
                pv: line.pv[2..].to_vec(),
                decision: Decision::WonLine,
                root_moves: vec![(next, line.score + 2)],
                ..result.clone()
            };
        } else if !found_win {
            return;
        }
        self.won_line = (result.pv.len() >= 3).then(|| WonLine {
            moves: now.to_vec(),
            pv: result.pv.clone(),
            score: result.score,
        });
    }

    /// A new search of `board` for `us`: the table's generation and the history aged,
    /// and the context (with what its helpers share) under `limits` from `start`.
    fn begin<'s>(
        &'s mut self,
        board: &Board,
        us: Color,
        limits: &Limits,
        stop: &'s AtomicBool,
        start: Instant,
    ) -> (Context<'s>, Shared<'s>) {
        self.tt.new_search();
        self.history.age();
        let control = Control {
            stop,
            start,
            budget: limits.budget,
            max_nodes: limits.max_nodes,
        };
        let shared = Shared {
            tt: &self.tt,
            weights: &self.weights,
            net: self.net.as_ref(),
            net_use: self.net_use,
            tunables: &self.tunables,
        };
        (
            Context::new(board.clone(), us, shared, &mut self.history, control),
            shared,
        )
    }

    /// How a move is decided, one step after the other (as Rapfi's `searchMain`). The
    /// time each step may take is `root::TimePlan`'s.
    fn decide(
        &mut self,
        board: &Board,
        us: Color,
        limits: &Limits,
        stop: &AtomicBool,
        start: Instant,
        report: &mut dyn FnMut(SearchEvent),
    ) -> SearchResult {
        let plan = TimePlan::new(limits, start, stop);
        // Our last move's score, when it was two plies ago.
        let previous_score = self
            .last_score
            .filter(|&(side, stones, _)| side == us && stones + 2 == board.moves().len())
            .map(|(_, _, score)| score);
        let threads = self.threads.max(1);
        let (mut ctx, shared) = self.begin(board, us, limits, stop, start);

        // 1. The answers that need no search. They may pick any move, so with excluded
        // moves (YXBLOCK, YXNBEST's later ranks) everything is searched instead.
        if limits.excluded.is_empty() {
            match forced_answer(&mut ctx, &plan) {
                Some(Forced::Five(p)) => return quick(p, win_in(1), Decision::WinNow, &ctx),
                Some(Forced::Lost(p)) => return quick(p, loss_in(2), Decision::ForcedBlock, &ctx),
                Some(Forced::Block(p)) => {
                    return score_the_only_move(&mut ctx, p, Decision::ForcedBlock, &plan, report)
                }
                Some(Forced::BoardWin { best, plies }) => return quick(best, win_in(plies), Decision::BoardWin, &ctx),
                Some(Forced::ThreatWin(win)) => return look_for_a_shorter_win(&mut ctx, win, &plan, report),
                None => {}
            }
        }

        // 2. The root moves, without those after which the opponent has a VCT.
        let mut root = root_moves(&mut ctx.board, us, &limits.excluded);
        if root.len() > 1 {
            drop_moves_that_allow_a_vct(&mut ctx, &mut root, &plan);
        }

        // 3. No move, or one.
        match root.len() {
            0 => return quick(Pos::NONE, 0, Decision::NoLegalMove, &ctx),
            1 if ctx.board.threat(root[0].pos, us) == Threat::Five => {
                return quick(root[0].pos, win_in(1), Decision::WinNow, &ctx)
            }
            1 => return score_the_only_move(&mut ctx, root[0].pos, Decision::OnlyMove, &plan, report),
            _ => {}
        }

        // 4. The search.
        search_threads(&mut ctx, &mut root, limits, previous_score, threads, shared, report)
    }
}

impl Searcher {
    /// The `n` best moves (YXNBEST, soosorv's fifth moves): one search per rank, each
    /// excluding the moves ranked before it and every point `same_as` counts as the same
    /// choice (the moves themselves, or their images under a symmetry), and taking an
    /// equal share of the time left from `start` (at least `MIN_RANK_MS`); `on_rank`
    /// hears each rank as it is found. Fewer ranks when the legal moves run out, the time
    /// is spent or the stop flag is raised. Returns the first.
    #[allow(clippy::too_many_arguments)]
    pub fn search_ranked(
        &mut self,
        board: &Board,
        us: Color,
        limits: &Limits,
        stop: &AtomicBool,
        start: Instant,
        n: usize,
        same_as: &dyn Fn(Pos) -> PosSet,
        report: &mut dyn FnMut(SearchEvent),
        on_rank: &mut dyn FnMut(usize, &SearchResult),
    ) -> SearchResult {
        let min_rank_time = Duration::from_millis(MIN_RANK_MS);
        let mut part = *limits;
        let mut first: Option<SearchResult> = None;
        for rank in 1..=n.max(1) {
            if let Some(total) = limits.budget {
                let left = total.hard.saturating_sub(start.elapsed());
                if rank > 1 && left < min_rank_time {
                    break; // the turn is spent: the ranks found so far are the answer
                }
                let share = (left / (n + 1 - rank) as u32).max(min_rank_time).min(left);
                part.budget = Some(Budget::fixed(share, share.max(Duration::from_millis(1))));
            }
            let r = self.search(board, us, &part, stop, Instant::now(), report);
            if rank > 1 && part.excluded.contains(r.best) {
                break; // every legal move is ranked already
            }
            on_rank(rank, &r);
            part.excluded.insert(r.best);
            part.excluded = part.excluded.union(&same_as(r.best));
            first.get_or_insert(r);
            if stop.load(std::sync::atomic::Ordering::Relaxed) {
                break;
            }
        }
        first.expect("the first rank is always searched")
    }
}

/// A result decided without the main search.
fn quick(best: Pos, score: i32, decision: Decision, ctx: &Context) -> SearchResult {
    SearchResult {
        best,
        score,
        depth: 0,
        nodes: ctx.stats.nodes,
        elapsed_ms: ctx.elapsed_ms(),
        pv: vec![best],
        decision,
        stats: ctx.stats,
        root_moves: vec![(best, score)],
    }
}

/// A VCF or VCT found before the main search is among the shortest wins made of fours and
/// threes, but a quiet move (one that makes two four-threes at once, say) may win sooner,
/// and the win announced before may count on it (1 s match vs PentaZen, game 29: M9 by
/// VCF played where the main search proves M7 at depth 2, so the mate came two plies
/// late). A short main search, no deeper than a shorter win, looks for one; otherwise the
/// threat win stands. Up to a four-three's length (`QUICK_WIN_PLIES`) none is shorter.
fn look_for_a_shorter_win(
    ctx: &mut Context,
    win: ThreatWin,
    plan: &TimePlan,
    report: &mut dyn FnMut(SearchEvent),
) -> SearchResult {
    let mut threat_win = quick(win.line[0], win_in(win.plies), win.decision, ctx);
    threat_win.pv = win.line;
    if win.plies <= QUICK_WIN_PLIES {
        return threat_win;
    }
    let mut root = root_moves(&mut ctx.board, ctx.root_side, &PosSet::default());
    if root.len() < 2 {
        return threat_win;
    }
    let short = short_search(ctx, plan, win.plies - 2);
    let it = iterate(ctx, &mut root, &short, None, report);
    if it.score > threat_win.score {
        return it.into_result(ctx, &root);
    }
    SearchResult {
        nodes: ctx.stats.nodes,
        elapsed_ms: ctx.elapsed_ms(),
        stats: ctx.stats,
        ..threat_win
    }
}

/// The limits of a short search from now (`TimePlan::short_search`), at most
/// `max_depth` deep; the context aborts at its hard limit from now on.
fn short_search(ctx: &mut Context, plan: &TimePlan, max_depth: i32) -> Limits {
    let short = plan.short_search(ctx.elapsed(), max_depth);
    ctx.set_budget(short.budget);
    short
}

/// The one move left at the root (the block of a five, the last move that does not lose
/// to a VCT) is played, but first searched for a short while (as a shorter win is
/// looked for), so that its score is a searched one: a win or loss it proves is announced
/// (and a win kept, see `Searcher::keep_the_win`) instead of a bare 0. The move cannot
/// change, so only the time is spent: when the match clock sets the budget, that time
/// would be taken from later moves, and the move is played at once.
fn score_the_only_move(
    ctx: &mut Context,
    only: Pos,
    decision: Decision,
    plan: &TimePlan,
    report: &mut dyn FnMut(SearchEvent),
) -> SearchResult {
    if plan.on_match_clock() {
        return quick(only, 0, decision, ctx);
    }
    let mut root = [ScoredMove { pos: only, score: 0 }];
    let short = short_search(ctx, plan, i32::MAX);
    let it = iterate(ctx, &mut root, &short, None, report);
    if it.depth == 0 {
        return quick(only, 0, decision, ctx); // no iteration finished
    }
    SearchResult {
        decision,
        ..it.into_result(ctx, &root)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Rule;
    use crate::tools::positions::board_from_stones;
    use std::time::Duration;
    const BLACK: Color = Color::Black;
    const WHITE: Color = Color::White;

    /// The search of `stones` (the shared testdata's `b:h8 w:i9` form, placed in that
    /// order) for `us` within `limits`, by a fresh searcher.
    fn search_stones(rule: Rule, stones: &str, us: Color, limits: &Limits) -> SearchResult {
        let board = board_from_stones(rule, 15, stones).expect("stones");
        let stop = AtomicBool::new(false);
        Searcher::new(1 << 20).search(&board, us, limits, &stop, Instant::now(), &mut |_| {})
    }

    #[test]
    fn the_searcher_prunes_by_its_tunables() {
        // A quiet middle game: larger reductions and fewer moves before move-count
        // pruning search a smaller tree to the same depth. (That the defaults play as the
        // constants did is the bench signature's check.)
        let board = board_from_stones(Rule::Freestyle, 15, "b:h8 w:i9 b:i7 w:g9 b:h9 w:h10 b:j8 w:k9").unwrap();
        let nodes = |t: Tunables| {
            let mut s = Searcher::new(1 << 20);
            s.tunables = t;
            let stop = AtomicBool::new(false);
            s.search(&board, BLACK, &Limits::depth(8), &stop, Instant::now(), &mut |_| {})
                .nodes
        };
        let default = nodes(Tunables::DEFAULT);
        let narrow = Tunables {
            lmr_scale: 200,
            late_move_percent: 50,
            ..Tunables::DEFAULT
        };
        assert!(nodes(narrow) < default, "{} against {default}", nodes(narrow));
    }

    /// White has a four (h8-k8, Black's g8 at one end) and an open three (c3-c5): Black
    /// must block at l8, and White's open four follows.
    const BLOCK_INTO_A_LOSS: &str = "b:g8 b:m14 b:n13 b:a14 b:b1 b:n2 b:o15 w:h8 w:i8 w:j8 w:k8 w:c3 w:c4 w:c5";

    #[test]
    fn the_only_move_is_searched_and_its_proven_win_announced() {
        // lfz084 冈部宽连珠习题 035 (shared testdata): White to move wins by VCT, and every
        // White move but h9 loses to Black's threats.
        let stones = "b:k5 b:g6 b:h6 b:j6 b:f8 b:h8 b:j8 w:j5 w:g7 w:i8 w:e9 w:g9 w:i9";
        let r = search_stones(Rule::Renju, stones, WHITE, &Limits::depth(12));
        assert_eq!(r.decision, Decision::OnlyMove);
        assert_eq!(r.best, Pos::new(7, 8), "h9");
        assert!(is_decisive(r.score) && r.score > 0, "a proven win, not {}", r.score);
        assert_eq!(r.pv.first(), Some(&r.best));
        assert!(r.depth > 0);
    }

    #[test]
    fn the_forced_block_is_searched_and_its_proven_loss_announced() {
        let turn = Budget {
            soft: Duration::from_secs(5),
            hard: Duration::from_secs(10),
            match_clock: false,
        };
        for limits in [
            Limits::depth(6),
            Limits {
                budget: Some(turn),
                ..Limits::depth(6)
            },
        ] {
            let r = search_stones(Rule::Freestyle, BLOCK_INTO_A_LOSS, BLACK, &limits);
            assert_eq!(r.decision, Decision::ForcedBlock);
            assert_eq!(r.best, Pos::new(11, 7), "l8");
            assert!(is_decisive(r.score) && r.score < 0, "a proven loss, not {}", r.score);
        }
    }

    #[test]
    fn the_forced_block_is_played_at_once_when_the_match_clock_sets_the_time() {
        let clock = Budget {
            soft: Duration::from_secs(5),
            hard: Duration::from_secs(10),
            match_clock: true,
        };
        let limits = Limits {
            budget: Some(clock),
            ..Limits::depth(6)
        };
        let r = search_stones(Rule::Freestyle, BLOCK_INTO_A_LOSS, BLACK, &limits);
        assert_eq!((r.decision, r.best), (Decision::ForcedBlock, Pos::new(11, 7)));
        assert_eq!((r.score, r.depth), (0, 0), "not searched");
    }

    #[test]
    fn only_our_own_move_is_the_next_moves_reference_score() {
        let mut board = Board::new(15, 15, Rule::Freestyle);
        for (x, y, c) in [(7, 7, BLACK), (8, 8, WHITE), (6, 8, BLACK), (8, 6, WHITE)] {
            board.make(Pos::new(x, y), c);
        }
        let stop = AtomicBool::new(false);
        let mut searcher = Searcher::new(1 << 20);
        let mut limits = Limits::depth(4);
        let best = searcher.search(&board, BLACK, &limits, &stop, Instant::now(), &mut |_| {});
        assert_eq!(best.decision, Decision::Search);
        let ours = searcher.last_score;
        assert_eq!(ours, Some((BLACK, 4, best.score)));
        // A YXNBEST rank (the best move excluded) leaves it alone.
        limits.excluded.insert(best.best);
        let second = searcher.search(&board, BLACK, &limits, &stop, Instant::now(), &mut |_| {});
        assert_ne!(second.best, best.best);
        assert_eq!(searcher.last_score, ours);
    }
}
