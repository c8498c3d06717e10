//! journey's reward and evaluation (see [`Heuristics`]).

use super::value;
use crate::eval::{Heuristics, sigmoid};
use engine::core::{Game, Seat};
use engine::journey::{Card, Journey, Status, Suit};

/// Points the journey reward counts for each Journey card dealt with for good: how far the
/// journey got breaks ties between plays that score alike (and most plays of dunwich never
/// arrive).
const PROGRESS_POINTS: f64 = 1.0;

/// The score's share of the journey reward: increasing, below 1.
fn score_part(score: f64) -> f64 {
    let s = score.max(0.0);
    s / (s + 40.0)
}

/// The group's journey result: the travellers arrived, plus `expected` more (an estimate of
/// those still journeying, 0 once over), plus how far the journey got — the score and the
/// Journey cards dealt with — weighted `w`, over the travellers plus `w`. With `w = 1` and
/// nothing expected it is the reward.
pub(crate) fn journey_result(g: &Journey, w: f64, expected: f64) -> f64 {
    let got = g.score() as f64 + PROGRESS_POINTS * g.journey_cleared() as f64;
    (g.arrived() as f64 + expected + w * score_part(got)) / (g.travellers() as f64 + w)
}

impl Heuristics for Journey {
    fn turn(&self) -> u32 {
        u32::from(self.turns())
    }

    fn reward(&self, _seat: Seat) -> f64 {
        journey_result(self, 1.0, 0.0)
    }

    /// `journey`: how likely the travellers still journeying are to come through, and what
    /// they may still bank.
    ///
    /// - *resources*: the values in the journeying satchels, the banked Wreckage (it covers
    ///   too), and the cards the refuges ahead can still forage (half their actions, at the
    ///   Supply's average value);
    /// - *threat*: the attack of every adversary still ahead (in the Journey deck, and the one
    ///   being fought, by the rounds its health may take), per journeying traveller, and on the
    ///   way home the tolls still to pay;
    /// - the chance to come through is the learned network's ([`value`], trained on
    ///   positions of played games labelled with arrival) where it applies (journeys without a
    ///   way home), else `sigmoid((resources − threat) / 12)`; the travellers
    ///   expected to arrive are the journeying ones times that chance (those already arrived
    ///   count whole);
    /// - the score expected is the score now plus half the worth of the adversaries ahead,
    ///   times the same chance.
    fn evaluate(&self, seat: Seat) -> f64 {
        if self.is_terminal() {
            return self.reward(seat);
        }
        let n = self.travellers();
        let journeying: Vec<usize> = (0..n).filter(|&s| self.status(s) == Status::Journeying).collect();
        let arrived = (0..n).filter(|&s| self.status(s) == Status::Arrived).count() as f64;
        let alive = journeying.len() as f64;
        let value = |c: &Card| self.value(*c).max(0) as f64;
        let satchels: f64 = journeying.iter().flat_map(|&s| self.satchel(s)).map(value).sum();
        let wreckage: f64 = self.wreckage().iter().map(|&c| self.worth(c) as f64).sum();
        let supply = self.supply();
        let supply_mean =
            if supply.is_empty() { 0.0 } else { supply.iter().map(value).sum::<f64>() / supply.len() as f64 };
        let deck = self.journey_deck();
        let refuge_actions: f64 = deck.iter().filter(|c| c.is(Suit::Hearts)).map(value).sum();
        let forage = (0.5 * refuge_actions).min(supply.len() as f64) * supply_mean;
        let mut threat: f64 =
            deck.iter().filter(|c| c.is(Suit::Spades)).map(|&c| self.adversary_stats(c).1 as f64).sum();
        let mut ahead_worth: f64 = deck.iter().filter(|c| c.is(Suit::Spades)).map(|&c| self.worth(c) as f64).sum();
        if let Some(f) = self.fight() {
            let rounds = (f.health as f64 / 12.0).ceil().clamp(1.0, 3.0);
            threat += f.attack as f64 * rounds;
            ahead_worth += self.worth(f.adversary) as f64;
        }
        // The way home: its tolls, from the shared purse.
        let (way, _) = self.way_home();
        threat += way.iter().filter(|c| c.is(Suit::Hearts)).map(|&c| self.rank(c) as f64).sum::<f64>() * alive;
        let resources = satchels + wreckage + forage;
        let per_traveller = if alive > 0.0 { (resources - threat) / alive } else { -100.0 };
        // The learned chance (`value`) where there is one, else the rough balance.
        let through = value::arrival(self).map_or_else(|| sigmoid(per_traveller / 12.0), f64::from);
        let expected_score = self.score() as f64 + 0.5 * ahead_worth * through;
        (arrived + alive * through + score_part(expected_score)) / (n as f64 + 1.0)
    }
}
