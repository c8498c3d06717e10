//! The door before a call is read: a call that parses and builds (CreateMatch, DescribeGame)
//! is admitted at its client's rate, or refused before its message is read at all — a client
//! that sends them faster than its rate costs the server their headers, not their bytes. And
//! every refusal for a share or a rate (RESOURCE_EXHAUSTED) is answered after a pause
//! ([`REFUSAL_PAUSE`]): a client that calls past its shares one call after the other is slowed
//! to a few calls a second, and costs the others that much less of the processor.

use super::hub::Hub;
use super::shares::KEY_HEADER;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// How long a refusal for a share or a rate waits before it is answered.
pub const REFUSAL_PAUSE: std::time::Duration = std::time::Duration::from_millis(100);

/// The calls that are read and built on a blocking thread.
const BUILT: [&str; 2] = ["/tabletop.arena.v1.Matches/CreateMatch", "/tabletop.arena.v1.Catalogue/DescribeGame"];

/// The server's layer: every request passes [`Admission`].
#[derive(Clone)]
pub struct AdmissionLayer(pub Arc<Hub>);

impl<S> tower::Layer<S> for AdmissionLayer {
    type Service = Admission<S>;
    fn layer(&self, inner: S) -> Admission<S> {
        Admission { inner, hub: self.0.clone() }
    }
}

#[derive(Clone)]
pub struct Admission<S> {
    inner: S,
    hub: Arc<Hub>,
}

impl<S, B> tower::Service<http::Request<B>> for Admission<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<tonic::body::Body>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: http::Request<B>) -> Self::Future {
        if BUILT.contains(&req.uri().path()) {
            let key = req.headers().get(KEY_HEADER).map(|v| v.as_bytes());
            let addr = req.extensions().get::<tonic::transport::server::TcpConnectInfo>().and_then(|i| i.remote_addr());
            let creates = req.uri().path().ends_with("/CreateMatch");
            if let Err(status) = self.hub.admit_call(key, addr, creates) {
                return Box::pin(async move {
                    tokio::time::sleep(REFUSAL_PAUSE).await;
                    Ok(status.into_http())
                });
            }
        }
        let answered = self.inner.call(req);
        Box::pin(async move {
            let response = answered.await?;
            // A refusal for a share or a rate, told in the headers (a trailers-only answer).
            if response.headers().get("grpc-status").is_some_and(|s| s.as_bytes() == b"8") {
                tokio::time::sleep(REFUSAL_PAUSE).await;
            }
            Ok(response)
        })
    }
}
