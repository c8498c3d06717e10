//! The agents: `random`, `rules` (a few sensible rules), `greedy` and `mcts` (information-set
//! MCTS), honest by construction.
//!
//! An agent is asked for an action only at its own seat's decisions, and is given a
//! [`SeatView`]: its seat's observation, the legal actions with their labels, and its time
//! budget — never the game state. To reason about what it cannot see it builds a [`Sampler`]
//! from the observation, which yields full states consistent with it. The same agent works in
//! process (`arena play`, tournaments) and across the wire (`arena bot`), and makes the same
//! choices in both for the same seed.
//!
//! Start at [`make_agent`]: a [`BotSpec`] (`mcts:iterations=2000,c=0.7`) and a game's resolved
//! parameters give a ready agent. The evaluations the greedy and MCTS agents use are in
//! [`eval`].

pub mod eval;
pub mod greedy;
pub mod mcts;
pub mod policy;
pub mod spec;
pub mod strong;
pub mod tree;
pub mod value;
#[rustfmt::skip]
pub mod value_weights;
pub mod view;

pub use eval::Heuristics;
pub use policy::Policy;
pub use spec::{BotLimits, BotSpec, GreedyConfig, MctsConfig, Rollout};
pub use view::{Budget, Sampler, SeatView, Sight, WireView};

use engine::core::{ActionId, AnySpec, Game, Outcome, Seat, SmallRng, Spec};
use engine::expedition::Expedition;
use engine::journey::Journey;
use rand::{RngExt, SeedableRng};
use std::fmt;

/// Why an agent could not choose: the referee's verdict follows from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AgentError {
    /// It could not choose (a bug, a view it cannot read): a crash.
    Failed(String),
    /// It plays across a wire, and its connection is gone.
    Disconnected(String),
    /// It plays across a wire, and nothing came within the limit.
    TimedOut(String),
    /// It plays across a wire, and nothing came within the idle limit of a decision no
    /// per-move limit or clock bounds.
    Idle(String),
    /// It gave the game up (a client's `Resign`).
    Resigned(String),
}

impl fmt::Display for AgentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentError::Failed(m)
            | AgentError::Disconnected(m)
            | AgentError::TimedOut(m)
            | AgentError::Idle(m)
            | AgentError::Resigned(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for AgentError {}

pub trait Agent: Send {
    /// The agent's name in summaries: its spec, e.g. `mcts:iterations=2000`.
    fn name(&self) -> &str;
    /// Choose one of `view.legal()` (never empty) for `view.seat()`.
    fn act(&mut self, view: &SeatView) -> Result<ActionId, AgentError>;
    /// The game this agent sat in at `seat` is over (played out, or ended by a verdict).
    fn game_over(&mut self, _seat: Seat, _outcome: &Outcome) {}
    /// The game is over, with the host's own account of how it ended besides the outcome (the
    /// arena's referee passes its `Ending`: the seat whose verdict ended it, every verdict).
    /// An agent that passes the end on — the stand-in of a client across a wire — reads it;
    /// every other agent is told [`Agent::game_over`], which is what this does by default.
    fn ended(&mut self, seat: Seat, outcome: &Outcome, _account: &dyn std::any::Any) {
        self.game_over(seat, outcome)
    }
    /// It answers within its budget by itself: it checks the deadline, or its work per
    /// decision is small and bounded. A referee then asks it directly; any other agent is
    /// asked on a watched thread, cut off at the limit.
    fn answers_in_time(&self) -> bool {
        false
    }
}

/// Uniformly random among the legal actions, seeded.
pub struct RandomAgent {
    rng: SmallRng,
}

impl RandomAgent {
    pub fn new(seed: u64) -> Self {
        RandomAgent { rng: SmallRng::seed_from_u64(seed) }
    }
}

impl Agent for RandomAgent {
    fn name(&self) -> &str {
        "random"
    }
    fn act(&mut self, view: &SeatView) -> Result<ActionId, AgentError> {
        let legal = view.legal();
        Ok(legal[self.rng.random_range(0..legal.len())])
    }
    fn answers_in_time(&self) -> bool {
        true
    }
}

/// Work to do with a game's concrete type and its resolved parameters.
pub trait WithGame {
    type Output;
    fn run<G: strong::Strong>(self, params: &<G as Game>::Params) -> Self::Output;
}

/// Run `work` with the concrete type of the game `game` names (every game the agents know).
pub fn with_game<W: WithGame>(game: &dyn AnySpec, work: W) -> Result<W::Output, String> {
    let any = game.as_any();
    if let Some(s) = any.downcast_ref::<Spec<Journey>>() {
        return Ok(work.run::<Journey>(s.params()));
    }
    if let Some(s) = any.downcast_ref::<Spec<Expedition>>() {
        return Ok(work.run::<Expedition>(s.params()));
    }
    Err(format!("the built-in agents have no evaluation for the game {}", game.game()))
}

/// The agent `spec` for the game `game` (its resolved parameters), seeded with `seed`.
pub fn make_agent(spec: &BotSpec, game: &dyn AnySpec, seed: u64) -> Result<Box<dyn Agent>, String> {
    struct Build<'a>(&'a BotSpec, u64);
    impl WithGame for Build<'_> {
        type Output = Box<dyn Agent>;
        fn run<G: strong::Strong>(self, params: &<G as Game>::Params) -> Box<dyn Agent> {
            let (spec, seed, name) = (self.0, self.1, self.0.to_string());
            match spec {
                BotSpec::Random => Box::new(RandomAgent::new(seed)),
                BotSpec::Rules => Box::new(policy::Rules::<G>::new(params.clone(), seed)),
                BotSpec::Greedy(g) => Box::new(greedy::Greedy::<G>::new(params.clone(), g.samples, seed, name)),
                BotSpec::Mcts(m) => Box::new(mcts::Mcts::<G>::new(params.clone(), m.clone(), seed, name)),
                BotSpec::Strong(m) => Box::new(strong::StrongAgent::<G>::new(params.clone(), m.clone(), seed, name)),
            }
        }
    }
    if let BotSpec::Random = spec {
        return Ok(Box::new(RandomAgent::new(seed)));
    }
    with_game(game, Build(spec, seed)).map_err(|e| format!("agent {spec}: {e}"))
}

/// Parse `text` and build the agent (see [`make_agent`]).
pub fn agent(text: &str, game: &dyn AnySpec, seed: u64) -> Result<Box<dyn Agent>, String> {
    make_agent(&BotSpec::parse(text)?, game, seed)
}
