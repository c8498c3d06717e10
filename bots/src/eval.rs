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
//! - **`evaluate`** (any position): an estimate of that reward, documented per game below.

use engine::core::{Game, Seat};
use engine::expedition::{CardKind, Expedition, Step, Tool};
use engine::journey::{Card, Journey, Status, Suit};

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

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

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
    /// - the chance to come through is the learned network's ([`crate::value`], trained on
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
        // The learned chance (crate::value) where there is one, else the rough balance.
        let through = crate::value::arrival(self).map_or_else(|| sigmoid(per_traveller / 12.0), f64::from);
        let expected_score = self.score() as f64 + 0.5 * ahead_worth * through;
        (arrived + alive * through + score_part(expected_score)) / (n as f64 + 1.0)
    }
}

impl Heuristics for Expedition {
    fn turn(&self) -> u32 {
        u32::from(self.round()) * 8 + self.current() as u32
    }

    fn reward(&self, seat: Seat) -> f64 {
        let mut out = [0.0; 4];
        self.rewards(&mut out[..self.seats()]);
        out[seat.index()]
    }

    fn rewards(&self, out: &mut [f64]) {
        let Some(o) = self.outcome() else {
            out.iter_mut().for_each(|r| *r = 0.5);
            return;
        };
        let firsts = o.ranks.iter().filter(|&&r| r == 0).count() as f64;
        for (r, &rank) in out.iter_mut().zip(&o.ranks) {
            *r = if rank == 0 { 1.0 / firsts } else { 0.0 };
        }
    }

    /// `expedition`: each player's projected final score, and the seat's chance to lead.
    ///
    /// The projection adds to the score: each held Mission's coins times the share of its
    /// three tiles already discovered (held tiles count half, a wild Discovery card one
    /// tile), squared; 1 per Dice card held; for each tile taken, the coins it would score
    /// now times the share of its tools in the backpack (the lit Torch standing in for one);
    /// 0.3 per tool token; 1 for a lit Torch. The seat's value is
    /// `sigmoid((its projection − the best other projection) / 4)`.
    fn evaluate(&self, seat: Seat) -> f64 {
        if self.is_terminal() {
            return self.reward(seat);
        }
        let n = self.seats();
        let projected: Vec<f64> = (0..n).map(|s| project(self, s)).collect();
        let best_other = (0..n).filter(|&s| s != seat.index()).map(|s| projected[s]).fold(f64::MIN, f64::max);
        sigmoid((projected[seat.index()] - best_other) / 4.0)
    }
}

/// A player's projected final score (see [`Heuristics::evaluate`] for `Expedition`).
fn project(g: &Expedition, seat: usize) -> f64 {
    let c = g.content();
    let p = g.player(seat);
    let mut value = p.score as f64;
    let done = p.done.iter().fold(0u64, |m, &t| m | 1 << t);
    let held = p.tiles.iter().fold(0u64, |m, &t| m | 1 << t);
    let mut wild = 0.0;
    let mut missions = Vec::new();
    for k in 0..c.cards.len() {
        if p.cards >> k & 1 == 0 {
            continue;
        }
        match c.cards[k].kind {
            CardKind::Mission { tiles, coins } => missions.push((tiles, coins)),
            CardKind::Discovery { .. } => wild += 1.0,
            CardKind::Dice => value += 1.0,
        }
    }
    for (tiles, coins) in missions {
        let have: f64 = tiles
            .iter()
            .map(|&t| {
                if done >> t & 1 == 1 {
                    1.0
                } else if held >> t & 1 == 1 {
                    0.5
                } else {
                    0.0
                }
            })
            .sum();
        let share = ((have + wild).min(3.0) / 3.0).powi(2);
        value += coins as f64 * share;
    }
    let places = p.done.iter().filter(|&&t| c.is_place(t)).count() as f64;
    let coins_now = 4.0 + places;
    for &t in p.tiles.iter() {
        let need = c.tiles[t as usize].need;
        let total: u8 = need.iter().sum();
        let mut have: u8 = Tool::ALL.iter().map(|tool| need[tool.index()].min(p.tools[tool.index()])).sum();
        if p.torch_lit && have < total {
            have += 1;
        }
        let place_bonus = if c.is_place(t) { 1.0 } else { 0.0 };
        let ready = have as f64 / total.max(1) as f64;
        value += 0.5 * (coins_now + place_bonus) * ready * ready;
    }
    value += 0.25 * p.tool_count() as f64;
    if p.torch_lit {
        value += 1.0;
    }
    // The die still to roll this turn is worth a little to the player to move.
    if g.current() == seat && g.step() == Step::Roll {
        value += 0.3;
    }
    value
}
