//! The arena as a library: tournaments (scheduling, running, logging, rating), the gRPC game
//! server and its Rust client, used by the `arena` binary and by tests that bring their own
//! agents.

pub mod client;
pub mod compare;
pub mod files;
pub mod ladder;
pub mod launch;
pub mod limits;
pub mod pool;
pub mod record;
pub mod referee;
pub mod relay;
pub mod sandbox;
pub mod server;
pub mod standings;
pub mod tournament;
pub mod web;
pub mod worker;
