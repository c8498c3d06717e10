//! The agents. An agent is asked for an action only at its own seat's decisions, and is
//! given the legal actions. In-process agents receive the game state: they must read only
//! what their seat may know, through `observation_json`/`observation_text`, or sample
//! hidden facts with `determinize(seat)`.

use engine::core::{ActionId, AnyGame, Seat, SmallRng};
use rand::{RngExt, SeedableRng};

pub trait Agent: Send {
    fn name(&self) -> &str;
    /// Choose one of `legal` (never empty) for `seat`.
    fn act(&mut self, game: &dyn AnyGame, seat: Seat, legal: &[ActionId]) -> ActionId;
}

/// Uniformly random among the legal actions.
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
    fn act(&mut self, _game: &dyn AnyGame, _seat: Seat, legal: &[ActionId]) -> ActionId {
        legal[self.rng.random_range(0..legal.len())]
    }
}

/// The built-in agents by name.
pub const AGENTS: &[&str] = &["random"];

/// The agent called `name`, seeded with `seed`, or an error listing the agents.
pub fn agent(name: &str, seed: u64) -> Result<Box<dyn Agent>, String> {
    match name {
        "random" => Ok(Box::new(RandomAgent::new(seed))),
        _ => Err(format!("unknown agent `{name}`; the agents are: {}", AGENTS.join(", "))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::core::find_game;

    #[test]
    fn random_agent_plays_only_legal_actions_and_is_reproducible() {
        let spec = (find_game("journey").unwrap().spec)(Some("classic"), &[], &|_| Err("no files".into())).unwrap();
        let play = |seed| {
            let mut g = spec.new_game(3);
            let mut a = agent("random", seed).unwrap();
            let mut moves = Vec::new();
            let mut legal = Vec::new();
            while let Some(seat) = g.to_move() {
                legal.clear();
                g.legal_actions(&mut legal);
                let m = a.act(g.as_ref(), seat, &legal);
                assert!(legal.contains(&m));
                g.apply(m).unwrap();
                moves.push(m);
            }
            moves
        };
        assert_eq!(play(1), play(1));
        assert!(agent("alphazero", 0).err().unwrap().contains("random"));
    }
}
