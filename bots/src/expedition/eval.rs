//! expedition's reward and evaluation (see [`Heuristics`]).

use crate::eval::{Heuristics, sigmoid};
use engine::core::{Game, Seat};
use engine::expedition::{CardKind, Expedition, Step, Tool};

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
