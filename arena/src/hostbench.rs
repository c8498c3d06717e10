//! `arena bench-hostile`: what one hostile client costs everyone else. One server with its
//! default limits and shares; an honest client (from 127.0.0.1) starts matches at a steady
//! rate, a remote random agent at one seat and a server-run one at the other, and the server
//! times every Play round trip. In alternate windows a hostile client (from 127.0.0.2) hammers every pool
//! at its share and past it: matches of server-run searches (the thinking slots), idle Play
//! streams, spectators that never read, and calls of YAML bombs and deep nesting, four at a
//! time. Each window's honest round trips give a p50 and a p99; the report pairs each window
//! under attack with the quiet one before it, and counts the honest calls refused and the
//! honest matches that ended with a verdict.

use arena::server::{self, ServerConfig};
use clap::Args;
use proto::v1;
use serde::Serialize;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

#[derive(Args)]
pub struct BenchHostileArgs {
    /// Seconds per window.
    #[arg(long, default_value_t = 4.0)]
    pub seconds: f64,
    /// Pairs of windows (quiet, then under attack).
    #[arg(long, default_value_t = 3)]
    pub pairs: usize,
    /// Honest matches started a second (expedition, about 70 decisions each).
    #[arg(long, default_value_t = 10.0)]
    pub honest_rate: f64,
    /// Calls of bombs the hostile client sends a second (four at a time at most), once it
    /// holds the rest: as fast as this machine lets it (0), it measures how the processor is
    /// shared more than the server.
    #[arg(long, default_value_t = 1000.0)]
    pub hostile_calls_per_second: f64,
    /// The pools the hostile client hammers.
    #[arg(long, value_delimiter = ',', default_value = "matches,streams,spectators,calls")]
    pub attack: Vec<Pool>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize, Clone, Debug)]
struct Window {
    attacked: bool,
    decisions: usize,
    p50_us: f64,
    p99_us: f64,
    honest_created: u64,
    honest_refused: u64,
    honest_with_verdicts: u64,
    /// The hostile client's calls refused (by the limit or share they met) and accepted.
    hostile_refused: u64,
    hostile_accepted: u64,
}

#[derive(Serialize)]
struct Report {
    windows: Vec<Window>,
    p50_ratio_median: f64,
    p99_ratio_median: f64,
    honest_success_rate: f64,
}

fn quantile(v: &mut [Duration], q: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort();
    v[((v.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1e6
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() { 0.0 } else { v[v.len() / 2] }
}

/// What both sides count.
#[derive(Default)]
struct Counts {
    honest_created: AtomicU64,
    honest_refused: AtomicU64,
    honest_with_verdicts: AtomicU64,
    hostile_refused: AtomicU64,
    hostile_accepted: AtomicU64,
}

impl Counts {
    fn take(&self, c: &AtomicU64) -> u64 {
        c.swap(0, Ordering::Relaxed)
    }
}

fn count<T>(r: &Result<T, tonic::Status>, accepted: &AtomicU64, refused: &AtomicU64) {
    match r {
        Ok(_) => accepted.fetch_add(1, Ordering::Relaxed),
        Err(_) => refused.fetch_add(1, Ordering::Relaxed),
    };
}

/// The honest creator: starts `rate` matches a second (a remote agent against a server-run
/// one), and checks each finished one for verdicts.
async fn honest(url: String, rate: f64, counts: Arc<Counts>, stop: Arc<AtomicBool>) -> Result<(), String> {
    let mut m = arena::client::matches(arena::client::connect(&url).await?);
    let mut playing: Vec<String> = Vec::new();
    let mut seed = 0u64;
    let start = tokio::time::Instant::now();
    while !stop.load(Ordering::Relaxed) {
        // Open loop: the matches due by now, however the server fares.
        let due = (start.elapsed().as_secs_f64() * rate) as u64;
        while seed < due {
            seed += 1;
            let req = v1::CreateMatchRequest {
                game: "expedition".into(),
                preset: "dice".into(),
                seed: Some(seed),
                seats: vec![
                    v1::SeatSpec { player: Some(v1::seat_spec::Player::Play("honest".into())) },
                    v1::SeatSpec { player: Some(v1::seat_spec::Player::Bot("random".into())) },
                ],
                ..Default::default()
            };
            match m.create_match(req).await {
                Ok(c) => {
                    counts.honest_created.fetch_add(1, Ordering::Relaxed);
                    playing.push(c.into_inner().match_id);
                }
                Err(_) => {
                    counts.honest_refused.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        let mut still = Vec::new();
        for id in playing.drain(..) {
            let record = m.get_record(v1::GetRecordRequest { match_id: id.clone() }).await;
            match record.map(|r| r.into_inner().outcome) {
                Ok(Some(o)) if o.verdicts.is_empty() => {}
                Ok(_) => {
                    counts.honest_with_verdicts.fetch_add(1, Ordering::Relaxed);
                }
                // Its record is given once it is over.
                Err(e) if e.code() == tonic::Code::FailedPrecondition => still.push(id),
                Err(_) => {
                    counts.honest_refused.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        playing = still;
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    Ok(())
}

/// What the hostile client hammers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Pool {
    /// Matches of server-run searches (and so the thinking slots).
    Matches,
    /// Idle Play streams.
    Streams,
    /// Spectators that never read.
    Spectators,
    /// Calls of YAML bombs and deep nesting, four at a time.
    Calls,
}

/// The hostile client, from 127.0.0.2, while `on`: each pool in `pools` taken to its share
/// (matches, then streams, then spectators: what a client may hold) and called past it, and
/// calls of bombs four at a time once the rest is held.
async fn hostile(
    url: String,
    pools: Vec<Pool>,
    calls_per_second: f64,
    counts: Arc<Counts>,
    on: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
) -> Result<(), String> {
    let channel = arena::client::connect_from(&url, [127, 0, 0, 2].into()).await?;
    let holding = Arc::new(AtomicBool::new(false));
    let bomb = {
        let mut text = format!("a0: &a0 [{}]\n", ["lol"; 10].join(", "));
        for i in 1..9 {
            text += &format!("a{i}: &a{i} [{}]\n", vec![format!("*a{}", i - 1); 10].join(", "));
        }
        text
    };
    let deep = "{a: ".repeat(50_000);
    let mut tasks = Vec::new();
    for i in 0..if pools.contains(&Pool::Calls) { 4 } else { 0 } {
        let (c, counts, on, stop, holding) =
            (channel.clone(), counts.clone(), on.clone(), stop.clone(), holding.clone());
        let text = if i % 2 == 0 { bomb.clone() } else { deep.clone() };
        tasks.push(tokio::spawn(async move {
            let mut catalogue = arena::client::catalogue(c);
            let mut pace = (calls_per_second > 0.0)
                .then(|| tokio::time::interval(Duration::from_secs_f64(4.0 / calls_per_second)));
            while !stop.load(Ordering::Relaxed) {
                if let Some(p) = &mut pace {
                    p.tick().await;
                }
                if !on.load(Ordering::Relaxed) || !holding.load(Ordering::Relaxed) {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
                let req = v1::DescribeGameRequest {
                    game: "expedition".into(),
                    params: HashMap::from([("content".to_string(), text.clone())]),
                    ..Default::default()
                };
                let r = catalogue.describe_game(req).await;
                count(&r, &counts.hostile_accepted, &counts.hostile_refused);
            }
        }));
    }
    let mut m = arena::client::matches(channel.clone());
    let mut held_matches: Vec<v1::CreateMatchResponse> = Vec::new();
    let mut spectators = Vec::new();
    let mut streams = Vec::new();
    let mut seed = 0u64;
    // What the server says each client may hold.
    let limits = arena::client::catalogue(channel.clone())
        .list_games(v1::ListGamesRequest {})
        .await
        .map_err(|e| e.to_string())?
        .into_inner()
        .limits
        .ok_or("no limits")?;
    let share = |p: Pool| match p {
        Pool::Matches => limits.share_matches as usize,
        Pool::Streams => limits.share_play_streams as usize,
        Pool::Spectators => limits.share_spectators as usize,
        Pool::Calls => 0,
    };
    while !stop.load(Ordering::Relaxed) {
        if !on.load(Ordering::Relaxed) {
            for c in held_matches.drain(..) {
                let _ = m
                    .cancel_match(v1::CancelMatchRequest { match_id: c.match_id, creator_token: c.creator_token })
                    .await;
            }
            spectators.clear();
            streams.clear();
            holding.store(false, Ordering::Relaxed);
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        }
        seed += 1;
        // The first pool not at its share yet, and one call past it once all are.
        let next = pools.iter().copied().find(|&p| {
            let held = match p {
                Pool::Matches => held_matches.len(),
                Pool::Streams => streams.len(),
                Pool::Spectators => spectators.len(),
                Pool::Calls => usize::MAX,
            };
            held < share(p)
        });
        holding.store(next.is_none(), Ordering::Relaxed);
        let pool = next.unwrap_or(pools[(seed as usize) % pools.len()]);
        match pool {
            Pool::Matches | Pool::Calls => {
                let search =
                    || v1::SeatSpec { player: Some(v1::seat_spec::Player::Bot("mcts:iterations=20000".into())) };
                let req = v1::CreateMatchRequest {
                    game: "expedition".into(),
                    seed: Some(seed),
                    seats: vec![search(), search()],
                    ..Default::default()
                };
                let r = m.create_match(req).await;
                count(&r, &counts.hostile_accepted, &counts.hostile_refused);
                if let Ok(c) = r {
                    held_matches.push(c.into_inner());
                }
            }
            Pool::Spectators => {
                let id = held_matches.last().map(|c| c.match_id.clone()).unwrap_or_default();
                let r = m.spectate(v1::SpectateRequest { match_id: id, from_version: 0 }).await;
                count(&r, &counts.hostile_accepted, &counts.hostile_refused);
                if let Ok(s) = r {
                    spectators.push(s.into_inner());
                }
            }
            Pool::Streams => {
                let (tx, rx) = tokio::sync::mpsc::channel(1);
                let hello = v1::Hello { name: format!("hostile-{seed}"), ..Default::default() };
                let _ = tx.send(v1::BotMessage { message: Some(v1::bot_message::Message::Hello(hello)) }).await;
                let r = v1::play_client::PlayClient::new(channel.clone())
                    .play(tokio_stream::wrappers::ReceiverStream::new(rx))
                    .await;
                // Refused past the share at the first message.
                let mut inbound = r.map(|r| r.into_inner());
                let welcomed = match &mut inbound {
                    Ok(i) => matches!(i.message().await, Ok(Some(_))),
                    Err(_) => false,
                };
                if let (true, Ok(i)) = (welcomed, inbound) {
                    counts.hostile_accepted.fetch_add(1, Ordering::Relaxed);
                    streams.push((tx, i));
                } else {
                    counts.hostile_refused.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    }
    for t in tasks {
        let _ = t.await;
    }
    Ok(())
}

pub fn run(args: BenchHostileArgs) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| e.to_string())?;
    let config = ServerConfig { measure_latency: true, ..ServerConfig::default() };
    let running = rt.block_on(server::start("127.0.0.1:0".parse().expect("an address"), config))?;
    let url = running.url();
    let hub = running.hub.clone();
    let (stop_bot, stopped) = tokio::sync::oneshot::channel();
    let who = arena::client::Identity { name: "honest".into(), ..Default::default() };
    let bot_url = url.clone();
    let bot = rt.spawn(async move { arena::client::run_bot(&bot_url, "random", who, 1, Some(stopped)).await });
    if rt.block_on(hub.wait_for_session("honest", Duration::from_secs(10))).is_none() {
        return Err("the honest client did not connect".into());
    }
    let counts = Arc::new(Counts::default());
    let (stop, on) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)));
    let honest_task = rt.spawn(honest(url.clone(), args.honest_rate, counts.clone(), stop.clone()));
    // The hostile client on threads of its own at the lowest priority, as if on a machine of
    // its own: what it costs the server is measured, not the processor its own work takes.
    let hostile_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .on_thread_start(|| {
            // SAFETY: gettid and setpriority have no preconditions; a failure leaves the thread
            // at normal priority.
            unsafe {
                libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 19);
            }
        })
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let hostile_task = hostile_rt.spawn(hostile(
        url.clone(),
        args.attack.clone(),
        args.hostile_calls_per_second,
        counts.clone(),
        on.clone(),
        stop.clone(),
    ));
    let latencies = hub.latencies.clone().expect("measured");
    let mut windows = Vec::new();
    for pair in 0..args.pairs * 2 {
        let attacked = pair % 2 == 1;
        on.store(attacked, Ordering::Relaxed);
        // The switch settles (held places given back) before the window counts.
        std::thread::sleep(Duration::from_millis(300));
        latencies.lock().expect("latencies").clear();
        for c in [&counts.honest_created, &counts.honest_refused, &counts.honest_with_verdicts] {
            c.store(0, Ordering::Relaxed);
        }
        counts.hostile_refused.store(0, Ordering::Relaxed);
        counts.hostile_accepted.store(0, Ordering::Relaxed);
        let start = Instant::now();
        std::thread::sleep(Duration::from_secs_f64(args.seconds));
        let mut times = std::mem::take(&mut *latencies.lock().expect("latencies"));
        let w = Window {
            attacked,
            decisions: times.len(),
            p50_us: quantile(&mut times, 0.5),
            p99_us: quantile(&mut times, 0.99),
            honest_created: counts.take(&counts.honest_created),
            honest_refused: counts.take(&counts.honest_refused),
            honest_with_verdicts: counts.take(&counts.honest_with_verdicts),
            hostile_refused: counts.take(&counts.hostile_refused),
            hostile_accepted: counts.take(&counts.hostile_accepted),
        };
        if !args.json {
            outln!(
                "{:>9} {:5.1} s: {:6} honest decisions, p50 {:7.0} µs, p99 {:7.0} µs; honest matches {} created, {} \
                 refused, {} with a verdict; hostile calls {} refused, {} accepted",
                if attacked { "attacked" } else { "quiet" },
                start.elapsed().as_secs_f64(),
                w.decisions,
                w.p50_us,
                w.p99_us,
                w.honest_created,
                w.honest_refused,
                w.honest_with_verdicts,
                w.hostile_refused,
                w.hostile_accepted
            );
        }
        windows.push(w);
    }
    stop.store(true, Ordering::Relaxed);
    on.store(false, Ordering::Relaxed);
    let _ = stop_bot.send(());
    rt.block_on(async {
        let _ = honest_task.await;
        let _ = hostile_task.await;
        let _ = bot.await;
    });
    hostile_rt.shutdown_timeout(Duration::from_secs(2));
    rt.block_on(running.stop())?;
    rt.shutdown_timeout(Duration::from_secs(2));

    let ratio = |f: fn(&Window) -> f64| {
        median(windows.chunks(2).filter(|p| p.len() == 2 && f(&p[0]) > 0.0).map(|p| f(&p[1]) / f(&p[0])).collect())
    };
    let (created, failed): (u64, u64) = windows
        .iter()
        .filter(|w| w.attacked)
        .fold((0, 0), |(c, f), w| (c + w.honest_created, f + w.honest_refused + w.honest_with_verdicts));
    let report = Report {
        p50_ratio_median: ratio(|w| w.p50_us),
        p99_ratio_median: ratio(|w| w.p99_us),
        honest_success_rate: if created + failed == 0 {
            0.0
        } else {
            created.saturating_sub(failed) as f64 / created as f64
        },
        windows,
    };
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?);
    } else {
        outln!(
            "under attack / quiet, medians over {} pairs: p50 {:.2}×, p99 {:.2}×; honest matches under attack that \
             were created and ended without a verdict: {:.1}%",
            args.pairs,
            report.p50_ratio_median,
            report.p99_ratio_median,
            report.honest_success_rate * 100.0
        );
    }
    Ok(())
}
