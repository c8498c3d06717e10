//! `arena bench-web`: a move's delay from the referee to a watching page, on this machine.
//!
//! A server and its web face run in this process. Matches of two token seats (expedition
//! no-dice) are played move after move through the face, as the play page plays them (`POST
//! /api/matches/ID/act` on one kept-alive connection), while `--watchers` spectators follow
//! each match over the face's event stream, as the match page does (`GET
//! /api/matches/ID/events`, server-sent events over HTTP/1.1). For every move and watcher: the
//! time from the start of the POST to the moment the watcher has read that move's event — the
//! referee's ruling, the event, its stream and the POST's own trip, so it bounds the referee →
//! page delay from above. Median, p99 and max over every (move, watcher).
//!
//! With `--table` the watchers follow as a spectator's page does (`?table=true`: the table as
//! anyone watching sees it, at most every 100 ms): also the time from a move's POST to a table
//! that shows it, how many tables each watcher read, and what one table costs the server
//! (`Table::make_public_table`: the game's public observation, typed and as text; a match's
//! watchers share one, made at most every 100 ms), timed at each match's last position.

use arena::server::{self, ClientId, ServerConfig};
use clap::Args;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use proto::v1;
use rand::{RngExt, SeedableRng};
use std::collections::HashMap;
use std::time::{Duration, Instant};

#[derive(Args)]
pub struct BenchWebArgs {
    /// Moves measured (over as many matches as they take).
    #[arg(long, default_value_t = 2000)]
    pub moves: usize,
    /// Pages watching each match (all from this one address, on a connection each).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=31))]
    pub watchers: u16,
    /// The watchers ask for the table too, as a spectator's page does.
    #[arg(long)]
    pub table: bool,
}

pub fn run(args: BenchWebArgs) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| e.to_string())?;
    rt.block_on(measure(&args))
}

type Sender = hyper::client::conn::http1::SendRequest<Full<Bytes>>;

/// An HTTP/1.1 connection to the face.
async fn connect(addr: std::net::SocketAddr) -> Result<Sender, String> {
    let stream = tokio::net::TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
    let _ = stream.set_nodelay(true);
    let (sender, conn) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream)).await.map_err(|e| e.to_string())?;
    tokio::spawn(conn);
    Ok(sender)
}

/// What a watcher read: when it read each move's event, and each table's (by version).
#[derive(Default)]
struct Seen {
    moves: HashMap<u64, Instant>,
    tables: Vec<(u64, Instant)>,
}

/// Follow a match's events as a page does (with its tables, if `table`), until the match ends.
async fn watch(addr: std::net::SocketAddr, id: String, table: bool) -> Result<Seen, String> {
    let mut sender = connect(addr).await?;
    let request = http::Request::get(format!("/api/matches/{id}/events{}", if table { "?table=true" } else { "" }))
        .header("host", addr.to_string())
        .body(Full::new(Bytes::new()))
        .map_err(|e| e.to_string())?;
    sender.ready().await.map_err(|e| format!("the event stream: {e}"))?;
    let response = sender.send_request(request).await.map_err(|e| format!("the event stream: {e}"))?;
    if !response.status().is_success() {
        return Err(format!("the event stream was refused: {}", response.status()));
    }
    let mut body = response.into_body();
    let mut seen = Seen::default();
    let mut pending = String::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| e.to_string())?;
        let Some(data) = frame.data_ref() else { continue };
        let now = Instant::now();
        pending.push_str(&String::from_utf8_lossy(data));
        while let Some(end) = pending.find("\n\n") {
            let block: String = pending.drain(..end + 2).collect();
            for line in block.lines() {
                let Some(json) = line.strip_prefix("data: ") else { continue };
                let event: serde_json::Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
                let version = event["version"].as_u64().unwrap_or_default();
                match event["kind"].as_str() {
                    Some("moved") => {
                        seen.moves.insert(version, now);
                    }
                    Some("table") => seen.tables.push((version, now)),
                    Some("ended") => return Ok(seen),
                    _ => {}
                }
            }
        }
    }
    Ok(seen)
}

async fn measure(args: &BenchWebArgs) -> Result<(), String> {
    let config = ServerConfig { move_time: None, ..ServerConfig::default() };
    let running = server::start("127.0.0.1:0".parse().expect("an address"), config).await?;
    // The bench's own programs alone reach its face: no share, no rate.
    let web = arena::web::start(
        "127.0.0.1:0".parse().expect("an address"),
        arena::web::of_hub(running.hub.clone()),
        arena::web::Config::whole(),
    )
    .await?;
    let hub = running.hub.clone();
    let mut rng = engine::core::SmallRng::seed_from_u64(1);
    let mut actor = connect(web.addr).await?;
    let mut delays: Vec<Duration> = Vec::new();
    let mut table_delays: Vec<Duration> = Vec::new();
    let mut tables_read = 0;
    let mut table_costs: Vec<f64> = Vec::new();
    let mut moves = 0;
    let mut matches = 0;
    while moves < args.moves {
        let request = v1::CreateMatchRequest {
            game: "expedition".into(),
            preset: "no-dice".into(),
            params: [("players".to_string(), "2".to_string())].into(),
            seed: Some(matches),
            seats: (0..2).map(|_| v1::SeatSpec { player: Some(v1::seat_spec::Player::Token(true)) }).collect(),
            ..Default::default()
        };
        let made = hub.create(request, &ClientId::Host).map_err(|e| e.message().to_string())?;
        matches += 1;
        let id = made.match_id.clone();
        let watchers: Vec<_> =
            (0..usize::from(args.watchers)).map(|_| tokio::spawn(watch(web.addr, id.clone(), args.table))).collect();
        // Every watcher is following before the first move (a stream opened late would be sent
        // the earlier events at once, and time them as no page would see them).
        tokio::time::sleep(Duration::from_millis(200)).await;
        let table = hub.table(&id).map_err(|e| e.message().to_string())?;
        let mut asked: HashMap<u64, Instant> = HashMap::new();
        loop {
            let (seat, version, action) = {
                let s = table.lock();
                if s.ended.is_some() {
                    break;
                }
                let Some(seat) = s.game.to_move() else { break };
                let mut legal = Vec::new();
                s.game.legal_actions(&mut legal);
                (seat.index(), s.version, legal[rng.random_range(0..legal.len())])
            };
            let token = &made.tokens.iter().find(|t| t.seat as usize == seat).ok_or("a seat without a token")?.token;
            let body = serde_json::json!({ "action": action, "version": version }).to_string();
            let request = http::Request::post(format!("/api/matches/{id}/act"))
                .header("host", web.addr.to_string())
                .header("content-type", "application/json")
                .header("authorization", format!("Bearer {token}"))
                .body(Full::new(Bytes::from(body)))
                .map_err(|e| e.to_string())?;
            actor.ready().await.map_err(|e| format!("a move: {e}"))?;
            let started = Instant::now();
            let response = actor.send_request(request).await.map_err(|e| format!("a move: {e}"))?;
            let status = response.status();
            let answer = response.into_body().collect().await.map_err(|e| e.to_string())?.to_bytes();
            if !status.is_success() {
                return Err(format!("a move was refused: {status} {}", String::from_utf8_lossy(&answer)));
            }
            asked.insert(version + 1, started);
        }
        if args.table {
            // What one table costs the server, at this match's last position.
            let s = table.lock();
            const CALLS: u32 = 200;
            let started = Instant::now();
            for _ in 0..CALLS {
                std::hint::black_box(table.make_public_table(&s).map_err(|e| e.message().to_string())?);
            }
            table_costs.push(started.elapsed().as_secs_f64() * 1e6 / f64::from(CALLS));
        }
        for w in watchers {
            let seen = w.await.map_err(|e| e.to_string())??;
            tables_read += seen.tables.len();
            for (version, at) in &asked {
                let read = seen.moves.get(version).ok_or_else(|| format!("a watcher never read move {version}"))?;
                delays.push(read.saturating_duration_since(*at));
                if args.table {
                    // The first table read that shows the move (of its version or a later one).
                    let shown = seen.tables.iter().find(|(v, _)| v >= version);
                    let (_, read) = shown.ok_or_else(|| format!("no table a watcher read showed move {version}"))?;
                    table_delays.push(read.saturating_duration_since(*at));
                }
            }
        }
        moves += asked.len();
    }
    delays.sort_unstable();
    table_delays.sort_unstable();
    let quantile = |d: &[Duration], q: f64| d[((d.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1e3;
    let at = |q: f64| quantile(&delays, q);
    outln!(
        "a move's delay, from its POST to a watching page's read of its event: median {:.2} ms, p99 {:.2} ms, max {:.2} \
         ms ({} moves in {} matches, {} watchers each: {} deliveries)",
        at(0.5),
        at(0.99),
        at(1.0),
        moves,
        matches,
        args.watchers,
        delays.len()
    );
    if args.table {
        table_costs.sort_by(f64::total_cmp);
        let tq = |q: f64| quantile(&table_delays, q);
        outln!(
            "a move's delay to a watcher's table that shows it: median {:.2} ms, p99 {:.2} ms, max {:.2} ms; {:.1} \
             tables read per watcher and match of {:.1} moves; a table costs the server {:.1} µs (median of {} \
             matches' last positions, {:.1}-{:.1})",
            tq(0.5),
            tq(0.99),
            tq(1.0),
            tables_read as f64 / (matches as f64 * f64::from(args.watchers)),
            moves as f64 / matches as f64,
            table_costs[table_costs.len() / 2],
            table_costs.len(),
            table_costs[0],
            table_costs[table_costs.len() - 1]
        );
    }
    running.stop().await?;
    web.stopped().await;
    Ok(())
}
