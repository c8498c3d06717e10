//! journey: the built-in agents' knowledge of the game — its rollout rules, its evaluation, the
//! strong agent's hooks and tuned rollout, and the learned arrival chance.

mod eval;
mod policy;
pub mod rollout;
mod strong;
pub mod value;
