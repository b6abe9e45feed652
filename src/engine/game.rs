//! The game the engine plays: the board size, the stones in play order (blocked points
//! first), the board built from them and our colour.

use super::EngineError;
use crate::game::{Board, Color, Pos, Rule};

pub struct Game {
    pub width: usize,
    pub height: usize,
    pub blocks: Vec<Pos>,
    pub moves: Vec<(Pos, Color)>,
    pub board: Board,
    /// Our colour, once a command has told it (BEGIN, TURN, BOARD, ...).
    pub(crate) ours: Option<Color>,
}

impl Game {
    pub(crate) fn new(width: usize, height: usize, rule: Rule) -> Game {
        Game::build(width, height, rule, Vec::new(), Vec::new(), None)
    }

    pub(crate) fn build(
        width: usize,
        height: usize,
        rule: Rule,
        blocks: Vec<Pos>,
        moves: Vec<(Pos, Color)>,
        ours: Option<Color>,
    ) -> Game {
        let mut board = Board::new(width, height, rule);
        for &p in &blocks {
            board.block(p);
        }
        for &(p, c) in &moves {
            board.make(p, c);
        }
        Game {
            width,
            height,
            blocks,
            moves,
            board,
            ours,
        }
    }

    /// The same stones under another rule.
    pub(crate) fn rebuilt(&self, rule: Rule) -> Game {
        Game::build(
            self.width,
            self.height,
            rule,
            self.blocks.clone(),
            self.moves.clone(),
            self.ours,
        )
    }

    pub(crate) fn play(&mut self, p: Pos, c: Color) {
        self.moves.push((p, c));
        self.board.make(p, c);
    }

    /// Our colour: as told, else whose turn it is by the stones.
    pub(crate) fn us(&self) -> Color {
        self.ours.unwrap_or_else(|| self.board.side_to_move())
    }

    /// Check that (x, y) is a point of this board.
    pub(crate) fn on_board(&self, x: i64, y: i64) -> Result<Pos, EngineError> {
        if !self.board.contains_xy(x, y) {
            return Err(EngineError::OffBoard {
                x,
                y,
                width: self.width,
                height: self.height,
            });
        }
        Ok(Pos::new(x as usize, y as usize))
    }

    /// Check that (x, y) is an empty point of this board.
    pub(crate) fn empty_point(&self, x: i64, y: i64) -> Result<Pos, EngineError> {
        let p = self.on_board(x, y)?;
        if !self.board.is_empty(p) {
            return Err(EngineError::Occupied { x, y });
        }
        Ok(p)
    }

    /// A legal move for us, if any: near the stones first.
    pub(crate) fn any_legal_move(&mut self) -> Option<Pos> {
        let us = self.us();
        let points: Vec<Pos> = self
            .board
            .candidates()
            .iter()
            .chain(self.board.empty_points().iter())
            .collect();
        points.into_iter().find(|&p| self.board.is_legal(p, us))
    }
}
