//! The greedy agent: one step of lookahead on the evaluation ([`crate::eval`]). Each action is
//! judged by the position after it and after the rest of the agent's own turn (up to
//! [`FOLLOW_UP`] more of its decisions in the same turn, each taken by the plain one-step
//! choice), averaged
//! over the same few determinizations (so chance after the action is averaged over too). The
//! follow-up matters where a turn is several decisions: going on an Expedition pays off only
//! with the completions that follow it.

use crate::eval::Heuristics;
use crate::spec::MOST_SAMPLES;
use crate::view::{Sampler, SeatView};
use crate::{Agent, AgentError};
use engine::core::{ActionId, Seat, SmallRng};
use rand::{RngExt, SeedableRng};

/// How many of its own decisions after the action the greedy agent plays out before judging.
pub const FOLLOW_UP: usize = 4;

/// The action whose successors evaluate best for `seat`, averaged over `states`, each after
/// `follow_up` more of the seat's own decisions taken by the plain one-step choice (ties: the
/// first listed). `states` are full states the seat cannot tell from the real one.
pub fn best_action<G: Heuristics>(states: &[G], seat: Seat, legal: &[ActionId], follow_up: usize) -> ActionId {
    let mut buf = Vec::new();
    let mut best = (f64::MIN, legal[0]);
    for &a in legal {
        let mut total = 0.0;
        for s in states {
            let turn = s.turn();
            let mut next = s.clone();
            if next.apply(a).is_err() {
                continue;
            }
            for _ in 0..follow_up {
                if next.to_move() != Some(seat) || next.turn() != turn {
                    break;
                }
                buf.clear();
                next.legal_actions(&mut buf);
                let b = greedy_step(&next, seat, &buf);
                next.apply(b).expect("a legal action");
            }
            total += next.evaluate(seat);
        }
        if total > best.0 {
            best = (total, a);
        }
    }
    best.1
}

/// The plain one-step choice in state `g` itself (no determinization, no follow-up): the
/// rollout policy of MCTS, and the follow-up of the greedy agent.
pub(crate) fn greedy_step<G: Heuristics>(g: &G, seat: Seat, legal: &[ActionId]) -> ActionId {
    let mut best = (f64::MIN, legal[0]);
    for &a in legal {
        let mut next = g.clone();
        if next.apply(a).is_ok() {
            let v = next.evaluate(seat);
            if v > best.0 {
                best = (v, a);
            }
        }
    }
    best.1
}

pub struct Greedy<G: Heuristics> {
    params: G::Params,
    samples: u32,
    rng: SmallRng,
    name: String,
}

impl<G: Heuristics> Greedy<G> {
    pub fn new(params: G::Params, samples: u32, seed: u64, name: String) -> Self {
        Greedy { params, samples: samples.max(1), rng: SmallRng::seed_from_u64(seed), name }
    }
}

impl<G: Heuristics> Agent for Greedy<G> {
    fn name(&self) -> &str {
        &self.name
    }

    /// One step of lookahead over a few samples: small, bounded work.
    fn answers_in_time(&self) -> bool {
        self.samples <= MOST_SAMPLES
    }

    fn act(&mut self, view: &SeatView) -> Result<ActionId, AgentError> {
        let legal = view.legal();
        if legal.len() == 1 {
            return Ok(legal[0]);
        }
        let sampler: Sampler<G> = view.sampler(&self.params).map_err(AgentError::Failed)?;
        let states: Vec<G> = (0..self.samples).map(|_| sampler.sample(&mut self.rng)).collect();
        // Shuffle first so that ties do not always go to the first listed action.
        let mut order = legal.to_vec();
        for i in (1..order.len()).rev() {
            order.swap(i, self.rng.random_range(0..=i));
        }
        Ok(best_action(&states, view.seat(), &order, FOLLOW_UP))
    }
}
