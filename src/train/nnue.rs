//! `pbrain-sente nnue-train`: train the network (`crate::nnue`) of one rule from games
//! files (`train::games`), and `nnue-check`: its losses and accuracies, and the tables'.
//!
//! The model is the engine's network in floating point: per cell the bias, the rows of
//! its four line shapes and of its threat pair (empty cells) summed, clipped to 0..1; the
//! board sum through a weight vector plus the board mean through a hidden layer of
//! clipped units: a value logit; per empty cell a policy logit. Losses: the value's logistic loss against `lambda · sigmoid(score /
//! scale) + (1 − lambda) · result` (the search's score and the game's result for the side
//! to move), plus `policy_weight` times the policy's cross-entropy against the search's
//! best move over the empty cells. Adam on mini-batches split over the threads, the
//! table rows a batch touches updated only (lazy Adam); whole games held out for
//! validation; early stopping on the validation loss; a checkpoint after every epoch,
//! from which a stopped run goes on. The 8 board symmetries (4 on a rectangle) and, for
//! the rules that treat both colours alike, the colour swap are drawn per game and epoch.
//! Quantised to the play-time integers at the end, with the held-out loss of the integer
//! network printed beside the float one.

use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use crate::game::geometry::symmetric;
use crate::game::zobrist::splitmix64;
use crate::game::{Board, Color, Pos, Rule};
use crate::nnue::shape::{board_shape, board_threat_pair, SHAPES, THREAT_PAIRS};
use crate::nnue::{Network, Row, CHANNELS, HIDDEN, LOGIT_ONE, QA, QW, REFERENCE_SIDE, SCORE_PER_LOGIT};
use crate::score::is_decisive;
use crate::search::movepick::move_value;

use super::games::{self, Game, KIND_SEARCH};

const C: usize = CHANNELS;
const H: usize = HIDDEN;
/// Parameters of one head: hidden weights and biases, output weights and bias, the sum's
/// weights, policy.
const HEAD_PARAMS: usize = H * C + H + H + 1 + C + C;
/// Rows of the feature tables: the bias row, the shapes, the threat pairs.
const ROWS: usize = 1 + SHAPES + THREAT_PAIRS;
const BIAS_ROW: usize = 0;
const SHAPE_ROW0: usize = 1;
const THREAT_ROW0: usize = 1 + SHAPES;

/// One training position: per cell its table rows (5 at most; `NO_ROW` for an occupied
/// cell's fifth), which cells are empty, the best move's cell, the side to move and the
/// value target.
#[derive(Clone, Debug)]
struct Sample {
    rows: Vec<[u32; 5]>,
    empty: Vec<bool>,
    best: u32,
    us: Color,
    target: f32,
    /// The game's result for the side to move: 1, 0.5, 0.
    result: f32,
    /// Off 15×15: the cells whose features the heads add (an empty 15×15 board's) and
    /// take away (an empty board of this size's), as the engine does
    /// (`nnue::REFERENCE_SIDE`): each distinct cell once, with its count (+ or −).
    background: Option<Arc<Background>>,
}

/// Distinct cells' rows, each with its count.
type Background = Vec<([u32; 5], f32)>;

/// The background cells of a `width`×`height` board (`Sample::background`).
fn background_cells(rule: Rule, width: usize, height: usize) -> Option<Arc<Background>> {
    let side = REFERENCE_SIDE;
    if (width, height) == (side, side) {
        return None;
    }
    let mut count = std::collections::BTreeMap::new();
    for ((w, h), sign) in [((side, side), 1.0), ((width, height), -1.0)] {
        let board = Board::new(w, h, rule);
        let cells: Vec<Pos> = board.points().collect();
        for rows in position_rows(&board, &cells).0 {
            *count.entry(rows).or_insert(0.0) += sign;
        }
    }
    Some(Arc::new(count.into_iter().filter(|&(_, n)| n != 0.0).collect()))
}

const NO_ROW: u32 = u32::MAX;

/// The rules under which the colours are alike (a position and its colour swap, with the
/// other side to move, are the same game).
fn colours_alike(rule: Rule) -> bool {
    !rule.has_forbidden()
}

/// The features of `board`'s position for the network: per on-board cell (not blocked),
/// in point order, its rows; and the cells' points.
fn position_rows(board: &Board, cells: &[Pos]) -> (Vec<[u32; 5]>, Vec<bool>) {
    let mut rows = Vec::with_capacity(cells.len());
    let mut empty = Vec::with_capacity(cells.len());
    for &p in cells {
        let mut r = [NO_ROW; 5];
        for (d, slot) in r.iter_mut().take(4).enumerate() {
            *slot = (SHAPE_ROW0 + board_shape(board, p, d)) as u32;
        }
        if let Some(pair) = board_threat_pair(board, p) {
            r[4] = (THREAT_ROW0 + pair) as u32;
        }
        rows.push(r);
        empty.push(board.is_empty(p));
    }
    (rows, empty)
}

/// How the samples of a game are drawn.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SampleOptions {
    pub(crate) scale: f32,
    pub(crate) lambda: f32,
}

/// The samples of `game` under symmetry `sym` and, if `swap`, with the colours swapped:
/// every position the main search decided.
fn game_samples(game: &Game, sym: u32, swap: bool, o: &SampleOptions) -> Vec<Sample> {
    let (w, h) = (game.width, game.height);
    let mut board = Board::new(w, h, game.rule);
    let cells: Vec<Pos> = board.points().collect();
    let index_of = |p: Pos| (p.y() * w + p.x()) as u32;
    let background = background_cells(game.rule, w, h);
    let mut out = Vec::new();
    for (i, ply) in game.plies.iter().enumerate() {
        let colour = Game::colour(i);
        let us = if swap { colour.opposite() } else { colour };
        if ply.kind == KIND_SEARCH && !ply.best.is_none() {
            let result = match game.winner {
                Some(c) if c == colour => 1.0,
                Some(_) => 0.0,
                None => 0.5,
            };
            let score = ply.score as f32;
            let searched = if is_decisive(ply.score as i32) {
                if score > 0.0 {
                    1.0
                } else {
                    0.0
                }
            } else {
                sigmoid(score / o.scale)
            };
            let (rows, empty) = position_rows(&board, &cells);
            out.push(Sample {
                rows,
                empty,
                best: index_of(symmetric(ply.best, sym, w, h)),
                us,
                target: o.lambda * searched + (1.0 - o.lambda) * result,
                result,
                background: background.clone(),
            });
        }
        board.make(symmetric(ply.mv, sym, w, h), us);
    }
    out
}

/// The slope the backward pass gives a clip to 0..1: 1 inside, a small leak outside, so
/// that a unit pushed past its range can come back (the forward pass clips exactly, as
/// the engine does).
#[inline]
fn clip_slope(x: f32) -> f32 {
    if x > 0.0 && x < 1.0 {
        1.0
    } else {
        CLIP_LEAK
    }
}

const CLIP_LEAK: f32 = 0.05;

fn sigmoid(x: f32) -> f32 {
    super::tables::sigmoid(x as f64) as f32
}

/// The float model.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Model {
    /// `ROWS × C`: the bias row, the shape rows, the threat rows.
    rows: Vec<f32>,
    /// Per side to move, `HEAD_PARAMS`: hidden `H × C`, hidden bias `H`, out `H`, out bias,
    /// the sum's weights `C`, policy `C`.
    heads: Vec<f32>,
}

/// Offsets inside a head.
const HID: usize = 0;
const HID_B: usize = H * C;
const OUT: usize = H * C + H;
const OUT_B: usize = H * C + 2 * H;
const CELL: usize = H * C + 2 * H + 1;
const POL: usize = H * C + 2 * H + 1 + C;

impl Model {
    fn new(seed: u64) -> Model {
        let mut rng = seed;
        let mut uniform = |scale: f32| ((splitmix64(&mut rng) >> 11) as f32 / (1u64 << 53) as f32 * 2.0 - 1.0) * scale;
        let mut rows = vec![0.0; ROWS * C];
        for v in rows.iter_mut() {
            *v = uniform(0.05);
        }
        // The bias row starts at 0, so that an ordinary cell's features are near 0 and
        // what matters stands out of the board mean.
        for v in rows[..C].iter_mut() {
            *v = 0.0;
        }
        let mut heads = vec![0.0; 2 * HEAD_PARAMS];
        for side in 0..2 {
            let h = &mut heads[side * HEAD_PARAMS..(side + 1) * HEAD_PARAMS];
            // Small hidden weights and a bias of 0.5 start every hidden unit inside its
            // linear range; the sum's weights start at 0.
            for v in h[HID..HID_B].iter_mut() {
                *v = uniform(0.5);
            }
            for v in h[HID_B..OUT].iter_mut() {
                *v = 0.5;
            }
            for v in h[OUT..OUT_B].iter_mut() {
                *v = uniform(0.5);
            }
            for v in h[POL..].iter_mut() {
                *v = uniform(0.5);
            }
        }
        Model { rows, heads }
    }

    fn params(&self) -> usize {
        self.rows.len() + self.heads.len()
    }
}

/// What one sample gives: its losses and whether the policy's best guesses hit.
#[derive(Clone, Copy, Default, Debug)]
pub(crate) struct Metrics {
    pub(crate) samples: f64,
    pub(crate) value_loss: f64,
    pub(crate) policy_loss: f64,
    /// The value's sign agrees with the game's result (decided games).
    pub(crate) value_right: f64,
    pub(crate) decided: f64,
    pub(crate) top1: f64,
    pub(crate) top3: f64,
}

impl Metrics {
    fn add(&mut self, o: &Metrics) {
        self.samples += o.samples;
        self.value_loss += o.value_loss;
        self.policy_loss += o.policy_loss;
        self.value_right += o.value_right;
        self.decided += o.decided;
        self.top1 += o.top1;
        self.top3 += o.top3;
    }

    pub(crate) fn line(&self) -> String {
        let n = self.samples.max(1.0);
        format!(
            "value loss {:.5} acc {:.2} % | policy loss {:.4} top1 {:.2} % top3 {:.2} % ({} positions)",
            self.value_loss / n,
            100.0 * self.value_right / self.decided.max(1.0),
            self.policy_loss / n,
            100.0 * self.top1 / n,
            100.0 * self.top3 / n,
            self.samples
        )
    }

    /// The loss the training minimises.
    fn total(&self, policy_weight: f64) -> f64 {
        (self.value_loss + policy_weight * self.policy_loss) / self.samples.max(1.0)
    }
}

/// Logistic loss of probability `p` against target `t`.
fn logistic_loss(p: f32, t: f32) -> f64 {
    let p = p.clamp(1e-7, 1.0 - 1e-7) as f64;
    let t = t as f64;
    -(t * p.ln() + (1.0 - t) * (1.0 - p).ln())
}

/// Ranks of the best move's logit among the empty cells: (best is first, among the
/// first three).
fn hits(logits: &[f32], empty: &[bool], best: usize) -> (bool, bool) {
    let b = logits[best];
    // Ties break on the cell order, as the engine's move order does.
    let above = logits
        .iter()
        .zip(empty)
        .enumerate()
        .filter(|&(i, (&l, &e))| e && (l > b || (l == b && i < best)))
        .count();
    (above == 0, above < 3)
}

/// Gradient buffers of one thread: dense, with the table rows touched listed.
struct Grads {
    rows: Vec<f32>,
    touched: Vec<u32>,
    seen: Vec<bool>,
    heads: Vec<f32>,
}

impl Grads {
    fn new() -> Grads {
        Grads {
            rows: vec![0.0; ROWS * C],
            touched: Vec::new(),
            seen: vec![false; ROWS],
            heads: vec![0.0; 2 * HEAD_PARAMS],
        }
    }

    fn row(&mut self, r: usize) -> &mut [f32] {
        if !self.seen[r] {
            self.seen[r] = true;
            self.touched.push(r as u32);
        }
        &mut self.rows[r * C..(r + 1) * C]
    }

    fn clear(&mut self) {
        for &r in &self.touched {
            let r = r as usize;
            self.seen[r] = false;
            self.rows[r * C..(r + 1) * C].fill(0.0);
        }
        self.touched.clear();
        self.heads.fill(0.0);
    }
}

/// Forward (and with `grads`, backward) for one sample.
fn run_sample(m: &Model, s: &Sample, policy_weight: f32, grads: Option<&mut Grads>) -> Metrics {
    let n = s.rows.len();
    let head = &m.heads[s.us.index() * HEAD_PARAMS..(s.us.index() + 1) * HEAD_PARAMS];
    // Cells: accumulators and features.
    let mut acc = vec![[0f32; C]; n];
    let mut sum = [0f32; C];
    for (a, rows) in acc.iter_mut().zip(&s.rows) {
        for &r in rows.iter().filter(|&&r| r != NO_ROW) {
            let row = &m.rows[r as usize * C..(r as usize + 1) * C];
            for c in 0..C {
                a[c] += row[c];
            }
        }
        let bias = &m.rows[BIAS_ROW * C..(BIAS_ROW + 1) * C];
        for c in 0..C {
            a[c] += bias[c];
            sum[c] += a[c].clamp(0.0, 1.0);
        }
    }
    // Off 15×15, the background cells' features, as the engine adds them.
    let bias = &m.rows[BIAS_ROW * C..(BIAS_ROW + 1) * C];
    let background: &[([u32; 5], f32)] = s.background.as_deref().map_or(&[], |b| b.as_slice());
    let background_acc: Vec<[f32; C]> = background
        .iter()
        .map(|(rows, sign)| {
            let mut a: [f32; C] = std::array::from_fn(|c| bias[c]);
            for &r in rows.iter().filter(|&&r| r != NO_ROW) {
                for (a, w) in a.iter_mut().zip(&m.rows[r as usize * C..(r as usize + 1) * C]) {
                    *a += w;
                }
            }
            for c in 0..C {
                sum[c] += sign * a[c].clamp(0.0, 1.0);
            }
            a
        })
        .collect();
    let cells = (REFERENCE_SIDE * REFERENCE_SIDE) as f32;
    let mean: [f32; C] = std::array::from_fn(|c| sum[c] / cells);
    // Value head.
    let mut z = [0f32; H];
    let mut z_slope = [0f32; H];
    let mut logit = head[OUT_B] + head[CELL..CELL + C].iter().zip(&sum).map(|(u, s)| u * s).sum::<f32>();
    for j in 0..H {
        let w = &head[HID + j * C..HID + (j + 1) * C];
        let pre: f32 = w.iter().zip(&mean).map(|(a, b)| a * b).sum::<f32>() + head[HID_B + j];
        z[j] = pre.clamp(0.0, 1.0);
        z_slope[j] = clip_slope(pre);
        logit += head[OUT + j] * z[j];
    }
    let p = sigmoid(logit);
    // Policy head over the empty cells.
    let pol = &head[POL..POL + C];
    let mut logits = vec![f32::NEG_INFINITY; n];
    let mut max = f32::NEG_INFINITY;
    for i in 0..n {
        if s.empty[i] {
            let l: f32 = acc[i].iter().zip(pol).map(|(a, w)| a.clamp(0.0, 1.0) * w).sum();
            logits[i] = l;
            max = max.max(l);
        }
    }
    let denom: f32 = logits.iter().map(|&l| (l - max).exp()).sum();
    let best = s.best as usize;
    let prob_best = ((logits[best] - max).exp() / denom).max(1e-12);
    let (top1, top3) = hits(&logits, &s.empty, best);
    let metrics = Metrics {
        samples: 1.0,
        value_loss: logistic_loss(p, s.target),
        policy_loss: -(prob_best as f64).ln(),
        value_right: if s.result != 0.5 && (logit > 0.0) == (s.result > 0.5) {
            1.0
        } else {
            0.0
        },
        decided: if s.result != 0.5 { 1.0 } else { 0.0 },
        top1: top1 as u8 as f64,
        top3: top3 as u8 as f64,
    };
    let Some(g) = grads else { return metrics };
    // Backward.
    let gh = &mut g.heads[s.us.index() * HEAD_PARAMS..(s.us.index() + 1) * HEAD_PARAMS];
    let dlogit = p - s.target;
    gh[OUT_B] += dlogit;
    for c in 0..C {
        gh[CELL + c] += dlogit * sum[c];
    }
    let mut dmean = [0f32; C];
    for j in 0..H {
        gh[OUT + j] += dlogit * z[j];
        let dz = dlogit * head[OUT + j] * z_slope[j];
        gh[HID_B + j] += dz;
        for c in 0..C {
            gh[HID + j * C + c] += dz * mean[c];
            dmean[c] += dz * head[HID + j * C + c];
        }
    }
    let mut dpol = [0f32; C];
    let mut bias_grad = [0f32; C];
    for i in 0..n {
        // d loss / d feature of cell i: the mean's share, and the policy's.
        let mut dh = [0f32; C];
        for c in 0..C {
            dh[c] = dmean[c] / cells + dlogit * head[CELL + c];
        }
        if s.empty[i] {
            let prob = (logits[i] - max).exp() / denom;
            let dl = policy_weight * (prob - if i == best { 1.0 } else { 0.0 });
            for c in 0..C {
                let f = acc[i][c].clamp(0.0, 1.0);
                dpol[c] += dl * f;
                dh[c] += dl * pol[c];
            }
        }
        let mut da = [0f32; C];
        for c in 0..C {
            da[c] = dh[c] * clip_slope(acc[i][c]);
        }
        for c in 0..C {
            bias_grad[c] += da[c];
        }
        for &r in s.rows[i].iter().filter(|&&r| r != NO_ROW) {
            let row = g.row(r as usize);
            for c in 0..C {
                row[c] += da[c];
            }
        }
    }
    for ((rows, sign), a) in background.iter().zip(&background_acc) {
        let da: [f32; C] =
            std::array::from_fn(|c| sign * (dmean[c] / cells + dlogit * head[CELL + c]) * clip_slope(a[c]));
        for c in 0..C {
            bias_grad[c] += da[c];
        }
        for &r in rows.iter().filter(|&&r| r != NO_ROW) {
            for (g, d) in g.row(r as usize).iter_mut().zip(&da) {
                *g += d;
            }
        }
    }
    let gh = &mut g.heads[s.us.index() * HEAD_PARAMS..(s.us.index() + 1) * HEAD_PARAMS];
    for c in 0..C {
        gh[POL + c] += dpol[c];
    }
    let b = g.row(BIAS_ROW);
    for c in 0..C {
        b[c] += bias_grad[c];
    }
    metrics
}

/// Adam state.
#[derive(Clone)]
struct Adam {
    m_rows: Vec<f32>,
    v_rows: Vec<f32>,
    /// Steps each row has been updated (lazy Adam: a row's bias correction counts its own).
    row_steps: Vec<u32>,
    m_heads: Vec<f32>,
    v_heads: Vec<f32>,
    steps: u64,
}

/// What one Adam update of a block of weights needs besides the weights: the block's step
/// count (for the bias correction), the learning rate, the gradients' scale (one over the
/// batch) and the bound the weights are kept within.
#[derive(Clone, Copy)]
struct StepSize {
    steps: u32,
    lr: f32,
    scale: f32,
    bound: f32,
}

const BETA1: f32 = 0.9;
const BETA2: f32 = 0.999;
const EPSILON: f32 = 1e-8;

impl Adam {
    fn new() -> Adam {
        Adam {
            m_rows: vec![0.0; ROWS * C],
            v_rows: vec![0.0; ROWS * C],
            row_steps: vec![0; ROWS],
            m_heads: vec![0.0; 2 * HEAD_PARAMS],
            v_heads: vec![0.0; 2 * HEAD_PARAMS],
            steps: 0,
        }
    }

    /// One Adam update of the weights `w` from their summed gradients `g`, with the
    /// moments `m` and `v` and the step's settings.
    fn update(w: &mut [f32], g: &[f32], m: &mut [f32], v: &mut [f32], step: StepSize) {
        let c1 = 1.0 - BETA1.powi(step.steps as i32);
        let c2 = 1.0 - BETA2.powi(step.steps as i32);
        for i in 0..w.len() {
            let gi = g[i] * step.scale;
            m[i] = BETA1 * m[i] + (1.0 - BETA1) * gi;
            v[i] = BETA2 * v[i] + (1.0 - BETA2) * gi * gi;
            let moved = w[i] - step.lr * (m[i] / c1) / ((v[i] / c2).sqrt() + EPSILON);
            w[i] = moved.clamp(-step.bound, step.bound);
        }
    }

    /// One step with the summed gradients of `batch` samples.
    fn step(&mut self, model: &mut Model, g: &Grads, batch: usize, lr: f32) {
        self.steps += 1;
        let scale = 1.0 / batch as f32;
        for &r in &g.touched {
            let r = r as usize;
            self.row_steps[r] += 1;
            let span = r * C..(r + 1) * C;
            Adam::update(
                &mut model.rows[span.clone()],
                &g.rows[span.clone()],
                &mut self.m_rows[span.clone()],
                &mut self.v_rows[span],
                StepSize {
                    steps: self.row_steps[r],
                    lr,
                    scale,
                    bound: ROW_BOUND,
                },
            );
        }
        Adam::update(
            &mut model.heads,
            &g.heads,
            &mut self.m_heads,
            &mut self.v_heads,
            StepSize {
                steps: self.steps as u32,
                lr,
                scale,
                bound: HEAD_BOUND,
            },
        );
    }
}

/// Weights stay within these, so that the integers they round to cannot overflow (a
/// row ×`QA` in i16, five rows and a bias summed; heads ×`QW`).
const ROW_BOUND: f32 = 3.0;
const HEAD_BOUND: f32 = 7.9;

/// The training options.
#[derive(Clone, Debug)]
pub(crate) struct TrainOptions {
    pub(crate) rule: Rule,
    pub(crate) samples: SampleOptions,
    pub(crate) policy_weight: f32,
    pub(crate) lr: f32,
    /// Epochs over which the learning rate halves (0: it stays): late epochs take smaller
    /// steps, where a constant rate left the held-out loss jumping between epochs (fs15-n5:
    /// 0.601 to 0.667).
    pub(crate) lr_half: usize,
    pub(crate) batch: usize,
    pub(crate) epochs: usize,
    pub(crate) patience: usize,
    /// Every `validation`-th game is held out.
    pub(crate) validation: usize,
    pub(crate) threads: usize,
    pub(crate) seed: u64,
    /// Games per shuffle buffer.
    pub(crate) buffer_games: usize,
    pub(crate) checkpoint: Option<String>,
    /// The network to start from (`--init FILE`, or `embedded`: the rule's), instead of
    /// random weights.
    pub(crate) init: Option<String>,
    /// Progress lines on stderr: the `nnue-train` command's only.
    pub(crate) progress: bool,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            rule: Rule::Freestyle,
            samples: SampleOptions {
                scale: 300.0,
                lambda: 0.7,
            },
            policy_weight: 1.0,
            lr: 1e-3,
            lr_half: 8,
            batch: 512,
            epochs: 30,
            patience: 8,
            validation: 20,
            threads: crate::engine::available_cores(),
            seed: 1,
            buffer_games: 64,
            checkpoint: None,
            init: None,
            progress: false,
        }
    }
}

/// Split games into (training, validation).
fn split(games: Vec<Game>, validation: usize) -> (Vec<Game>, Vec<Game>) {
    let mut train = Vec::new();
    let mut held = Vec::new();
    for (i, g) in games.into_iter().enumerate() {
        if validation > 0 && i % validation == validation - 1 {
            held.push(g);
        } else {
            train.push(g);
        }
    }
    (train, held)
}

/// The metrics of `model` on `games` (no symmetry, no swap), over `threads`.
fn measure(model: &Model, games: &[Game], o: &TrainOptions) -> Metrics {
    let chunks: Vec<&[Game]> = games.chunks(games.len().div_ceil(o.threads.max(1)).max(1)).collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                scope.spawn(move || {
                    let mut m = Metrics::default();
                    for g in chunk {
                        for s in game_samples(g, 0, false, &o.samples) {
                            m.add(&run_sample(model, &s, o.policy_weight, None));
                        }
                    }
                    m
                })
            })
            .collect();
        let mut total = Metrics::default();
        for h in handles {
            total.add(&h.join().expect("measure thread"));
        }
        total
    })
}

/// A checkpoint: the model, the optimiser and where the run stands.
struct Checkpoint {
    model: Model,
    adam: Adam,
    epoch: usize,
    best: Model,
    best_loss: f64,
    stale: usize,
}

const CHECKPOINT_MAGIC: &[u8; 8] = b"SENTCKPT";

fn write_f32s(out: &mut Vec<u8>, v: &[f32]) {
    for x in v {
        out.extend_from_slice(&x.to_le_bytes());
    }
}

fn save_checkpoint(path: &str, c: &Checkpoint) -> Result<(), String> {
    let mut out = CHECKPOINT_MAGIC.to_vec();
    out.extend_from_slice(&(C as u32).to_le_bytes());
    out.extend_from_slice(&(H as u32).to_le_bytes());
    out.extend_from_slice(&(c.epoch as u64).to_le_bytes());
    out.extend_from_slice(&(c.stale as u64).to_le_bytes());
    out.extend_from_slice(&c.best_loss.to_le_bytes());
    out.extend_from_slice(&c.adam.steps.to_le_bytes());
    for m in [&c.model, &c.best] {
        write_f32s(&mut out, &m.rows);
        write_f32s(&mut out, &m.heads);
    }
    for v in [&c.adam.m_rows, &c.adam.v_rows, &c.adam.m_heads, &c.adam.v_heads] {
        write_f32s(&mut out, v);
    }
    for s in &c.adam.row_steps {
        out.extend_from_slice(&s.to_le_bytes());
    }
    let tmp = format!("{path}.tmp");
    std::fs::write(&tmp, &out).map_err(|e| format!("cannot write {tmp}: {e}"))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot write {path}: {e}"))
}

fn load_checkpoint(path: &str) -> Result<Option<Checkpoint>, String> {
    let Ok(bytes) = std::fs::read(path) else {
        return Ok(None);
    };
    let bad = || format!("{path}: not a checkpoint of this build");
    if bytes.len() < 48 || &bytes[..8] != CHECKPOINT_MAGIC {
        return Err(bad());
    }
    let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().expect("4"));
    let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8"));
    if (u32_at(8) as usize, u32_at(12) as usize) != (C, H) {
        return Err(bad());
    }
    let model_floats = ROWS * C + 2 * HEAD_PARAMS;
    let expected = 48 + 4 * (2 * model_floats + 2 * ROWS * C + 4 * HEAD_PARAMS) + 4 * ROWS;
    if bytes.len() != expected {
        return Err(bad());
    }
    let mut at = 48;
    let mut floats = |n: usize| -> Vec<f32> {
        let v = bytes[at..at + 4 * n]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4")))
            .collect();
        at += 4 * n;
        v
    };
    let mut model = || Model {
        rows: floats(ROWS * C),
        heads: floats(2 * HEAD_PARAMS),
    };
    let (m, best) = (model(), model());
    let (m_rows, v_rows, m_heads, v_heads) = (
        floats(ROWS * C),
        floats(ROWS * C),
        floats(2 * HEAD_PARAMS),
        floats(2 * HEAD_PARAMS),
    );
    let row_steps = bytes[at..]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4")))
        .collect();
    Ok(Some(Checkpoint {
        model: m,
        adam: Adam {
            m_rows,
            v_rows,
            row_steps,
            m_heads,
            v_heads,
            steps: u64_at(40),
        },
        epoch: u64_at(16) as usize,
        stale: u64_at(24) as usize,
        best_loss: f64::from_le_bytes(bytes[32..40].try_into().expect("8")),
        best,
    }))
}

/// Train on `games`; returns the best model (by validation loss) and its metrics.
pub(crate) fn train(games: Vec<Game>, o: &TrainOptions) -> Result<(Model, Metrics), String> {
    let games: Vec<Game> = games.into_iter().filter(|g| g.rule == o.rule).collect();
    let (train_games, held) = split(games, o.validation);
    if train_games.is_empty() {
        return Err(format!("no {} games to train on", o.rule.name()));
    }
    let say = |s: String| {
        if o.progress {
            eprintln!("{s}");
        }
    };
    let mut state = match o.checkpoint.as_deref().map(load_checkpoint).transpose()?.flatten() {
        Some(c) => {
            say(format!(
                "resuming after epoch {} (best validation loss {:.5})",
                c.epoch, c.best_loss
            ));
            c
        }
        None => {
            let model = match o.init.as_deref() {
                None => Model::new(o.seed),
                Some("embedded") => {
                    let net = crate::nnue::embedded(o.rule)
                        .ok_or_else(|| format!("{} has no embedded network", o.rule.name()))?;
                    dequantise(&net)
                }
                Some(path) => dequantise(&Network::load(path, Some(o.rule))?),
            };
            Checkpoint {
                best: model.clone(),
                model,
                adam: Adam::new(),
                epoch: 0,
                best_loss: f64::INFINITY,
                stale: 0,
            }
        }
    };
    say(format!(
        "{} training games, {} held out, {} parameters, {} threads",
        train_games.len(),
        held.len(),
        state.model.params(),
        o.threads
    ));
    let threads = o.threads.max(1);
    let mut grads: Vec<Grads> = (0..threads).map(|_| Grads::new()).collect();
    while state.epoch < o.epochs && state.stale < o.patience {
        let started = Instant::now();
        let lr = epoch_lr(o, state.epoch);
        let mut rng = o.seed ^ (state.epoch as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        // Games in a shuffled order; each drawn with a symmetry (and colour swap).
        let mut order: Vec<usize> = (0..train_games.len()).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, (splitmix64(&mut rng) % (i as u64 + 1)) as usize);
        }
        let mut seen = Metrics::default();
        for chunk in order.chunks(o.buffer_games.max(1)) {
            let mut buffer = Vec::new();
            for &gi in chunk {
                let g = &train_games[gi];
                let r = splitmix64(&mut rng);
                let syms = if g.width == g.height { 8 } else { 4 };
                let swap = colours_alike(g.rule) && (r >> 8) & 1 == 1;
                buffer.extend(game_samples(g, (r % syms) as u32, swap, &o.samples));
            }
            for i in (1..buffer.len()).rev() {
                buffer.swap(i, (splitmix64(&mut rng) % (i as u64 + 1)) as usize);
            }
            for batch in buffer.chunks(o.batch.max(1)) {
                let model = &state.model;
                let parts: Vec<&[Sample]> = batch.chunks(batch.len().div_ceil(threads)).collect();
                let metrics = std::thread::scope(|scope| {
                    let handles: Vec<_> = parts
                        .iter()
                        .zip(grads.iter_mut())
                        .map(|(part, g)| {
                            scope.spawn(move || {
                                g.clear();
                                let mut m = Metrics::default();
                                for s in part.iter() {
                                    m.add(&run_sample(model, s, o.policy_weight, Some(g)));
                                }
                                m
                            })
                        })
                        .collect();
                    let mut m = Metrics::default();
                    for h in handles {
                        m.add(&h.join().expect("training thread"));
                    }
                    m
                });
                seen.add(&metrics);
                // Sum the other threads' gradients into the first.
                let (first, rest) = grads.split_at_mut(1);
                for other in rest.iter().take(parts.len().saturating_sub(1)) {
                    for &r in &other.touched {
                        let r = r as usize;
                        let src = &other.rows[r * C..(r + 1) * C];
                        let dst = first[0].row(r);
                        for c in 0..C {
                            dst[c] += src[c];
                        }
                    }
                    for (a, b) in first[0].heads.iter_mut().zip(&other.heads) {
                        *a += b;
                    }
                }
                state.adam.step(&mut state.model, &first[0], batch.len(), lr);
                for g in rest.iter_mut() {
                    g.clear();
                }
            }
        }
        state.epoch += 1;
        let val = if held.is_empty() {
            seen
        } else {
            measure(&state.model, &held, o)
        };
        let loss = val.total(o.policy_weight as f64);
        if loss < state.best_loss {
            state.best_loss = loss;
            state.best = state.model.clone();
            state.stale = 0;
        } else {
            state.stale += 1;
        }
        say(format!(
            "epoch {} ({:.0} s, lr {lr:.2e}): train {} | held out {}{}",
            state.epoch,
            started.elapsed().as_secs_f64(),
            seen.line(),
            val.line(),
            if state.stale == 0 { " (best)" } else { "" }
        ));
        if let Some(path) = &o.checkpoint {
            save_checkpoint(path, &state)?;
        }
    }
    let metrics = if held.is_empty() {
        Metrics::default()
    } else {
        measure(&state.best, &held, o)
    };
    Ok((state.best, metrics))
}

/// The learning rate of epoch `epoch` (from 0): `lr · 2^(-epoch / lr_half)`.
fn epoch_lr(o: &TrainOptions, epoch: usize) -> f32 {
    if o.lr_half == 0 {
        o.lr
    } else {
        o.lr * 0.5f32.powf(epoch as f32 / o.lr_half as f32)
    }
}

/// Round the float model to the play-time integers.
pub(crate) fn quantise(m: &Model, rule: Rule) -> Network {
    let q = |v: f32, scale: i32| (v * scale as f32).round().clamp(-32767.0, 32767.0) as i16;
    let row = |r: usize| -> Row { std::array::from_fn(|c| q(m.rows[r * C + c], QA)) };
    let mut n = Network::zero(rule);
    n.bias = row(BIAS_ROW);
    for (i, r) in n.shapes.iter_mut().enumerate() {
        *r = row(SHAPE_ROW0 + i);
    }
    for (i, r) in n.threats.iter_mut().enumerate() {
        *r = row(THREAT_ROW0 + i);
    }
    for (side, head) in n.heads.iter_mut().enumerate() {
        let h = &m.heads[side * HEAD_PARAMS..(side + 1) * HEAD_PARAMS];
        for j in 0..H {
            head.hidden[j] = std::array::from_fn(|c| q(h[HID + j * C + c], QW));
            head.hidden_bias[j] = q(h[HID_B + j], QW);
            head.out[j] = q(h[OUT + j], QW);
        }
        head.out_bias = q(h[OUT_B], LOGIT_ONE);
        head.cell = std::array::from_fn(|c| q(h[CELL + c], LOGIT_ONE));
        head.policy = std::array::from_fn(|c| q(h[POL + c], QW));
    }
    n
}

/// The float model whose rounding is `net` (each value over its scale): the start of a
/// training from a network that plays (`--init`), when the data it was trained on are
/// gone or a new board size is to be learnt from its games.
pub(crate) fn dequantise(n: &Network) -> Model {
    let f = |v: i16, scale: i32| v as f32 / scale as f32;
    let mut m = Model::new(0);
    let mut set_row = |r: usize, row: &Row| {
        for (c, &v) in row.iter().enumerate() {
            m.rows[r * C + c] = f(v, QA);
        }
    };
    set_row(BIAS_ROW, &n.bias);
    for (i, r) in n.shapes.iter().enumerate() {
        set_row(SHAPE_ROW0 + i, r);
    }
    for (i, r) in n.threats.iter().enumerate() {
        set_row(THREAT_ROW0 + i, r);
    }
    for (side, head) in n.heads.iter().enumerate() {
        let h = &mut m.heads[side * HEAD_PARAMS..(side + 1) * HEAD_PARAMS];
        for j in 0..H {
            for c in 0..C {
                h[HID + j * C + c] = f(head.hidden[j][c], QW);
            }
            h[HID_B + j] = f(head.hidden_bias[j], QW);
            h[OUT + j] = f(head.out[j], QW);
        }
        h[OUT_B] = f(head.out_bias, LOGIT_ONE);
        for c in 0..C {
            h[CELL + c] = f(head.cell[c], LOGIT_ONE);
            h[POL + c] = f(head.policy[c], QW);
        }
    }
    m
}

/// What the measurements judge a position by: the integer network through the engine's
/// own evaluator, or today's tables (the static evaluation on the search's scale as the
/// value, the move picker's static ordering values as the policy).
enum Judge {
    Net(Box<crate::nnue::NetEvaluator>),
    Tables(crate::eval::Evaluator),
}

impl Judge {
    /// The value logit for `us` to move.
    fn value(&mut self, board: &Board, us: Color) -> f32 {
        match self {
            Judge::Net(ev) => ev.value(board, us) as f32 / LOGIT_ONE as f32,
            Judge::Tables(ev) => ev.evaluate(board, us) as f32 / SCORE_PER_LOGIT as f32,
        }
    }

    /// The policy logit of the empty point `p`, in natural units.
    fn policy(&mut self, board: &Board, us: Color, p: Pos) -> f32 {
        match self {
            // The network's integer logits are in units of QA·QW.
            Judge::Net(ev) => ev.policy(board, us, p) as f32 / (QA * QW) as f32,
            // Ordering values have no probability scale: TABLE_POLICY_UNIT points a logit
            // (only top-1 and top-3 compare with the network's).
            Judge::Tables(_) => move_value(board, p, us) as f32 / TABLE_POLICY_UNIT,
        }
    }
}

/// Ordering value points per logit when the tables' move order is read as a policy.
const TABLE_POLICY_UNIT: f32 = 50.0;

/// The metrics of the integer network on `games`, through the engine's own evaluator.
pub(crate) fn measure_network(net: &Network, games: &[Game], o: &SampleOptions) -> Metrics {
    let net = Arc::new(net.clone());
    measure_by(games, o, |board| {
        Judge::Net(Box::new(crate::nnue::NetEvaluator::new(board, Arc::clone(&net))))
    })
}

/// The same metrics for today's tables (the embedded weights) on `games`.
pub(crate) fn measure_tables(games: &[Game], o: &SampleOptions) -> Metrics {
    let weights = crate::eval::Weights::default();
    measure_by(games, o, |board| {
        Judge::Tables(crate::eval::Evaluator::new(board, &weights))
    })
}

/// The metrics on the search plies of `games` of a judge made per game by `judge_for`.
fn measure_by(games: &[Game], o: &SampleOptions, judge_for: impl Fn(&Board) -> Judge) -> Metrics {
    let mut total = Metrics::default();
    for g in games {
        let mut board = Board::new(g.width, g.height, g.rule);
        let mut judge = judge_for(&board);
        for (i, ply) in g.plies.iter().enumerate() {
            let us = Game::colour(i);
            if ply.kind == KIND_SEARCH && !ply.best.is_none() {
                let s = &game_samples_at(g, i, &board, o);
                let logit = judge.value(&board, us);
                let cells: Vec<Pos> = board.points().collect();
                let logits: Vec<f32> = cells
                    .iter()
                    .map(|&p| {
                        if board.is_empty(p) {
                            judge.policy(&board, us, p)
                        } else {
                            f32::NEG_INFINITY
                        }
                    })
                    .collect();
                let best = cells.iter().position(|&p| p == ply.best).expect("best on the board");
                let max = logits.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
                let denom: f32 = logits.iter().map(|&l| (l - max).exp()).sum();
                let prob_best = ((logits[best] - max).exp() / denom).max(1e-12);
                let empty: Vec<bool> = cells.iter().map(|&p| board.is_empty(p)).collect();
                let (top1, top3) = hits(&logits, &empty, best);
                total.add(&Metrics {
                    samples: 1.0,
                    value_loss: logistic_loss(sigmoid(logit), s.0),
                    policy_loss: -(prob_best as f64).ln(),
                    value_right: if s.1 != 0.5 && (logit > 0.0) == (s.1 > 0.5) {
                        1.0
                    } else {
                        0.0
                    },
                    decided: if s.1 != 0.5 { 1.0 } else { 0.0 },
                    top1: top1 as u8 as f64,
                    top3: top3 as u8 as f64,
                });
            }
            board.make(ply.mv, us);
        }
    }
    total
}

/// The (target, result) of ply `i` of `game`.
fn game_samples_at(game: &Game, i: usize, _board: &Board, o: &SampleOptions) -> (f32, f32) {
    let ply = &game.plies[i];
    let colour = Game::colour(i);
    let result = match game.winner {
        Some(c) if c == colour => 1.0,
        Some(_) => 0.0,
        None => 0.5,
    };
    let searched = if is_decisive(ply.score as i32) {
        if ply.score > 0 {
            1.0
        } else {
            0.0
        }
    } else {
        sigmoid(ply.score as f32 / o.scale)
    };
    (o.lambda * searched + (1.0 - o.lambda) * result, result)
}

const HELP: &str = "usage: pbrain-sente nnue-train GAMES... --out NET [options]
  GAMES              games files (selfplay --format games); games of other rules are left out
  --out NET          the network file to write (quantised)
  --rule NAME        freestyle (default), standard, renju, caro, caro-exact
  --checkpoint FILE  save after every epoch, and go on from it if it exists (default NET.ckpt)
  --init NET         start from this network (`embedded`: the rule's) instead of random
                     weights: a new board size, or more games, from the net that plays
  --epochs N (30) --patience N (8) --batch N (512) --lr X (0.001)
  --lr-half N (8)    epochs over which the learning rate halves (0: constant)
  --scale S (300)    score points per logit: the target's sigmoid(score / S), and the
                     engine's scale for the network's value
  --lambda X (0.7)   weight of the search's score against the game's result
  --policy-weight X (1)  weight of the policy's loss
  --validation N (20) every N-th game is held out
  --threads N (cores) --seed S (1)";

/// `pbrain-sente nnue-train`.
pub fn run_train(args: &[String]) -> i32 {
    if args.is_empty() || args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{HELP}");
        return if args.is_empty() { 2 } else { 0 };
    }
    match parse_train(args).and_then(|(files, out, o)| {
        let started = Instant::now();
        let mut games = Vec::new();
        for f in &files {
            games.extend(games::read(f)?);
        }
        let (model, float_metrics) = train(games.clone(), &o)?;
        let net = quantise(&model, o.rule);
        let bytes = net.to_bytes();
        std::fs::File::create(&out)
            .and_then(|mut f| f.write_all(&bytes))
            .map_err(|e| format!("cannot write {out}: {e}"))?;
        let (_, held) = split(games.into_iter().filter(|g| g.rule == o.rule).collect(), o.validation);
        let int_metrics = measure_network(&net, &held, &o.samples);
        println!("held out, float:     {}", float_metrics.line());
        println!("held out, quantised: {}", int_metrics.line());
        println!("held out, tables:    {}", measure_tables(&held, &o.samples).line());
        println!(
            "wrote {out} ({} bytes) in {:.0} s",
            bytes.len(),
            started.elapsed().as_secs_f64()
        );
        Ok(())
    }) {
        Ok(()) => 0,
        Err(e) => {
            println!("nnue-train: {e}");
            1
        }
    }
}

fn parse_train(args: &[String]) -> Result<(Vec<String>, String, TrainOptions), String> {
    let mut o = TrainOptions {
        progress: true,
        ..TrainOptions::default()
    };
    let mut files = Vec::new();
    let mut out = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().cloned().ok_or_else(|| format!("{a} needs a value"));
        let float = |v: String| v.parse::<f32>().map_err(|_| format!("{a}: '{v}' is not a number"));
        let int = |v: String| v.parse::<usize>().map_err(|_| format!("{a}: '{v}' is not a count"));
        match a.as_str() {
            "--out" => out = Some(value()?),
            "--rule" => {
                let v = value()?;
                o.rule = Rule::from_name(&v).ok_or_else(|| format!("unknown rule '{v}'"))?;
            }
            "--checkpoint" => o.checkpoint = Some(value()?),
            "--init" => o.init = Some(value()?),
            "--epochs" => o.epochs = int(value()?)?,
            "--patience" => o.patience = int(value()?)?,
            "--batch" => o.batch = int(value()?)?.max(1),
            "--lr" => o.lr = float(value()?)?,
            "--lr-half" => o.lr_half = int(value()?)?,
            "--scale" => o.samples.scale = float(value()?)?,
            "--lambda" => o.samples.lambda = float(value()?)?,
            "--policy-weight" => o.policy_weight = float(value()?)?,
            "--validation" => o.validation = int(value()?)?,
            "--threads" => o.threads = int(value()?)?.max(1),
            "--seed" => o.seed = value()?.parse().map_err(|_| "--seed: not a number".to_string())?,
            s if s.starts_with('-') => return Err(format!("unknown option '{s}'")),
            f => files.push(f.to_string()),
        }
    }
    let out = out.ok_or("--out NET is needed")?;
    if files.is_empty() {
        return Err("no games file given".into());
    }
    o.checkpoint.get_or_insert_with(|| format!("{out}.ckpt"));
    Ok((files, out, o))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::games::Ply;

    /// Games whose value is known: black, to move, is winning exactly when it has a stone
    /// on the board's edge (a rule the symmetries and the colour swap keep). The board is
    /// as wide as a shape sees, so that its centre is the one point with no wall in sight.
    fn synthetic_games(count: usize, seed: u64) -> Vec<Game> {
        let mut rng = seed;
        let mut out = Vec::new();
        let size = 2 * crate::nnue::shape::REACH + 1;
        let centre = Pos::new(size / 2, size / 2);
        for _ in 0..count {
            let mut board = Board::new(size, size, Rule::Freestyle);
            let mut plies = Vec::new();
            for i in 0..6 {
                let empties: Vec<Pos> = board.empty_points().iter().filter(|&p| p != centre).collect();
                let p = empties[(splitmix64(&mut rng) % empties.len() as u64) as usize];
                plies.push(Ply::unsearched(p));
                board.make(p, Game::colour(i));
            }
            let edge = |p: Pos| p.x() == 0 || p.y() == 0 || p.x() == size - 1 || p.y() == size - 1;
            let top = board.points().any(|p| edge(p) && board.stone(p) == Some(Color::Black));
            // Black to move; the "best move" is the centre, always left empty.
            let best = centre;
            plies.push(Ply {
                mv: best,
                kind: KIND_SEARCH,
                score: if top { 1500 } else { -1500 },
                best,
                root: Vec::new(),
            });
            out.push(Game {
                rule: Rule::Freestyle,
                width: size,
                height: size,
                opening_plies: 6,
                winner: None,
                nodes: 0,
                plies,
            });
        }
        out
    }

    #[test]
    fn a_short_run_on_synthetic_data_learns_the_target_and_quantises_faithfully() {
        let games = synthetic_games(1500, 5);
        let o = TrainOptions {
            epochs: 25,
            patience: 25,
            lr: 0.01,
            batch: 64,
            validation: 10,
            threads: 2,
            progress: std::env::var_os("SENTE_TEST_PROGRESS").is_some(),
            samples: SampleOptions {
                scale: 300.0,
                lambda: 1.0,
            },
            ..TrainOptions::default()
        };
        let (_, held) = split(games.clone(), o.validation);
        let untrained = measure(&Model::new(o.seed), &held, &o);
        let (model, trained) = train(games, &o).unwrap();
        // The value: the target is sigmoid(±5), whose own loss is 0.040; a model that
        // knows nothing scores about 0.69.
        assert!(untrained.value_loss / untrained.samples > 0.5, "{}", untrained.line());
        assert!(trained.value_loss / trained.samples < 0.2, "{}", trained.line());
        // The policy: the centre every time.
        assert!(trained.top1 / trained.samples > 0.95, "{}", trained.line());
        // The integer network agrees with the float one on the held-out games.
        let net = quantise(&model, Rule::Freestyle);
        let int = measure_network(&net, &held, &o.samples);
        let (f, i) = (trained.value_loss / trained.samples, int.value_loss / int.samples);
        assert!((f - i).abs() < 0.01, "float {f:.5} against quantised {i:.5}");
        assert!((trained.top1 - int.top1).abs() / trained.samples < 0.02);
    }

    #[test]
    fn a_network_read_back_as_floats_rounds_to_itself() {
        // `--init` starts from the network that plays: its float model is that network.
        let net = crate::nnue::embedded(Rule::Freestyle).expect("freestyle's embedded network");
        let model = dequantise(&net);
        assert_ne!(model, Model::new(0));
        assert_eq!(quantise(&model, Rule::Freestyle), *net);
    }

    #[test]
    fn the_gradients_are_the_loss_s_slopes() {
        // Analytic gradients against finite differences, on positions of a real game.
        let g = &synthetic_games(3, 9)[2];
        let o = SampleOptions {
            scale: 300.0,
            lambda: 0.5,
        };
        let s = game_samples(g, 3, false, &o).pop().unwrap();
        let mut m = Model::new(2);
        // Away from the clip points (where the backward pass leaks a little slope on
        // purpose), so that the slopes are the true ones.
        for v in m.rows.iter_mut().take(C) {
            *v = 0.5;
        }
        for side in 0..2 {
            for v in m.heads[side * HEAD_PARAMS + HID..side * HEAD_PARAMS + HID_B].iter_mut() {
                *v *= 0.01;
            }
            // Small sum weights keep the value off the clamp of the loss (81 cells).
            for v in m.heads[side * HEAD_PARAMS + CELL..side * HEAD_PARAMS + POL].iter_mut() {
                *v = 0.0003;
            }
        }
        let loss = |m: &Model| {
            let r = run_sample(m, &s, 0.7, None);
            r.value_loss + 0.7 * r.policy_loss
        };
        let mut grads = Grads::new();
        run_sample(&m, &s, 0.7, Some(&mut grads));
        let eps = 1e-3;
        let mut checked = 0;
        // Some head weights of the side to move, and every row the sample uses.
        let side = s.us.index() * HEAD_PARAMS;
        let mut params: Vec<(bool, usize)> = [HID + 3, HID_B + 2, OUT + 5, OUT_B, CELL + 1, POL + 7]
            .iter()
            .map(|&i| (false, side + i))
            .collect();
        for &r in s.rows[10].iter().filter(|&&r| r != NO_ROW) {
            params.push((true, r as usize * C + 4));
        }
        params.push((true, BIAS_ROW * C + 1));
        // The background's rows (a 7×7 board counts as a 15×15 one).
        let background = s.background.as_ref().expect("7x7 has a background");
        for (rows, _) in background.iter().take(3) {
            params.push((true, rows[0] as usize * C + 2));
        }
        for (is_row, i) in params {
            let analytic = if is_row { grads.rows[i] } else { grads.heads[i] } as f64;
            let mut plus = m.clone();
            let mut minus = m.clone();
            if is_row {
                plus.rows[i] += eps;
                minus.rows[i] -= eps;
            } else {
                plus.heads[i] += eps;
                minus.heads[i] -= eps;
            }
            let numeric = (loss(&plus) - loss(&minus)) / (2.0 * eps as f64);
            assert!(
                (analytic - numeric).abs() <= 0.02 * numeric.abs().max(0.05),
                "param {i} (row {is_row}): analytic {analytic} numeric {numeric}"
            );
            checked += 1;
        }
        assert!(checked >= 11);
    }

    #[test]
    fn a_checkpoint_round_trips() {
        let dir = std::env::temp_dir().join(format!("sente-ckpt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.ckpt").to_str().unwrap().to_string();
        let mut adam = Adam::new();
        adam.steps = 17;
        adam.row_steps[5] = 3;
        let c = Checkpoint {
            model: Model::new(3),
            best: Model::new(4),
            adam,
            epoch: 7,
            best_loss: 0.25,
            stale: 1,
        };
        save_checkpoint(&path, &c).unwrap();
        let back = load_checkpoint(&path).unwrap().unwrap();
        assert_eq!(
            (back.epoch, back.stale, back.best_loss, back.adam.steps),
            (7, 1, 0.25, 17)
        );
        assert_eq!(back.model, c.model);
        assert_eq!(back.best, c.best);
        assert_eq!(back.adam.row_steps[5], 3);
        std::fs::write(&path, b"nonsense").unwrap();
        assert!(load_checkpoint(&path).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn symmetries_map_the_board_onto_itself() {
        for s in 0..8 {
            let mut seen = std::collections::HashSet::new();
            for y in 0..7 {
                for x in 0..7 {
                    let q = symmetric(Pos::new(x, y), s, 7, 7);
                    assert!(q.x() < 7 && q.y() < 7);
                    seen.insert(q);
                }
            }
            assert_eq!(seen.len(), 49);
        }
    }
}
