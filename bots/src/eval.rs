//! What the built-in agents want, and how they judge a position short of the end. This lives
//! in `bots/`, never in the engine: the rules say who won, not how good a position looks.
//!
//! Every value is in `[0, 1]`, higher is better for the seat asked about:
//!
//! - **`reward`** (a finished game): `journey` is cooperative, so every traveller gets the
//!   group's result, arrival first, then score: `(travellers arrived + s) / (travellers + 1)`
//!   with `s = x / (x + 40)` below 1, where `x` is the score plus one point per Journey card
//!   dealt with for good (how far the journey got: it tells apart plays that never arrive,
//!   most of dunwich's). `expedition`: 1 for a win, shared equally among
//!   tied winners, 0 otherwise.
//! - **`evaluate`** (any position): an estimate of that reward, documented with each game's
//!   (`journey/eval.rs`, `expedition/eval.rs`).

use engine::core::Seat;

/// A game the built-in agents can play well: its reward and its evaluation.
pub trait Heuristics: crate::policy::Policy {
    /// `seat`'s result of a finished game, in `[0, 1]`.
    fn reward(&self, seat: Seat) -> f64;
    /// Every seat's result of a finished game at once (`out[seat]`).
    fn rewards(&self, out: &mut [f64]) {
        for (s, r) in out.iter_mut().enumerate() {
            *r = self.reward(Seat(s as u8));
        }
    }
    /// An estimate of `seat`'s result from this position, in `[0, 1]` (the reward once over).
    fn evaluate(&self, seat: Seat) -> f64;
    /// Which turn it is (it changes whenever a new turn begins): the greedy agent plays out
    /// the rest of its own turn before it judges an action.
    fn turn(&self) -> u32;
}

pub(crate) fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}
