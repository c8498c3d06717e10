//! The web face (`--http ADDR` on `arena serve` and `arena ladder`): pages a person opens in a
//! browser to follow the standings and the matches in play, to watch any match live, and to
//! sit at a table against built-in agents or connected clients.
//!
//! It is a gateway, not a second server: every request is turned into the same gRPC call a
//! program would make ([`Services`], the ladder's service), made in process as a call from the
//! browser's address, so every bound a gRPC client meets — its shares of the matches, of the
//! spectator streams and of the calls being read, its call rate, the per-move and idle limits,
//! the referee — is the browser's too. A seat's token travels in the `Authorization` header,
//! never in an address (addresses land in logs and histories). The pages, their scripts and
//! their style are embedded in the binary ([`assets`]); every response carries a content
//! security policy that allows scripts and styles from this origin alone, and no inline ones.
//!
//! - [`api`]: the JSON and event-stream endpoints over the services;
//! - [`json`]: what the pages read of the contract's messages;
//! - [`assets`]: the embedded pages.

pub mod api;
pub mod assets;
pub mod json;

use crate::ladder::service::LadderService;
use crate::server::service::Services;
use crate::server::shares::Pool;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// What every response carries: scripts, styles and connections from this origin only, no
/// inline script or style, no frames, no referrer, no guessing of types.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
     connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// Browser connections at once, and one address's share of them.
const MAX_CONNECTIONS: usize = 512;
const CONNECTIONS_PER_CLIENT: usize = 32;
/// A request's headers must arrive within this (a client that trickles them is dropped).
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

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
pub async fn start(addr: SocketAddr, face: Face) -> Result<Web, String> {
    let listener =
        tokio::net::TcpListener::bind(addr).await.map_err(|e| format!("--http: cannot listen on {addr}: {e}"))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let hub = face.services.hub.clone();
    let router = api::router(face);
    let connections = Pool::new("browser connections", MAX_CONNECTIONS, CONNECTIONS_PER_CLIENT);
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
            // Past its share, an address's connection is closed at once.
            let Ok(place) = connections.take(&hub.clients.of_addr(Some(peer))) else { continue };
            let _ = stream.set_nodelay(true);
            let service = hyper_util::service::TowerToHyperService::new(router.clone().layer(
                axum::middleware::from_fn(move |mut req: axum::extract::Request, next: axum::middleware::Next| {
                    req.extensions_mut().insert(axum::extract::ConnectInfo(peer));
                    next.run(req)
                }),
            ));
            let stop = hub.stopped();
            tokio::spawn(async move {
                let _place = place;
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
