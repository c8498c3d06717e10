//! The server's door for connections: each TCP connection takes a place of its address's share
//! of the connections (an IPv4 address, or its IPv6 network of `--ipv6-prefix` bits), held
//! while it is open; one past the share, or past the server's limit, is closed as it arrives,
//! before a byte of it is read. Connections are a pool like any other: no one address holds
//! them all (a key is told only in a call, after the connection is made: a key's holder behind
//! a shared address shares that address's connections, each of which carries any number of
//! calls).
//!
//! A server may listen on a Unix socket besides (a tournament's or a ladder's, for the agents
//! it launches in sandboxes without a network): a connection from a sandbox is its sandbox's
//! (by its PID namespace, each a client of its own), any other has no address and shares the
//! pool with the clients without one.

use super::shares::{ClientKeys, Held, Pool};
use futures_util::{Stream, StreamExt};
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpStream, UnixListener, UnixStream};
use tonic::transport::server::{Connected, TcpConnectInfo, TcpIncoming};

/// A connection let in, with its place.
pub struct Admitted {
    stream: Conn,
    _place: Held,
}

/// A TCP connection, or one over the server's Unix socket (with the address standing for its
/// peer's sandbox, if it is in one).
enum Conn {
    Tcp(TcpStream),
    Unix(UnixStream, Option<std::net::SocketAddr>),
}

impl Connected for Admitted {
    type ConnectInfo = TcpConnectInfo;
    fn connect_info(&self) -> TcpConnectInfo {
        match &self.stream {
            Conn::Tcp(s) => s.connect_info(),
            Conn::Unix(_, sandbox) => TcpConnectInfo { local_addr: None, remote_addr: *sandbox },
        }
    }
}

/// The PID namespace of the process at the other end of a Unix connection (its credentials,
/// as the kernel gives them), when it is not this process's own: a launched agent's sandbox
/// has one of its own, so each sandbox is a client apart ([`super::shares::ClientId::Sandbox`]).
fn sandbox_of(stream: &UnixStream) -> Option<std::net::SocketAddr> {
    let pid = stream.peer_cred().ok()?.pid()?;
    let ns = |path: &str| -> Option<u64> {
        let link = std::fs::read_link(path).ok()?;
        let text = link.to_string_lossy();
        text.strip_prefix("pid:[")?.strip_suffix(']')?.parse().ok()
    };
    let theirs = ns(&format!("/proc/{pid}/ns/pid"))?;
    (Some(theirs) != ns("/proc/self/ns/pid")).then(|| super::shares::sandbox_addr(theirs))
}

/// The stream's own method, whichever kind it is.
macro_rules! either {
    ($self:expr, $s:ident => $e:expr) => {
        match &mut $self.stream {
            Conn::Tcp($s) => $e,
            Conn::Unix($s, _) => $e,
        }
    };
}

impl AsyncRead for Admitted {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        either!(self, s => Pin::new(s).poll_read(cx, buf))
    }
}

impl AsyncWrite for Admitted {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        either!(self, s => Pin::new(s).poll_write(cx, buf))
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        either!(self, s => Pin::new(s).poll_flush(cx))
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        either!(self, s => Pin::new(s).poll_shutdown(cx))
    }
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        either!(self, s => Pin::new(s).poll_write_vectored(cx, bufs))
    }
    fn is_write_vectored(&self) -> bool {
        match &self.stream {
            Conn::Tcp(s) => s.is_write_vectored(),
            Conn::Unix(s, _) => s.is_write_vectored(),
        }
    }
}

/// The connections `incoming` accepts (and `unix`, if the server listens on a Unix socket
/// too), each let in if its client has a place in `pool` (closed at once otherwise, and the
/// refusal logged at debug level: a flood of them is not a flood of log lines).
pub fn admitted(
    incoming: TcpIncoming,
    unix: Option<UnixListener>,
    pool: Arc<Pool>,
    clients: ClientKeys,
) -> impl Stream<Item = Result<Admitted, io::Error>> + Send + 'static {
    let tcp = incoming.map(|accepted| accepted.map(|s| (s.peer_addr().ok(), Conn::Tcp(s))));
    let unix = futures_util::stream::unfold(unix, |listener| async move {
        let accepted = listener.as_ref()?.accept().await.map(|(s, _)| {
            let sandbox = sandbox_of(&s);
            (sandbox, Conn::Unix(s, sandbox))
        });
        Some((accepted, listener))
    });
    futures_util::stream::select(tcp, unix).filter_map(move |accepted| {
        let admitted = match accepted {
            Ok((addr, stream)) => match pool.take(&clients.of_addr(addr)) {
                Ok(place) => Some(Ok(Admitted { stream, _place: place })),
                Err(refused) => {
                    tracing::debug!("a connection closed as it came: {}", refused.message());
                    None
                }
            },
            Err(e) => Some(Err(e)),
        };
        std::future::ready(admitted)
    })
}
