//! The agents: `random`, `rules` (a few sensible rules), `greedy`, `mcts` (information-set
//! MCTS) and `strong`, honest by construction. The searches are game-free; each game's
//! knowledge (rollout rules, evaluation, the strong agent's hooks) is in its folder,
//! [`journey`] and [`expedition`], and [`with_game`] is the one line that names the games.
//!
//! An agent is asked for an action only at its own seat's decisions, and is given a
//! [`SeatView`]: its seat's observation, the legal actions with their labels, and its time
//! budget — never the game state. To reason about what it cannot see it builds a [`Sampler`]
//! from the observation, which yields full states consistent with it. The same agent works in
//! process (`arena play`, tournaments) and across the wire (`arena bot`), and makes the same
//! choices in both for the same seed.
//!
//! Start at [`make_agent`]: a [`BotSpec`] (`mcts:iterations=2000,c=0.7`) and a game's resolved
//! parameters give a ready agent. The traits a game implements for them: [`Policy`],
//! [`Heuristics`] and [`strong::Strong`].

mod agent;
pub mod eval;
pub mod expedition;
mod games;
pub mod greedy;
pub mod journey;
mod limits;
pub mod mcts;
pub mod policy;
pub mod spec;
pub mod strong;
pub mod tree;
pub mod view;

pub use agent::{Agent, AgentError, RandomAgent};
pub use eval::Heuristics;
pub use games::{MOST_ITERATIONS, WithGame, agent, make_agent, with_game};
pub use limits::BotLimits;
pub use policy::Policy;
pub use spec::{BotSpec, GreedyConfig, MctsConfig, Rollout, StrongConfig, TreeShape};
pub use view::{Budget, Sampler, SeatView, Sight, WireView};
