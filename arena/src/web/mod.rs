//! The web face (`--http ADDR` on `arena serve` and `arena ladder`): pages a person opens in a
//! browser to follow the standings and the matches in play, to watch any match live, and to
//! sit at a table against built-in agents or connected clients.
//!
//! It is a gateway, not a second server: every request is turned into the same gRPC call a
//! program would make ([`Services`], the ladder's service), made in process as a call from the
//! browser's client — the holder of the client key it shows (the `x-arena-key` header, or the
//! face's cookie, set on `/key`), passed on as the call's `x-arena-key`, else its address — so
//! every bound a gRPC client meets — its shares of the matches, of the spectator streams and of
//! the calls being read, its call rate, the per-move and idle limits, the referee — is the
//! browser's too. A seat's token travels in the `Authorization` header, never in an address
//! (addresses land in logs and histories). The pages, their scripts and their style are
//! embedded in the binary ([`assets`]); every response carries a content security policy that
//! allows scripts and styles from this origin alone, and no inline ones.
//!
//! - [`gate`]: what every request passes first: the names the face answers to, the origin of
//!   a page's request, the client key, the client's rate and its share of the connections;
//! - [`api`]: the JSON and event-stream endpoints over the services;
//! - [`json`]: what the pages read of the contract's messages;
//! - [`assets`]: the embedded pages.

pub mod api;
pub mod assets;
pub mod gate;
pub mod json;
pub mod rules;

use crate::ladder::service::LadderService;
use crate::server::service::Services;
use crate::server::shares::{Held, Pool};
use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What every response carries: scripts, styles and connections from this origin only, no
/// inline script or style, no frames, no referrer, no guessing of types.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
     connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// A request's headers must arrive within this (a client that trickles them is dropped).
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections let in past their address's share, to show a client key in their first request
/// (a keyed client has a share of its own), and one address's share of them.
const WAITING: usize = 64;
const WAITING_PER_CLIENT: usize = 4;

/// How the face bounds its clients (the `--http-*` flags).
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// The names it answers to (a request's `Host`) besides `localhost` and IP addresses,
    /// lowercase; `*`: any name.
    pub hosts: Vec<String>,
    /// Browser connections at once (the last eighth kept for new clients)…
    pub connections: usize,
    /// …and one client's share of them.
    pub connections_per_client: usize,
    /// Requests one client may make a second (five seconds' worth at once after a pause).
    pub requests_per_second: f64,
    /// What a `/game` page (a whole game, every seat's view at every position: some hundreds of
    /// kilobytes built) counts as, in requests.
    pub game_page_cost: f64,
}

impl Default for Config {
    /// 512 connections, 16 a client (a browser opens at most 6 to one host), 50 requests a
    /// second, a `/game` page counting as 50 (one a second, five at once: a 180 kB page costs
    /// 1.5-2.4 ms, a request of the API 0.10-0.15 ms).
    fn default() -> Config {
        Config {
            hosts: Vec::new(),
            connections: 512,
            connections_per_client: 16,
            requests_per_second: 50.0,
            game_page_cost: 50.0,
        }
    }
}

impl Config {
    /// Every pool whole to any client, and no rate: for a face only its operator's own programs
    /// reach (`arena bench-web`).
    pub fn whole() -> Config {
        Config { connections_per_client: usize::MAX, requests_per_second: f64::INFINITY, ..Config::default() }
    }

    /// The names of `--http-host`, checked: host names without a port, or `*`.
    pub fn with_hosts(mut self, names: &[String]) -> Result<Config, String> {
        for name in names {
            let n = name.trim().trim_end_matches('.').to_ascii_lowercase();
            let label_ok =
                |l: &str| !l.is_empty() && l.len() <= 63 && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
            if n != "*" && (n.len() > 253 || !n.split('.').all(label_ok)) {
                return Err(format!(
                    "--http-host `{}`: a host name (letters, digits, `-` and dots, no port), or `*` for any",
                    crate::files::shown(name)
                ));
            }
            self.hosts.push(n);
        }
        Ok(self)
    }

    /// Refused if a bound holds nothing.
    pub fn check(&self) -> Result<(), String> {
        if self.connections == 0 || self.connections_per_client == 0 {
            return Err("--http-connections and --http-connections-per-client: at least one".into());
        }
        if self.requests_per_second.is_nan() || self.requests_per_second <= 0.0 {
            return Err("--http-requests-per-client-per-second: more than 0".into());
        }
        if self.game_page_cost.is_nan() || self.game_page_cost < 1.0 {
            return Err("--http-game-page-cost: at least 1 (a request)".into());
        }
        Ok(())
    }
}

/// A browser's connection: where it comes from, and its place among the face's connections —
/// its address's when it was let in, then the client's each request shows (a key's holder has
/// a share of its own). A connection let in past its address's share holds none until a
/// request shows a client with room.
pub struct Connection {
    pub peer: SocketAddr,
    place: Mutex<Option<Held>>,
    /// Its place among the connections let in to show a key, while it has no other.
    waiting: Mutex<Option<Held>>,
}

impl Connection {
    /// A place for `client` (this connection's, moved to it, or a new one), or why not.
    pub fn place(&self, pool: &Arc<Pool>, client: &crate::server::ClientId) -> Result<(), tonic::Status> {
        let mut place = self.place.lock().unwrap_or_else(|p| p.into_inner());
        match place.as_mut() {
            Some(held) => held.move_to(client),
            None => {
                *place = Some(pool.take(client)?);
                self.waiting.lock().unwrap_or_else(|p| p.into_inner()).take();
                Ok(())
            }
        }
    }
}

/// A refusal: its status, and what was wrong in words (`{"error": MESSAGE}`).
pub fn error(code: StatusCode, message: &str) -> Response {
    (code, Json(serde_json::json!({ "error": message }))).into_response()
}

/// A connection past every share, refused before a request is read: a 429 naming the share is
/// written if the socket takes it at once, and the connection closed.
fn refuse_at_once(stream: tokio::net::TcpStream, message: &str) {
    let body = serde_json::json!({ "error": message }).to_string();
    let response = format!(
        "HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
         connection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.try_write(response.as_bytes());
}

/// What the face shows: the server's matches, and standings when there are some.
#[derive(Clone)]
pub struct Face {
    pub services: Services,
    pub standings: Option<Standings>,
}

/// Whose standings the front page follows.
#[derive(Clone)]
pub enum Standings {
    /// A ladder's (its Ladder service: the standings, and its stored games to step through).
    Ladder(LadderService),
    /// A tournament's, as it plays ([`crate::tournament::live`]).
    Tournament(crate::tournament::live::Feed),
}

impl Face {
    /// The ladder this face shows, if it shows one.
    pub fn ladder(&self) -> Option<&LadderService> {
        match &self.standings {
            Some(Standings::Ladder(l)) => Some(l),
            _ => None,
        }
    }
}

/// The web face, serving until the hub stops.
pub struct Web {
    pub addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl Web {
    /// `http://ADDR/`, for people.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// Wait for it to end (it ends when the hub stops).
    pub async fn stopped(self) {
        let _ = self.task.await;
    }
}

/// Bind `addr` and serve the face on the current runtime until the hub stops.
pub async fn start(addr: SocketAddr, face: Face, config: Config) -> Result<Web, String> {
    config.check()?;
    let listener =
        tokio::net::TcpListener::bind(addr).await.map_err(|e| format!("--http: cannot listen on {addr}: {e}"))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let hub = face.services.hub.clone();
    let connections = Pool::with_reserve(
        "browser connections",
        config.connections,
        config.connections_per_client,
        config.connections / 8,
    );
    let waiting = Pool::new("connections let in past their address's share", WAITING, WAITING_PER_CLIENT);
    let router = api::router(face, gate::Gate::new(hub.clone(), &config, connections.clone()));
    let task = tokio::spawn(async move {
        let stopped = hub.stopped();
        tokio::pin!(stopped);
        loop {
            let (stream, peer) = tokio::select! {
                _ = &mut stopped => break,
                accepted = listener.accept() => match accepted {
                    Ok(a) => a,
                    Err(e) => {
                        tracing::warn!("web face: accept: {e}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                },
            };
            // A connection takes a place of its address's share. Past it, it may still show a
            // client key in its first request (a few at a time); past that, it is refused at once.
            let address = hub.clients.of_addr(Some(peer));
            let connection = match connections.take(&address) {
                Ok(place) => Connection { peer, place: Mutex::new(Some(place)), waiting: Mutex::new(None) },
                Err(full) => match waiting.take(&address) {
                    Ok(w) => Connection { peer, place: Mutex::new(None), waiting: Mutex::new(Some(w)) },
                    Err(_) => {
                        refuse_at_once(stream, full.message());
                        continue;
                    }
                },
            };
            let connection = Arc::new(connection);
            let _ = stream.set_nodelay(true);
            let service = hyper_util::service::TowerToHyperService::new(router.clone().layer(
                axum::middleware::from_fn(move |mut req: axum::extract::Request, next: axum::middleware::Next| {
                    req.extensions_mut().insert(connection.clone());
                    next.run(req)
                }),
            ));
            let stop = hub.stopped();
            tokio::spawn(async move {
                let conn = hyper::server::conn::http1::Builder::new()
                    .timer(hyper_util::rt::TokioTimer::new())
                    .header_read_timeout(HEADER_TIMEOUT)
                    .max_buf_size(64 * 1024)
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service);
                tokio::pin!(conn);
                tokio::select! {
                    ended = conn.as_mut() => {
                        if let Err(e) = ended {
                            tracing::debug!(%peer, "web face: a connection ended: {e}");
                        }
                    }
                    _ = stop => {
                        conn.as_mut().graceful_shutdown();
                        let _ = tokio::time::timeout(Duration::from_secs(5), conn).await;
                    }
                }
            });
        }
    });
    tracing::info!(%addr, "web face at http://{addr}/");
    Ok(Web { addr, task })
}

/// The face of a server, without a ladder.
pub fn of_hub(hub: Arc<crate::server::Hub>) -> Face {
    Face { services: Services { hub }, standings: None }
}
