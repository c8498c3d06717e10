//! Who is asking, and how much of the server each one may hold.
//!
//! A client is the holder of a key from the operator's `--client-keys` file (sent as the
//! `x-arena-key` metadata of every call), or else its address: an IPv4 address, or the IPv6
//! network it is in, of the operator's prefix length (`--ipv6-prefix`, /56 by default: a home
//! or an office is handed a /56 or a /48, so its 256 /64s are one client, not 256). Every pool a client can fill —
//! matches in play, Play streams, spectators, calls being parsed, server-run agents thinking —
//! has a limit in all and a share per client, so a client at its share leaves the rest to the
//! others. A pool may keep a reserve besides: its last places go only to clients that hold
//! little of it, so a new client gets in while the others are at their shares. Keyed Play names
//! are outside the streams pool: their holders always get in.

use std::collections::HashMap;
use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, Weak};
use tonic::Status;

/// The metadata a client sends its key in.
pub const KEY_HEADER: &str = "x-arena-key";

/// Equal, compared in time that does not depend on where they differ (keys, tokens).
pub fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

/// A client, as the server tells clients apart.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ClientId {
    /// The holder of the operator's key of this name.
    Key(String),
    /// The holder of a Play name's key (`--bot-keys`, a ladder's `keys:`), by the name (folded):
    /// an agent whose Hello gives its name's key is that key's holder, wherever it connects from.
    Name(String),
    /// An IPv4 address, or an IPv6 network of the prefix length given (its address masked).
    Addr(IpAddr, u8),
    /// No key and no address (a transport that has none).
    Unknown,
    /// An agent the arena launched in a sandbox, reaching the server by its Unix socket: its
    /// sandbox, by its PID namespace (one per sandbox): each sandbox is a client of its own.
    Sandbox(u64),
    /// The program that runs the server, for its own matches (a ladder's matchmaker): no wire
    /// call is ever this client. It has no share: the pools' limits alone bound it.
    Host,
}

impl fmt::Display for ClientId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientId::Key(name) => write!(f, "client `{name}`"),
            ClientId::Name(name) => write!(f, "the holder of `{name}`'s key"),
            ClientId::Addr(a @ IpAddr::V6(_), prefix) => write!(f, "the clients of {a}/{prefix}"),
            ClientId::Addr(a, _) => write!(f, "the clients of {a}"),
            ClientId::Unknown => f.write_str("the clients without an address"),
            ClientId::Sandbox(ns) => write!(f, "the launched agent of sandbox {ns}"),
            ClientId::Host => f.write_str("the host"),
        }
    }
}

/// The first 64 bits of the address a sandbox's connections are given (`100::/64`, IPv6's
/// discard-only prefix, RFC 6666: never a real peer's), its PID namespace in the last 64.
const SANDBOX_NET: [u16; 4] = [0x100, 0, 0, 0];

/// The address standing for the sandbox of PID namespace `ns` (see [`ClientId::Sandbox`]).
pub fn sandbox_addr(ns: u64) -> SocketAddr {
    let net = u128::from(std::net::Ipv6Addr::new(0x100, 0, 0, 0, 0, 0, 0, 0));
    SocketAddr::new(IpAddr::V6(std::net::Ipv6Addr::from(net | u128::from(ns))), 0)
}

/// The IPv6 prefix length clients without a key are told apart by, unless the operator says.
pub const DEFAULT_V6_PREFIX: u8 = 56;

impl ClientId {
    /// A peer's address as a client: its IPv6 network of `v6_prefix` bits, or its IPv4
    /// address (an IPv4 address mapped into IPv6 is the IPv4 address).
    pub fn of_addr(addr: Option<SocketAddr>, v6_prefix: u8) -> ClientId {
        match addr.map(|a| a.ip()) {
            None => ClientId::Unknown,
            Some(IpAddr::V6(v6)) if v6.segments()[..4] == SANDBOX_NET => ClientId::Sandbox(u128::from(v6) as u64),
            Some(IpAddr::V6(v6)) => match v6.to_ipv4_mapped() {
                Some(v4) => ClientId::Addr(IpAddr::V4(v4), 32),
                None => {
                    let prefix = v6_prefix.min(128);
                    let mask = u128::MAX.checked_shl(u32::from(128 - prefix)).unwrap_or(0);
                    let net = std::net::Ipv6Addr::from(u128::from(v6) & mask);
                    ClientId::Addr(IpAddr::V6(net), prefix)
                }
            },
            Some(v4) => ClientId::Addr(v4, 32),
        }
    }

    /// The client as a stable text, for a store (`key:NAME`, `addr:10.0.0.1`,
    /// `addr:2001:db8::/56`, `unknown`, `host`).
    pub fn stored(&self) -> String {
        match self {
            ClientId::Key(name) => format!("key:{name}"),
            ClientId::Name(name) => format!("name:{name}"),
            ClientId::Addr(a @ IpAddr::V6(_), prefix) => format!("addr:{a}/{prefix}"),
            ClientId::Addr(a, _) => format!("addr:{a}"),
            ClientId::Unknown => "unknown".into(),
            ClientId::Sandbox(ns) => format!("sandbox:{ns}"),
            ClientId::Host => "host".into(),
        }
    }
}

/// Which calls need a client key.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KeyRequired {
    /// None: a client without a key is its address.
    #[default]
    Never,
    /// CreateMatch needs one (anyone may still play, watch and list).
    ToCreate,
    /// Every call of the arena's services (health and reflection excepted).
    Always,
}

impl std::str::FromStr for KeyRequired {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "never" => Ok(KeyRequired::Never),
            "create" => Ok(KeyRequired::ToCreate),
            "always" => Ok(KeyRequired::Always),
            _ => Err(format!("`{s}`: expected never, create or always")),
        }
    }
}

/// The operator's client keys: who holds which.
#[derive(Clone, Debug, Default)]
pub struct ClientKeys {
    /// (client name, key)
    keys: Vec<(String, String)>,
    pub required: KeyRequired,
    /// The IPv6 prefix length a client without a key is told apart by.
    pub v6_prefix: u8,
}

impl ClientKeys {
    pub fn new(keys: HashMap<String, String>, required: KeyRequired) -> Result<ClientKeys, String> {
        if required != KeyRequired::Never && keys.is_empty() {
            return Err("a client key is required, and --client-keys gives none".into());
        }
        let mut keys: Vec<(String, String)> = keys.into_iter().collect();
        keys.sort();
        for (name, key) in &keys {
            if key.len() < 16 {
                return Err(format!("--client-keys: the key of `{name}` is shorter than 16 characters"));
            }
        }
        Ok(ClientKeys { keys, required, v6_prefix: DEFAULT_V6_PREFIX })
    }

    /// Who sends `key` (the value of [`KEY_HEADER`], if any) from `addr`, for a call that
    /// `creates` a match or not.
    pub fn identify(&self, key: Option<&[u8]>, addr: Option<SocketAddr>, creates: bool) -> Result<ClientId, Status> {
        if let Some(key) = key {
            let key = std::str::from_utf8(key).unwrap_or("");
            // Every key compared, in time that does not tell which one (or how much) matched.
            let mut found = None;
            for (name, k) in &self.keys {
                if same_secret(k, key) {
                    found = Some(name);
                }
            }
            return match found {
                Some(name) => Ok(ClientId::Key(name.clone())),
                None => Err(Status::unauthenticated(format!("{KEY_HEADER}: not a client key of this server"))),
            };
        }
        match self.required {
            KeyRequired::Always => {
                Err(Status::unauthenticated(format!("this server serves its clients by key: send it as {KEY_HEADER}")))
            }
            KeyRequired::ToCreate if creates => Err(Status::unauthenticated(format!(
                "this server creates matches for its clients by key: send it as {KEY_HEADER}"
            ))),
            _ => Ok(self.of_addr(addr)),
        }
    }

    /// The client a peer without a key is.
    pub fn of_addr(&self, addr: Option<SocketAddr>) -> ClientId {
        ClientId::of_addr(addr, self.v6_prefix)
    }
}

/// One pool clients share: at most `limit` held in all, at most `share` by one client; and,
/// when it keeps a reserve, its last `reserve` places only for newcomers (clients holding
/// fewer than a quarter of a share, at least one place).
pub struct Pool {
    /// What it holds, plural ("matches in play").
    what: &'static str,
    limit: usize,
    share: usize,
    reserve: usize,
    newcomer: usize,
    held: Mutex<PoolState>,
}

#[derive(Default)]
struct PoolState {
    total: usize,
    by_client: HashMap<ClientId, usize>,
}

/// A place taken in a pool, given back when dropped.
pub struct Held {
    pool: Arc<Pool>,
    client: ClientId,
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut s = self.pool.held.lock().unwrap_or_else(|p| p.into_inner());
        s.total -= 1;
        s.leave(&self.client);
    }
}

impl PoolState {
    fn leave(&mut self, client: &ClientId) {
        if let Some(n) = self.by_client.get_mut(client) {
            *n -= 1;
            if *n == 0 {
                self.by_client.remove(client);
            }
        }
    }
}

impl fmt::Debug for Held {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Held({}, {})", self.pool.what, self.client)
    }
}

impl Held {
    /// Whose place it is.
    pub fn client(&self) -> &ClientId {
        &self.client
    }

    /// The place made `to`'s (a connection taken for its address, then found to carry a
    /// client's key): refused, and left as it was, if `to` could not take a place now.
    pub fn move_to(&mut self, to: &ClientId) -> Result<(), Status> {
        if *to == self.client {
            return Ok(());
        }
        let pool = self.pool.clone();
        let mut s = pool.held.lock().unwrap_or_else(|p| p.into_inner());
        // As if this place were free, and `to` took it.
        pool.admits(&s, to, s.total - 1)?;
        s.leave(&self.client);
        *s.by_client.entry(to.clone()).or_insert(0) += 1;
        self.client = to.clone();
        Ok(())
    }
}

impl Pool {
    pub fn new(what: &'static str, limit: usize, share: usize) -> Arc<Pool> {
        Pool::with_reserve(what, limit, share, 0)
    }

    /// A pool whose last `reserve` places go only to clients holding fewer than a quarter of
    /// a share (at least one place): while up to `reserve` newcomers are in it, a new client
    /// gets in however many others are at their share.
    pub fn with_reserve(what: &'static str, limit: usize, share: usize, reserve: usize) -> Arc<Pool> {
        let share = share.clamp(1, limit.max(1));
        Arc::new(Pool {
            what,
            limit,
            share,
            reserve: reserve.min(limit),
            newcomer: (share / 4).max(1),
            held: Mutex::default(),
        })
    }

    /// A place for `client`, or RESOURCE_EXHAUSTED naming whose limit it met.
    pub fn take(self: &Arc<Self>, client: &ClientId) -> Result<Held, Status> {
        let mut s = self.held.lock().unwrap_or_else(|p| p.into_inner());
        self.admits(&s, client, s.total)?;
        s.total += 1;
        *s.by_client.entry(client.clone()).or_insert(0) += 1;
        Ok(Held { pool: self.clone(), client: client.clone() })
    }

    /// Whether `client` may take a place when `total` are held.
    fn admits(&self, s: &PoolState, client: &ClientId, total: usize) -> Result<(), Status> {
        let mine = s.by_client.get(client).copied().unwrap_or(0);
        let host = *client == ClientId::Host;
        if mine >= self.share && !host {
            return Err(Status::resource_exhausted(format!(
                "{mine} {} held by {client} already: a client's share (of {} in all)",
                self.what, self.limit
            )));
        }
        if total >= self.limit {
            return Err(Status::resource_exhausted(format!(
                "the server holds {} {} already (its limit)",
                self.limit, self.what
            )));
        }
        if total >= self.limit - self.reserve && mine >= self.newcomer && !host {
            return Err(Status::resource_exhausted(format!(
                "{mine} {} held by {client} already, and the last {} of the {} are kept for new clients (each \
                 holding fewer than {})",
                self.what, self.reserve, self.limit, self.newcomer
            )));
        }
        Ok(())
    }

    /// Places held in all.
    pub fn total(&self) -> usize {
        self.held.lock().unwrap_or_else(|p| p.into_inner()).total
    }

    /// Places held by `client`.
    pub fn held_by(&self, client: &ClientId) -> usize {
        self.held.lock().unwrap_or_else(|p| p.into_inner()).by_client.get(client).copied().unwrap_or(0)
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    pub fn share(&self) -> usize {
        self.share
    }

    /// Places kept for newcomers, and what a newcomer holds less of.
    pub fn reserve(&self) -> (usize, usize) {
        (self.reserve, self.newcomer)
    }
}

/// A rate each client may call at: a bucket of `burst` calls, refilled at `per_second`. A call
/// it refuses cost the server nothing but its message.
pub struct Rate {
    /// What it counts, plural ("calls").
    what: &'static str,
    per_second: f64,
    burst: f64,
    buckets: Mutex<HashMap<ClientId, (f64, std::time::Instant)>>,
}

impl Rate {
    pub fn new(per_second: f64, burst: f64) -> Rate {
        Rate::of("calls", per_second, burst)
    }

    /// A rate of `what` (plural: "requests").
    pub fn of(what: &'static str, per_second: f64, burst: f64) -> Rate {
        Rate { what, per_second: per_second.max(0.001), burst: burst.max(1.0), buckets: Mutex::default() }
    }

    /// One call of `client`, or RESOURCE_EXHAUSTED if it calls faster than the rate.
    pub fn admit(&self, client: &ClientId) -> Result<(), Status> {
        self.spend(client, 1.0).map_err(|wait| {
            Status::resource_exhausted(format!(
                "{client}: over {} {} a second, a client's rate: try again in {} ms",
                self.per_second,
                self.what,
                wait.as_millis()
            ))
        })
    }

    /// `cost` of `client`'s bucket (a call that costs the server more than most counts as
    /// several; at most a whole bucket), or how long until it holds that much.
    pub fn spend(&self, client: &ClientId, cost: f64) -> Result<(), std::time::Duration> {
        let now = std::time::Instant::now();
        let cost = cost.clamp(0.0, self.burst);
        let mut b = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        let (rate, burst) = (self.per_second, self.burst);
        let full =
            |(tokens, at): &(f64, std::time::Instant)| tokens + now.duration_since(*at).as_secs_f64() * rate >= burst;
        if b.len() >= 4096 {
            // A full bucket is as good as none: forget it.
            b.retain(|_, v| !full(v));
        }
        let (tokens, at) = b.entry(client.clone()).or_insert((burst, now));
        *tokens = (*tokens + now.duration_since(*at).as_secs_f64() * rate).min(burst);
        *at = now;
        if *tokens < cost {
            let ms = ((cost - *tokens) / rate * 1000.0).ceil().min(1e12);
            return Err(std::time::Duration::from_millis(ms as u64));
        }
        *tokens -= cost;
        Ok(())
    }

    pub fn per_second(&self) -> f64 {
        self.per_second
    }

    pub fn burst(&self) -> f64 {
        self.burst
    }
}

/// The server-run agents' thinking slots: one semaphore for all, and one per client (of
/// `share` permits) that its agents pass first, so that a client's agents waiting for a slot
/// queue behind each other, not ahead of everyone else's.
pub struct ThinkingSlots {
    pub all: Arc<tokio::sync::Semaphore>,
    slots: usize,
    share: usize,
    by_client: Mutex<HashMap<ClientId, Weak<tokio::sync::Semaphore>>>,
}

impl ThinkingSlots {
    pub fn new(slots: usize, share: usize) -> ThinkingSlots {
        let slots = slots.max(1);
        ThinkingSlots {
            all: Arc::new(tokio::sync::Semaphore::new(slots)),
            slots,
            share: share.clamp(1, slots),
            by_client: Mutex::default(),
        }
    }

    /// The client's own slots (shared by all its matches while any holds them).
    pub fn of(&self, client: &ClientId) -> Arc<tokio::sync::Semaphore> {
        let mut m = self.by_client.lock().unwrap_or_else(|p| p.into_inner());
        m.retain(|_, w| w.strong_count() > 0);
        if let Some(s) = m.get(client).and_then(Weak::upgrade) {
            return s;
        }
        let share = if *client == ClientId::Host { self.slots } else { self.share };
        let s = Arc::new(tokio::sync::Semaphore::new(share));
        m.insert(client.clone(), Arc::downgrade(&s));
        s
    }

    pub fn share(&self) -> usize {
        self.share
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sandbox_is_a_client_of_its_own_whatever_the_ipv6_prefix() {
        for prefix in [16, 32, 56, 64] {
            let (a, b) = (
                ClientId::of_addr(Some(sandbox_addr(4026532301)), prefix),
                ClientId::of_addr(Some(sandbox_addr(4026532302)), prefix),
            );
            assert_eq!(a, ClientId::Sandbox(4026532301));
            assert_ne!(a, b);
        }
        assert_eq!(ClientId::Sandbox(7).stored(), "sandbox:7");
        assert_eq!(ClientId::Sandbox(7).to_string(), "the launched agent of sandbox 7");
        // A real peer's address is never one (100::/64 is discard-only).
        let real: SocketAddr = "[2001:db8::1]:5".parse().unwrap();
        assert!(matches!(ClientId::of_addr(Some(real), 56), ClientId::Addr(..)));
    }

    #[test]
    fn a_share_leaves_room_for_others() {
        let pool = Pool::new("matches", 3, 2);
        let (a, b) = (ClientId::Key("a".into()), ClientId::Key("b".into()));
        let a1 = pool.take(&a).unwrap();
        let _a2 = pool.take(&a).unwrap();
        let e = pool.take(&a).unwrap_err();
        assert!(e.message().contains("2 matches held by client `a`") && e.message().contains("share"), "{e:?}");
        let _b1 = pool.take(&b).unwrap();
        let e = pool.take(&b).unwrap_err();
        assert!(e.message().contains("3 matches already (its limit)"), "{e:?}");
        drop(a1);
        assert_eq!(pool.total(), 2);
        pool.take(&b).unwrap();
    }

    #[test]
    fn a_reserve_keeps_room_for_new_clients_while_the_others_are_at_their_shares() {
        // 10 places, 4 a client, the last 2 for clients holding fewer than 1.
        let pool = Pool::with_reserve("connections", 10, 4, 2);
        let client = |n: u8| ClientId::Addr(IpAddr::from([127, 0, 0, n]), 32);
        let mut held = Vec::new();
        for n in 1..=2 {
            for _ in 0..4 {
                held.push(pool.take(&client(n)).unwrap());
            }
            let e = pool.take(&client(n)).unwrap_err();
            assert!(e.message().contains("a client's share"), "{e:?}");
        }
        // The third reaches the reserve at its first place: refused its second, naming it.
        held.push(pool.take(&client(3)).unwrap());
        let e = pool.take(&client(3)).unwrap_err();
        assert!(e.message().contains("1 connections held by the clients of 127.0.0.3"), "{e:?}");
        assert!(e.message().contains("the last 2 of the 10 are kept for new clients"), "{e:?}");
        // A new client still gets in, one place, until the reserve is spent.
        held.push(pool.take(&client(4)).unwrap());
        let e = pool.take(&client(5)).unwrap_err();
        assert!(e.message().contains("10 connections already (its limit)"), "{e:?}");
        assert_eq!((pool.total(), pool.held_by(&client(1)), pool.reserve()), (10, 4, (2, 1)));
        // The host is bounded by the limit alone.
        drop(held.pop());
        held.push(pool.take(&ClientId::Host).unwrap());
    }

    #[test]
    fn a_place_moves_to_another_client_within_its_share() {
        let pool = Pool::with_reserve("connections", 4, 2, 0);
        let (addr, key) = (ClientId::Addr(IpAddr::from([10, 0, 0, 1]), 32), ClientId::Key("lab".into()));
        let mut first = pool.take(&addr).unwrap();
        let _second = pool.take(&addr).unwrap();
        assert!(pool.take(&addr).is_err(), "the address is at its share");
        first.move_to(&key).unwrap();
        assert_eq!((pool.held_by(&addr), pool.held_by(&key), first.client()), (1, 1, &key));
        // The address has room again; the key's share is its own.
        let mut third = pool.take(&addr).unwrap();
        third.move_to(&key).unwrap();
        let mut fourth = pool.take(&addr).unwrap();
        let e = fourth.move_to(&key).unwrap_err();
        assert!(e.message().contains("2 connections held by client `lab` already"), "{e:?}");
        assert_eq!((pool.held_by(&addr), pool.held_by(&key), fourth.client()), (2, 2, &addr), "left as it was");
        drop(first);
        fourth.move_to(&key).unwrap();
        assert_eq!((pool.total(), pool.held_by(&addr), pool.held_by(&key)), (3, 1, 2));
    }

    #[test]
    fn a_costly_call_takes_more_of_a_rate() {
        let rate = Rate::of("requests", 0.001, 10.0);
        let a = ClientId::Key("a".into());
        rate.spend(&a, 1.0).unwrap();
        let wait = rate.spend(&a, 10.0).unwrap_err();
        assert!(wait.as_secs() >= 999, "a whole bucket, at 0.001 a second: {wait:?}");
        for _ in 0..9 {
            rate.spend(&a, 1.0).unwrap();
        }
        assert!(rate.spend(&a, 1.0).is_err());
        // A cost over the whole bucket waits for a full one, and is not refused for ever.
        rate.spend(&ClientId::Key("b".into()), 1000.0).unwrap();
    }

    #[test]
    fn a_clients_agents_wait_behind_its_own_share() {
        let slots = ThinkingSlots::new(2, 1);
        let (a, b) = (ClientId::Key("a".into()), ClientId::Key("b".into()));
        let a1 = slots.of(&a).try_acquire_owned().unwrap();
        assert!(slots.of(&a).try_acquire_owned().is_err(), "a's second agent waits for a's own slot");
        let _b1 = slots.of(&b).try_acquire_owned().unwrap();
        drop(a1);
        assert!(slots.of(&a).try_acquire_owned().is_ok());
        assert_eq!(slots.share(), 1);
    }

    #[test]
    fn a_client_past_its_rate_waits_and_others_do_not() {
        let rate = Rate::new(1.0, 3.0);
        let (a, b) = (ClientId::Key("a".into()), ClientId::Key("b".into()));
        for _ in 0..3 {
            rate.admit(&a).unwrap();
        }
        let e = rate.admit(&a).unwrap_err();
        assert!(
            e.message().contains("client `a`: over 1 calls a second") && e.message().contains("try again"),
            "{e:?}"
        );
        rate.admit(&b).unwrap();
    }

    #[test]
    fn addresses_and_keys() {
        let v6 = ClientId::of_addr(Some("[2001:db8:1:2:3:4:5:6]:9".parse().unwrap()), 64);
        assert_eq!(v6, ClientId::of_addr(Some("[2001:db8:1:2:ff::1]:10".parse().unwrap()), 64), "one /64");
        // At /56, the 256 /64s of one home are one client; the next /56 is another.
        let home = ClientId::of_addr(Some("[2001:db8:1:200::1]:9".parse().unwrap()), 56);
        assert_eq!(home, ClientId::of_addr(Some("[2001:db8:1:2ff:1:2:3:4]:9".parse().unwrap()), 56));
        assert_ne!(home, ClientId::of_addr(Some("[2001:db8:1:300::1]:9".parse().unwrap()), 56));
        assert_eq!(home.to_string(), "the clients of 2001:db8:1:200::/56");
        assert_eq!(home.stored(), "addr:2001:db8:1:200::/56");
        assert_eq!(
            ClientId::of_addr(Some("[::ffff:10.0.0.1]:1".parse().unwrap()), 56),
            ClientId::of_addr(Some("10.0.0.1:2".parse().unwrap()), 56)
        );
        let keys = ClientKeys::new(
            HashMap::from([("lab".to_string(), "k".repeat(16)), ("class".to_string(), "c".repeat(16))]),
            KeyRequired::ToCreate,
        )
        .unwrap();
        let addr = Some("10.0.0.1:2".parse().unwrap());
        assert_eq!(keys.identify(Some("k".repeat(16).as_bytes()), addr, true).unwrap(), ClientId::Key("lab".into()));
        assert_eq!(keys.identify(Some(b"nope"), addr, false).unwrap_err().code(), tonic::Code::Unauthenticated);
        assert_eq!(keys.identify(None, addr, true).unwrap_err().code(), tonic::Code::Unauthenticated);
        assert_eq!(keys.identify(None, addr, false).unwrap(), ClientId::of_addr(addr, DEFAULT_V6_PREFIX));
        assert!(ClientKeys::new(HashMap::from([("x".to_string(), "short".to_string())]), KeyRequired::Never).is_err());
    }
}
