//! `arena bench-wire`: what the wire costs. In one run, on loopback:
//!
//! - decisions per second of a random agent in process, and of the same agent as a remote
//!   client through the server (one match at a time, and many in flight), and their ratio;
//! - the decision round trip (p50, p99) through the Play stream and through unary Act, each
//!   beside a bare tonic echo of the same shape (the same messages each way, answered with no
//!   work): the floor this machine allows.

use arena::server::{self, ServerConfig};
use bots::{Budget, SeatView};
use clap::Args;
use engine::core::Seat;
use engine::find_game;
use proto::bench::echo_client::EchoClient;
use proto::bench::echo_server::{Echo, EchoServer};
use proto::v1;
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
    /// Seconds per measurement.
    #[arg(long, default_value_t = 2.0)]
    pub seconds: f64,
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
    in_process_decisions_per_second: f64,
    remote_decisions_per_second_one_match: f64,
    remote_decisions_per_second_many_matches: f64,
    matches_in_flight: usize,
    remote_over_in_process: f64,
    play_round_trip: Latency,
    play_echo_floor: Latency,
    play_over_echo_p50: f64,
    unary_act_round_trip: Latency,
    unary_echo_floor: Latency,
    unary_over_echo_p50: f64,
    decision_request_bytes: usize,
    seat_state_bytes: usize,
}

/// The echo: answers with messages built once.
#[derive(Clone)]
struct EchoService {
    state: v1::SeatState,
    request: v1::DecisionRequest,
}

#[tonic::async_trait]
impl Echo for EchoService {
    async fn unary(&self, _: Request<v1::ActRequest>) -> Result<Response<v1::SeatState>, Status> {
        Ok(Response::new(self.state.clone()))
    }

    type StreamStream = Pin<Box<dyn Stream<Item = Result<v1::DecisionRequest, Status>> + Send + 'static>>;

    async fn stream(&self, req: Request<Streaming<v1::Decision>>) -> Result<Response<Self::StreamStream>, Status> {
        let mut inbound = req.into_inner();
        let (tx, rx) = tokio::sync::mpsc::channel(16);
        let reply = self.request.clone();
        tokio::spawn(async move {
            while let Ok(Some(_)) = inbound.message().await {
                if tx.send(Ok(reply.clone())).await.is_err() {
                    break;
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

pub fn run(args: BenchWireArgs) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| e.to_string())?;
    let in_process = in_process(args.seconds)?;
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
    let one = remote(&hub, 1, args.seconds)?;
    let play_latencies = std::mem::take(&mut *hub.latencies.as_ref().expect("measured").lock().expect("latencies"));
    let many = remote(&hub, args.matches, args.seconds)?;
    let _ = stop_bot.send(());
    let _ = rt.block_on(bot);

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

    // Unary Act round trips: journey solo, the client choosing from each answer's legal list.
    let (act_latencies, state) = rt.block_on(async {
        let channel = arena::client::connect(&url).await?;
        let mut m = v1::matches_client::MatchesClient::new(channel);
        let (mut times, mut biggest) = (Vec::new(), v1::SeatState::default());
        let start = Instant::now();
        let mut seed = 0;
        while start.elapsed().as_secs_f64() < args.seconds {
            seed += 1;
            let req = v1::CreateMatchRequest {
                game: "journey".into(),
                preset: "classic".into(),
                seed: Some(seed),
                ..Default::default()
            };
            let created = m.create_match(req).await.map_err(|e| e.to_string())?.into_inner();
            let token = created.tokens[0].token.clone();
            let mut state = m
                .observe(v1::ObserveRequest {
                    match_id: created.match_id.clone(),
                    token: token.clone(),
                    tensors: false,
                })
                .await
                .map_err(|e| e.to_string())?
                .into_inner();
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
                if prost::Message::encoded_len(&state) > prost::Message::encoded_len(&biggest) {
                    biggest = state.clone();
                }
            }
        }
        Ok::<_, String>((times, biggest))
    })?;
    rt.block_on(running.stop())?;

    // The echo floor: the same messages each way (the largest seat state seen, a mid-game
    // decision request), answered with no work.
    let state_bytes = prost::Message::encoded_len(&state);
    let echo_service = EchoService { state, request };
    let (play_echo, unary_echo) = rt.block_on(async {
        let incoming = TcpIncoming::bind("127.0.0.1:0".parse().expect("an address"))
            .map_err(|e| e.to_string())?
            .with_nodelay(Some(true));
        let addr = incoming.local_addr().map_err(|e| e.to_string())?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server =
            tokio::spawn(Server::builder().add_service(EchoServer::new(echo_service)).serve_with_incoming_shutdown(
                incoming,
                async {
                    let _ = stopped.await;
                },
            ));
        let channel = arena::client::connect(&format!("http://{addr}")).await?;
        let mut echo = EchoClient::new(channel);
        // Play's shape: a decision (small) one way, a request (large) the other.
        let (tx, rx) = tokio::sync::mpsc::channel(4);
        let mut replies =
            echo.stream(tokio_stream::wrappers::ReceiverStream::new(rx)).await.map_err(|e| e.to_string())?.into_inner();
        let mut play = Vec::new();
        let start = Instant::now();
        while start.elapsed().as_secs_f64() < args.seconds {
            let t = Instant::now();
            tx.send(v1::Decision { request_id: 1, action: 6 }).await.map_err(|e| e.to_string())?;
            replies.message().await.map_err(|e| e.to_string())?;
            play.push(t.elapsed());
        }
        drop(tx);
        // Unary's shape: an Act (small) in, a seat's state (large) out.
        let mut unary = Vec::new();
        let start = Instant::now();
        while start.elapsed().as_secs_f64() < args.seconds {
            let t = Instant::now();
            let act = v1::ActRequest {
                match_id: "0123456789abcdef".into(),
                token: "0123456789abcdef0123456789abcdef".into(),
                action: 6,
                version: Some(1),
            };
            echo.unary(act).await.map_err(|e| e.to_string())?;
            unary.push(t.elapsed());
        }
        let _ = stop.send(());
        let _ = server.await;
        Ok::<_, String>((play, unary))
    })?;

    let (play, play_floor) = (latency(play_latencies), latency(play_echo));
    let (unary, unary_floor) = (latency(act_latencies), latency(unary_echo));
    let report = Report {
        in_process_decisions_per_second: in_process,
        remote_decisions_per_second_one_match: one,
        remote_decisions_per_second_many_matches: many,
        matches_in_flight: args.matches,
        remote_over_in_process: many / in_process,
        play_over_echo_p50: play.p50_us / play_floor.p50_us,
        unary_over_echo_p50: unary.p50_us / unary_floor.p50_us,
        play_round_trip: play,
        play_echo_floor: play_floor,
        unary_act_round_trip: unary,
        unary_echo_floor: unary_floor,
        decision_request_bytes: request_bytes,
        seat_state_bytes: state_bytes,
    };
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?);
    } else {
        outln!("random agent, expedition 2 players (dice):");
        outln!("  in process:                 {:>9.0} decisions/s", report.in_process_decisions_per_second);
        outln!("  remote, one match at a time: {:>8.0} decisions/s", report.remote_decisions_per_second_one_match);
        outln!(
            "  remote, {} matches in flight: {:>7.0} decisions/s ({:.2}× in process)",
            report.matches_in_flight,
            report.remote_decisions_per_second_many_matches,
            report.remote_over_in_process
        );
        let l = |x: &Latency| format!("p50 {:>6.1} µs, p99 {:>6.1} µs ({} samples)", x.p50_us, x.p99_us, x.samples);
        outln!("round trips on loopback:");
        outln!("  Play decision ({} B request):  {}", report.decision_request_bytes, l(&report.play_round_trip));
        outln!("  echo of the same shape:         {}  → {:.2}×", l(&report.play_echo_floor), report.play_over_echo_p50);
        outln!("  unary Act ({} B seat state):    {}", report.seat_state_bytes, l(&report.unary_act_round_trip));
        outln!(
            "  echo of the same shape:         {}  → {:.2}×",
            l(&report.unary_echo_floor),
            report.unary_over_echo_p50
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
