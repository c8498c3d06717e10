//! The arena's integration tests, one test binary: the arena's library and its dependencies
//! are linked once, and what the tests share is compiled once (`cargo test -p arena --test
//! it`, then a module's name to run only it: `cargo test -p arena --test it server::`).

mod architecture;
mod cli;
mod deploy;
mod file_errors;
mod hostile;
mod inert;
mod ladder;
mod limits;
mod python;
mod referee;
mod server;
mod shown;
mod submissions;
mod tournament;
mod verdicts;
mod web;
mod workers;

mod matches;
mod scratch;
mod served;
