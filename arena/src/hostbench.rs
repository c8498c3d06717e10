//! `arena bench-hostile`: what one hostile client costs an honest one. One server with its
//! default limits and shares, two clients each with a client key of its own and a process of
//! its own (this binary again, `--role`):
//! - the honest client starts matches at a steady rate, its remote random agent (a Play
//!   client) at one seat and a server-run one at the other; the server times every Play round
//!   trip;
//! - the hostile client, started for the attacked runs only, at the lowest priority (as if on
//!   a machine of its own), takes its share of every pool — matches of server-run searches
//!   (the thinking slots), idle Play streams, spectators that never read — and then sends
//!   calls of YAML bombs and deep nesting at its call rate, four at a time; with
//!   `--past-share`, also every call past its shares it can, and bombs past its rate (a flood:
//!   refused, but each costs the server a little of the processor).
//!
//! Quiet and attacked runs alternate (quiet first); each gives the honest round trips' p50,
//! p99 and p99.9, and each attacked run is compared with the quiet run before it: the report
//! gives the median ratio over the pairs and its range, and counts the honest calls refused
//! and the honest matches that ended with a verdict.

use arena::server::shares::KEY_HEADER;
use arena::server::{self, ServerConfig};
use clap::Args;
use proto::v1;
use reports::stats::Spread;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

#[derive(Args)]
pub struct BenchHostileArgs {
    /// Seconds per run.
    #[arg(long, default_value_t = 5.0)]
    pub seconds: f64,
    /// Pairs of runs (quiet, then under attack).
    #[arg(long, default_value_t = 5)]
    pub pairs: usize,
    /// Honest matches started a second (expedition, about 70 decisions each).
    #[arg(long, default_value_t = 10.0)]
    pub honest_rate: f64,
    /// With `--past-share`: calls of bombs the hostile client sends a second (four at a time at
    /// most), once it holds the rest (without, it sends them at its call rate, the server's
    /// share): as fast as it can (0), it measures how the processor is shared more than the
    /// server.
    #[arg(long, default_value_t = 1000.0)]
    pub hostile_calls_per_second: f64,
    /// The hostile client also calls past its shares, as fast as it can (refused calls, and
    /// bombs at `--hostile-calls-per-second`).
    #[arg(long)]
    pub past_share: bool,
    /// The pools the hostile client hammers.
    #[arg(long, value_delimiter = ',', default_value = "matches,streams,spectators,calls")]
    pub attack: Vec<Pool>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Run as one of the bench's clients against `--server` (its key in `ARENA_CLIENT_KEY`):
    /// the bench starts these itself.
    #[arg(long, hide = true)]
    pub role: Option<Role>,
    #[arg(long, hide = true)]
    pub server: Option<String>,
}

/// The bench's own clients, each a process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Role {
    Honest,
    Hostile,
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

/// One run's figures.
#[derive(Serialize, Clone, Debug)]
struct Run {
    attacked: bool,
    decisions: usize,
    p50_us: f64,
    p99_us: f64,
    p999_us: f64,
    honest: Counts,
    /// The hostile client's calls refused (by the limit or share they met) and accepted.
    hostile_refused: u64,
    hostile_accepted: u64,
}

#[derive(Serialize)]
struct Report {
    runs: Vec<Run>,
    p50: Spread,
    p99: Spread,
    p999: Spread,
    honest_success_rate: f64,
}

/// What a client counts, told to the bench when asked.
#[derive(Serialize, Deserialize, Clone, Debug, Default)]
struct Counts {
    created: u64,
    refused: u64,
    with_verdicts: u64,
}

fn quantile(v: &mut [Duration], q: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort();
    v[((v.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1e6
}

/// A ratio of attacked to quiet over the pairs: its median and its range.
fn ratio(pairs: &[(&Run, &Run)], f: fn(&Run) -> f64) -> Spread {
    Spread::of(pairs.iter().filter(|(q, _)| f(q) > 0.0).map(|(q, a)| f(a) / f(q)).collect())
}

/// A request carrying the client's key.
fn keyed<T>(message: T, key: &tonic::metadata::MetadataValue<tonic::metadata::Ascii>) -> tonic::Request<T> {
    let mut r = tonic::Request::new(message);
    r.metadata_mut().insert(KEY_HEADER, key.clone());
    r
}

/// The key a client process was given.
fn client_key() -> Result<(String, tonic::metadata::MetadataValue<tonic::metadata::Ascii>), String> {
    let key = std::env::var("ARENA_CLIENT_KEY").map_err(|_| "ARENA_CLIENT_KEY: no client key given".to_string())?;
    let value = key.parse().map_err(|_| "ARENA_CLIENT_KEY: not printable ASCII".to_string())?;
    Ok((key, value))
}

pub fn run(args: BenchHostileArgs) -> Result<(), String> {
    match args.role {
        Some(role) => {
            let url = args.server.clone().ok_or("--role needs --server")?;
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .map_err(|e| e.to_string())?;
            let done = match role {
                Role::Honest => rt.block_on(honest(url, args.honest_rate)),
                Role::Hostile => {
                    // As if on a machine of its own: what it costs the server is measured, not
                    // the processor its own work takes.
                    // SAFETY: setpriority has no preconditions; a failure leaves the process at
                    // normal priority.
                    unsafe {
                        libc::setpriority(libc::PRIO_PROCESS, 0, 19);
                    }
                    rt.block_on(hostile(url, args.attack.clone(), args.past_share, args.hostile_calls_per_second))
                }
            };
            rt.shutdown_timeout(Duration::from_secs(1));
            done
        }
        None => coordinate(&args),
    }
}

/// A client process of the bench.
struct Client {
    child: Child,
    out: std::io::BufReader<std::process::ChildStdout>,
}

impl Client {
    fn start(role: &str, url: &str, key: &str, args: &BenchHostileArgs) -> Result<Client, String> {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        // The pools by the names the command line takes them by.
        let attack: Vec<String> = args
            .attack
            .iter()
            .filter_map(|p| clap::ValueEnum::to_possible_value(p).map(|v| v.get_name().to_string()))
            .collect();
        let mut child = Command::new(exe)
            .args(["bench-hostile", "--role", role, "--server", url])
            .args(["--honest-rate", &args.honest_rate.to_string()])
            .args(["--hostile-calls-per-second", &args.hostile_calls_per_second.to_string()])
            .args(["--attack", &attack.join(",")])
            .args(args.past_share.then_some("--past-share"))
            .env("ARENA_CLIENT_KEY", key)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start the {role} client: {e}"))?;
        let out = std::io::BufReader::new(child.stdout.take().ok_or("no stdout")?);
        Ok(Client { child, out })
    }

    /// The next line it prints.
    fn line(&mut self) -> Result<String, String> {
        let mut line = String::new();
        match self.out.read_line(&mut line) {
            Ok(0) => Err("the client ended".into()),
            Ok(_) => Ok(line),
            Err(e) => Err(e.to_string()),
        }
    }

    /// Ask it for its counts since it was last asked.
    fn counts<T: serde::de::DeserializeOwned>(&mut self) -> Result<T, String> {
        let stdin = self.child.stdin.as_mut().ok_or("no stdin")?;
        stdin.write_all(b"counts\n").and_then(|_| stdin.flush()).map_err(|e| e.to_string())?;
        serde_json::from_str(&self.line()?).map_err(|e| e.to_string())
    }

    /// Tell it to stop (its stdin closed), and wait for it: it gives back what it holds first.
    fn stop(mut self) {
        drop(self.child.stdin.take());
        let end = Instant::now() + Duration::from_secs(10);
        while Instant::now() < end {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn coordinate(args: &BenchHostileArgs) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| e.to_string())?;
    let key = || server::hub::secret().map_err(|e| e.message().to_string());
    let (honest_key, hostile_key) = (key()?, key()?);
    let config = ServerConfig {
        measure_latency: true,
        client_keys: HashMap::from([
            ("honest".to_string(), honest_key.clone()),
            ("hostile".to_string(), hostile_key.clone()),
        ]),
        ..ServerConfig::default()
    };
    let running = rt.block_on(server::start("127.0.0.1:0".parse().expect("an address"), config))?;
    let url = running.url();
    let hub = running.hub.clone();
    let mut honest = Client::start("honest", &url, &honest_key, args)?;
    if rt.block_on(hub.wait_for_session("honest", Duration::from_secs(10))).is_none() {
        return Err("the honest client did not connect".into());
    }
    let latencies = hub.latencies.clone().expect("measured");
    let mut runs = Vec::new();
    for k in 0..args.pairs * 2 {
        let attacked = k % 2 == 1;
        let mut hostile = None;
        if attacked {
            let mut h = Client::start("hostile", &url, &hostile_key, args)?;
            // It holds its share of every pool before the run counts.
            let said = h.line()?;
            if !said.starts_with("holding") {
                return Err(format!("the hostile client: {said}"));
            }
            hostile = Some(h);
        } else {
            // What the last attack held is given back before the run counts.
            std::thread::sleep(Duration::from_millis(500));
        }
        let _: Counts = honest.counts()?;
        latencies.lock().expect("latencies").clear();
        let start = Instant::now();
        std::thread::sleep(Duration::from_secs_f64(args.seconds));
        let mut times = std::mem::take(&mut *latencies.lock().expect("latencies"));
        let counts: Counts = honest.counts()?;
        let (hostile_refused, hostile_accepted) = match hostile.as_mut() {
            Some(h) => h.counts::<(u64, u64)>()?,
            None => (0, 0),
        };
        if let Some(h) = hostile {
            h.stop();
        }
        let run = Run {
            attacked,
            decisions: times.len(),
            p50_us: quantile(&mut times, 0.5),
            p99_us: quantile(&mut times, 0.99),
            p999_us: quantile(&mut times, 0.999),
            honest: counts,
            hostile_refused,
            hostile_accepted,
        };
        if !args.json {
            outln!(
                "{:>9} {:4.1} s: {:6} honest decisions, p50 {:6.0} µs, p99 {:6.0} µs, p99.9 {:6.0} µs; honest matches {} \
                 created, {} refused, {} with a verdict; hostile calls {} refused, {} accepted",
                if attacked { "attacked" } else { "quiet" },
                start.elapsed().as_secs_f64(),
                run.decisions,
                run.p50_us,
                run.p99_us,
                run.p999_us,
                run.honest.created,
                run.honest.refused,
                run.honest.with_verdicts,
                run.hostile_refused,
                run.hostile_accepted
            );
        }
        runs.push(run);
    }
    honest.stop();
    rt.block_on(running.stop())?;
    rt.shutdown_timeout(Duration::from_secs(2));

    let pairs: Vec<(&Run, &Run)> = runs.chunks(2).filter(|p| p.len() == 2).map(|p| (&p[0], &p[1])).collect();
    let (created, failed) = runs
        .iter()
        .filter(|r| r.attacked)
        .fold((0, 0), |(c, f), r| (c + r.honest.created, f + r.honest.refused + r.honest.with_verdicts));
    let (p50, p99, p999) = (ratio(&pairs, |r| r.p50_us), ratio(&pairs, |r| r.p99_us), ratio(&pairs, |r| r.p999_us));
    let count = pairs.len();
    let report = Report {
        p50,
        p99,
        p999,
        honest_success_rate: if created == 0 { 0.0 } else { created.saturating_sub(failed) as f64 / created as f64 },
        runs,
    };
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?);
    } else {
        let r = Spread::ratio_text;
        outln!(
            "attacked / quiet, median (range) over {} pairs: p50 {}, p99 {}, p99.9 {}; honest matches under attack \
             created and ended without a verdict: {:.1}%",
            count,
            r(&report.p50),
            r(&report.p99),
            r(&report.p999),
            report.honest_success_rate * 100.0
        );
    }
    Ok(())
}

/// Lines asked on stdin, each answered with `answer()` on stdout; ends at EOF.
fn answer_asks(answer: impl Fn() -> String + Send + 'static, done: Arc<AtomicBool>) {
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut line = String::new();
        while stdin.lock().read_line(&mut line).is_ok_and(|n| n > 0) {
            line.clear();
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{}", answer());
            let _ = out.flush();
        }
        done.store(true, Ordering::Relaxed);
    });
}

/// The honest client: its random agent over the Play stream, and `rate` matches a second of it
/// against a server-run random agent, each finished one checked for verdicts.
async fn honest(url: String, rate: f64) -> Result<(), String> {
    let (key, value) = client_key()?;
    let created = Arc::new(AtomicU64::new(0));
    let refused = Arc::new(AtomicU64::new(0));
    let with_verdicts = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    {
        let (c, r, v) = (created.clone(), refused.clone(), with_verdicts.clone());
        answer_asks(
            move || {
                let counts = Counts {
                    created: c.swap(0, Ordering::Relaxed),
                    refused: r.swap(0, Ordering::Relaxed),
                    with_verdicts: v.swap(0, Ordering::Relaxed),
                };
                serde_json::to_string(&counts).unwrap_or_default()
            },
            done.clone(),
        );
    }
    let (stop_bot, stopped) = tokio::sync::oneshot::channel();
    let who = arena::client::Identity { name: "honest".into(), client_key: key, ..Default::default() };
    let bot_url = url.clone();
    let bot = tokio::spawn(async move { arena::client::run_bot(&bot_url, "random", who, 1, Some(stopped)).await });
    let mut m = arena::client::matches(arena::client::connect(&url).await?);
    // The Play client first.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut playing: Vec<String> = Vec::new();
    let mut seed = 0u64;
    let start = tokio::time::Instant::now();
    while !done.load(Ordering::Relaxed) {
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
            match m.create_match(keyed(req, &value)).await {
                Ok(c) => {
                    created.fetch_add(1, Ordering::Relaxed);
                    playing.push(c.into_inner().match_id);
                }
                Err(_) => {
                    refused.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        let mut still = Vec::new();
        for id in playing.drain(..) {
            let record = m.get_record(keyed(v1::GetRecordRequest { match_id: id.clone() }, &value)).await;
            match record.map(|r| r.into_inner().outcome) {
                Ok(Some(o)) if o.verdicts.is_empty() => {}
                Ok(_) => {
                    with_verdicts.fetch_add(1, Ordering::Relaxed);
                }
                // Its record is given once it is over.
                Err(e) if e.code() == tonic::Code::FailedPrecondition => still.push(id),
                Err(_) => {
                    refused.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        playing = still;
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let _ = stop_bot.send(());
    let _ = bot.await;
    Ok(())
}

/// The hostile client: each pool in `pools` taken to its share (matches, then streams, then
/// spectators: what a client may hold), then calls of bombs, four at a time, at its call rate
/// (or, `past_share`, at `calls_per_second`, with every call past its shares besides), until
/// its stdin closes; then its matches are cancelled (what it held given back). Prints
/// `holding` once it holds its shares.
async fn hostile(url: String, pools: Vec<Pool>, past_share: bool, calls_per_second: f64) -> Result<(), String> {
    let (_, key) = client_key()?;
    let refused = Arc::new(AtomicU64::new(0));
    let accepted = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    {
        let (r, a) = (refused.clone(), accepted.clone());
        answer_asks(
            move || {
                serde_json::to_string(&(r.swap(0, Ordering::Relaxed), a.swap(0, Ordering::Relaxed))).unwrap_or_default()
            },
            done.clone(),
        );
    }
    let count = |ok: bool| if ok { &accepted } else { &refused }.fetch_add(1, Ordering::Relaxed);
    let channel = arena::client::connect(&url).await?;
    let holding = Arc::new(AtomicBool::new(false));
    let bomb = {
        let mut text = format!("a0: &a0 [{}]\n", ["lol"; 10].join(", "));
        for i in 1..9 {
            text += &format!("a{i}: &a{i} [{}]\n", vec![format!("*a{}", i - 1); 10].join(", "));
        }
        text
    };
    let deep = "{a: ".repeat(50_000);
    // What the server says each client may hold and call.
    let limits = arena::client::catalogue(channel.clone())
        .list_games(keyed(v1::ListGamesRequest {}, &key))
        .await
        .map_err(|e| e.to_string())?
        .into_inner()
        .limits
        .ok_or("no limits")?;
    let calls_per_second = if past_share { calls_per_second } else { f64::from(limits.share_calls_per_second) };
    let mut tasks = Vec::new();
    for i in 0..if pools.contains(&Pool::Calls) { 4 } else { 0 } {
        let (c, done, holding, key) = (channel.clone(), done.clone(), holding.clone(), key.clone());
        let (refused, accepted) = (refused.clone(), accepted.clone());
        let text = if i % 2 == 0 { bomb.clone() } else { deep.clone() };
        tasks.push(tokio::spawn(async move {
            let mut catalogue = arena::client::catalogue(c);
            let mut pace = (calls_per_second > 0.0)
                .then(|| tokio::time::interval(Duration::from_secs_f64(4.0 / calls_per_second)));
            while !done.load(Ordering::Relaxed) {
                if let Some(p) = &mut pace {
                    p.tick().await;
                }
                if !holding.load(Ordering::Relaxed) {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
                let req = v1::DescribeGameRequest {
                    game: "expedition".into(),
                    params: HashMap::from([("content".to_string(), text.clone())]),
                    ..Default::default()
                };
                let ok = catalogue.describe_game(keyed(req, &key)).await.is_ok();
                if ok { &accepted } else { &refused }.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    let mut m = arena::client::matches(channel.clone());
    let mut held_matches: Vec<v1::CreateMatchResponse> = Vec::new();
    let mut spectators = Vec::new();
    let mut streams = Vec::new();
    let mut seed = 0u64;
    let share = |p: Pool| match p {
        Pool::Matches => limits.share_matches as usize,
        Pool::Streams => limits.share_play_streams as usize,
        Pool::Spectators => limits.share_spectators as usize,
        Pool::Calls => 0,
    };
    while !done.load(Ordering::Relaxed) {
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
        if next.is_none() && !holding.swap(true, Ordering::Relaxed) {
            println!("holding");
        }
        if next.is_none() && !past_share {
            // At its share of everything: it holds it.
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        }
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
                let r = m.create_match(keyed(req, &key)).await;
                count(r.is_ok());
                if let Ok(c) = r {
                    held_matches.push(c.into_inner());
                }
            }
            Pool::Spectators => {
                let id = held_matches.last().map(|c| c.match_id.clone()).unwrap_or_default();
                let r = m
                    .spectate(keyed(v1::SpectateRequest { match_id: id, from_version: 0, with_table: false }, &key))
                    .await;
                count(r.is_ok());
                if let Ok(s) = r {
                    spectators.push(s.into_inner());
                }
            }
            Pool::Streams => {
                let (tx, rx) = tokio::sync::mpsc::channel(1);
                let hello = v1::Hello { name: format!("hostile-{seed}"), ..Default::default() };
                let _ = tx.send(v1::BotMessage { message: Some(v1::bot_message::Message::Hello(hello)) }).await;
                let r = v1::play_client::PlayClient::new(channel.clone())
                    .play(keyed(tokio_stream::wrappers::ReceiverStream::new(rx), &key))
                    .await;
                // Refused past the share at the first message.
                let mut inbound = r.map(|r| r.into_inner());
                let welcomed = match &mut inbound {
                    Ok(i) => matches!(i.message().await, Ok(Some(_))),
                    Err(_) => false,
                };
                count(welcomed);
                if let (true, Ok(i)) = (welcomed, inbound) {
                    streams.push((tx, i));
                }
            }
        }
    }
    for t in tasks {
        let _ = t.await;
    }
    // What it held, given back before it goes.
    for c in held_matches {
        let _ = m
            .cancel_match(keyed(v1::CancelMatchRequest { match_id: c.match_id, creator_token: c.creator_token }, &key))
            .await;
    }
    Ok(())
}
