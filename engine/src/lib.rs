//! The rules of the Tabletop Arena games: pure, deterministic, no I/O, no async.
//!
//! Start at [`core::Game`]: every game implements it. [`journey`] is the cooperative card
//! game; `expedition` the competitive board game. [`games`] lists them and [`find_game`] finds
//! one by name; [`conformance`] is what every game must do, checked by playing it.

pub mod conformance;
pub mod core;
pub mod expedition;
mod games;
pub mod journey;

pub use games::{find_game, games};
