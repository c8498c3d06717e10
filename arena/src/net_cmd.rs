//! `arena serve` and `arena bot`: the gRPC game server, and a built-in agent as its client.

use arena::server::{self, Policy, ServerConfig};
use clap::Args;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Args)]
pub struct ServeArgs {
    /// The address to listen on (port 0: any free port; the one chosen is printed).
    #[arg(long, default_value = "127.0.0.1:50051")]
    pub addr: SocketAddr,
    /// Matches in play at once; more are refused.
    #[arg(long, default_value_t = 1000)]
    pub max_matches: usize,
    /// The per-move limit in milliseconds when a match names none (0: no limit).
    #[arg(long, default_value_t = 30_000)]
    pub move_time_ms: u64,
    /// What happens to a seat that does not move in time, disconnects or answers garbage,
    /// when a match names no policy: `forfeit` (it loses, the match ends) or `random` (a
    /// random legal action is played for it).
    #[arg(long, default_value = "forfeit", value_parser = ["forfeit", "random"])]
    pub on_timeout: String,
    /// The largest message accepted, in bytes.
    #[arg(long, default_value_t = 1 << 20)]
    pub max_message_bytes: usize,
    /// Append the record of every finished match to this file (one JSON object per line).
    #[arg(long, value_name = "FILE")]
    pub records: Option<PathBuf>,
}

#[derive(Args)]
pub struct BotArgs {
    /// The built-in agent: `random`, `rules`, `greedy`, `mcts:iterations=2000,c=0.7`.
    pub agent: String,
    /// The server, e.g. `http://127.0.0.1:50051`.
    #[arg(long)]
    pub server: String,
    /// The name matches and tournaments know this client by (default: the agent's text).
    #[arg(long)]
    pub name: Option<String>,
    /// Each seat's agent is seeded from this and its seat number.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The games it plays, comma-separated (default: all).
    #[arg(long, value_delimiter = ',')]
    pub games: Vec<String>,
}

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| format!("cannot start tokio: {e}"))
}

pub fn serve(args: ServeArgs) -> Result<(), String> {
    let config = ServerConfig {
        max_matches: args.max_matches,
        max_message_bytes: args.max_message_bytes,
        move_time: (args.move_time_ms > 0).then(|| Duration::from_millis(args.move_time_ms)),
        policy: if args.on_timeout == "random" { Policy::RandomMove } else { Policy::Forfeit },
        records: args.records,
        ..ServerConfig::default()
    };
    runtime()?.block_on(async {
        let running = server::start(args.addr, config).await?;
        outln!("serving tabletop.arena.v1 on {}", running.addr);
        server::stop_signal().await;
        tracing::info!("stopping: finishing the calls in flight");
        running.stop().await?;
        outln!("stopped");
        Ok(())
    })
}

pub fn bot(args: BotArgs) -> Result<(), String> {
    bots::BotSpec::parse(&args.agent)?;
    let name = args.name.clone().unwrap_or_else(|| args.agent.clone());
    runtime()?.block_on(async {
        let stats =
            arena::client::run_bot(&args.server, &args.agent, &name, args.seed, args.games.clone(), None).await?;
        outln!("{} decisions, {} seats played to the end", stats.decisions, stats.matches_ended);
        Ok(())
    })
}
