//! `arena worker`: play a ladder's games of anchors and submissions on this machine.

use clap::Args;
use std::path::PathBuf;

#[derive(Args)]
pub struct WorkerArgs {
    /// The ladder, e.g. `http://10.0.0.5:50051` (its file has a `workers:` section).
    #[arg(long)]
    pub ladder: String,
    /// This worker's name in the ladder's `workers.keys` file.
    #[arg(long)]
    pub name: String,
    /// This worker among several sharing the name and key (a Deployment's replicas: the pod's
    /// name): each holds leases of its own.
    #[arg(long, default_value = "")]
    pub instance: String,
    /// Its key (default: the environment's ARENA_WORKER_KEY, which other users of this machine
    /// cannot read).
    #[arg(long)]
    pub key: Option<String>,
    /// Games played at once.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub slots: u32,
    /// Where it keeps its reports until the ladder has them, and the submissions it fetched.
    #[arg(long)]
    pub data: PathBuf,
    /// Serve the standard gRPC health service on this address (SERVING while the ladder
    /// answers): a Kubernetes readiness probe's `grpc: { port }`.
    #[arg(long, value_name = "ADDR")]
    pub health: Option<std::net::SocketAddr>,
    /// On SIGTERM or SIGINT: seconds the games in play get to end and their reports to be
    /// answered (the rest are sent at the next start from --data).
    #[arg(long, default_value_t = 30)]
    pub grace: u64,
    /// Take no games of submissions (only anchors'), even where bubblewrap and cgroups are.
    #[arg(long)]
    pub no_sandbox: bool,
}

pub fn run(args: WorkerArgs) -> Result<(), String> {
    let key = match args.key {
        Some(k) => k,
        None => std::env::var("ARENA_WORKER_KEY")
            .map_err(|_| "--key KEY (or ARENA_WORKER_KEY): the worker's key, from the ladder's operator")?,
    };
    let config = arena::worker::WorkerConfig {
        ladder: args.ladder,
        name: args.name,
        key,
        instance: args.instance,
        slots: args.slots,
        data: args.data,
        sandbox: !args.no_sandbox,
        health: args.health,
        grace: std::time::Duration::from_secs(args.grace),
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start tokio: {e}"))?;
    let result = rt.block_on(async { arena::worker::run(config, arena::server::stop_signal()).await });
    rt.shutdown_timeout(std::time::Duration::from_secs(1));
    result
}
