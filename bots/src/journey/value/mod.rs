//! journey: how likely the travellers are to arrive from a position, learned from play. A
//! small network (one hidden layer) over features of what every traveller sees, trained by
//! `cargo run --release -p bots --example train_value` on positions of games the strong
//! rollout policy played, labelled with whether they arrived; its weights are in
//! [`weights`].

use engine::core::Game;
use engine::journey::{Card, Journey, Phase, Status, Suit};

#[rustfmt::skip]
pub mod weights;

/// Features of a position.
pub const FEATURES: usize = 26;
/// Hidden units.
pub const HIDDEN: usize = 16;

fn damage(g: &Journey, c: Card) -> f32 {
    if g.is_power_ace(c) && c.is(Suit::Diamonds) {
        return 20.0;
    }
    let v = f32::from(g.value(c).max(0));
    if c.is(Suit::Diamonds) { 2.0 * v } else { v }
}

fn strikes(c: Card) -> bool {
    c.is(Suit::Diamonds) || c.is(Suit::Clubs)
}

/// What every traveller sees, as numbers of about unit size.
pub fn features(g: &Journey) -> [f32; FEATURES] {
    let n = g.travellers();
    let journeying: Vec<usize> = (0..n).filter(|&s| g.status(s) == Status::Journeying).collect();
    let alive = journeying.len().max(1) as f32;
    let mut f = [0f32; FEATURES];
    let held = || journeying.iter().flat_map(|&s| g.satchel(s).iter().copied());
    let reckoning = |c: &Card| g.is_power_ace(*c) && c.is(Suit::Clubs);
    let revelation = |c: &Card| g.is_power_ace(*c) && c.is(Suit::Diamonds);
    f[0] = 1.0;
    f[1] = held().filter(|&c| strikes(c)).map(|c| damage(g, c)).sum::<f32>() / (60.0 * alive);
    f[2] = held().map(|c| f32::from(g.value(c).max(0))).sum::<f32>() / (40.0 * alive);
    f[3] = held().count() as f32 / (6.0 * alive);
    f[4] = f32::from(u8::from(held().any(|c| reckoning(&c))));
    f[5] = f32::from(u8::from(held().any(|c| revelation(&c))));
    f[6] = held().filter(|&c| strikes(c) && damage(g, c) >= 20.0).count() as f32 / 3.0;
    f[7] = g.wreckage().iter().map(|&c| f32::from(g.worth(c))).sum::<f32>() / 30.0;
    let fight = g.fight();
    let deck = g.journey_deck();
    let ahead = || deck.iter().copied().chain(fight.map(|f| f.adversary)).filter(|c| c.is(Suit::Spades));
    f[8] = f32::from(u8::from(ahead().any(|c| g.is_nemesis(c))));
    f[9] = ahead().filter(|&c| !g.is_nemesis(c)).map(|c| f32::from(g.adversary_stats(c).0)).sum::<f32>() / 180.0;
    f[10] = ahead().filter(|&c| !g.is_nemesis(c)).map(|c| f32::from(g.adversary_stats(c).1)).sum::<f32>() / 90.0;
    f[11] = ahead().filter(|&c| !g.is_nemesis(c) && c.rank() > 10).count() as f32 / 3.0;
    let refuges = || deck.iter().filter(|c| c.is(Suit::Hearts));
    f[12] = refuges().map(|&c| f32::from(g.value(c))).sum::<f32>() / 80.0;
    f[13] = deck.len() as f32 / 25.0;
    let supply = g.supply();
    f[14] = supply.len() as f32 / 26.0;
    f[15] = supply.iter().map(|&c| damage(g, c)).sum::<f32>() / 250.0;
    f[16] = f32::from(u8::from(supply.iter().any(reckoning)));
    f[17] = f32::from(u8::from(supply.iter().any(revelation)));
    f[18] = g.discard().iter().filter(|&&c| strikes(c)).map(|&c| damage(g, c)).sum::<f32>() / 150.0;
    if let Some(fs) = fight {
        f[19] = f32::from(fs.health) / 40.0;
        f[20] = f32::from((fs.attack - fs.reduction).max(0)) / 20.0;
        f[21] = f32::from(u8::from(g.is_nemesis(fs.adversary)));
    }
    f[22] = g.dues().iter().map(|d| f32::from(d.owed.max(0))).sum::<f32>() / 20.0;
    if let Phase::Refuge { left, .. } = g.phase() {
        f[23] = f32::from(left) / 10.0;
    }
    f[24] = (0..n).filter(|&s| g.status(s) == Status::Arrived).count() as f32 / n as f32;
    f[25] = 1.0 - alive / n as f32 * f32::from(u8::from(!journeying.is_empty()));
    f
}

/// A small network: `tanh` hidden units, a logistic output.
pub struct Net {
    pub w1: [[f32; FEATURES]; HIDDEN],
    pub b1: [f32; HIDDEN],
    pub w2: [f32; HIDDEN],
    pub b2: f32,
}

impl Net {
    /// The probability the network gives, with the hidden activations.
    pub fn forward(&self, x: &[f32; FEATURES], hidden: &mut [f32; HIDDEN]) -> f32 {
        let mut z = self.b2;
        for (j, h) in hidden.iter_mut().enumerate() {
            let a: f32 = self.b1[j] + self.w1[j].iter().zip(x).map(|(w, v)| w * v).sum::<f32>();
            *h = a.tanh();
            z += self.w2[j] * *h;
        }
        1.0 / (1.0 + (-z).exp())
    }
}

/// How likely the journeying travellers are to arrive, as the shipped network judges it
/// (for games without a way home; `None` otherwise).
pub fn arrival(g: &Journey) -> Option<f32> {
    if g.params().return_journey.is_on() {
        return None;
    }
    let mut hidden = [0f32; HIDDEN];
    Some(weights::NET.forward(&features(g), &mut hidden))
}
