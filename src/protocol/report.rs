//! How a search is shown: the `MESSAGE` lines every manager logs, and for an analysis
//! GUI the `MESSAGE REALTIME` lines Yixin-Board draws on its board while the engine
//! thinks (`main.c`'s reader: BEST, VAL, PV, POS, DONE, LOSE, REFRESH).
//!
//! Realtime lines go out only when the GUI asks (`INFO show_detail` with bit 1, or after
//! `YXSHOWINFO` unless show_detail said 0), so the Gomocup judge and Piskvork see exactly
//! what they always saw.

use std::time::Duration;

use crate::engine::Progress;
use crate::game::Pos;
use crate::score::format_score;
use crate::search::defend::Defences;
use crate::search::params::ROOT_VCT_MOVES;
use crate::search::{Decision, IterationInfo, SearchEvent, SearchResult};

use super::output::Output;

/// Root moves are marked as searched (POS, DONE) and a new best shown only once a search
/// has run this long, as Rapfi does (its 200 ms): a short search would only flicker.
const REALTIME_AFTER: Duration = Duration::from_millis(200);

/// What the manager asked to see; the session keeps it across searches.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Display {
    /// After `YXSHOWINFO`: the manager is Yixin-Board, and points in text are named as its
    /// board labels them.
    pub(crate) gui: bool,
    /// `INFO show_detail` bit 1, if it was sent.
    pub(crate) show_detail: Option<bool>,
}

impl Display {
    pub(crate) fn realtime(&self) -> bool {
        self.show_detail.unwrap_or(self.gui)
    }
}

/// The names of points in text: Sente's own (`h8`: column letter from x, row number y+1,
/// as Piskvork's and the record's) or Yixin-Board's labels. Its board puts the protocol's
/// x on the rows, numbered from the bottom, and y on the columns, lettered from A: its
/// `7,8` is drawn at I8 on 15×15, Sente's `h9`.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Names {
    Sente,
    Gui { rows: usize },
}

impl Names {
    pub(crate) fn of(display: &Display, width: usize) -> Names {
        if display.gui {
            Names::Gui { rows: width }
        } else {
            Names::Sente
        }
    }

    fn name(self, p: Pos) -> String {
        match self {
            Names::Gui { rows } if !p.is_none() => {
                let y = p.y();
                let letter = if y < 26 {
                    (b'A' + y as u8) as char
                } else {
                    (b'a' + (y - 26) as u8) as char
                };
                format!("{letter}{}", rows.saturating_sub(p.x()))
            }
            _ => p.to_string(),
        }
    }

    /// A principal variation as move names: `h8 i9 ...`.
    fn line(self, pv: &[Pos]) -> String {
        pv.iter().map(|&p| self.name(p)).collect::<Vec<_>>().join(" ")
    }
}

/// The reporter of one search: turns its progress into lines.
pub(crate) struct Reporter {
    out: Output,
    names: Names,
    realtime: bool,
    /// YXNBEST with more than one rank, YXSEARCHDEFEND: the GUI is shown the lists (the
    /// ranks so far, the defences), not the searches behind them, whose REFRESH would
    /// clear the list's marks.
    shows_lists: bool,
    ranks: Vec<Pos>,
}

impl Reporter {
    pub(crate) fn new(out: Output, display: &Display, width: usize, shows_lists: bool) -> Reporter {
        Reporter {
            out,
            names: Names::of(display, width),
            realtime: display.realtime(),
            shows_lists,
            ranks: Vec::new(),
        }
    }

    pub(crate) fn progress(&mut self, p: Progress) {
        match p {
            Progress::Search(SearchEvent::Iteration(info)) => {
                self.out.line(&iteration_message(self.names, info));
                if self.realtime && !self.shows_lists {
                    self.show_best(info.best, info.score, info.pv);
                }
            }
            Progress::Search(event) => {
                if self.realtime && !self.shows_lists {
                    self.root_move(event);
                }
            }
            Progress::Rank(rank, r) => {
                self.out.line(&rank_message(self.names, rank, r));
                self.ranks.push(r.best);
                if self.realtime {
                    self.show_ranks(r);
                }
            }
            Progress::Decided(r) => {
                self.out.line(&decision_message(self.names, r));
                if self.realtime {
                    self.show_best(r.best, r.score, &r.pv);
                }
            }
            Progress::Defences(d) => self.defences(d),
            Progress::Balanced(b, target) => {
                let stones: Vec<String> = b.stones.iter().map(|p| format!("{},{}", p.x(), p.y())).collect();
                self.out.line(&format!(
                    "MESSAGE balance {} ev {} target {target} depth {} pv {}",
                    stones.join(" "),
                    format_score(b.score),
                    b.depth,
                    self.names.line(&b.stones)
                ));
            }
            Progress::FewerRanks(found, asked) => self.out.line(&format!(
                "MESSAGE nbest: {found} of {asked} ranks, the turn's time or the legal moves ran out"
            )),
        }
    }

    /// YXSEARCHDEFEND's lists: a summary, the moves that hold, those left unsettled; on
    /// the GUI's board the holding moves marked as searched, the losing ones as lost.
    fn defences(&self, d: &Defences) {
        if !d.threatened {
            self.out.line(&format!(
                "MESSAGE defend: the opponent has no forced win (VCF, or VCT of up to {ROOT_VCT_MOVES} threats) were it their move: every move holds"
            ));
            return;
        }
        self.out.line(&format!(
            "MESSAGE defend: {} moves hold, {} lose to a VCF, {} to a VCT of up to {ROOT_VCT_MOVES} threats, {} unsettled in the time",
            d.holds.len(),
            d.lose_to_vcf.len(),
            d.lose_to_vct.len(),
            d.unsettled.len()
        ));
        let list = |what: &str, moves: &[Pos]| {
            if !moves.is_empty() {
                let points: Vec<String> = moves.iter().map(|p| format!("{},{}", p.x(), p.y())).collect();
                self.out.line(&format!("MESSAGE defend {what} {}", points.join(" ")));
            }
        };
        list("holds", &d.holds);
        list("unsettled", &d.unsettled);
        if self.realtime {
            self.out.line("MESSAGE REALTIME REFRESH");
            for &p in &d.holds {
                self.realtime_line("POS", p);
                self.realtime_line("DONE", p);
            }
            for &p in d.lose_to_vcf.iter().chain(&d.lose_to_vct) {
                self.realtime_line("LOSE", p);
            }
        }
    }

    fn realtime_line(&self, kind: &str, p: Pos) {
        self.out.line(&format!("MESSAGE REALTIME {kind} {},{}", p.x(), p.y()));
    }

    /// A root move taken up or finished. A proven loss is marked at once; the rest only
    /// once the search has run for `REALTIME_AFTER`.
    fn root_move(&self, event: SearchEvent) {
        let shown = |ms: u64| Duration::from_millis(ms) >= REALTIME_AFTER;
        match event {
            SearchEvent::RootMoveStarted { pos, elapsed_ms, .. } if shown(elapsed_ms) => self.realtime_line("POS", pos),
            SearchEvent::RootMoveSearched {
                pos,
                score,
                best,
                elapsed_ms,
                ..
            } => {
                if score <= -crate::score::WIN_THRESHOLD {
                    self.realtime_line("LOSE", pos);
                }
                if shown(elapsed_ms) {
                    self.realtime_line("DONE", pos);
                    if best && score > -crate::score::WIN_THRESHOLD {
                        self.realtime_line("BEST", pos);
                    }
                }
            }
            _ => {}
        }
    }

    /// The search's best so far: the root marks cleared, the best move, its value and line.
    fn show_best(&self, best: Pos, score: i32, pv: &[Pos]) {
        if best.is_none() {
            return;
        }
        self.out.line("MESSAGE REALTIME REFRESH");
        self.realtime_line("BEST", best);
        self.out.line(&format!("MESSAGE REALTIME VAL {score}"));
        self.out.line(&format!("MESSAGE REALTIME PV {}", self.names.line(pv)));
    }

    /// YXNBEST's ranks so far, each marked as a searched point (the GUI keeps those marks
    /// until the next REFRESH), the first as the best with its value and line.
    fn show_ranks(&self, latest: &SearchResult) {
        self.out.line("MESSAGE REALTIME REFRESH");
        for &p in &self.ranks {
            self.realtime_line("POS", p);
            self.realtime_line("DONE", p);
        }
        if let Some(&first) = self.ranks.first() {
            self.realtime_line("BEST", first);
        }
        if self.ranks.len() == 1 {
            self.out.line(&format!("MESSAGE REALTIME VAL {}", latest.score));
            self.out
                .line(&format!("MESSAGE REALTIME PV {}", self.names.line(&latest.pv)));
        }
    }
}

/// `MESSAGE nbest 2 7,9 ev 35 pv h10 h11 ...`: one rank of YXNBEST.
fn rank_message(names: Names, rank: usize, r: &SearchResult) -> String {
    format!(
        "MESSAGE nbest {rank} {},{} ev {} pv {}",
        r.best.x(),
        r.best.y(),
        format_score(r.score),
        names.line(&r.pv)
    )
}

/// `MESSAGE depth 9-14 ev 35 n 123456 n/s 510000 tm 242 pv h8 i9 ...` (a layout the
/// managers' message parsers understand, see protocol.md §7).
fn iteration_message(names: Names, info: &IterationInfo) -> String {
    let nps = info.nodes * 1000 / info.elapsed_ms.max(1);
    format!(
        "MESSAGE depth {}-{} ev {} n {} n/s {} tm {} pv {}",
        info.depth,
        info.seldepth,
        format_score(info.score),
        info.nodes,
        nps,
        info.elapsed_ms,
        names.line(info.pv)
    )
}

fn decision_message(names: Names, r: &SearchResult) -> String {
    let what = match r.decision {
        Decision::WinNow => "five",
        Decision::ForcedBlock => "forced block",
        Decision::BoardWin => "board win",
        Decision::Vcf => "vcf",
        Decision::Vct => "vct",
        Decision::OnlyMove => "only move",
        Decision::Search => "search",
        Decision::WonLine => "won line",
        Decision::NoLegalMove => "no legal move",
    };
    format!(
        "MESSAGE {what} ev {} n {} tm {} pv {}",
        format_score(r.score),
        r.nodes,
        r.elapsed_ms,
        names.line(&r.pv)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gui_names_put_x_on_rows_from_the_bottom_and_y_on_lettered_columns() {
        let gui = Names::Gui { rows: 15 };
        // Issue 84: Sente's i8 (x 8, y 7) is the GUI's H7.
        assert_eq!(gui.name(Pos::new(8, 7)), "H7");
        assert_eq!(Names::Sente.name(Pos::new(8, 7)), "i8");
        assert_eq!(gui.name(Pos::new(0, 0)), "A15");
        assert_eq!(gui.name(Pos::new(14, 14)), "O1");
        assert_eq!(gui.line(&[Pos::new(7, 7), Pos::new(7, 8)]), "H8 I8");
    }

    #[test]
    fn realtime_follows_show_detail_and_else_the_gui() {
        let mut d = Display::default();
        assert!(!d.realtime(), "never for Piskvork or the judge");
        d.gui = true;
        assert!(d.realtime());
        d.show_detail = Some(false);
        assert!(!d.realtime());
        d.gui = false;
        d.show_detail = Some(true);
        assert!(d.realtime());
    }
}
