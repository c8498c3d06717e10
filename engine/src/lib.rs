//! The rules of the Tabletop Arena games: pure, deterministic, no I/O, no async.
//!
//! Start at [`core::Game`]: every game implements it. [`journey`] is the cooperative card
//! game; `expedition` the competitive board game.

pub mod core;
pub mod expedition;
pub mod journey;

/// Every game the registry knows, in listing order.
pub(crate) static GAMES: &[core::GameEntry] = &[
    core::GameEntry::of::<journey::Journey>("cooperative card game for 1-4 travellers (classic, martian, dunwich)"),
    core::GameEntry::of::<expedition::Expedition>(
        "competitive board game for 2-4 players, dice game and no-dice variant",
    ),
];
