//! The server's door for connections: each TCP connection takes a place of its address's share
//! of the connections (an IPv4 address, or its IPv6 network of `--ipv6-prefix` bits), held
//! while it is open; one past the share, or past the server's limit, is closed as it arrives,
//! before a byte of it is read. Connections are a pool like any other: no one address holds
//! them all (a key is told only in a call, after the connection is made: a key's holder behind
//! a shared address shares that address's connections, each of which carries any number of
//! calls).

use super::shares::{ClientKeys, Held, Pool};
use futures_util::{Stream, StreamExt};
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tonic::transport::server::{Connected, TcpConnectInfo, TcpIncoming};

/// A connection let in, with its place.
pub struct Admitted {
    stream: TcpStream,
    _place: Held,
}

impl Connected for Admitted {
    type ConnectInfo = TcpConnectInfo;
    fn connect_info(&self) -> TcpConnectInfo {
        self.stream.connect_info()
    }
}

impl AsyncRead for Admitted {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Admitted {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }
    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

/// The connections `incoming` accepts, each let in if its address has a place in `pool`
/// (closed at once otherwise, and the refusal logged at debug level: a flood of them is not a
/// flood of log lines).
pub fn admitted(
    incoming: TcpIncoming,
    pool: Arc<Pool>,
    clients: ClientKeys,
) -> impl Stream<Item = Result<Admitted, io::Error>> + Send + 'static {
    incoming.filter_map(move |accepted| {
        let admitted = match accepted {
            Ok(stream) => {
                let client = clients.of_addr(stream.peer_addr().ok());
                match pool.take(&client) {
                    Ok(place) => Some(Ok(Admitted { stream, _place: place })),
                    Err(refused) => {
                        tracing::debug!("a connection closed as it came: {}", refused.message());
                        None
                    }
                }
            }
            Err(e) => Some(Err(e)),
        };
        std::future::ready(admitted)
    })
}
