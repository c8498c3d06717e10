//! journey's hooks of the strong agent: a closed tree, the tuned rollout, the learned value.

use super::eval::journey_result;
use super::{rollout, value};
use crate::spec::TreeShape;
use crate::strong::{Mix, Strong};
use engine::core::{ActionId, Seat, SmallRng};
use engine::journey::{Card, Journey};
use std::hash::{Hash, Hasher};

fn mask(cards: &[Card]) -> u64 {
    cards.iter().fold(0, |m, c| m | 1 << c.index())
}

impl Strong for Journey {
    /// Closed: each revealed card is searched on its own (what it bought: docs/agents.md's
    /// strength table).
    const TREE: TreeShape = TreeShape::Closed;
    const ITERATIONS: u32 = 20_000;
    fn playout(&self, legal: &[ActionId], rng: &mut SmallRng) -> ActionId {
        rollout::policy(self, legal, rng, &rollout::TUNE)
    }
    fn solved(&self) -> bool {
        self.arrived() == self.travellers()
    }
    fn observed(&self, _seat: Seat, coarse: bool) -> u32 {
        let mut h = Mix::default();
        if !coarse {
            for s in 0..self.travellers() {
                h.write_u64(mask(self.satchel(s)));
            }
            h.write_u64(mask(self.discard()));
        }
        self.phase().hash(&mut h);
        if let Some(f) = self.fight() {
            h.write_u64(f.adversary.index() as u64);
        }
        h.finish() as u32
    }

    fn estimate(&self, w: f64, out: &mut [f64]) -> bool {
        let Some(p) = value::arrival(self) else { return false };
        let n = self.travellers();
        let alive = (0..n).filter(|&s| self.status(s) == engine::journey::Status::Journeying).count() as f64;
        out.fill(journey_result(self, w, alive * f64::from(p)));
        true
    }

    fn goal(&self, w: f64, out: &mut [f64]) {
        out.fill(journey_result(self, w, 0.0));
    }
}
