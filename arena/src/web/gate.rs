//! The door every request of the face passes before its route, in this order:
//!
//! 1. **The name it was sent to** (`Host`): `localhost`, an IP address, or a name the operator
//!    gives (`--http-host NAME`). A page of another name that resolves to this face (DNS
//!    rebinding) is refused: 421.
//! 2. **The page it comes from** (`Origin`, sent by browsers with every POST and with what a
//!    page of another origin asks): this face's own origin, or a page on a name the operator
//!    gives. Another origin, or `null`, is refused: 403. A request without one (a program, a
//!    page's own GET) is taken.
//! 3. **Who asks**: the holder of the client key it shows (the `x-arena-key` header, else the
//!    face's HttpOnly cookie, set on `/key`), else its address. Where the server serves its
//!    clients by key (`--require-key always`), every route but the static files and the rules
//!    pages answers 401 without one (a page: with the form that takes it). A key that is not
//!    one: 401.
//! 4. **That client's rate**: a bucket per client, a `/game` page counting as several requests.
//!    Faster: 429 naming the rate, and `Retry-After`.
//! 5. **Its share of the connections**: the connection's place moves to the client the request
//!    shows (a key's holder has a share of its own, wherever it connects from). Past the
//!    share: 429 naming whose, and the connection closed.
//!
//! The route then reads the [`Caller`], and makes its gRPC call as it ([`Caller::call`]): the
//! key passed on as `x-arena-key`, so the services identify the same client and apply its
//! shares.

use super::{Config, Connection, assets, error};
use crate::files::shown;
use crate::server::Hub;
use crate::server::shares::{ClientId, KEY_HEADER, KeyRequired, Pool, Rate};
use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::net::SocketAddr;
use std::sync::Arc;

/// The cookie a browser keeps its client key in (hex: any key is a valid cookie value).
pub const KEY_COOKIE: &str = "arena-key";
/// How long a browser keeps it: 30 days, or until forgotten on `/key`.
const KEY_COOKIE_SECONDS: u64 = 30 * 24 * 3600;
/// The longest key read from a request (longer ones are no key of this server's).
pub const MAX_KEY: usize = 1024;

/// Who makes a request, once the gate let it through.
#[derive(Clone, Debug)]
pub struct Caller {
    pub peer: SocketAddr,
    /// The client key it showed, if any (a valid one: the gate let no other through).
    pub key: Option<String>,
    pub client: ClientId,
}

impl Caller {
    /// The gRPC call `message` as this caller's: from its address, with its key as
    /// `x-arena-key`, so the services tell the same client and apply its shares.
    pub fn call<T>(&self, message: T) -> tonic::Request<T> {
        let mut r = tonic::Request::new(message);
        r.extensions_mut()
            .insert(tonic::transport::server::TcpConnectInfo { local_addr: None, remote_addr: Some(self.peer) });
        if let Some(value) = self.key.as_deref().and_then(|k| k.parse().ok()) {
            r.metadata_mut().insert(KEY_HEADER, value);
        }
        r
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Caller, Response> {
        parts
            .extensions
            .get::<Caller>()
            .cloned()
            .ok_or_else(|| error(StatusCode::INTERNAL_SERVER_ERROR, "a request that did not pass the gate"))
    }
}

/// What the gate knows: the server's clients, the names, the rate, the connections.
pub struct Gate {
    hub: Arc<Hub>,
    /// The operator's names (lowercase), and whether any name is taken.
    names: Vec<String>,
    any_name: bool,
    rate: Rate,
    game_page_cost: f64,
    connections: Arc<Pool>,
}

impl Gate {
    pub fn new(hub: Arc<Hub>, config: &Config, connections: Arc<Pool>) -> Arc<Gate> {
        let r = config.requests_per_second;
        Arc::new(Gate {
            hub,
            names: config.hosts.iter().filter(|n| *n != "*").cloned().collect(),
            any_name: config.hosts.iter().any(|n| n == "*"),
            rate: Rate::of("requests to the web face", r, (r * 5.0).max(config.game_page_cost)),
            game_page_cost: config.game_page_cost,
            connections,
        })
    }

    /// The names this face answers to, in words.
    fn answers_to(&self) -> String {
        let mut names = vec!["localhost".to_string(), "its IP addresses".into()];
        names.extend(self.names.iter().map(|n| format!("`{n}`")));
        let last = names.pop().unwrap_or_default();
        format!("{} and {last}", names.join(", "))
    }

    /// The request's host, if it is one this face answers to.
    fn host(&self, headers: &HeaderMap) -> Result<Authority, Refusal> {
        let Some(value) = headers.get(header::HOST) else {
            return Err(Refusal::new(
                StatusCode::BAD_REQUEST,
                format!("a request names the host it is for (Host): this face answers to {}", self.answers_to()),
            ));
        };
        let text = String::from_utf8_lossy(value.as_bytes());
        let refused = || {
            Refusal::new(
                StatusCode::MISDIRECTED_REQUEST,
                format!(
                    "this web face does not answer to `{}` (the request's Host): it answers to {} (a name that \
                     resolves here is not enough: pages of other names could reach it; the operator adds names with \
                     --http-host NAME)",
                    shown(&text),
                    self.answers_to()
                ),
            )
        };
        let host = Authority::parse(&text).ok_or_else(refused)?;
        if self.any_name || host.is_ip() || host.name == "localhost" || self.names.contains(&host.name) {
            Ok(host)
        } else {
            Err(refused())
        }
    }

    /// Refused if the request comes from a page of another origin.
    fn origin(&self, headers: &HeaderMap, host: &Authority) -> Result<(), Refusal> {
        let Some(value) = headers.get(header::ORIGIN) else { return Ok(()) };
        let text = String::from_utf8_lossy(value.as_bytes());
        let same = text.split_once("://").and_then(|(scheme, rest)| {
            let default = match scheme.to_ascii_lowercase().as_str() {
                "http" => 80,
                "https" => 443,
                _ => return None,
            };
            let origin = Authority::parse(rest)?;
            let ours = origin.name == host.name && origin.port.unwrap_or(default) == host.port.unwrap_or(default);
            Some(ours || self.names.contains(&origin.name))
        });
        if same == Some(true) {
            return Ok(());
        }
        Err(Refusal::new(
            StatusCode::FORBIDDEN,
            format!(
                "a request from a page of another origin (`{}`) is refused: the face takes requests from its own pages \
                 only (and from pages on the names its operator gives)",
                shown(&text)
            ),
        ))
    }

    /// `cost` of `client`'s rate, or a 429 naming it.
    fn spend(&self, client: &ClientId, cost: f64) -> Result<(), Refusal> {
        self.rate.spend(client, cost).map_err(|wait| {
            let costly = if cost > 1.0 { format!(" (a /game page counts as {cost})") } else { String::new() };
            let mut r = Refusal::new(
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "{client}: over {} requests a second to the web face, a client's rate{costly}: try again in {} ms",
                    self.rate.per_second(),
                    wait.as_millis()
                ),
            );
            r.retry_after = Some(wait.as_secs() + u64::from(wait.subsec_nanos() > 0));
            r
        })
    }
}

/// A refusal of the gate: its status, what was wrong, and (past a rate) when to try again.
struct Refusal {
    code: StatusCode,
    message: String,
    retry_after: Option<u64>,
}

impl Refusal {
    fn new(code: StatusCode, message: String) -> Refusal {
        Refusal { code, message, retry_after: None }
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let mut r = error(self.code, &self.message);
        if let Some(seconds) = self.retry_after {
            r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        r
    }
}

/// A request's authority: its host (lowercase, without a trailing dot; an IPv6 address in
/// brackets) and port.
struct Authority {
    name: String,
    port: Option<u16>,
}

impl Authority {
    fn parse(text: &str) -> Option<Authority> {
        let text = text.trim();
        let (name, port) = match text.strip_prefix('[') {
            Some(rest) => {
                let end = rest.find(']')?;
                (&text[..end + 2], rest[end + 1..].strip_prefix(':'))
            }
            None => match text.rsplit_once(':') {
                Some((name, port)) => (name, Some(port)),
                None => (text, None),
            },
        };
        let port = match port {
            Some(p) => Some(p.parse().ok()?),
            None if text.ends_with(':') => return None,
            None => None,
        };
        let name = name.trim_end_matches('.').to_ascii_lowercase();
        let fine = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'[' | b']' | b':');
        (!name.is_empty() && name.bytes().all(fine)).then_some(Authority { name, port })
    }

    fn is_ip(&self) -> bool {
        let bare = self.name.strip_prefix('[').and_then(|n| n.strip_suffix(']'));
        match bare {
            Some(v6) => v6.parse::<std::net::Ipv6Addr>().is_ok(),
            None => self.name.parse::<std::net::Ipv4Addr>().is_ok(),
        }
    }
}

/// The key a request shows, and where.
enum Shown {
    None,
    Header(String),
    Cookie(String),
}

impl Shown {
    fn of(headers: &HeaderMap) -> Shown {
        if let Some(v) = headers.get(KEY_HEADER) {
            return Shown::Header(String::from_utf8_lossy(v.as_bytes()).chars().take(MAX_KEY + 1).collect());
        }
        let cookies = headers.get_all(header::COOKIE).iter().flat_map(|v| v.to_str().unwrap_or("").split(';'));
        for cookie in cookies {
            if let Some(hex) = cookie.trim().strip_prefix(KEY_COOKIE).and_then(|c| c.strip_prefix('=')) {
                // Unreadable: a key no client has.
                return Shown::Cookie(unhex(hex).unwrap_or_default());
            }
        }
        Shown::None
    }

    fn key(&self) -> Option<&str> {
        match self {
            Shown::None => None,
            Shown::Header(k) | Shown::Cookie(k) => Some(k),
        }
    }
}

fn unhex(hex: &str) -> Option<String> {
    if !hex.len().is_multiple_of(2) || hex.len() > 2 * MAX_KEY {
        return None;
    }
    let bytes: Option<Vec<u8>> =
        (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok()).collect();
    String::from_utf8(bytes?).ok()
}

/// The cookie that keeps `key` in this browser: sent back to this face only, on requests its
/// own pages make (SameSite=Strict), never readable by a script (HttpOnly).
pub fn key_cookie(key: &str) -> HeaderValue {
    let hex: String = key.bytes().map(|b| format!("{b:02x}")).collect();
    HeaderValue::try_from(format!(
        "{KEY_COOKIE}={hex}; Path=/; Max-Age={KEY_COOKIE_SECONDS}; HttpOnly; SameSite=Strict"
    ))
    .expect("hex is a header value")
}

/// The cookie that forgets the key.
pub fn forget_cookie() -> HeaderValue {
    HeaderValue::from_static("arena-key=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict")
}

/// Whether a path is a static file (open to anyone: the key form needs its script; the rules
/// are the project's own text).
fn is_static(path: &str) -> bool {
    path.starts_with("/static/") || path.starts_with("/rules/") || path == "/favicon.ico"
}

/// Whether a path is a page a browser opens (a refusal of it is the key form, not JSON).
fn is_page(path: &str) -> bool {
    matches!(path, "/" | "/match" | "/play" | "/game" | "/key")
}

/// The gate: every request passes it before its route ([`Gate`]'s steps, in order).
pub async fn gate(State(gate): State<Arc<Gate>>, mut req: Request, next: Next) -> Response {
    let Some(connection) = req.extensions().get::<Arc<Connection>>().cloned() else {
        return error(StatusCode::INTERNAL_SERVER_ERROR, "a request without its connection");
    };
    let host = match gate.host(req.headers()) {
        Ok(h) => h,
        Err(r) => return r.into_response(),
    };
    if let Err(r) = gate.origin(req.headers(), &host) {
        return r.into_response();
    }
    let path = req.uri().path();
    let open = is_static(path);
    // The key's own route reads a key from its body: a stale cookie does not stop it.
    let takes_a_key = path == "/api/key" && req.method() == Method::POST;
    let page = is_page(path) && matches!(*req.method(), Method::GET | Method::HEAD);
    let cost = if path == "/game" { gate.game_page_cost } else { 1.0 };
    let peer = connection.peer;
    let shown = Shown::of(req.headers());
    let (client, key) = match gate.hub.clients.identify(shown.key().map(str::as_bytes), Some(peer), false) {
        Ok(client) => (client, shown.key().map(str::to_string)),
        Err(status) => {
            let address = gate.hub.clients.of_addr(Some(peer));
            if open || takes_a_key {
                (address, None)
            } else {
                // A refused key is a request like any other: guesses come at the address's rate.
                if let Err(r) = gate.spend(&address, 1.0) {
                    return r.into_response();
                }
                return unauthenticated(&shown, status.message(), page, gate.hub.clients.required);
            }
        }
    };
    if let Err(r) = gate.spend(&client, cost) {
        return r.into_response();
    }
    if let Err(status) = connection.place(&gate.connections, &client) {
        let mut r = error(StatusCode::TOO_MANY_REQUESTS, status.message());
        r.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
        return r;
    }
    req.extensions_mut().insert(Caller { peer, key, client });
    next.run(req).await
}

/// A 401: the key this request showed is not one, or it showed none where one is needed. A
/// page's is the form that takes a key; a cookie that holds no key is forgotten.
fn unauthenticated(shown: &Shown, why: &str, page: bool, required: KeyRequired) -> Response {
    let message = match shown {
        Shown::None => format!(
            "this server serves its clients by key{}: enter yours at /key (this browser keeps it), or send it as \
             {KEY_HEADER}",
            if required == KeyRequired::Always { "" } else { " here" }
        ),
        Shown::Header(_) => why.to_string(),
        Shown::Cookie(_) => {
            "the client key this browser kept is not a key of this server (it is forgotten now): enter yours at /key"
                .to_string()
        }
    };
    // A page's refusal is the form that takes a key (its script asks /api/key why).
    let mut r = if page {
        (StatusCode::UNAUTHORIZED, [(header::CONTENT_TYPE, assets::KEY.content_type)], assets::KEY.body).into_response()
    } else {
        error(StatusCode::UNAUTHORIZED, &message)
    };
    if matches!(shown, Shown::Cookie(_)) {
        r.headers_mut().insert(header::SET_COOKIE, forget_cookie());
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authorities() {
        let a = Authority::parse("Arena.Example.org.:8080").unwrap();
        assert_eq!((a.name.as_str(), a.port, a.is_ip()), ("arena.example.org", Some(8080), false));
        let a = Authority::parse("[::1]:80").unwrap();
        assert_eq!((a.name.as_str(), a.port, a.is_ip()), ("[::1]", Some(80), true));
        assert!(Authority::parse("127.0.0.1").unwrap().is_ip());
        assert!(!Authority::parse("127.0.0.1.evil.example").unwrap().is_ip());
        for bad in ["", "a:b", "evil.example:", "[::1", "a b", "x/y"] {
            assert!(Authority::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn a_key_survives_its_cookie() {
        let key = "a key; with \"odd\" = characters, ünïcode";
        let cookie = key_cookie(key);
        let value = cookie.to_str().unwrap().split(';').next().unwrap().to_string();
        let mut headers = HeaderMap::new();
        headers.insert(header::COOKIE, HeaderValue::try_from(format!("other=1; {value}")).unwrap());
        assert_eq!(Shown::of(&headers).key(), Some(key));
        headers.insert(KEY_HEADER, HeaderValue::from_static("from-the-header"));
        assert_eq!(Shown::of(&headers).key(), Some("from-the-header"), "the header first");
        assert_eq!(unhex("zz"), None);
    }
}
