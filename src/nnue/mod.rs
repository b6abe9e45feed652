//! The neural evaluation: a small network over the board's line shapes (NNUE), with a
//! value head and a move-policy head, in integers at play time.
//!
//! Per cell, the rows of a learned table for its four line shapes (`shape`) and, for an
//! empty cell, the row of its pair of threat classes are summed with a bias into the
//! cell's accumulator (`CHANNELS` i16); clipped to 0..=`QA` (a float 0..1) it is the
//! cell's features `h`. The value head gives one logit (the side to move's chance to
//! win, before the sigmoid): a weight vector's dot product with the board sum of `h`
//! (what one cell holds, a four say, counts in full, as in the tables' sum over the
//! points), plus the board mean of `h` through a hidden layer of `HIDDEN` clipped units
//! (the whole position); the policy head gives an empty cell the dot product of its `h`
//! with a weight vector. Both heads exist once for black to move and once for white to move
//! (renju's sides apart), the accumulators are shared. Only the cells near a move
//! change, so an evaluation catches up from the cells the moves since touched
//! (`evaluator`).
//!
//! File layout (little-endian): magic `SENTNNUE`, u16 version (`VERSION`), u8 rule (as
//! `INFO rule`), u8 0, u16 `CHANNELS`, u16 `HIDDEN`, u32 `SHAPES`, u32 `THREAT_PAIRS`,
//! then i16 values in the order of `Network::values`, then u32 FNV-1a of everything
//! before it.

pub mod embedded;
pub mod evaluator;
pub mod shape;
pub mod simd;

use crate::eval::file::checksum;
use crate::game::{Color, Rule};

pub use embedded::{embedded, embedded_for};
pub use evaluator::NetEvaluator;
use shape::{SHAPES, THREAT_PAIRS};

/// Accumulator channels per cell.
pub const CHANNELS: usize = 32;
/// Hidden units of the value head.
pub const HIDDEN: usize = 16;
/// A feature of 1.0 in accumulator units (`h` is the accumulator clipped to 0..=QA).
pub const QA: i32 = 255;
/// A weight of 1.0 in the heads' units.
pub const QW: i32 = 64;
/// The value logit's units: 1.0 is `QW * QW`.
pub const LOGIT_ONE: i32 = QW * QW;
/// Score points of the search per value logit: the scale the trainer's targets use
/// (`nnue-train --scale`, sigmoid(score / 300)), so that the net's value and the tables'
/// scores are on one scale.
pub const SCORE_PER_LOGIT: i32 = 300;
/// The heads see every board as a 15×15 one: to the board's sum of the features they add
/// an empty 15×15 board's sum less an empty board of the game's size's, so that what
/// the stones change counts alike on every size. Without it the value's sum and mean
/// shift with the board's area: the net trained on 15×15 scored the position after
/// white's first move some 300 points off on 20×20 (docs/experiments/nnue.md).
pub const REFERENCE_SIDE: usize = 15;

pub const MAGIC: &[u8; 8] = b"SENTNNUE";
pub const VERSION: u16 = 2;
const HEADER_BYTES: usize = 24;

pub type Row = [i16; CHANNELS];

/// One side to move's heads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Head {
    /// `hidden[j]`: the weights of hidden unit j over the mean features (×`QW`).
    pub hidden: [Row; HIDDEN],
    /// ×`QW`.
    pub hidden_bias: [i16; HIDDEN],
    /// The output over the hidden units (×`QW`).
    pub out: [i16; HIDDEN],
    /// ×`LOGIT_ONE`.
    pub out_bias: i16,
    /// The value's weights over the board sum of the features (×`LOGIT_ONE`: a sum over
    /// some 200 cells needs the finer step; at ×`QW` the rounding alone cost the first
    /// trained net a held-out value loss of 1.149 against the float net's 0.623).
    pub cell: Row,
    /// The policy's weights over a cell's features (×`QW`).
    pub policy: Row,
}

impl Head {
    fn zero() -> Head {
        Head {
            hidden: [[0; CHANNELS]; HIDDEN],
            hidden_bias: [0; HIDDEN],
            out: [0; HIDDEN],
            out_bias: 0,
            cell: [0; CHANNELS],
            policy: [0; CHANNELS],
        }
    }
}

/// A network for one rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    pub rule: Rule,
    /// Every cell's accumulator starts here (×`QA`).
    pub bias: Row,
    /// `shapes[shape id]` (×`QA`).
    pub shapes: Vec<Row>,
    /// `threats[threat pair]`, for empty cells (×`QA`).
    pub threats: Vec<Row>,
    /// `heads[side to move]`.
    pub heads: [Head; 2],
}

impl Network {
    /// All zero (a value of 0 everywhere, every move alike).
    pub fn zero(rule: Rule) -> Network {
        Network {
            rule,
            bias: [0; CHANNELS],
            shapes: vec![[0; CHANNELS]; SHAPES],
            threats: vec![[0; CHANNELS]; THREAT_PAIRS],
            heads: [Head::zero(), Head::zero()],
        }
    }

    pub fn head(&self, to_move: Color) -> &Head {
        &self.heads[to_move.index()]
    }

    /// Every value in file order: bias, shapes, threats, then per side to move (black
    /// first) the hidden weights, hidden biases, output weights, output bias, the sum's
    /// weights and the policy.
    fn values(&self) -> Vec<i16> {
        let mut v =
            Vec::with_capacity(CHANNELS * (SHAPES + THREAT_PAIRS + 1) + 2 * (CHANNELS * (HIDDEN + 2) + 2 * HIDDEN + 1));
        v.extend_from_slice(&self.bias);
        for row in self.shapes.iter().chain(&self.threats) {
            v.extend_from_slice(row);
        }
        for h in &self.heads {
            for row in &h.hidden {
                v.extend_from_slice(row);
            }
            v.extend_from_slice(&h.hidden_bias);
            v.extend_from_slice(&h.out);
            v.push(h.out_bias);
            v.extend_from_slice(&h.cell);
            v.extend_from_slice(&h.policy);
        }
        v
    }

    fn from_values(rule: Rule, v: &[i16]) -> Network {
        let mut it = v.iter().copied();
        let mut next = || it.next().expect("value");
        let row = |next: &mut dyn FnMut() -> i16| -> Row { std::array::from_fn(|_| next()) };
        let bias = row(&mut next);
        let shapes = (0..SHAPES).map(|_| row(&mut next)).collect();
        let threats = (0..THREAT_PAIRS).map(|_| row(&mut next)).collect();
        let mut heads = [Head::zero(), Head::zero()];
        for h in heads.iter_mut() {
            for r in h.hidden.iter_mut() {
                *r = row(&mut next);
            }
            for b in h.hidden_bias.iter_mut().chain(h.out.iter_mut()) {
                *b = next();
            }
            h.out_bias = next();
            h.cell = row(&mut next);
            h.policy = row(&mut next);
        }
        Network {
            rule,
            bias,
            shapes,
            threats,
            heads,
        }
    }

    /// The network as a file.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.push(self.rule.info_value() as u8);
        out.push(0);
        out.extend_from_slice(&(CHANNELS as u16).to_le_bytes());
        out.extend_from_slice(&(HIDDEN as u16).to_le_bytes());
        out.extend_from_slice(&(SHAPES as u32).to_le_bytes());
        out.extend_from_slice(&(THREAT_PAIRS as u32).to_le_bytes());
        for v in self.values() {
            out.extend_from_slice(&v.to_le_bytes());
        }
        let sum = checksum(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Read a network file; with `rule`, one for another rule is refused too.
    pub fn from_bytes(bytes: &[u8], rule: Option<Rule>) -> Result<Network, String> {
        if bytes.len() < HEADER_BYTES + 4 || &bytes[..8] != MAGIC {
            return Err("not a Sente network file".into());
        }
        let u16_at = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]);
        let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().expect("4 bytes"));
        let version = u16_at(8);
        if version != VERSION {
            return Err(format!("network format version {version}, this engine reads {VERSION}"));
        }
        let file_rule = Rule::from_info_value(bytes[10] as i64)
            .ok_or_else(|| format!("network for an unknown rule {}", bytes[10]))?;
        if let Some(r) = rule {
            if r != file_rule {
                return Err(format!("the network is for {}, not {}", file_rule.name(), r.name()));
            }
        }
        let shape = (
            u16_at(12) as usize,
            u16_at(14) as usize,
            u32_at(16) as usize,
            u32_at(20) as usize,
        );
        if shape != (CHANNELS, HIDDEN, SHAPES, THREAT_PAIRS) {
            return Err(format!(
                "network of {} channels, {} hidden, {} shapes, {} threat pairs; this engine has {CHANNELS}, {HIDDEN}, {SHAPES}, {THREAT_PAIRS}",
                shape.0, shape.1, shape.2, shape.3
            ));
        }
        let expected = Network::zero(file_rule).to_bytes().len();
        if bytes.len() != expected {
            return Err(format!("network file of {} bytes, {expected} expected", bytes.len()));
        }
        let body = &bytes[..bytes.len() - 4];
        if u32_at(bytes.len() - 4) != checksum(body) {
            return Err("network file checksum mismatch (corrupt file)".into());
        }
        let values: Vec<i16> = body[HEADER_BYTES..]
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect();
        Ok(Network::from_values(file_rule, &values))
    }

    /// Read a network file from disk.
    pub fn load(path: &str, rule: Option<Rule>) -> Result<Network, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        Network::from_bytes(&bytes, rule).map_err(|e| format!("{path}: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Network {
        let mut n = Network::zero(Rule::Renju);
        n.bias[3] = -7;
        n.shapes[1234][31] = 500;
        n.threats[17][0] = -300;
        n.heads[1].hidden[15][2] = 12;
        n.heads[0].out_bias = 99;
        n.heads[1].policy[5] = -3;
        n
    }

    #[test]
    fn a_network_file_round_trips_and_a_bad_one_is_refused() {
        let n = sample();
        let bytes = n.to_bytes();
        assert_eq!(Network::from_bytes(&bytes, Some(Rule::Renju)).unwrap(), n);
        assert!(Network::from_bytes(&bytes, Some(Rule::Freestyle))
            .unwrap_err()
            .contains("renju"));
        let mut corrupt = bytes.clone();
        corrupt[5000] ^= 4;
        assert!(Network::from_bytes(&corrupt, None).unwrap_err().contains("checksum"));
        assert!(Network::from_bytes(&bytes[..bytes.len() - 10], None)
            .unwrap_err()
            .contains("bytes"));
        let mut version = bytes.clone();
        version[8] = 9;
        assert!(Network::from_bytes(&version, None).unwrap_err().contains("version"));
        let mut wider = bytes.clone();
        wider[12] = 64;
        assert!(Network::from_bytes(&wider, None).unwrap_err().contains("channels"));
        assert!(Network::from_bytes(b"SENTEVAL", None).is_err());
    }
}
