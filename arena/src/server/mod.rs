//! `arena serve`: the gRPC game server. tonic on tokio, with the standard health and reflection
//! services (reflection v1 and v1alpha, so generic gRPC tools of either age can call it), TCP
//! nodelay and HTTP/2 keepalive on every connection, a bound on every resource a stranger could
//! take, and a graceful stop that writes what it holds.
//!
//! - [`hub`]: matches, tokens, Play clients and their names, limits, eviction;
//! - [`table`]: one match and the task that drives it (the per-move and idle limits, the policy);
//! - [`session`]: a Play client, and the agent that stands for it in tournaments;
//! - [`content`]: the only files a request may reach (the operator's content sets, by name);
//! - [`shares`]: who a client is, and each one's share of every pool;
//! - [`names`]: what a Play name may be, and which names are one;
//! - [`service`]: the gRPC services, [`admission`], the door a call passes before it is read,
//!   and [`incoming`], the door a connection passes (its address's share);
//! - [`wire`]: a seat's view as it crosses the wire;
//! - [`thinkers`]: the threads its agents think on, below the request path's priority.

pub mod admission;
pub mod content;
pub mod hub;
pub mod incoming;
pub mod names;
pub mod service;
pub mod session;
pub mod shares;
pub mod table;
pub mod thinkers;
pub mod wire;

pub use crate::referee::Policy;
pub use hub::{AgentMaker, Hub, ServerConfig, Shares};
pub use shares::{ClientId, KeyRequired};

use proto::v1;
use std::net::SocketAddr;
use std::sync::Arc;
use tonic::transport::Server;
use tonic::transport::server::TcpIncoming;

/// A connection that sends nothing for this long is pinged…
pub const KEEPALIVE_INTERVAL: std::time::Duration = std::time::Duration::from_secs(2);
/// …and closed if the ping goes unanswered this long.
pub const KEEPALIVE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(3);

/// A server running on the current tokio runtime.
pub struct Running {
    pub addr: SocketAddr,
    /// The Unix socket it listens on besides, if it was asked to (removed when it stops).
    pub unix: Option<std::path::PathBuf>,
    pub hub: Arc<Hub>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<Result<(), String>>,
}

impl Running {
    /// `http://ADDR`, for clients.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `unix:PATH`, for clients that reach it by its Unix socket (gRPC's name for one).
    pub fn unix_url(&self) -> Option<String> {
        self.unix.as_ref().map(|p| format!("unix:{}", p.display()))
    }

    /// Stop accepting, end the long-lived streams, let calls in flight finish, flush the
    /// records.
    pub async fn stop(mut self) -> Result<(), String> {
        self.hub.stop();
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        let r = self.task.await.map_err(|e| e.to_string())?;
        self.hub.flush();
        if let Some(path) = &self.unix {
            let _ = std::fs::remove_file(path);
        }
        r
    }
}

/// Bind `addr` (port 0: any free port) and serve until stopped.
pub async fn start(addr: SocketAddr, config: ServerConfig) -> Result<Running, String> {
    start_with(addr, config, |_| |routes| routes).await
}

/// [`start`], with more services beside the server's own: `extra` is given the hub and adds
/// them to the routes (a ladder adds its Ladder service). They sit behind the same admission
/// layer and message bounds.
pub async fn start_with<F, G>(addr: SocketAddr, config: ServerConfig, extra: F) -> Result<Running, String>
where
    F: FnOnce(Arc<Hub>) -> G,
    G: FnOnce(tonic::service::Routes) -> tonic::service::Routes,
{
    let hub = Hub::new(config)?;
    let services = service::Services { hub: hub.clone() };
    let max = hub.config.max_message_bytes;
    let (reporter, health) = tonic_health::server::health_reporter();
    reporter.set_serving::<v1::matches_server::MatchesServer<service::Services>>().await;
    reporter.set_serving::<v1::play_server::PlayServer<service::Services>>().await;
    reporter.set_serving::<v1::catalogue_server::CatalogueServer<service::Services>>().await;
    let reflection = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(proto::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
    };
    let reflection_v1 = reflection().build_v1().map_err(|e| format!("reflection: {e}"))?;
    let reflection_v1alpha = reflection().build_v1alpha().map_err(|e| format!("reflection: {e}"))?;
    let incoming =
        TcpIncoming::bind(addr).map_err(|e| format!("cannot listen on {addr}: {e}"))?.with_nodelay(Some(true));
    let addr = incoming.local_addr().map_err(|e| e.to_string())?;
    let unix_path = hub.config.unix_socket.clone();
    let unix = match &unix_path {
        Some(path) => Some(
            tokio::net::UnixListener::bind(path)
                .map_err(|e| format!("cannot listen on the Unix socket {}: {e}", path.display()))?,
        ),
        None => None,
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let routes = tonic::service::Routes::new(health)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(
            v1::catalogue_server::CatalogueServer::new(services.clone())
                .max_decoding_message_size(max)
                .max_encoding_message_size(max),
        )
        .add_service(
            v1::matches_server::MatchesServer::new(services.clone())
                .max_decoding_message_size(max)
                .max_encoding_message_size(max),
        )
        .add_service(
            v1::play_server::PlayServer::new(services).max_decoding_message_size(max).max_encoding_message_size(max),
        );
    let routes = extra(hub.clone())(routes);
    let (hub_connections, clients) = (hub.connections.clone(), hub.clients.clone());
    // Keepalive finds peers that vanished without closing, or stopped answering (a process
    // stopped, a network gone): a ping 2 s after the last frame it sent, unanswered for 3 s,
    // closes the connection, and its names and seats are free within 5 s.
    let router = Server::builder()
        .http2_keepalive_interval(Some(KEEPALIVE_INTERVAL))
        .http2_keepalive_timeout(Some(KEEPALIVE_TIMEOUT))
        // Calls and streams open at once on one connection.
        .max_concurrent_streams(Some(256))
        .layer(admission::AdmissionLayer(hub.clone()))
        .add_routes(routes);
    let task = tokio::spawn(async move {
        router
            .serve_with_incoming_shutdown(incoming::admitted(incoming, unix, hub_connections, clients), async {
                let _ = stopped.await;
            })
            .await
            .map_err(|e| format!("the server failed: {e}"))
    });
    tracing::info!(%addr, unix = ?unix_path, "serving tabletop.arena.v1");
    Ok(Running { addr, unix: unix_path, hub, stop: Some(stop), task })
}

/// Ctrl-C or SIGTERM. The handlers are installed when this is called, not when it is first
/// awaited: call it (inside the runtime) before saying the server is up, or a signal sent
/// at once still kills the process.
pub fn stop_signal() -> impl std::future::Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let term = signal(SignalKind::terminate()).ok();
        let interrupt = signal(SignalKind::interrupt()).ok();
        async move {
            match (term, interrupt) {
                (Some(mut t), Some(mut i)) => {
                    tokio::select! {
                        _ = t.recv() => {}
                        _ = i.recv() => {}
                    }
                }
                (Some(mut t), None) => {
                    t.recv().await;
                }
                (None, Some(mut i)) => {
                    i.recv().await;
                }
                (None, None) => {
                    let _ = tokio::signal::ctrl_c().await;
                }
            }
        }
    }
    #[cfg(not(unix))]
    async {
        let _ = tokio::signal::ctrl_c().await;
    }
}
