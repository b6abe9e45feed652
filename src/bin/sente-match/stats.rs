//! Match statistics: Elo from a score with a 95 % interval, likelihood of superiority, and
//! the sequential probability ratio test.
//!
//! Models (documented in the README, "Matches"):
//! - **Elo** is the logistic model: expected score `s = 1 / (1 + 10^(-elo/400))`.
//! - **The 95 % interval** is the normal approximation of the mean score over per-game
//!   results (trinomial variance: each game scores 1, ½ or 0), mapped through the Elo
//!   curve: `elo(s ± 1.96·σ/√N)`. Printed as `elo ± half-width`.
//! - **LOS** (likelihood of superiority) ignores draws: `Φ((W − L) / √(W + L))`.
//! - **Game pairs** (one opening, colours swapped) are scored as pairs as well: the
//!   pentanomial distribution of a pair's points (0, ½, 1, 1½, 2). The colours' advantage
//!   ties a pair's two games together, so a pair's mean has less variance than two
//!   independent games; the interval and the SPRT over pairs use that, as fishtest does.
//! - **SPRT** is the generalised SPRT with logistic Elo, as used by fishtest: for each
//!   hypothesis the maximum-likelihood distribution of the outcome classes (the five pair
//!   results, or win/draw/loss of single games) whose expected score is `s(elo0)` resp.
//!   `s(elo1)` is found, and the log-likelihood ratio of the observed results under the
//!   two is compared with the Wald bounds `ln(β/(1−α))` and `ln((1−β)/α)`. Empty outcome
//!   classes get a count of 0.001 so that a one-sided sample still gives a finite ratio.

/// The two-sided 95 % quantile of the standard normal distribution.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Results from one engine's point of view.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Wdl {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Wdl {
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    pub fn add(&mut self, other: Wdl) {
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
    }

    /// The same results from the opponent's point of view.
    pub fn flipped(&self) -> Wdl {
        Wdl {
            wins: self.losses,
            draws: self.draws,
            losses: self.wins,
        }
    }

    /// Counts in the order of `OUTCOME_SCORES`.
    fn counts(&self) -> [u32; 3] {
        [self.losses, self.draws, self.wins]
    }

    /// Mean score per game (win 1, draw ½, loss 0); 0.5 with no games.
    pub fn score(&self) -> f64 {
        mean(&self.counts(), &OUTCOME_SCORES)
    }

    /// Per-game variance of the score.
    pub fn variance(&self) -> f64 {
        variance(&self.counts(), &OUTCOME_SCORES)
    }
}

/// Mean score of samples counted by outcome class (`counts[i]` samples scoring
/// `scores[i]`); 0.5 without samples.
fn mean(counts: &[u32], scores: &[f64]) -> f64 {
    let n: u32 = counts.iter().sum();
    if n == 0 {
        return 0.5;
    }
    counts.iter().zip(scores).map(|(&c, a)| c as f64 * a).sum::<f64>() / n as f64
}

/// Variance of one sample's score, counted by outcome class as for `mean`; 0 without
/// samples.
fn variance(counts: &[u32], scores: &[f64]) -> f64 {
    let n: u32 = counts.iter().sum();
    if n == 0 {
        return 0.0;
    }
    let s = mean(counts, scores);
    counts
        .iter()
        .zip(scores)
        .map(|(&c, a)| c as f64 * (a - s).powi(2))
        .sum::<f64>()
        / n as f64
}

/// Elo difference for an expected score (±∞ at 0 and 1).
pub fn elo_from_score(s: f64) -> f64 {
    if s <= 0.0 {
        f64::NEG_INFINITY
    } else if s >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / s - 1.0).log10()
    }
}

/// Expected score for an Elo difference.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// An Elo estimate with the bounds of its 95 % interval.
#[derive(Clone, Copy, Debug)]
pub struct EloEstimate {
    pub elo: f64,
    pub low: f64,
    pub high: f64,
}

impl EloEstimate {
    /// Half the width of the interval (what `±` prints).
    pub fn margin(&self) -> f64 {
        (self.high - self.low) / 2.0
    }
}

/// Elo difference and 95 % interval from the results; `None` without games.
pub fn elo_estimate(r: Wdl) -> Option<EloEstimate> {
    estimate(r.score(), r.variance(), r.games())
}

/// Elo difference and 95 % interval from the pairs' results; `None` without pairs.
pub fn elo_estimate_pairs(p: Pentanomial) -> Option<EloEstimate> {
    estimate(p.score(), p.variance(), p.pairs())
}

/// The interval of a mean `score` of `n` samples of variance `variance`.
fn estimate(score: f64, variance: f64, n: u32) -> Option<EloEstimate> {
    if n == 0 {
        return None;
    }
    let se = (variance / n as f64).sqrt();
    Some(EloEstimate {
        elo: elo_from_score(score),
        low: elo_from_score(score - Z95 * se),
        high: elo_from_score(score + Z95 * se),
    })
}

/// Results of game pairs (one opening, each engine black once) from one engine's point
/// of view: `counts[k]` pairs in which it scored `k` half points (0 = two losses, 4 = two
/// wins).
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Pentanomial {
    pub counts: [u32; 5],
}

/// A pair's mean score per game for each pentanomial class.
const PAIR_SCORES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

impl Pentanomial {
    pub fn pairs(&self) -> u32 {
        self.counts.iter().sum()
    }

    /// Count a pair of two game scores (each 0, ½ or 1).
    pub fn add_pair(&mut self, first: f64, second: f64) {
        let half_points = (2.0 * (first + second)).round() as usize;
        self.counts[half_points.min(4)] += 1;
    }

    /// Mean score per game; 0.5 with no pairs.
    pub fn score(&self) -> f64 {
        mean(&self.counts, &PAIR_SCORES)
    }

    /// Variance of a pair's mean score per game.
    pub fn variance(&self) -> f64 {
        variance(&self.counts, &PAIR_SCORES)
    }
}

/// Likelihood of superiority: the probability that the engine is the stronger one, from
/// wins and losses (draws carry no information here). 0.5 without decisive games.
pub fn los(r: Wdl) -> f64 {
    let decisive = (r.wins + r.losses) as f64;
    if decisive == 0.0 {
        return 0.5;
    }
    normal_cdf((r.wins as f64 - r.losses as f64) / decisive.sqrt())
}

/// The standard normal distribution function.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// Complementary error function; relative error below 1.2e-7 everywhere (the Chebyshev
/// fit of Numerical Recipes, `erfcc`).
pub fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98 + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// SPRT parameters: H0 "the Elo difference is elo0", H1 "it is elo1".
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// H0 accepted: not better by elo1.
    H0,
    /// H1 accepted: better by elo1 rather than elo0.
    H1,
}

impl Default for Sprt {
    fn default() -> Sprt {
        Sprt {
            elo0: 0.0,
            elo1: 10.0,
            alpha: 0.05,
            beta: 0.05,
        }
    }
}

impl Sprt {
    /// The Wald bounds (lower, upper) on the log-likelihood ratio.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// Log-likelihood ratio of H1 against H0 for these results of single games.
    pub fn llr(&self, r: Wdl) -> f64 {
        self.gsprt_llr(&r.counts(), &OUTCOME_SCORES)
    }

    /// Log-likelihood ratio of H1 against H0 for these results of game pairs.
    pub fn llr_pairs(&self, p: Pentanomial) -> f64 {
        self.gsprt_llr(&p.counts, &PAIR_SCORES)
    }

    /// The generalised log-likelihood ratio of outcome classes with these counts and
    /// scores (see the module comment).
    fn gsprt_llr(&self, counts: &[u32], scores: &[f64]) -> f64 {
        if counts.iter().all(|&c| c == 0) {
            return 0.0;
        }
        let counts: Vec<f64> = counts.iter().map(|&c| if c == 0 { 1e-3 } else { c as f64 }).collect();
        let n: f64 = counts.iter().sum();
        let freq: Vec<f64> = counts.iter().map(|c| c / n).collect();
        let s0 = score_from_elo(self.elo0);
        let s1 = score_from_elo(self.elo1);
        let l0 = mle_multiplier(&freq, scores, s0);
        let l1 = mle_multiplier(&freq, scores, s1);
        let per_sample: f64 = freq
            .iter()
            .zip(scores)
            .map(|(f, a)| f * ((1.0 + l0 * (a - s0)).ln() - (1.0 + l1 * (a - s1)).ln()))
            .sum();
        n * per_sample
    }

    pub fn verdict_pairs(&self, p: Pentanomial) -> Option<Verdict> {
        self.verdict_of(self.llr_pairs(p))
    }

    /// The verdict at this log-likelihood ratio, if it is past a bound.
    pub fn verdict_of(&self, llr: f64) -> Option<Verdict> {
        let (low, high) = self.bounds();
        if llr >= high {
            Some(Verdict::H1)
        } else if llr <= low {
            Some(Verdict::H0)
        } else {
            None
        }
    }
}

/// Scores of the outcome classes, in the order loss, draw, win.
const OUTCOME_SCORES: [f64; 3] = [0.0, 0.5, 1.0];

/// The Lagrange multiplier λ of the maximum-likelihood distribution with expected score
/// `s` near the empirical frequencies `freq` of outcomes scoring `scores` (0 to 1, the
/// first 0 and the last 1): `p_i = freq_i / (1 + λ (a_i − s))`, where λ solves
/// `Σ freq_i (a_i − s) / (1 + λ (a_i − s)) = 0`. The left side falls strictly with λ on
/// the interval where every denominator is positive, so bisection finds it.
fn mle_multiplier(freq: &[f64], scores: &[f64], s: f64) -> f64 {
    let g = |l: f64| -> f64 {
        freq.iter()
            .zip(scores)
            .map(|(f, a)| {
                let d = a - s;
                f * d / (1.0 + l * d)
            })
            .sum()
    };
    // The extreme denominators are 1 − λs (score 0) and 1 + λ(1 − s) (score 1):
    // λ ∈ (−1/(1−s), 1/s).
    let (mut lo, mut hi) = (-1.0 / (1.0 - s), 1.0 / s);
    let shrink = |a: f64, b: f64| (a + (b - a) * 1e-12, b - (b - a) * 1e-12);
    (lo, hi) = shrink(lo, hi);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if g(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wdl(wins: u32, draws: u32, losses: u32) -> Wdl {
        Wdl { wins, draws, losses }
    }

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} is not within {tol} of {b}");
    }

    // Expected values below were computed by hand from the formulas in the module comment
    // (s = 0.6: Elo = 400·log10(1.5) = 70.4365; σ² = 0.24, σ/√N = 0.04899; Φ(2) = 0.97725).

    /// The estimate within 1e-4 and its bounds within 1e-3.
    fn assert_interval(e: Option<EloEstimate>, elo: f64, low: f64, high: f64) {
        let e = e.expect("an estimate");
        close(e.elo, elo, 1e-4);
        close(e.low, low, 1e-3);
        close(e.high, high, 1e-3);
    }

    #[test]
    fn elo_and_score_are_inverse() {
        close(elo_from_score(0.5), 0.0, 1e-12);
        close(elo_from_score(0.6), 70.436_503_6, 1e-6);
        close(elo_from_score(0.4), -70.436_503_6, 1e-6);
        close(score_from_elo(70.436_503_6), 0.6, 1e-9);
        close(score_from_elo(10.0), 0.514_387_2, 1e-7);
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
    }

    #[test]
    fn elo_interval_without_draws() {
        let r = wdl(60, 0, 40);
        close(r.score(), 0.6, 1e-12);
        close(r.variance(), 0.24, 1e-12);
        assert_interval(elo_estimate(r), 70.436_5, 2.766_9, 143.909_2);
        close(elo_estimate(r).unwrap().margin(), 70.571_2, 1e-3);
    }

    #[test]
    fn draws_narrow_the_interval() {
        // Same score 0.6 with 30 draws: σ² = (45·0.16 + 30·0.01 + 25·0.36)/100 = 0.165.
        let r = wdl(45, 30, 25);
        close(r.variance(), 0.165, 1e-12);
        assert_interval(elo_estimate(r), 70.436_5, 14.173_4, 130.635_6);
        assert!(elo_estimate(Wdl::default()).is_none());
    }

    #[test]
    fn los_known_values() {
        close(los(wdl(60, 0, 40)), 0.977_249_868, 1e-6); // Φ(2)
        close(los(wdl(45, 30, 25)), 0.991_586_295, 1e-6); // Φ(20/√70)
        close(los(wdl(10, 5, 10)), 0.5, 1e-7);
        close(los(wdl(0, 7, 0)), 0.5, 1e-12);
        close(normal_cdf(-1.959_964), 0.025, 1e-6);
        close(normal_cdf(0.0), 0.5, 1e-7);
    }

    #[test]
    fn sprt_bounds() {
        let (lo, hi) = Sprt::default().bounds();
        close(lo, -2.944_438_98, 1e-7); // ln(0.05/0.95)
        close(hi, 2.944_438_98, 1e-7);
    }

    #[test]
    fn sprt_llr_without_draws_is_the_binomial_ratio() {
        // Without draws the constrained MLE puts s on wins: LLR = W ln(s1/s0) + L ln((1−s1)/(1−s0))
        // = 60 ln(0.5143879/0.5) + 40 ln(0.4856121/0.5) = 0.53423 (the 0.001 pseudo-draw
        // moves it slightly).
        let sprt = Sprt::default();
        close(sprt.llr(wdl(60, 0, 40)), 0.534_23, 2e-3);
    }

    #[test]
    fn sprt_llr_with_draws_matches_direct_maximisation() {
        // Reference values: the trinomial log-likelihood maximised directly over p_win
        // under the score constraint (ternary search), for W/D/L = 45/30/25.
        let r = wdl(45, 30, 25);
        let at = |elo0, elo1| {
            Sprt {
                elo0,
                elo1,
                ..Sprt::default()
            }
            .llr(r)
        };
        close(at(0.0, 10.0), 0.764_472, 1e-5);
        close(at(-5.0, 5.0), 0.822_310, 1e-5);
        close(at(0.0, 50.0), 2.654_570, 1e-5);
        // Swapping the hypotheses negates the ratio.
        close(at(10.0, 0.0), -0.764_472, 1e-5);
    }

    fn pairs(counts: [u32; 5]) -> Pentanomial {
        Pentanomial { counts }
    }

    #[test]
    fn pair_score_variance_and_interval() {
        // 200 pairs 10/30/100/40/20: s = (30·0.25 + 100·0.5 + 40·0.75 + 20)/200 = 0.5375,
        // σ² = 0.05796875 (per pair mean), Elo 26.1067 in [2.8713, 49.5779].
        let p = pairs([10, 30, 100, 40, 20]);
        assert_eq!(p.pairs(), 200);
        close(p.score(), 0.5375, 1e-12);
        close(p.variance(), 0.057_968_75, 1e-12);
        assert_interval(elo_estimate_pairs(p), 26.106_69, 2.871_28, 49.577_91);
        assert!(elo_estimate_pairs(Pentanomial::default()).is_none());
    }

    #[test]
    fn add_pair_counts_half_points() {
        let mut p = Pentanomial::default();
        for (a, b) in [(1.0, 1.0), (1.0, 0.0), (0.5, 0.5), (0.0, 0.5), (0.0, 0.0), (1.0, 0.5)] {
            p.add_pair(a, b);
        }
        assert_eq!(p.counts, [1, 1, 2, 1, 1]);
    }

    #[test]
    fn pairs_that_split_carry_less_variance_than_their_games() {
        // Each opening won once by each side (the colour decides) but for a few: the same
        // 1,000 games as single results are 540 wins and 460 losses.
        let p = pairs([0, 0, 460, 0, 40]);
        let games = wdl(540, 0, 460);
        close(p.score(), games.score(), 1e-12);
        assert!(2.0 * p.variance() < games.variance());
        let e = elo_estimate_pairs(p).unwrap();
        assert!(e.margin() < elo_estimate(games).unwrap().margin());
        let sprt = Sprt::default();
        assert!(sprt.llr_pairs(p) > sprt.llr(games));
        assert_eq!(sprt.verdict_pairs(p), Some(Verdict::H1));
        assert_eq!(sprt.verdict_of(sprt.llr(games)), None);
    }

    #[test]
    fn sprt_llr_of_pairs_matches_direct_maximisation() {
        // Reference values: n·(sup_λ Σ f ln(1 + λ(a − s0)) − sup_λ Σ f ln(1 + λ(a − s1))),
        // the dual of the constrained likelihood, each supremum by ternary search.
        let at = |counts, elo0, elo1| {
            Sprt {
                elo0,
                elo1,
                ..Sprt::default()
            }
            .llr_pairs(pairs(counts))
        };
        close(at([10, 30, 100, 40, 20], 0.0, 10.0), 1.483_563, 1e-5);
        close(at([10, 30, 100, 40, 20], -5.0, 5.0), 1.821_19, 1e-5);
        close(at([10, 30, 100, 40, 20], 0.0, 50.0), 0.436_92, 1e-5);
        close(at([36, 31, 141, 43, 49], 0.0, 20.0), 1.733_492, 1e-5);
        // Pairs that are all or nothing are single results: the binomial ratio again.
        close(at([40, 0, 0, 0, 60], 0.0, 10.0), 0.534_243, 1e-5);
        assert_eq!(Sprt::default().llr_pairs(Pentanomial::default()), 0.0);
    }

    #[test]
    fn sprt_decides_one_sided_samples() {
        let sprt = Sprt::default();
        // All wins: each game adds about ln(s1/s0) = 0.02836, so ~104 games reach 2.944.
        assert_eq!(sprt.verdict_of(sprt.llr(wdl(100, 0, 0))), None);
        assert_eq!(sprt.verdict_of(sprt.llr(wdl(110, 0, 0))), Some(Verdict::H1));
        close(sprt.llr(wdl(100, 0, 0)), 100.0 * (0.514_387_2f64 / 0.5).ln(), 0.02);
        // All losses: each game adds about ln((1−s1)/(1−s0)) = −0.02918.
        assert_eq!(sprt.verdict_of(sprt.llr(wdl(0, 0, 110))), Some(Verdict::H0));
        assert_eq!(sprt.verdict_of(sprt.llr(wdl(10, 80, 10))), None);
        assert_eq!(sprt.llr(Wdl::default()), 0.0);
    }
}
