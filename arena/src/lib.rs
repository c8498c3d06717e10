//! The arena as a library: tournaments (scheduling, running, logging, rating), the gRPC game
//! server and its Rust client, used by the `arena` binary and by tests that bring their own
//! agents.

pub mod client;
pub mod compare;
pub mod pool;
pub mod record;
pub mod referee;
pub mod server;
pub mod tournament;

/// Read a file a parameter or a tournament names; the engine does no I/O of its own.
pub fn load_file(path: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))
}
