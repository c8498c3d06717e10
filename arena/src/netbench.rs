//! `arena bench-wire`: what the wire costs. In one run, on loopback:
//!
//! - decisions per second of a random agent in process, and of the same agent as a remote
//!   client through the server (one match at a time, and many in flight), and their ratio;
//! - the decision round trip (p50, p99) through the Play stream and through unary Act, each
//!   beside a bare tonic echo of the same shape (the same messages each way, answered with no
//!   work): the floor this machine allows.
//!
//! Each measure and the one it is compared with take turns in rounds (see [`run`]).

use arena::server::{self, ServerConfig};
use bots::{Budget, SeatView};
use clap::Args;
use engine::core::Seat;
use engine::find_game;
use proto::bench::echo_client::EchoClient;
use proto::bench::echo_server::{Echo, EchoServer};
use proto::v1;
use reports::stats::Spread;
use serde::Serialize;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_stream::Stream;
use tonic::transport::Server;
use tonic::transport::server::TcpIncoming;
use tonic::{Request, Response, Status, Streaming};

#[derive(Args)]
pub struct BenchWireArgs {
    /// Seconds per measurement, in all (split into the rounds).
    #[arg(long, default_value_t = 2.0)]
    pub seconds: f64,
    /// Rounds: every measure and the one it is compared with take turns, a slice each.
    #[arg(long, default_value_t = 5)]
    pub rounds: usize,
    /// Matches in flight for the throughput measurement.
    #[arg(long, default_value_t = 64)]
    pub matches: usize,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize, Default)]
struct Latency {
    p50_us: f64,
    p99_us: f64,
    samples: usize,
}

fn latency(mut v: Vec<Duration>) -> Latency {
    if v.is_empty() {
        return Latency::default();
    }
    v.sort();
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1e6;
    Latency { p50_us: at(0.5), p99_us: at(0.99), samples: v.len() }
}

#[derive(Serialize)]
struct Report {
    rounds: usize,
    in_process_decisions_per_second: Spread,
    remote_decisions_per_second_one_match: Spread,
    remote_decisions_per_second_many_matches: Spread,
    matches_in_flight: usize,
    in_process_over_remote: Spread,
    play_round_trip: Latency,
    play_echo_floor: Latency,
    play_over_echo_p50: Spread,
    unary_act_round_trip: Latency,
    unary_echo_floor: Latency,
    unary_over_echo_p50: Spread,
    /// An Act's own work in process (no wire), and its share of what Act costs past the echo.
    act_work_in_process: Latency,
    act_work_over_act_less_echo: Spread,
    decision_request_bytes: usize,
    seat_state_bytes: usize,
}

/// The echo: answers with messages built once.
#[derive(Clone)]
struct EchoService {
    state: v1::SeatState,
    request: v1::DecisionRequest,
    /// The stream's round trips, as the server times them.
    times: Arc<std::sync::Mutex<Vec<Duration>>>,
}

#[tonic::async_trait]
impl Echo for EchoService {
    async fn unary(&self, _: Request<v1::ActRequest>) -> Result<Response<v1::SeatState>, Status> {
        Ok(Response::new(self.state.clone()))
    }

    type StreamStream = Pin<Box<dyn Stream<Item = Result<v1::DecisionRequest, Status>> + Send + 'static>>;

    /// Play's shape, timed where the server times Play: the server sends a request, the
    /// client answers it at once with a decision, and the server notes the time between.
    async fn stream(&self, req: Request<Streaming<v1::Decision>>) -> Result<Response<Self::StreamStream>, Status> {
        let mut inbound = req.into_inner();
        let (tx, rx) = tokio::sync::mpsc::channel(16);
        let (request, times) = (self.request.clone(), self.times.clone());
        tokio::spawn(async move {
            loop {
                let t = Instant::now();
                if tx.send(Ok(request.clone())).await.is_err() {
                    break;
                }
                match inbound.message().await {
                    Ok(Some(_)) => times.lock().expect("times").push(t.elapsed()),
                    _ => break,
                }
            }
        });
        Ok(Response::new(Box::pin(tokio_stream::wrappers::ReceiverStream::new(rx))))
    }
}

/// Random play in process, through the agents' SeatView, as `arena play` runs it.
fn in_process(seconds: f64) -> Result<f64, String> {
    let entry = find_game("expedition")?;
    let spec = (entry.spec)(Some("dice"), &[], &arena::files::load_file).map_err(|e| e.to_string())?;
    let start = Instant::now();
    let (mut decisions, mut seed) = (0u64, 0u64);
    let mut legal = Vec::new();
    while start.elapsed().as_secs_f64() < seconds {
        seed += 1;
        let mut g = spec.new_game(seed);
        let mut agents: Vec<_> = (0..g.seats())
            .map(|s| bots::agent("random", spec.as_ref(), seed * 8 + s as u64))
            .collect::<Result<_, _>>()?;
        while let Some(seat) = g.to_move() {
            legal.clear();
            g.legal_actions(&mut legal);
            let view = SeatView::local(g.as_ref(), seat, &legal, Budget::default());
            let a = agents[seat.index()].act(&view).map_err(|e| e.to_string())?;
            g.apply(a).map_err(|e| e.to_string())?;
            decisions += 1;
        }
    }
    Ok(decisions as f64 / start.elapsed().as_secs_f64())
}

fn bench_bot() -> arena::client::Identity {
    // The whole request, as an agent that reads the observation has it: the echo's shape.
    arena::client::Identity { name: "bench".into(), observation: Some(true), ..Default::default() }
}

fn play_match() -> v1::CreateMatchRequest {
    v1::CreateMatchRequest {
        game: "expedition".into(),
        preset: "dice".into(),
        seats: (0..2).map(|_| v1::SeatSpec { player: Some(v1::seat_spec::Player::Play("bench".into())) }).collect(),
        ..Default::default()
    }
}

/// Decisions per second through the server with `inflight` matches at all times.
fn remote(hub: &Arc<server::Hub>, inflight: usize, seconds: f64) -> Result<f64, String> {
    let start = Instant::now();
    let first = hub.next_request.load(std::sync::atomic::Ordering::Relaxed);
    let mut seed = 0;
    while start.elapsed().as_secs_f64() < seconds {
        while hub.active() < inflight {
            seed += 1;
            let mut req = play_match();
            req.seed = Some(seed);
            hub.create(req, &server::ClientId::Unknown).map_err(|e| e.message().to_string())?;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let done = hub.next_request.load(std::sync::atomic::Ordering::Relaxed) - first;
    let rate = done as f64 / start.elapsed().as_secs_f64();
    while hub.active() > 0 {
        std::thread::sleep(Duration::from_millis(5));
    }
    Ok(rate)
}

/// p50 of a round's round trips, in µs.
fn p50(v: &[Duration]) -> f64 {
    latency(v.to_vec()).p50_us
}

/// The match the Act measures play: journey solo (one token seat), dealt from `seed`.
fn act_match(seed: u64) -> v1::CreateMatchRequest {
    v1::CreateMatchRequest { game: "journey".into(), preset: "classic".into(), seed: Some(seed), ..Default::default() }
}

/// Unary Act round trips for `seconds`: journey solo, the client choosing the first legal
/// action of each answer; the largest seat state seen kept in `biggest`.
async fn act_round(
    m: &mut v1::matches_client::MatchesClient<tonic::transport::Channel>,
    seconds: f64,
    seed: &mut u64,
    biggest: &mut v1::SeatState,
) -> Result<Vec<Duration>, String> {
    let mut times = Vec::new();
    let start = Instant::now();
    while start.elapsed().as_secs_f64() < seconds {
        *seed += 1;
        let req = act_match(*seed);
        let created = m.create_match(req).await.map_err(|e| e.to_string())?.into_inner();
        let token = created.tokens[0].token.clone();
        let observe = v1::ObserveRequest { match_id: created.match_id.clone(), token: token.clone(), tensors: false };
        let mut state = m.observe(observe).await.map_err(|e| e.to_string())?.into_inner();
        while let Some(first) = state.legal.first() {
            let act = v1::ActRequest {
                match_id: created.match_id.clone(),
                token: token.clone(),
                action: first.id,
                version: Some(state.version),
            };
            let t = Instant::now();
            let answer = m.act(act).await.map_err(|e| e.to_string())?.into_inner();
            times.push(t.elapsed());
            state = answer.state.ok_or("no state")?;
            if prost::Message::encoded_len(&state) > prost::Message::encoded_len(biggest) {
                *biggest = state.clone();
            }
        }
    }
    Ok(times)
}

/// Echo round trips of unary's shape for `seconds`: an Act (small) in, a seat's state out.
async fn echo_unary_round(
    echo: &mut EchoClient<tonic::transport::Channel>,
    seconds: f64,
) -> Result<Vec<Duration>, String> {
    let mut times = Vec::new();
    let start = Instant::now();
    while start.elapsed().as_secs_f64() < seconds {
        let t = Instant::now();
        let act = v1::ActRequest {
            match_id: "0123456789abcdef".into(),
            token: "0123456789abcdef0123456789abcdef".into(),
            action: 6,
            version: Some(1),
        };
        echo.unary(act).await.map_err(|e| e.to_string())?;
        times.push(t.elapsed());
    }
    Ok(times)
}

/// Echo round trips of Play's shape for `seconds`, timed by the echo server as the arena's
/// server times Play: a request (large) to the client, its decision (small) back at once.
async fn echo_play_round(
    echo: &mut EchoClient<tonic::transport::Channel>,
    times: &std::sync::Mutex<Vec<Duration>>,
    seconds: f64,
) -> Result<Vec<Duration>, String> {
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    let mut requests =
        echo.stream(tokio_stream::wrappers::ReceiverStream::new(rx)).await.map_err(|e| e.to_string())?.into_inner();
    times.lock().expect("times").clear();
    let start = Instant::now();
    while start.elapsed().as_secs_f64() < seconds {
        requests.message().await.map_err(|e| e.to_string())?;
        tx.send(v1::Decision { request_id: 1, action: 6 }).await.map_err(|e| e.to_string())?;
    }
    drop(tx);
    Ok(std::mem::take(&mut *times.lock().expect("times")))
}

/// What an Act costs the server beyond the wire, in process: the same calls the service
/// makes (the seat found by its token, the action checked and applied, the seat's new state
/// built), journey solo, for `seconds`.
fn act_work(hub: &Arc<server::Hub>, seconds: f64, seed: &mut u64) -> Result<Vec<Duration>, String> {
    let mut times = Vec::new();
    let start = Instant::now();
    while start.elapsed().as_secs_f64() < seconds {
        *seed += 1;
        let req = act_match(*seed);
        let created = hub.create(req, &server::ClientId::Unknown).map_err(|e| e.message().to_string())?;
        let token = &created.tokens[0].token;
        let (table, seat) = hub.seat_of(&created.match_id, token).map_err(|e| e.message().to_string())?;
        let mut state = table.seat_state(&table.lock(), seat, false).map_err(|e| e.message().to_string())?;
        while let Some(first) = state.legal.first() {
            let t = Instant::now();
            let (table, seat) = hub.seat_of(&created.match_id, token).map_err(|e| e.message().to_string())?;
            state = table.act(seat, first.id, Some(state.version)).map_err(|e| e.message().to_string())?;
            times.push(t.elapsed());
        }
    }
    Ok(times)
}

/// Every measure is taken in `--rounds` slices, each measure and the one it is compared with
/// one after the other in every round (interleaved, so that the machine's drift meets both
/// alike); a ratio is the median of the rounds' ratios, with their range.
pub fn run(args: BenchWireArgs) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| e.to_string())?;
    let rounds = args.rounds.max(1);
    let slice = args.seconds / rounds as f64;
    let config = ServerConfig {
        move_time: None,
        measure_latency: true,
        max_matches: 10_000,
        shares: server::Shares::WHOLE,
        ..ServerConfig::default()
    };
    let running = rt.block_on(server::start("127.0.0.1:0".parse().expect("an address"), config))?;
    let url = running.url();
    let hub = running.hub.clone();
    // The remote random bot, in this process, over loopback.
    let (stop_bot, stopped) = tokio::sync::oneshot::channel();
    let bot_url = url.clone();
    let bot = rt.spawn(async move { arena::client::run_bot(&bot_url, "random", bench_bot(), 1, Some(stopped)).await });
    if rt.block_on(hub.wait_for_session("bench", Duration::from_secs(10))).is_none() {
        return Err("the bench client did not connect".into());
    }

    // Sizes of the real messages, from a mid-game position.
    let entry = find_game("expedition")?;
    let spec = (entry.spec)(Some("dice"), &[], &arena::files::load_file).map_err(|e| e.to_string())?;
    let mut g = spec.new_game(5);
    for _ in 0..20 {
        let mut l = Vec::new();
        g.legal_actions(&mut l);
        g.apply(l[0]).map_err(|e| e.to_string())?;
    }
    let seat = g.to_move().unwrap_or(Seat(0));
    let mut ids = Vec::new();
    g.legal_actions(&mut ids);
    let params_yaml = engine::core::params_to_yaml(&spec.params_yaml()).map_err(|e| e.to_string())?;
    let asking = arena::server::wire::Asking {
        request_id: 1,
        match_id: "0123456789abcdef",
        game: "expedition",
        params_yaml: &params_yaml,
        version: 20,
        tensors: None,
        observation: arena::server::wire::Shown::WithText,
    };
    let view = SeatView::local(g.as_ref(), seat, &ids, Budget::default());
    let request = arena::server::wire::decision_request(&view, asking)?;
    let request_bytes = prost::Message::encoded_len(&request);

    // The Act client, and a first slice of it to find the largest seat state the echo sends.
    let mut m = rt.block_on(async {
        Ok::<_, String>(v1::matches_client::MatchesClient::new(arena::client::connect(&url).await?))
    })?;
    let (mut seed, mut state) = (0u64, v1::SeatState::default());
    rt.block_on(act_round(&mut m, slice.min(0.2), &mut seed, &mut state))?;
    let state_bytes = prost::Message::encoded_len(&state);

    // The echo: the same messages each way, answered with no work.
    let echo_times = Arc::new(std::sync::Mutex::new(Vec::new()));
    let echo_service = EchoService { state, request, times: echo_times.clone() };
    let (stop_echo, echo_stopped) = tokio::sync::oneshot::channel::<()>();
    let (echo_server, mut echo) = rt.block_on(async {
        let incoming = TcpIncoming::bind("127.0.0.1:0".parse().expect("an address"))
            .map_err(|e| e.to_string())?
            .with_nodelay(Some(true));
        let addr = incoming.local_addr().map_err(|e| e.to_string())?;
        let server =
            tokio::spawn(Server::builder().add_service(EchoServer::new(echo_service)).serve_with_incoming_shutdown(
                incoming,
                async {
                    let _ = echo_stopped.await;
                },
            ));
        let channel = arena::client::connect(&format!("http://{addr}")).await?;
        Ok::<_, String>((server, EchoClient::new(channel)))
    })?;

    let latencies = hub.latencies.as_ref().expect("measured");
    let (mut in_process_rates, mut one_rates, mut many_rates, mut remote_ratio) = (vec![], vec![], vec![], vec![]);
    let (mut play_all, mut play_echo_all, mut play_ratio) = (vec![], vec![], vec![]);
    let (mut act_all, mut act_echo_all, mut act_ratio) = (vec![], vec![], vec![]);
    let (mut work_all, mut work_share) = (vec![], vec![]);
    for _ in 0..rounds {
        let ip = in_process(slice)?;
        let many = remote(&hub, args.matches, slice)?;
        in_process_rates.push(ip);
        many_rates.push(many);
        remote_ratio.push(ip / many);
        latencies.lock().expect("latencies").clear();
        one_rates.push(remote(&hub, 1, slice)?);
        let play = std::mem::take(&mut *latencies.lock().expect("latencies"));
        let play_echo = rt.block_on(echo_play_round(&mut echo, &echo_times, slice))?;
        play_ratio.push(p50(&play) / p50(&play_echo));
        let act = rt.block_on(act_round(&mut m, slice, &mut seed, &mut v1::SeatState::default()))?;
        let act_echo = rt.block_on(echo_unary_round(&mut echo, slice))?;
        act_ratio.push(p50(&act) / p50(&act_echo));
        let work = act_work(&hub, slice, &mut seed)?;
        work_share.push(p50(&work) / (p50(&act) - p50(&act_echo)));
        work_all.extend(work);
        play_all.extend(play);
        play_echo_all.extend(play_echo);
        act_all.extend(act);
        act_echo_all.extend(act_echo);
    }
    let _ = stop_bot.send(());
    let _ = rt.block_on(bot);
    let _ = stop_echo.send(());
    let _ = rt.block_on(echo_server);
    rt.block_on(running.stop())?;

    let report = Report {
        rounds,
        in_process_decisions_per_second: Spread::of(in_process_rates),
        remote_decisions_per_second_one_match: Spread::of(one_rates),
        remote_decisions_per_second_many_matches: Spread::of(many_rates),
        matches_in_flight: args.matches,
        in_process_over_remote: Spread::of(remote_ratio),
        play_round_trip: latency(play_all),
        play_echo_floor: latency(play_echo_all),
        play_over_echo_p50: Spread::of(play_ratio),
        unary_act_round_trip: latency(act_all),
        unary_echo_floor: latency(act_echo_all),
        unary_over_echo_p50: Spread::of(act_ratio),
        act_work_in_process: latency(work_all),
        act_work_over_act_less_echo: Spread::of(work_share),
        decision_request_bytes: request_bytes,
        seat_state_bytes: state_bytes,
    };
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?);
    } else {
        let r = Spread::ratio_text;
        let k = |s: &Spread| format!("{:.0} ({:.0}–{:.0})", s.median, s.min, s.max);
        outln!("random agent, expedition 2 players (dice); medians of {rounds} interleaved rounds (range):");
        outln!("  in process:                   {} decisions/s", k(&report.in_process_decisions_per_second));
        outln!("  remote, one match at a time:  {} decisions/s", k(&report.remote_decisions_per_second_one_match));
        outln!(
            "  remote, {} matches in flight: {} decisions/s (in process is {} as fast)",
            report.matches_in_flight,
            k(&report.remote_decisions_per_second_many_matches),
            r(&report.in_process_over_remote)
        );
        let l = |x: &Latency| format!("p50 {:>6.1} µs, p99 {:>6.1} µs ({} samples)", x.p50_us, x.p99_us, x.samples);
        outln!("round trips on loopback (p50 ratios per round):");
        outln!("  Play decision ({} B request):  {}", report.decision_request_bytes, l(&report.play_round_trip));
        outln!("  echo of the same shape:         {}  → {}", l(&report.play_echo_floor), r(&report.play_over_echo_p50));
        outln!("  unary Act ({} B seat state):    {}", report.seat_state_bytes, l(&report.unary_act_round_trip));
        outln!(
            "  echo of the same shape:         {}  → {}",
            l(&report.unary_echo_floor),
            r(&report.unary_over_echo_p50)
        );
        outln!(
            "  Act's own work, in process:     {}  → {} of Act's cost past the echo",
            l(&report.act_work_in_process),
            r(&report.act_work_over_act_less_echo)
        );
    }
    Ok(())
}

#[derive(Args)]
pub struct BenchMemoryArgs {
    /// Matches to play in all.
    #[arg(long, default_value_t = 10_000)]
    pub matches: usize,
    /// Matches in play at once.
    #[arg(long, default_value_t = 64)]
    pub inflight: usize,
    /// Finished matches kept (the server's --keep-finished).
    #[arg(long, default_value_t = ServerConfig::default().keep_finished)]
    pub keep_finished: usize,
    /// Seconds a finished match is kept (the server's --keep-finished-secs).
    #[arg(long, default_value_t = ServerConfig::default().keep_finished_for.as_secs())]
    pub keep_finished_secs: u64,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// This process's resident memory, in MiB (Linux).
fn rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: f64 = status.lines().find(|l| l.starts_with("VmRSS:"))?.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

#[derive(Serialize)]
struct MemorySample {
    matches: usize,
    rss_mib: f64,
    held: usize,
}

/// `arena bench-memory`: the server's resident memory while it plays many matches (two
/// server-run random agents each, expedition and journey in turn, created through gRPC), with
/// finished matches evicted by the retention limits: it should level off once the limit is
/// reached, not grow with the matches played.
pub fn memory(args: BenchMemoryArgs) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| e.to_string())?;
    let config = ServerConfig {
        max_matches: args.inflight.max(1) * 2,
        keep_finished: args.keep_finished,
        keep_finished_for: Duration::from_secs(args.keep_finished_secs),
        shares: server::Shares::WHOLE,
        ..ServerConfig::default()
    };
    let samples = rt.block_on(async {
        let running = server::start("127.0.0.1:0".parse().expect("an address"), config).await?;
        let mut client = arena::client::matches(arena::client::connect(&running.url()).await?);
        let bot = || v1::SeatSpec { player: Some(v1::seat_spec::Player::Bot("random".into())) };
        let mut samples = vec![MemorySample { matches: 0, rss_mib: rss_mib().unwrap_or(0.0), held: 0 }];
        let step = (args.matches / 10).max(1);
        let mut created = 0;
        while created < args.matches {
            while running.hub.active() < args.inflight && created < args.matches {
                let req = if created % 2 == 0 {
                    v1::CreateMatchRequest {
                        game: "expedition".into(),
                        seats: vec![bot(), bot()],
                        ..Default::default()
                    }
                } else {
                    let mut r = v1::CreateMatchRequest {
                        game: "journey".into(),
                        seats: vec![bot(), bot()],
                        ..Default::default()
                    };
                    r.params.insert("travellers".into(), "2".into());
                    r
                };
                client.create_match(req).await.map_err(|e| e.message().to_string())?;
                created += 1;
                if created % step == 0 {
                    samples.push(MemorySample {
                        matches: created,
                        rss_mib: rss_mib().unwrap_or(0.0),
                        held: running.hub.held(),
                    });
                }
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        while running.hub.active() > 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        running.stop().await?;
        Ok::<_, String>(samples)
    })?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&samples).map_err(|e| e.to_string())?);
        return Ok(());
    }
    outln!(
        "server memory over {} matches ({} in play at once; finished ones kept {} s, at most {}):",
        args.matches,
        args.inflight,
        args.keep_finished_secs,
        args.keep_finished
    );
    outln!("{:>9}  {:>9}  {:>13}", "matches", "RSS MiB", "held matches");
    for s in &samples {
        outln!("{:>9}  {:>9.1}  {:>13}", s.matches, s.rss_mib, s.held);
    }
    Ok(())
}
