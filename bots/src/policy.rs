//! Cheap rule-based play for MCTS rollouts (`rollout=rules`): a few rules a sensible player
//! follows, no lookahead, so a rollout costs little more than a random one but ends in a
//! result that says something about the position it started from. Like the evaluations, the
//! rules live here, never in the engine: the trait and the agent here, each game's rules in its
//! folder (`journey/policy.rs`, `expedition/policy.rs`).

use crate::agent::{Agent, AgentError};
use crate::view::{Sampler, SeatView};
use engine::core::{ActionId, Game, SmallRng};
use rand::{RngExt, SeedableRng};

/// A game with a rule-based rollout policy.
pub trait Policy: Game {
    /// A sensible legal action, chosen by rules (with `rng` for ties and mixed choices).
    fn policy(&self, legal: &[ActionId], rng: &mut SmallRng) -> ActionId;
}

pub(crate) fn pick(legal: &[ActionId], rng: &mut SmallRng) -> ActionId {
    legal[rng.random_range(0..legal.len())]
}

/// The legal action maximising `score` (None: not a candidate); ties go to the first.
pub(crate) fn best_by(legal: &[ActionId], mut score: impl FnMut(ActionId) -> Option<i32>) -> Option<ActionId> {
    let mut best: Option<(i32, ActionId)> = None;
    for &a in legal {
        if let Some(s) = score(a)
            && best.is_none_or(|(b, _)| s > b)
        {
            best = Some((s, a));
        }
    }
    best.map(|(_, a)| a)
}

/// The rule-based policy as an agent: it plays the rules in a state sampled from its
/// observation (the rules read only what the seat sees, but take a full state).
pub struct Rules<G: Policy> {
    params: G::Params,
    rng: SmallRng,
}

impl<G: Policy> Rules<G> {
    pub fn new(params: G::Params, seed: u64) -> Self {
        Rules { params, rng: SmallRng::seed_from_u64(seed) }
    }
}

impl<G: Policy> Agent for Rules<G> {
    fn name(&self) -> &str {
        "rules"
    }

    /// A few rules, no search.
    fn answers_in_time(&self) -> bool {
        true
    }

    fn act(&mut self, view: &SeatView) -> Result<ActionId, AgentError> {
        let legal = view.legal();
        if legal.len() == 1 {
            return Ok(legal[0]);
        }
        let sampler: Sampler<G> = view.sampler(&self.params).map_err(AgentError::Failed)?;
        Ok(sampler.sample(&mut self.rng).policy(legal, &mut self.rng))
    }
}
