//! Running totals, the progress line after each game, and the final table.

use std::collections::HashMap;
use std::fmt::Write as _;

use sente::game::Color;

use crate::records::result_string;
use crate::stats::{elo_estimate, elo_estimate_pairs, los, EloEstimate, Pentanomial, Sprt, Verdict, Wdl};
use crate::types::{FaultKind, GameRecord, Outcome};

/// Results between two engines, from `a`'s point of view, split by `a`'s colour.
#[derive(Clone, Debug)]
pub struct PairTally {
    pub a: usize,
    pub b: usize,
    pub a_black: Wdl,
    pub a_white: Wdl,
    /// Completed game pairs (one opening, each engine black once), `a`'s points.
    pub game_pairs: Pentanomial,
    /// `a`'s score in the first finished game of each pair not yet complete, by round.
    pending: HashMap<usize, f64>,
}

impl PairTally {
    pub fn total(&self) -> Wdl {
        let mut t = self.a_black;
        t.add(self.a_white);
        t
    }
}

pub struct Tally {
    pub names: Vec<String>,
    pub pairs: Vec<PairTally>,
    /// Faults per engine, indexed like `FaultKind::ALL`.
    pub faults: Vec<[u32; FaultKind::ALL.len()]>,
    pub games: usize,
    pub aborted: usize,
}

fn kind_index(k: FaultKind) -> usize {
    FaultKind::ALL.iter().position(|&x| x == k).expect("listed kind")
}

impl Tally {
    pub fn new(names: Vec<String>) -> Tally {
        let n = names.len();
        let mut pairs = Vec::new();
        for a in 0..n {
            for b in a + 1..n {
                pairs.push(PairTally {
                    a,
                    b,
                    a_black: Wdl::default(),
                    a_white: Wdl::default(),
                    game_pairs: Pentanomial::default(),
                    pending: HashMap::new(),
                });
            }
        }
        Tally {
            names,
            pairs,
            faults: vec![[0; FaultKind::ALL.len()]; n],
            games: 0,
            aborted: 0,
        }
    }

    pub fn pair_of(&self, x: usize, y: usize) -> &PairTally {
        let (a, b) = (x.min(y), x.max(y));
        self.pairs
            .iter()
            .find(|p| p.a == a && p.b == b)
            .expect("a scheduled pair")
    }

    pub fn add_fault(&mut self, engine: usize, kind: FaultKind) {
        self.faults[engine][kind_index(kind)] += 1;
    }

    pub fn add(&mut self, rec: &GameRecord) {
        for f in &rec.faults {
            self.add_fault(f.engine, f.kind);
        }
        if rec.outcome == Outcome::Aborted {
            self.aborted += 1;
            return;
        }
        self.games += 1;
        let (black, white) = (rec.spec.black, rec.spec.white);
        let a_is_black = black < white;
        let pair = self
            .pairs
            .iter_mut()
            .find(|p| p.a == black.min(white) && p.b == black.max(white))
            .expect("a scheduled pair");
        let slot = if a_is_black {
            &mut pair.a_black
        } else {
            &mut pair.a_white
        };
        let a_color = if a_is_black { Color::Black } else { Color::White };
        let a_score = match rec.outcome {
            Outcome::Win(c) if c == a_color => {
                slot.wins += 1;
                1.0
            }
            Outcome::Win(_) => {
                slot.losses += 1;
                0.0
            }
            Outcome::Draw => {
                slot.draws += 1;
                0.5
            }
            Outcome::Aborted => return,
        };
        match pair.pending.remove(&rec.spec.round) {
            Some(first) => pair.game_pairs.add_pair(first, a_score),
            None => {
                pair.pending.insert(rec.spec.round, a_score);
            }
        }
    }

    /// One line after a finished game.
    pub fn progress_line(&self, rec: &GameRecord, total: usize, sprt: Option<&Sprt>) -> String {
        let (b, w) = (rec.spec.black, rec.spec.white);
        let width = total.to_string().len();
        let mut s = format!(
            "[{:>width$}/{total}] game {}: {} (black) vs {} (white): {} {}, {} moves, {:.1} s",
            self.games + self.aborted,
            rec.spec.number,
            self.names[b],
            self.names[w],
            result_string(rec.outcome),
            rec.reason.name(),
            rec.spec.opening.stones.len() + rec.moves.len(),
            rec.duration.as_secs_f64(),
        );
        let p = self.pair_of(b, w);
        let t = p.total();
        let _ = write!(
            s,
            " | {} vs {}: +{} -{} ={} ({:.3})",
            self.names[p.a],
            self.names[p.b],
            t.wins,
            t.losses,
            t.draws,
            t.score()
        );
        if let Some(sprt) = sprt {
            let (lo, hi) = sprt.bounds();
            let _ = write!(s, " LLR {:.2} [{lo:.2}, {hi:.2}]", sprt.llr_pairs(p.game_pairs));
        }
        s
    }

    /// The final table.
    pub fn table(&self, sprt: Option<&Sprt>) -> String {
        let name_w = self.names.iter().map(|n| n.len()).max().unwrap_or(6).max(6);
        let mut s = String::new();
        for p in &self.pairs {
            let t = p.total();
            if t.games() == 0 {
                continue;
            }
            let (na, nb) = (&self.names[p.a], &self.names[p.b]);
            let _ = writeln!(s, "{na} vs {nb}: {} games", t.games());
            let _ = writeln!(
                s,
                "  {:<name_w$}  {:<6} {:>6} {:>6} {:>6} {:>6} {:>7}",
                "engine", "colour", "games", "wins", "losses", "draws", "score"
            );
            let rows = [
                (na, "black", p.a_black),
                (na, "white", p.a_white),
                (na, "total", t),
                (nb, "black", p.a_white.flipped()),
                (nb, "white", p.a_black.flipped()),
                (nb, "total", t.flipped()),
            ];
            for (name, colour, r) in rows {
                let _ = writeln!(
                    s,
                    "  {name:<name_w$}  {colour:<6} {:>6} {:>6} {:>6} {:>6} {:>6.1}%",
                    r.games(),
                    r.wins,
                    r.losses,
                    r.draws,
                    100.0 * r.score()
                );
            }
            if let Some(e) = elo_estimate(t) {
                let _ = writeln!(
                    s,
                    "  Elo difference ({na} - {nb}): {} (95 %), LOS {:.1} %",
                    with_interval(e),
                    100.0 * los(t)
                );
            }
            let g = p.game_pairs;
            if let Some(e) = elo_estimate_pairs(g) {
                let c = g.counts;
                let _ = writeln!(
                    s,
                    "  {} game pairs ({na}'s points 0 ½ 1 1½ 2: {} {} {} {} {}): Elo {} (95 %)",
                    g.pairs(),
                    c[0],
                    c[1],
                    c[2],
                    c[3],
                    c[4],
                    with_interval(e)
                );
            }
            if let Some(sprt) = sprt {
                let (lo, hi) = sprt.bounds();
                let verdict = match sprt.verdict_pairs(g) {
                    Some(Verdict::H1) => "H1 accepted",
                    Some(Verdict::H0) => "H0 accepted",
                    None => "undecided",
                };
                let _ = writeln!(
                    s,
                    "  SPRT (game pairs) elo0 {} elo1 {} alpha {} beta {}: LLR {:.2} [{lo:.2}, {hi:.2}], {verdict} (over single games: LLR {:.2})",
                    sprt.elo0,
                    sprt.elo1,
                    sprt.alpha,
                    sprt.beta,
                    sprt.llr_pairs(g),
                    sprt.llr(t)
                );
            }
        }
        if self.names.len() > 2 {
            s.push_str(&self.standings(name_w));
        }
        let _ = write!(s, "Faults\n  {:<name_w$}", "engine");
        for k in FaultKind::ALL {
            let _ = write!(s, " {:>w$}", k.name(), w = k.name().len().max(5));
        }
        s.push('\n');
        for (i, name) in self.names.iter().enumerate() {
            let _ = write!(s, "  {name:<name_w$}");
            for k in FaultKind::ALL {
                let _ = write!(s, " {:>w$}", self.faults[i][kind_index(k)], w = k.name().len().max(5));
            }
            s.push('\n');
        }
        if self.aborted > 0 {
            let _ = writeln!(s, "{} game(s) aborted and not counted", self.aborted);
        }
        s
    }
}

impl Tally {
    /// Every engine's total over all its pairs, best score first (with three or more).
    fn standings(&self, name_w: usize) -> String {
        let mut totals: Vec<(usize, Wdl)> = (0..self.names.len())
            .map(|i| {
                let mut t = Wdl::default();
                for p in &self.pairs {
                    if p.a == i {
                        t.add(p.total());
                    } else if p.b == i {
                        t.add(p.total().flipped());
                    }
                }
                (i, t)
            })
            .collect();
        totals.sort_by(|x, y| y.1.score().total_cmp(&x.1.score()));
        let mut s = format!(
            "Standings\n  {:<name_w$} {:>6} {:>6} {:>6} {:>6} {:>7}\n",
            "engine", "games", "wins", "losses", "draws", "score"
        );
        for (i, t) in totals {
            let _ = writeln!(
                s,
                "  {:<name_w$} {:>6} {:>6} {:>6} {:>6} {:>6.1}%",
                self.names[i],
                t.games(),
                t.wins,
                t.losses,
                t.draws,
                100.0 * t.score()
            );
        }
        s
    }
}

/// The estimate and its ± half-width when the interval is finite, else its bounds.
fn with_interval(e: EloEstimate) -> String {
    if e.margin().is_finite() {
        format!("{} ± {:.1}", signed(e.elo), e.margin())
    } else {
        format!("{} [{}, {}]", signed(e.elo), signed(e.low), signed(e.high))
    }
}

fn signed(v: f64) -> String {
    if v.is_infinite() {
        if v > 0.0 { "+inf" } else { "-inf" }.to_string()
    } else {
        format!("{:+.1}", v + 0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::openings::Opening;
    use crate::types::{Fault, GameSpec, Reason};
    use std::time::Duration;

    fn game(black: usize, white: usize, outcome: Outcome, faults: Vec<Fault>) -> GameRecord {
        game_in_round(0, black, white, outcome, faults)
    }

    fn game_in_round(round: usize, black: usize, white: usize, outcome: Outcome, faults: Vec<Fault>) -> GameRecord {
        GameRecord {
            spec: GameSpec {
                number: 1,
                black,
                white,
                opening: Opening::empty(),
                symmetry: 0,
                round,
            },
            moves: Vec::new(),
            outcome,
            reason: Reason::Five,
            faults,
            duration: Duration::ZERO,
            peak_uss: [0; 2],
        }
    }

    #[test]
    fn tallies_by_pair_colour_and_engine() {
        let names = ["x", "y", "z"].map(String::from).to_vec();
        let mut t = Tally::new(names);
        t.add(&game(0, 1, Outcome::Win(Color::Black), vec![]));
        t.add(&game(1, 0, Outcome::Win(Color::Black), vec![]));
        t.add(&game(1, 0, Outcome::Draw, vec![]));
        let timeout = Fault {
            engine: 2,
            color: Color::White,
            kind: FaultKind::Timeout,
            detail: String::new(),
        };
        t.add(&game(0, 2, Outcome::Win(Color::Black), vec![timeout]));
        t.add(&game(2, 1, Outcome::Aborted, vec![]));
        let p = t.pair_of(1, 0);
        let wdl = |wins, draws, losses| Wdl { wins, draws, losses };
        assert_eq!((p.a, p.b), (0, 1));
        assert_eq!(p.a_black, wdl(1, 0, 0));
        assert_eq!(p.a_white, wdl(0, 1, 1));
        assert_eq!((t.games, t.aborted), (4, 1));
        assert_eq!(t.faults[2][kind_index(FaultKind::Timeout)], 1);
        let table = t.table(None);
        // x: 2 wins 1 loss 1 draw (62.5 %), y: 1-1-1 (50 %), z: 0-1-0.
        let standings: Vec<&str> = table
            .split("Standings\n")
            .nth(1)
            .unwrap()
            .lines()
            .skip(1)
            .take(3)
            .map(|l| l.split_whitespace().next().unwrap())
            .collect();
        assert_eq!(standings, vec!["x", "y", "z"], "{table}");
        assert!(table.contains("62.5%"), "{table}");
        assert!(table.contains("1 game(s) aborted"), "{table}");
    }

    #[test]
    fn pairs_games_by_round_in_any_order() {
        let mut t = Tally::new(["x", "y"].map(String::from).to_vec());
        let black = Outcome::Win(Color::Black);
        // Round 0: each engine wins with black (x scores 1 + 0); round 1: x wins both; round
        // 2: x draws and loses, its games finishing around round 1's; round 3: one game
        // aborted, so the pair never completes; round 4: one game so far.
        t.add(&game_in_round(0, 0, 1, black, vec![]));
        t.add(&game_in_round(1, 1, 0, Outcome::Win(Color::White), vec![]));
        t.add(&game_in_round(2, 1, 0, Outcome::Draw, vec![]));
        t.add(&game_in_round(0, 1, 0, black, vec![]));
        t.add(&game_in_round(1, 0, 1, black, vec![]));
        t.add(&game_in_round(2, 0, 1, Outcome::Win(Color::White), vec![]));
        t.add(&game_in_round(3, 0, 1, black, vec![]));
        t.add(&game_in_round(3, 1, 0, Outcome::Aborted, vec![]));
        t.add(&game_in_round(4, 1, 0, black, vec![]));
        let p = t.pair_of(0, 1);
        assert_eq!(p.game_pairs.counts, [0, 1, 1, 0, 1]);
        assert_eq!(p.total().games(), 8);
        let table = t.table(Some(&Sprt::default()));
        assert!(
            table.contains("3 game pairs (x's points 0 ½ 1 1½ 2: 0 1 1 0 1)"),
            "{table}"
        );
        assert!(table.contains("SPRT (game pairs)"), "{table}");
    }
}
