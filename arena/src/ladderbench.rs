//! `arena bench-ladder`: the ladder's figures, on this machine.
//!
//! - Throughput: a ladder (expedition no-dice, 2 players, no anchors) in this process, and
//!   Play clients (a built-in agent, random by default, over real sockets on 127.0.0.1) that together
//!   keep `clients × games_each / 2` games in flight: decisions a second, counted by the
//!   server, over `--seconds` after a warm-up, with the games finished and stored.
//! - From a game's end to the standings: the time of one refit (every stored result, with
//!   bootstrap intervals) at the number of results reached, and at 10× and 100× as many; the
//!   wait for the refit itself is at most `refit_ms` on top.
//! - Restart: a data directory of `--restart-games` games (the played games' records, copied
//!   under new ids, each with its rated results) opened as a restarting ladder opens it: the
//!   store read, the standings refit.

use arena::ladder::Ladder;
use arena::ladder::config::LadderConfig;
use arena::ladder::store::Store;
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
    /// Stored games for the restart figure.
    #[arg(long, default_value_t = 100_000)]
    pub restart_games: usize,
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

    // What a refit costs, at the results reached and at more.
    let records: Vec<_> = ladder.with_store(|s| s.all_games())?;
    let rated = ladder.with_store(|s| s.rated())?;
    if records.is_empty() || rated.is_empty() {
        return Err("no game was played: nothing to measure a refit or a restart with".into());
    }
    let participants: Vec<String> = ladder.with_store(|s| s.agents())?.into_iter().map(|(n, _)| n).collect();
    for factor in [1usize, 10, 100] {
        // Each copy a deal of its own, as more games would be.
        let games: Vec<_> = (0..rated.len() * factor)
            .map(|i| reports::ratings::RatedGame { unit: i as u64, ..rated[i % rated.len()].clone() })
            .collect();
        let opts = reports::ratings::RatingOptions { anchor: None, bootstrap: args.bootstrap, seed: 0 };
        let start = Instant::now();
        let list = reports::ratings::rate(&participants, &games, &opts);
        outln!(
            "refit: {} rated results, {} agents, {} resamples: {:.0} ms",
            games.len(),
            list.entries.len(),
            args.bootstrap,
            start.elapsed().as_secs_f64() * 1e3
        );
    }

    // A restart over many stored games.
    let big = scratch.join("restart");
    {
        let mut store = Store::open(&big)?;
        for (name, anchor) in ladder.with_store(|s| s.agents())? {
            store.agent(&name, anchor)?;
        }
        for (key, label) in ladder.with_store(|s| s.entries())? {
            store.entry(&key, &label)?;
        }
        let pairing = store.pairing(0)? as u32;
        let mut batch = Vec::new();
        let start = Instant::now();
        for id in 1..=args.restart_games {
            let k = id % records.len().min(rated.len());
            let mut record = records[k].record.clone();
            if let Some(t) = record.tournament.as_mut() {
                t.job = id as u64;
                t.deal = pairing;
            }
            let results = reports::ratings::RatedGame { unit: id as u64, ..rated[k].clone() };
            batch.push((record, vec![results]));
            if batch.len() == 10_000 {
                store.commit_all(&batch)?;
                batch.clear();
            }
        }
        store.commit_all(&batch)?;
        outln!("restart: {} games written in {:.1} s (bulk)", args.restart_games, start.elapsed().as_secs_f64());
    }
    let running = server::start("127.0.0.1:0".parse().expect("an address"), ServerConfig::default()).await?;
    let start = Instant::now();
    let reopened = Ladder::open(config, None, &text, running.hub.clone(), &big)?;
    let took = start.elapsed().as_secs_f64();
    let s = reopened.standings.borrow().clone();
    outln!(
        "restart: {} games, {} rated results read and refit ({} resamples) in {:.2} s",
        s.games,
        s.rated_games,
        args.bootstrap,
        took
    );
    running.stop().await?;
    Ok(())
}
