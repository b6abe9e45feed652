//! `pbrain-sente train` and `pbrain-sente evalcheck`: fit the evaluation tables of one
//! rule to self-play data (`train::dataset`), and measure a weight file on such data.
//!
//! The model is the engine's evaluation itself: a position's score is the sum of the
//! values of its features (per empty point and colour, the pattern combination, for the
//! side to move and for the other side; and the pair of threat levels), so a fitted
//! value is exactly a weight-file value. The loss is the logistic loss between
//! `sigmoid(eval / scale)` and the target `lambda * result + (1 - lambda) *
//! sigmoid(search score / scale)` (result 1 win, 0.5 draw, 0 loss for the side to move).
//! Adam (or plain gradient descent with `--beta1 0 --beta2 0`) on mini-batches, whole
//! games held out for validation (`dataset::validation_games`), early stopping on the
//! validation loss. Floating point is used here only, never at play time: the tables are
//! rounded to integers when written.
//!
//! Outside renju, both colours share one table (the rules treat them alike). The tables
//! are defined up to a constant added to every value of the side to move and of the other
//! side (the score does not change), so one value is kept at its initial value (`gauge`).

use crate::eval::file::{self, VALUE_COUNT};
use crate::eval::{evaluate_from_scratch, point_sides, threat_level, RuleTables, LEVELS};
use crate::game::board::{pattern_combo, PATTERN_COMBOS};
use crate::game::zobrist::splitmix64;
use crate::game::{Board, Color, Rule};

use super::dataset::{self, Record};

/// The training set in flat arrays: sample `i` has features `idx[start[i]..start[i + 1]]`
/// with counts `coef[..]` (negative for the side not to move).
#[derive(Default)]
pub(crate) struct Samples {
    start: Vec<usize>,
    idx: Vec<u32>,
    coef: Vec<i16>,
    pub(crate) target: Vec<f64>,
    pub(crate) result: Vec<f64>,
}

impl Samples {
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.target.len()
    }

    pub(crate) fn push(&mut self, features: &[(u32, i16)], target: f64, result: f64) {
        if self.start.is_empty() {
            self.start.push(0);
        }
        for &(i, c) in features {
            self.idx.push(i);
            self.coef.push(c);
        }
        self.start.push(self.idx.len());
        self.target.push(target);
        self.result.push(result);
    }

    fn features(&self, i: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let r = self.start[i]..self.start[i + 1];
        self.idx[r.clone()]
            .iter()
            .zip(&self.coef[r])
            .map(|(&i, &c)| (i as usize, c as f64))
    }

    /// The model's (unclamped) score of sample `i`.
    pub(crate) fn eval(&self, i: usize, w: &[f64]) -> f64 {
        self.features(i).map(|(j, c)| w[j] * c).sum()
    }
}

/// The index of a point value in file order (`file::values`).
pub(crate) fn point_index(colour: usize, side: usize, combo: usize) -> usize {
    (colour * 2 + side) * PATTERN_COMBOS + combo
}

/// The index of a threat-table value in file order.
pub(crate) fn threat_index(us: usize, them: usize) -> usize {
    4 * PATTERN_COMBOS + us * LEVELS + them
}

/// Do both colours share one table under `rule`?
pub(crate) fn tied(rule: Rule) -> bool {
    !rule.has_forbidden()
}

/// The features of `board` with `us` to move (sorted by index, with counts); the point
/// values by the initiative or by the turn (`eval::point_sides`).
pub(crate) fn features(board: &Board, us: Color, by_initiative: bool) -> Vec<(u32, i16)> {
    let shared = tied(board.rule());
    let them = us.opposite();
    let (ours, theirs) = point_sides(board, us, by_initiative);
    let mut raw: Vec<(u32, i16)> = Vec::with_capacity(2 * board.empty_points().len() + 1);
    for p in board.empty_points().iter() {
        for (c, side, sign) in [(us, ours, 1), (them, theirs, -1)] {
            let combo = pattern_combo([0, 1, 2, 3].map(|d| board.line_pattern(p, c, d)));
            let colour = if shared { 0 } else { c.index() };
            raw.push((point_index(colour, side, combo) as u32, sign));
        }
    }
    raw.push((
        threat_index(threat_level(board, us), threat_level(board, them)) as u32,
        1,
    ));
    raw.sort_unstable();
    let mut out: Vec<(u32, i16)> = Vec::new();
    for (i, sign) in raw {
        match out.last_mut() {
            Some((j, c)) if *j == i => *c += sign,
            _ => out.push((i, sign)),
        }
    }
    out
}

pub(crate) fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Logistic loss of predicting `p` for target `t`.
fn log_loss(p: f64, t: f64) -> f64 {
    let p = p.clamp(1e-12, 1.0 - 1e-12);
    -(t * p.ln() + (1.0 - t) * (1.0 - p).ln())
}

/// What `train` and `evalcheck` need to know about the targets.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Target {
    pub(crate) scale: f64,
    pub(crate) lambda: f64,
}

impl Target {
    pub(crate) fn of(&self, r: &Record) -> f64 {
        self.lambda * r.result() + (1.0 - self.lambda) * sigmoid(r.score as f64 / self.scale)
    }
}

/// Mean loss, and accuracy (on positions whose game was decided: the score's sign against
/// the result, a zero score counting half), of the scores `eval(i)`.
pub(crate) fn measure(s: &Samples, scale: f64, which: &[usize], eval: impl Fn(usize) -> f64) -> (f64, f64) {
    let (mut loss, mut right, mut decided) = (0.0, 0.0, 0usize);
    for &i in which {
        let e = eval(i);
        loss += log_loss(sigmoid(e / scale), s.target[i]);
        if s.result[i] != 0.5 {
            decided += 1;
            right += if e == 0.0 {
                0.5
            } else if (e > 0.0) == (s.result[i] > 0.5) {
                1.0
            } else {
                0.0
            };
        }
    }
    (loss / which.len().max(1) as f64, right / decided.max(1) as f64)
}

#[derive(Clone, Debug)]
pub(crate) struct FitOptions {
    pub(crate) lr: f64,
    /// The step size is multiplied by this after every epoch.
    pub(crate) decay: f64,
    pub(crate) beta1: f64,
    pub(crate) beta2: f64,
    pub(crate) batch: usize,
    pub(crate) epochs: usize,
    pub(crate) patience: usize,
    pub(crate) seed: u64,
    pub(crate) scale: f64,
    /// Print the loss curve.
    pub(crate) verbose: bool,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            lr: 1.0,
            decay: 0.97,
            beta1: 0.9,
            beta2: 0.999,
            batch: 256,
            epochs: 100,
            patience: 5,
            seed: 1,
            scale: 300.0,
            verbose: false,
        }
    }
}

/// The values `fit` keeps at their initial values: per colour, the side-to-move value of
/// the combination found in most training positions. Adding one constant to every value
/// of the side to move and of the other side (of one colour to move) changes no score, so
/// the data cannot tell these; keeping one fixed fixes that constant.
pub(crate) fn gauge(s: &Samples, train: &[usize]) -> Vec<usize> {
    let seen = usage(s, train).positions;
    (0..2)
        .filter_map(|colour| {
            let range = point_index(colour, 0, 0)..point_index(colour, 1, 0);
            range
                .max_by_key(|&j| (seen[j], std::cmp::Reverse(j)))
                .filter(|&j| seen[j] > 0)
        })
        .collect()
}

/// How much each value (file order) is used by the samples `train`.
struct Usage {
    /// In how many samples the value appears.
    positions: Vec<usize>,
    /// Its total count (absolute) over them.
    count: Vec<f64>,
}

fn usage(s: &Samples, train: &[usize]) -> Usage {
    let mut u = Usage {
        positions: vec![0; VALUE_COUNT],
        count: vec![0.0; VALUE_COUNT],
    };
    for &i in train {
        for (j, c) in s.features(i) {
            u.positions[j] += 1;
            u.count[j] += c.abs();
        }
    }
    u
}

/// Fit `w` (file order, initial values in) on the samples `train`, stopping early on the
/// loss of `valid`; `w` ends as the best seen. Returns the loss curve: (train loss,
/// validation loss, validation accuracy) per epoch, the initial weights first.
pub(crate) fn fit(
    s: &Samples,
    train: &[usize],
    valid: &[usize],
    w: &mut [f64],
    o: &FitOptions,
) -> Vec<(f64, f64, f64)> {
    fit_frozen(s, train, valid, w, o, &[])
}

/// `fit`, with the values `frozen` kept at their initial values as well.
fn fit_frozen(
    s: &Samples,
    train: &[usize],
    valid: &[usize],
    w: &mut [f64],
    o: &FitOptions,
    frozen: &[usize],
) -> Vec<(f64, f64, f64)> {
    let mut pinned = gauge(s, train);
    pinned.extend_from_slice(frozen);
    let n = w.len();
    let (mut m, mut v, mut g) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let mut order = train.to_vec();
    let mut rng = o.seed;
    let mut curve = Vec::new();
    let score = |w: &[f64], set: &[usize]| measure(s, o.scale, set, |i| s.eval(i, w));
    let (tl, _) = score(w, train);
    let (vl, va) = score(w, valid);
    curve.push((tl, vl, va));
    let report = |epoch: usize, (tl, vl, va): (f64, f64, f64)| {
        if o.verbose {
            println!(
                "epoch {epoch:3}: train loss {tl:.5}  validation loss {vl:.5}  accuracy {:.2}%",
                100.0 * va
            );
        }
    };
    report(0, (tl, vl, va));
    let mut best = (vl, w.to_vec());
    let mut bad_epochs = 0;
    let mut t = 0i32;
    let mut lr = o.lr;
    for epoch in 1..=o.epochs {
        // A seeded shuffle.
        for i in (1..order.len()).rev() {
            let j = (splitmix64(&mut rng) % (i as u64 + 1)) as usize;
            order.swap(i, j);
        }
        for batch in order.chunks(o.batch.max(1)) {
            g.iter_mut().for_each(|x| *x = 0.0);
            for &i in batch {
                let p = sigmoid(s.eval(i, w) / o.scale);
                let d = (p - s.target[i]) / o.scale / batch.len() as f64;
                for (j, c) in s.features(i) {
                    g[j] += d * c;
                }
            }
            t += 1;
            for j in 0..n {
                if g[j] == 0.0 && m[j] == 0.0 {
                    continue;
                }
                if o.beta1 == 0.0 && o.beta2 == 0.0 {
                    w[j] -= lr * g[j];
                } else {
                    m[j] = o.beta1 * m[j] + (1.0 - o.beta1) * g[j];
                    v[j] = o.beta2 * v[j] + (1.0 - o.beta2) * g[j] * g[j];
                    let mh = m[j] / (1.0 - o.beta1.powi(t));
                    let vh = v[j] / (1.0 - o.beta2.powi(t));
                    w[j] -= lr * mh / (vh.sqrt() + 1e-8);
                }
            }
            for &j in &pinned {
                w[j] = best.1[j];
            }
        }
        lr *= o.decay;
        let (tl, _) = score(w, train);
        let (vl, va) = score(w, valid);
        curve.push((tl, vl, va));
        report(epoch, (tl, vl, va));
        if vl < best.0 - 1e-7 {
            best = (vl, w.to_vec());
            bad_epochs = 0;
        } else {
            bad_epochs += 1;
            if bad_epochs >= o.patience {
                if o.verbose {
                    println!("no better validation loss for {} epochs: stopping", o.patience);
                }
                break;
            }
        }
    }
    w.copy_from_slice(&best.1);
    curve
}

/// The values counted at least once a position on average (over `train`): the commonest
/// pattern combinations of the scored empty points (52 to 71 values in the self-play sets
/// of README "Training the evaluation", the commonest counted about 47 times a position).
/// Rounding one of them moves every score by up to half a point times its count.
fn heavy_values(s: &Samples, train: &[usize]) -> Vec<usize> {
    let count = usage(s, train).count;
    (0..count.len()).filter(|&j| count[j] >= train.len() as f64).collect()
}

/// Rounds the heavy values (`heavy_values`) first and fits the others again around them
/// at a tenth of the step (keeping the best epoch), so that the integer tables score as
/// the fitted ones: rounded at once with the rest, they moved the held-out loss of a
/// standard fit from 0.64253 (its best epoch) to 0.64408. Returns how many values were
/// heavy and the validation loss before and after the second fit.
fn round_heavy_values(
    s: &Samples,
    train: &[usize],
    valid: &[usize],
    w: &mut [f64],
    o: &FitOptions,
) -> (usize, f64, f64) {
    let heavy = heavy_values(s, train);
    for &j in &heavy {
        w[j] = w[j].round();
    }
    let settle = FitOptions {
        lr: o.lr / 10.0,
        verbose: false,
        ..*o
    };
    let curve = fit_frozen(s, train, valid, w, &settle, &heavy);
    let best = curve.iter().map(|c| c.1).fold(f64::INFINITY, f64::min);
    (heavy.len(), curve[0].1, best)
}

/// Integer tables from fitted values (rounded, kept within 16 bits; outside renju the
/// shared table is written for both colours). Returns the tables and how many values were
/// clipped.
pub(crate) fn to_tables(rule: Rule, w: &[f64], by_initiative: bool) -> (RuleTables, usize) {
    let mut clipped = 0;
    let mut v: Vec<i32> = w
        .iter()
        .map(|&x| {
            let r = x.round();
            if r > i16::MAX as f64 || r < i16::MIN as f64 {
                clipped += 1;
            }
            r.clamp(i16::MIN as f64, i16::MAX as f64) as i32
        })
        .collect();
    if tied(rule) {
        for side in 0..2 {
            for combo in 0..PATTERN_COMBOS {
                v[point_index(1, side, combo)] = v[point_index(0, side, combo)];
            }
        }
    }
    let tables = RuleTables {
        by_initiative,
        ..file::from_values(rule, &v)
    };
    (tables, clipped)
}

/// The records of `rule` (default: the first record's) in a data file, and that rule.
fn read_records(path: &str, rule: Option<Rule>) -> Result<(Rule, Vec<Record>), String> {
    let records = dataset::read(path)?;
    let rule = match rule.or_else(|| records.first().map(|r| r.rule)) {
        Some(r) => r,
        None => return Err(format!("{path}: no positions")),
    };
    Ok((rule, records.into_iter().filter(|r| r.rule == rule).collect()))
}

/// The indices of the training and the validation records (about one game in `every`
/// held out, all of a game's positions on the same side).
fn split_games(records: &[Record], every: u64) -> (Vec<usize>, Vec<usize>) {
    let held_out = dataset::validation_games(records, every);
    (0..records.len()).partition(|&i| !held_out.contains(&records[i].game))
}

/// Records as samples (features by the initiative or by the turn).
fn load_samples(records: &[Record], target: Target, by_initiative: bool) -> Samples {
    let mut s = Samples::default();
    for r in records {
        s.push(&features(&r.board(), r.side, by_initiative), target.of(r), r.result());
    }
    s
}

const TRAIN_HELP: &str = "usage: pbrain-sente train DATA --out FILE [options]
  DATA             positions from selfplay (its first rule, or --rule)
  --out FILE       the weight file to write
  --rule NAME      the rule to fit (default: the data's first)
  --init SOURCE    starting values: embedded (default), zero, or a weight file
  --initiative Y   yes: point values follow the initiative, no: the turn (default: as SOURCE)
  --scale S        eval units per logistic unit (default 300)
  --lambda L       weight of the game result in the target, the rest the search score (default 0.5)
  --lr X           step size in eval units (default 1)
  --decay D        the step size is multiplied by D after every epoch (default 0.97)
  --beta1 B --beta2 B  Adam's moment decays (default 0.9 0.999; both 0: plain gradient descent)
  --batch N        positions per step (default 256)
  --epochs N       at most (default 100)
  --patience N     stop after N epochs without a better validation loss (default 5)
  --validation K   about one game in K is held out, equal games together (default 10)
  --seed S         the shuffle's seed (default 1)";

const CHECK_HELP: &str = "usage: pbrain-sente evalcheck DATA [options]
  --eval-file FILE  the weights to measure (default: the embedded ones)
  --scale S --lambda L  as for train (defaults 300, 0.5)
  --validation K   only the held-out games of train --validation K (default: every position)";

struct Args {
    data: String,
    out: Option<String>,
    rule: Option<Rule>,
    init: String,
    initiative: Option<bool>,
    target: Target,
    fit: FitOptions,
    every: u64,
    eval_file: Option<String>,
}

fn parse_args(args: &[String]) -> Result<Args, String> {
    let mut a = Args {
        data: String::new(),
        out: None,
        rule: None,
        init: "embedded".into(),
        initiative: None,
        target: Target {
            scale: 300.0,
            lambda: 0.5,
        },
        fit: FitOptions {
            verbose: true,
            ..FitOptions::default()
        },
        every: 10,
        eval_file: None,
    };
    let mut it = args.iter();
    while let Some(x) = it.next() {
        let mut value = || it.next().cloned().ok_or_else(|| format!("{x} needs a value"));
        let f = |v: String| v.parse::<f64>().map_err(|_| format!("{x}: '{v}' is not a number"));
        match x.as_str() {
            "--out" => a.out = Some(value()?),
            "--rule" => {
                let v = value()?;
                a.rule = Some(Rule::from_name(&v).ok_or_else(|| format!("unknown rule '{v}'"))?);
            }
            "--init" => a.init = value()?,
            "--initiative" => {
                a.initiative = match value()?.as_str() {
                    "yes" => Some(true),
                    "no" => Some(false),
                    v => return Err(format!("--initiative: '{v}' is not yes or no")),
                }
            }
            "--scale" => a.target.scale = f(value()?)?.max(1.0),
            "--lambda" => a.target.lambda = f(value()?)?.clamp(0.0, 1.0),
            "--lr" => a.fit.lr = f(value()?)?,
            "--decay" => a.fit.decay = f(value()?)?,
            "--beta1" => a.fit.beta1 = f(value()?)?,
            "--beta2" => a.fit.beta2 = f(value()?)?,
            "--batch" => a.fit.batch = f(value()?)? as usize,
            "--epochs" => a.fit.epochs = f(value()?)? as usize,
            "--patience" => a.fit.patience = f(value()?)? as usize,
            "--validation" => a.every = f(value()?)? as u64,
            "--seed" => a.fit.seed = f(value()?)? as u64,
            "--eval-file" => a.eval_file = Some(value()?),
            s if !s.starts_with("--") && a.data.is_empty() => a.data = s.to_string(),
            s => return Err(format!("unknown argument '{s}'")),
        }
    }
    a.fit.scale = a.target.scale;
    if a.data.is_empty() {
        return Err("a data file is needed".into());
    }
    Ok(a)
}

fn report(r: Result<String, String>, what: &str) -> i32 {
    match r {
        Ok(text) => {
            println!("{text}");
            0
        }
        Err(e) => {
            println!("{what}: {e}");
            1
        }
    }
}

pub fn run_train(args: &[String]) -> i32 {
    if args.is_empty() || args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{TRAIN_HELP}");
        return if args.is_empty() { 2 } else { 0 };
    }
    report(parse_args(args).and_then(|a| train(&a)), "train")
}

fn train(a: &Args) -> Result<String, String> {
    let out = a.out.clone().ok_or("--out FILE is needed")?;
    let (rule, records) = read_records(&a.data, a.rule)?;
    let init = match a.init.as_str() {
        "embedded" => crate::eval::embedded_tables(rule),
        "zero" => RuleTables::zero(rule),
        path => file::load(path, Some(rule))?,
    };
    let by_initiative = a.initiative.unwrap_or(init.by_initiative);
    let s = load_samples(&records, a.target, by_initiative);
    let (train, valid) = split_games(&records, a.every);
    if train.is_empty() || valid.is_empty() {
        return Err(format!(
            "{} training and {} validation positions: more games are needed",
            train.len(),
            valid.len()
        ));
    }
    let mut w: Vec<f64> = file::values(&init).iter().map(|&v| v as f64).collect();
    debug_assert_eq!(w.len(), VALUE_COUNT);
    println!(
        "{}: {} training and {} validation positions, scale {}, lambda {}, point values by the {}",
        rule.name(),
        train.len(),
        valid.len(),
        a.target.scale,
        a.target.lambda,
        crate::eval::point_basis(by_initiative)
    );
    let curve = fit(&s, &train, &valid, &mut w, &a.fit);
    let (heavy, rounded_loss, settled_loss) = round_heavy_values(&s, &train, &valid, &mut w, &a.fit);
    println!(
        "{heavy} values counted in every position rounded first: validation loss {rounded_loss:.5}, {settled_loss:.5} with the others fitted again"
    );
    let (tables, clipped) = to_tables(rule, &w, by_initiative);
    file::save(&tables, &out)?;
    // The written tables are integers: their own validation score (as evalcheck's).
    let rounded: Vec<f64> = file::values(&tables).iter().map(|&v| v as f64).collect();
    let (loss, acc) = measure(&s, a.target.scale, &valid, |i| s.eval(i, &rounded));
    let first = curve[0];
    Ok(format!(
        "wrote {out}: validation loss {:.5} -> {loss:.5}, accuracy {:.2}% -> {:.2}% (the integer tables){}",
        first.1,
        100.0 * first.2,
        100.0 * acc,
        if clipped > 0 {
            format!(" ({clipped} values clipped to 16 bits)")
        } else {
            String::new()
        }
    ))
}

pub fn run_check(args: &[String]) -> i32 {
    if args.is_empty() || args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{CHECK_HELP}");
        return if args.is_empty() { 2 } else { 0 };
    }
    report(
        parse_args(args).and_then(|mut a| {
            if !args.iter().any(|x| x == "--validation") {
                a.every = 0;
            }
            check(&a)
        }),
        "evalcheck",
    )
}

/// Loss and accuracy of a weight file with the engine's own (integer, clamped) scores.
fn check(a: &Args) -> Result<String, String> {
    let (rule, records) = read_records(&a.data, a.rule)?;
    let tables = match &a.eval_file {
        Some(path) => file::load(path, Some(rule))?,
        None => crate::eval::embedded_tables(rule),
    };
    // The engine scores the positions itself: the samples carry only the targets.
    let mut s = Samples::default();
    for r in &records {
        s.push(&[], a.target.of(r), r.result());
    }
    let which: Vec<usize> = if a.every == 0 {
        (0..records.len()).collect()
    } else {
        split_games(&records, a.every).1
    };
    let (loss, acc) = measure(&s, a.target.scale, &which, |i| {
        evaluate_from_scratch(&records[i].board(), records[i].side, &tables) as f64
    });
    Ok(format!(
        "{} ({}): {} positions, loss {loss:.5}, accuracy {:.2}%",
        a.eval_file.as_deref().unwrap_or("embedded weights"),
        rule.name(),
        which.len(),
        100.0 * acc
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{LINE, OPP, OWN};
    use crate::game::Pos;

    /// Positions of random games (moves near the stones).
    fn random_boards(rule: Rule, n: usize, seed: u64) -> Vec<(Board, Color)> {
        let mut rng = seed;
        let mut out = Vec::new();
        while out.len() < n {
            let mut b = Board::new(15, 15, rule);
            b.make(Pos::new(7, 7), Color::Black);
            let len = 4 + splitmix64(&mut rng) % 40;
            for _ in 0..len {
                let cands: Vec<Pos> = b.candidates().iter().collect();
                let p = cands[(splitmix64(&mut rng) % cands.len() as u64) as usize];
                let c = b.side_to_move();
                b.make(p, c);
                if b.wins_through(p) {
                    break;
                }
                if splitmix64(&mut rng).is_multiple_of(3) {
                    out.push((b.clone(), b.side_to_move()));
                }
            }
        }
        out
    }

    #[test]
    fn features_give_the_engine_score() {
        for (rule, by_initiative) in [(Rule::Freestyle, false), (Rule::Freestyle, true), (Rule::Renju, true)] {
            let mut t = RuleTables::from_hand_set(rule, &OWN, &OPP, &LINE);
            t.threat[2][1] = 55;
            t.threat[0][3] = -70;
            t.by_initiative = by_initiative;
            let w: Vec<f64> = file::values(&t).iter().map(|&v| v as f64).collect();
            // Positions where the initiative swaps the sides must be among those checked.
            let mut swapped = 0;
            for (b, us) in random_boards(rule, 200, 3) {
                let mut s = Samples::default();
                s.push(&features(&b, us, by_initiative), 0.5, 0.5);
                let e = evaluate_from_scratch(&b, us, &t);
                if e.abs() < crate::score::MAX_EVAL {
                    assert_eq!(s.eval(0, &w), e as f64, "{rule:?}");
                    swapped += usize::from(point_sides(&b, us, true) == (1, 0));
                }
            }
            assert!(swapped >= 5, "{rule:?}: {swapped} positions where the sides swap");
        }
    }

    #[test]
    fn a_fit_recovers_known_weights() {
        // Data whose targets come from known tables (the hand-set ones, scaled down, plus
        // a threat table); a fit from zero must find them again where the data show them.
        let rule = Rule::Freestyle;
        let mut truth =
            RuleTables::from_hand_set(rule, &OWN.map(|v| v.min(200) / 2), &OPP.map(|v| v.min(200) / 2), &LINE);
        truth.threat[1][0] = 40;
        truth.threat[0][1] = -60;
        let tw: Vec<f64> = file::values(&truth).iter().map(|&v| v as f64).collect();
        let scale = 200.0;
        let mut s = Samples::default();
        let mut seen = vec![0usize; VALUE_COUNT];
        for (b, us) in random_boards(rule, 3000, 7) {
            let f = features(&b, us, false);
            for &(i, _) in &f {
                seen[i as usize] += 1;
            }
            let mut one = Samples::default();
            one.push(&f, 0.0, 0.0);
            let e = one.eval(0, &tw);
            s.push(&f, sigmoid(e / scale), 0.5);
        }
        let all: Vec<usize> = (0..s.len()).collect();
        let (train, valid): (Vec<usize>, Vec<usize>) = all.iter().partition(|&&i| i % 10 != 0);
        let mut w = vec![0.0; VALUE_COUNT];
        // The one value per colour the data cannot tell (see `gauge`) is given.
        for j in gauge(&s, &train) {
            w[j] = tw[j];
        }
        let o = FitOptions {
            lr: 2.0,
            decay: 0.96,
            batch: 64,
            epochs: 300,
            patience: 30,
            scale,
            ..FitOptions::default()
        };
        let (truth_loss, _) = measure(&s, scale, &valid, |i| s.eval(i, &tw));
        let curve = fit(&s, &train, &valid, &mut w, &o);
        let (fit_loss, _) = measure(&s, scale, &valid, |i| s.eval(i, &w));
        assert!(curve[0].1 - truth_loss > 0.1, "the start is far from the truth");
        assert!(
            fit_loss - truth_loss < 0.003,
            "fitted loss {fit_loss}, the truth's {truth_loss}"
        );
        // The values seen in most positions are found again: the threat table, and for
        // each pattern combination the difference between its values for the side to
        // move and the other side (a pattern combination that both colours have on the
        // same points, as every point far from the stones, adds its two values to the
        // score together: only their difference can be told).
        let mut errors = Vec::new();
        for i in 0..PATTERN_COMBOS {
            let (a, b) = (point_index(0, 0, i), point_index(0, 1, i));
            if seen[a].min(seen[b]) >= 1000 {
                errors.push(((w[a] - w[b]) - (tw[a] - tw[b])).abs());
            }
        }
        for i in threat_index(0, 0)..VALUE_COUNT {
            if seen[i] >= 300 {
                errors.push((w[i] - tw[i]).abs());
            }
        }
        let mean = errors.iter().sum::<f64>() / errors.len() as f64;
        let max = errors.iter().fold(0.0f64, |m, &e| m.max(e));
        assert!(
            errors.len() >= 30 && mean <= 3.0 && max <= 8.0,
            "{} values: mean error {mean:.2}, max {max:.2}",
            errors.len()
        );
        // The scores agree on the held-out positions.
        let (fitted, truth): (Vec<f64>, Vec<f64>) = valid.iter().map(|&i| (s.eval(i, &w), s.eval(i, &tw))).unzip();
        let err = fitted.iter().zip(&truth).map(|(a, b)| (a - b).abs()).sum::<f64>() / truth.len() as f64;
        let size = truth.iter().map(|b| b.abs()).sum::<f64>() / truth.len() as f64;
        assert!(
            err < 0.15 * size,
            "mean score error {err:.1}, mean score size {size:.1}"
        );
        let mean_of = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        let (mf, mt) = (mean_of(&fitted), mean_of(&truth));
        let cov: f64 = fitted.iter().zip(&truth).map(|(a, b)| (a - mf) * (b - mt)).sum();
        let var = |v: &[f64], m: f64| v.iter().map(|a| (a - m) * (a - m)).sum::<f64>();
        let corr = cov / (var(&fitted, mf) * var(&truth, mt)).sqrt();
        assert!(corr > 0.98, "correlation of the scores {corr:.4}");
    }

    #[test]
    fn the_heavy_values_are_rounded_first_and_the_others_fitted_around_them() {
        // Known tables with a fraction on every value counted in every position but the
        // gauge's, as a fit leaves them: rounded all at once they move every score; rounded
        // first, with the others fitted again, the integer tables lose less.
        let rule = Rule::Freestyle;
        let truth = RuleTables::from_hand_set(rule, &OWN.map(|v| v.min(200) / 2), &OPP.map(|v| v.min(200) / 2), &LINE);
        let mut tw: Vec<f64> = file::values(&truth).iter().map(|&v| v as f64).collect();
        let feats: Vec<_> = random_boards(rule, 2000, 11)
            .iter()
            .map(|(b, us)| features(b, *us, false))
            .collect();
        let mut probe = Samples::default();
        for f in &feats {
            probe.push(f, 0.0, 0.0);
        }
        let (train, valid): (Vec<usize>, Vec<usize>) = (0..probe.len()).partition(|&i| i % 10 != 0);
        let pinned = gauge(&probe, &train);
        let heavy = heavy_values(&probe, &train);
        assert!(heavy.len() > pinned.len(), "{} heavy values", heavy.len());
        for &j in heavy.iter().filter(|j| !pinned.contains(j)) {
            tw[j] += 0.45;
        }
        let scale = 200.0;
        let mut s = Samples::default();
        for (i, f) in feats.iter().enumerate() {
            s.push(f, sigmoid(probe.eval(i, &tw) / scale), 0.5);
        }
        let loss = |w: &[f64]| measure(&s, scale, &valid, |i| s.eval(i, w)).0;
        let rounded = |w: &[f64]| w.iter().map(|x| x.round()).collect::<Vec<f64>>();
        let exact = loss(&tw);
        let plain = loss(&rounded(&tw)) - exact;
        let mut w = tw.clone();
        let o = FitOptions {
            scale,
            ..FitOptions::default()
        };
        round_heavy_values(&s, &train, &valid, &mut w, &o);
        assert!(
            heavy.iter().all(|&j| w[j] == w[j].round()),
            "the heavy values are integers"
        );
        let staged = loss(&rounded(&w)) - exact;
        assert!(plain > 0.0001, "rounding at once costs {plain:.6}");
        assert!(staged < plain / 4.0, "rounded first {staged:.6}, at once {plain:.6}");
    }
}
