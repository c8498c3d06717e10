//! The games the built-in agents play, each one line: its folder (`journey/`, `expedition/`)
//! implements [`Policy`](crate::policy::Policy), [`Heuristics`](crate::eval::Heuristics) and
//! [`Strong`], and one line of `games!` (below) names its type. Everything else is game-free.

use crate::agent::{Agent, RandomAgent};
use crate::spec::BotSpec;
use crate::strong::{Strong, StrongAgent};
use crate::{greedy, mcts, policy};
use engine::core::{AnySpec, Game, Spec};

/// Work to do with a game's concrete type and its resolved parameters.
pub trait WithGame {
    type Output;
    fn run<G: Strong>(self, params: &<G as Game>::Params) -> Self::Output;
}

/// What is written once for all the games: the largest budget, and the dispatch by type.
macro_rules! games {
    ($($game:ty),+ $(,)?) => {
        /// The largest of the games' own budgets ([`Strong::ITERATIONS`]): what a server must
        /// allow for a plain `strong` in any game.
        pub const MOST_ITERATIONS: u32 = {
            let mut most = 0;
            $(
                if <$game as Strong>::ITERATIONS > most {
                    most = <$game as Strong>::ITERATIONS;
                }
            )+
            most
        };

        /// Run `work` with the concrete type of the game `game` names (every game the agents
        /// know).
        pub fn with_game<W: WithGame>(game: &dyn AnySpec, work: W) -> Result<W::Output, String> {
            let any = game.as_any();
            $(
                if let Some(s) = any.downcast_ref::<Spec<$game>>() {
                    return Ok(work.run::<$game>(s.params()));
                }
            )+
            Err(format!("the built-in agents have no evaluation for the game {}", game.game()))
        }
    };
}

// The games, one line each.
games! {
    engine::journey::Journey,
    engine::expedition::Expedition,
}

/// The agent `spec` for the game `game` (its resolved parameters), seeded with `seed`.
pub fn make_agent(spec: &BotSpec, game: &dyn AnySpec, seed: u64) -> Result<Box<dyn Agent>, String> {
    struct Build<'a>(&'a BotSpec, u64);
    impl WithGame for Build<'_> {
        type Output = Box<dyn Agent>;
        fn run<G: Strong>(self, params: &<G as Game>::Params) -> Box<dyn Agent> {
            let (spec, seed, name) = (self.0, self.1, self.0.to_string());
            match spec {
                BotSpec::Random => Box::new(RandomAgent::new(seed)),
                BotSpec::Rules => Box::new(policy::Rules::<G>::new(params.clone(), seed)),
                BotSpec::Greedy(g) => Box::new(greedy::Greedy::<G>::new(params.clone(), g.samples, seed, name)),
                BotSpec::Mcts(m) => Box::new(mcts::Mcts::<G>::new(params.clone(), m.clone(), seed, name)),
                BotSpec::Strong(m) => Box::new(StrongAgent::<G>::new(params.clone(), m.clone(), seed, name)),
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
