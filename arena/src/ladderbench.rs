//! `arena bench-ladder`: the ladder's figures, on this machine.
//!
//! - Throughput: a ladder (expedition no-dice, 2 players, no anchors) in this process, and
//!   Play clients (a built-in agent, random by default, over real sockets on 127.0.0.1) that together
//!   keep `clients × games_each / 2` games in flight: decisions a second, counted by the
//!   server, over `--seconds` after a warm-up, with the games finished and stored.
//! - A refit (every stored result, with bootstrap intervals, the overall list and the entry's)
//!   of a ladder of 1,000 and of 10,000 agents (`--refit-agents`), each with 20 rated results
//!   (`--results-per-agent`; made up: [`arena::ladder::synthetic`]), from nothing and from the
//!   last refit; the wait for a refit is at most `refit_ms` on top.
//! - Restart: the largest of those stores opened as a restarting ladder opens it: the store
//!   read and the last refit served, before it listens (the next refit in the background).

use arena::ladder::Ladder;
use arena::ladder::config::LadderConfig;
use arena::server::{self, ServerConfig};
use clap::Args;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

#[derive(Args)]
pub struct BenchLadderArgs {
    /// Seconds of play measured (after two seconds of warm-up).
    #[arg(long, default_value_t = 10.0)]
    pub seconds: f64,
    /// Play clients, each a random agent over its own Play stream.
    #[arg(long, default_value_t = 8)]
    pub clients: usize,
    /// Games each client takes at once (Hello.max_games): games in flight are
    /// clients × games_each / 2.
    #[arg(long, default_value_t = 16)]
    pub games_each: u32,
    /// The refit's figures: a ladder of this many agents (comma-separated sizes), each with
    /// `--results-per-agent` rated results; the restart's over the largest.
    #[arg(long, value_delimiter = ',', default_value = "1000,10000")]
    pub refit_agents: Vec<usize>,
    #[arg(long, default_value_t = 20)]
    pub results_per_agent: usize,
    /// The built-in agent each client plays: `random` asks for no observation, the others
    /// read the typed observation (`rules` is the cheapest of them).
    #[arg(long, default_value = "random")]
    pub agent: String,
    /// Bootstrap resamples of each refit.
    #[arg(long, default_value_t = 200)]
    pub bootstrap: u32,
}

fn ladder_text(bootstrap: u32, cap: u32) -> String {
    format!(
        "name: bench\ngames:\n  - {{ game: expedition, preset: no-dice, params: {{ players: 2 }} }}\nmove_time_ms: \
         10000\nmax_games: 1\nmax_games_cap: {cap}\nbootstrap: {bootstrap}\nrefit_ms: 1000\nprovisional_games: 0\n"
    )
}

pub fn run(args: BenchLadderArgs) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| e.to_string())?;
    let scratch = std::env::temp_dir().join(format!("arena-bench-ladder-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let result = rt.block_on(measure(&args, &scratch));
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

async fn measure(args: &BenchLadderArgs, scratch: &std::path::Path) -> Result<(), String> {
    let text = ladder_text(args.bootstrap, args.games_each.max(1));
    let config = LadderConfig::parse("bench", &text)?;
    let data = scratch.join("played");
    let running = server::start("127.0.0.1:0".parse().expect("an address"), ServerConfig::default()).await?;
    let ladder = Ladder::open(config.clone(), None, &text, running.hub.clone(), &data)?;
    ladder.start();
    let url = running.url();
    let mut stops = Vec::new();
    for k in 0..args.clients {
        let (stop, stopped) = tokio::sync::oneshot::channel();
        stops.push(stop);
        // Each client from an address of its own: one client's agents never meet.
        let who = arena::client::Identity {
            name: format!("random-{k}"),
            max_games: args.games_each,
            source: Some(std::net::IpAddr::from([127, 0, 1, 1 + k as u8])),
            ..Default::default()
        };
        let (url, agent) = (url.clone(), args.agent.clone());
        tokio::spawn(async move { arena::client::run_bot(&url, &agent, who, k as u64, Some(stopped)).await });
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (d0, g0, t0) =
        (running.hub.next_request.load(Ordering::Relaxed), ladder.standings.borrow().games, Instant::now());
    let mut in_flight = Vec::new();
    while t0.elapsed().as_secs_f64() < args.seconds {
        tokio::time::sleep(Duration::from_millis(250)).await;
        in_flight.push(ladder.in_play());
    }
    let elapsed = t0.elapsed().as_secs_f64();
    let decisions = running.hub.next_request.load(Ordering::Relaxed) - d0;
    for s in stops {
        let _ = s.send(());
    }
    let stored = ladder.with_store(|s| s.games())?;
    let played = stored - g0;
    in_flight.sort_unstable();
    outln!(
        "throughput: {:.0} decisions/s, {:.0} games/s ({} {} clients, median {} games in flight, {:.1} s; {} decisions, {} \
         games stored)",
        decisions as f64 / elapsed,
        played as f64 / elapsed,
        args.clients,
        args.agent,
        in_flight.get(in_flight.len() / 2).copied().unwrap_or(0),
        elapsed,
        decisions,
        played
    );
    running.stop().await?;

    if played == 0 {
        return Err("no game was played in the time measured".into());
    }

    // What a refit costs as agents grow, and a restart over the largest store.
    let mut largest = None;
    for &agents in &args.refit_agents {
        let results = agents * args.results_per_agent;
        let dir = scratch.join(format!("refit-{agents}"));
        let start = Instant::now();
        arena::ladder::synthetic::fill(&config, &text, &dir, agents, results, 1)?;
        let filled = start.elapsed().as_secs_f64();
        let running = server::start("127.0.0.1:0".parse().expect("an address"), ServerConfig::default()).await?;
        let ladder = Ladder::open(config.clone(), None, &text, running.hub.clone(), &dir)?;
        let refit = |ladder: std::sync::Arc<Ladder>| async move {
            tokio::task::spawn_blocking(move || {
                let start = Instant::now();
                ladder.refit_now().map(|_| start.elapsed().as_secs_f64())
            })
            .await
            .map_err(|e| e.to_string())?
        };
        let cold = refit(ladder.clone()).await?;
        let warm = refit(ladder.clone()).await?;
        outln!(
            "refit: {agents} agents, {results} rated results, {} resamples on {} threads: {:.2} s from nothing, \
             {:.2} s from the last refit (the store written in {filled:.1} s)",
            args.bootstrap,
            config.refit_threads(),
            cold,
            warm
        );
        running.stop().await?;
        largest = Some((dir, agents, results));
    }

    // A restart over the largest: the store read, the last refit served, before listening.
    if let Some((dir, agents, results)) = largest {
        let running = server::start("127.0.0.1:0".parse().expect("an address"), ServerConfig::default()).await?;
        let start = Instant::now();
        let reopened = Ladder::open(config, None, &text, running.hub.clone(), &dir)?;
        let took = start.elapsed().as_secs_f64();
        let s = reopened.standings.borrow().clone();
        outln!(
            "restart: {agents} agents, {results} rated results: opened and serving the last refit ({} rated, {} ranked) \
             in {took:.2} s; the next refit runs in the background",
            s.rated_games,
            s.lists[0].1.entries.len(),
        );
        running.stop().await?;
    }
    Ok(())
}
