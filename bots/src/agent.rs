//! What an agent is: asked at its own seat's decisions for one of the legal actions, told when
//! the game is over; and the simplest one, `random`.

use crate::view::SeatView;
use engine::core::{ActionId, Outcome, Seat, SmallRng};
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
    /// Its process (one the arena launched) used more than its memory limit, and is gone.
    MemoryLimit(String),
    /// Its process (one the arena launched) tried to have more processes than its limit, and
    /// is gone.
    ProcessCount(String),
    /// Its process (one the arena launched) used its whole CPU time, and was stopped.
    CpuTime(String),
    /// Its process (one the arena launched) ran past its wall time, and was stopped.
    WallTime(String),
}

impl fmt::Display for AgentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentError::Failed(m)
            | AgentError::Disconnected(m)
            | AgentError::TimedOut(m)
            | AgentError::Idle(m)
            | AgentError::Resigned(m)
            | AgentError::MemoryLimit(m)
            | AgentError::ProcessCount(m)
            | AgentError::CpuTime(m)
            | AgentError::WallTime(m) => f.write_str(m),
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
