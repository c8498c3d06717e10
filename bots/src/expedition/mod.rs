//! expedition: the built-in agents' knowledge of the game — its rollout rules, its evaluation
//! and the strong agent's hooks.

mod eval;
mod policy;
mod strong;
