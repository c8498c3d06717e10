//! The server's shared state: matches (and the secret tokens of their seats and creators),
//! connected Play clients and the names they hold, limits, and the log of finished matches.
//!
//! Every field of a request may come from a stranger: values are checked against a bound and
//! never used as paths ([`ContentDir`] is the only reader of files, and only of the operator's
//! directory); a match without a seed is dealt from the operating system's entropy; finished
//! matches are evicted after a while, their records written first.

use super::content::{ContentDir, brief};
use super::names;
use super::session::Session;
use super::shares::{ClientId, ClientKeys, Held, KeyRequired, Pool, Rate, ThinkingSlots, same_secret};
use super::table::{Limits, SeatBinding, Setup, SharedDeal, Table};
use crate::files::shown;
use crate::referee::{MatchOutcome, Policy, Verdict, as_ms, limit_ms};
use bots::{Agent, BotLimits, BotSpec};
use engine::core::yaml::{YamlBudget, YamlLimits};
use engine::core::{AnyGame, AnySpec, ParamSource};
use engine::find_game;
use proto::v1;
use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};
use tonic::Status;

/// Agents of the embedding program, by the name a seat gives (`seats { bot: NAME }`), tried
/// before the built-in ones: `None` for a name it does not know. Their work is theirs to
/// bound (the bot caps apply to the built-in agents); the per-move limit applies to all.
#[derive(Clone)]
pub struct AgentMaker(pub Arc<MakeAgent>);

pub type MakeAgent = dyn Fn(&str, &dyn AnySpec, u64) -> Option<Result<Box<dyn Agent>, String>> + Send + Sync;

impl std::fmt::Debug for AgentMaker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AgentMaker")
    }
}

/// Who may hold a Play name, beyond the server's own checks: a ladder's rules for its agents
/// (names are stored for good there, so new ones are a bounded resource). Asked when a stream
/// says Hello, after the name's key and the streams' shares were checked, before the name is
/// taken; a refusal is the Hello's answer.
pub trait NameGate: Send + Sync {
    fn admit(&self, session: &Session) -> Result<(), Status>;
}

/// What a Play stream's Welcome tells of the house it joined (a ladder, a tournament).
#[derive(Clone, Debug, Default)]
pub struct House {
    /// The ladder's name (empty: not a ladder).
    pub ladder: String,
    /// The tournament's name (empty: not a tournament).
    pub tournament: String,
    /// The games it plays, as Hello.games names them (`expedition:no-dice`).
    pub games: Vec<String>,
    /// The per-move limit of its games, in milliseconds (0: none).
    pub move_time_ms: u32,
}

/// How the server behaves, and its limits.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Matches in play at once; more are refused (RESOURCE_EXHAUSTED).
    pub max_matches: usize,
    /// The largest message the server accepts.
    pub max_message_bytes: usize,
    /// The per-move limit when a match names none.
    pub move_time: Option<Duration>,
    /// The longest per-move limit a match may ask for (a longer one is refused).
    pub max_move_time: Duration,
    /// What happens to a seat that does not move in time, when a match names no policy.
    pub policy: Policy,
    /// A match in which no seat acts for this long ends (verdict `idle`).
    pub idle: Option<Duration>,
    /// Finished matches are kept (for GetRecord and late spectators) this long…
    pub keep_finished_for: Duration,
    /// …and at most this many (the oldest evicted first).
    pub keep_finished: usize,
    /// What a server-run agent may be asked.
    pub bot_limits: BotLimits,
    /// Server-run agents thinking at once (more wait for a slot).
    pub bot_slots: usize,
    /// Play streams at once (keyed names' streams besides: they are always let in).
    pub max_sessions: usize,
    /// Spectator and Watch streams at once.
    pub max_spectators: usize,
    /// TCP connections open at once (one past it, or past its address's share, is closed as it
    /// arrives).
    pub max_connections: usize,
    /// Calls being read and built at once (CreateMatch, DescribeGame); more are refused.
    pub max_calls: usize,
    /// What one client may hold of each pool.
    pub shares: Shares,
    /// What the YAML of one request (its parameters and scenario together) may describe.
    pub yaml: YamlLimits,
    /// Clients by name and key (`--client-keys`), and the calls that need a key.
    pub client_keys: HashMap<String, String>,
    pub require_key: KeyRequired,
    /// Faults (StreamError) a Play stream may make before it is closed.
    pub max_stream_faults: u32,
    /// Names only the holder of their key may take.
    pub bot_keys: HashMap<String, String>,
    /// Only the names of `bot_keys` (and their versions) may say Hello (a keyed ladder).
    pub only_keyed_names: bool,
    /// The operator's content sets, offered by name.
    pub content_dir: Option<PathBuf>,
    /// Append the record of every finished match to this file (one JSON object per line).
    pub records: Option<PathBuf>,
    /// Note the time of every Play round trip (for `arena bench-wire`).
    pub measure_latency: bool,
    /// Agents of the embedding program (none for `arena serve`).
    pub agents: Option<AgentMaker>,
    /// Clients without a key are told apart by address: IPv4, or IPv6 networks of this many bits.
    pub ipv6_prefix: u8,
    /// A Play client is seated in a match someone else creates only if its Hello accepts
    /// challenges (a ladder's clients play its pairings).
    pub challenges_need_consent: bool,
    /// Listen on this Unix socket too (its folder the caller's; the socket made, and removed
    /// when the server stops): for agents in sandboxes without a network.
    pub unix_socket: Option<PathBuf>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            max_matches: 1000,
            max_message_bytes: 1 << 20,
            move_time: Some(Duration::from_secs(30)),
            max_move_time: Duration::from_secs(60),
            policy: Policy::Forfeit,
            idle: Some(Duration::from_secs(300)),
            keep_finished_for: Duration::from_secs(600),
            keep_finished: 1000,
            bot_limits: BotLimits::default(),
            bot_slots: std::thread::available_parallelism().map_or(2, |n| n.get()),
            max_sessions: 256,
            max_spectators: 1024,
            max_connections: 4096,
            max_calls: 64,
            shares: Shares::default(),
            yaml: WIRE_YAML,
            client_keys: HashMap::new(),
            require_key: KeyRequired::Never,
            max_stream_faults: 100,
            bot_keys: HashMap::new(),
            only_keyed_names: false,
            content_dir: None,
            records: None,
            measure_latency: false,
            agents: None,
            ipv6_prefix: super::shares::DEFAULT_V6_PREFIX,
            challenges_need_consent: false,
            unix_socket: None,
        }
    }
}

/// The YAML one request may carry by default: some 20 times the largest content set a game
/// ships (expedition's: 557 nodes, 4 kB of scalars) and far under what would weigh on memory.
pub const WIRE_YAML: YamlLimits = YamlLimits { nodes: 10_000, bytes: 256 << 10, depth: 32 };

/// What one client may hold of each pool (a client: a key's holder, or an address).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shares {
    pub matches: usize,
    pub play_streams: usize,
    pub spectators: usize,
    pub calls: usize,
    /// Calls being read a client may start a second (five times as many at once after a pause).
    pub calls_per_second: f64,
    /// Of the server-run agents' thinking slots.
    pub bot_slots: usize,
    /// Of the TCP connections (by address: a key is told only in a call).
    pub connections: usize,
}

impl Shares {
    /// Every pool whole to any client: for a server only its operator's own programs reach
    /// (a tournament's, for its external participants).
    pub const WHOLE: Shares = Shares {
        matches: usize::MAX,
        play_streams: usize::MAX,
        spectators: usize::MAX,
        calls: usize::MAX,
        calls_per_second: f64::INFINITY,
        bot_slots: usize::MAX,
        connections: usize::MAX,
    };
}

impl Default for Shares {
    /// A tenth of the matches, a sixteenth of the streams and spectators, four calls at once
    /// and twenty a second, and half the thinking slots (at least one).
    fn default() -> Shares {
        let slots = std::thread::available_parallelism().map_or(2, |n| n.get());
        Shares {
            matches: 100,
            play_streams: 16,
            spectators: 64,
            calls: 4,
            calls_per_second: 20.0,
            bot_slots: (slots / 2).max(1),
            connections: 64,
        }
    }
}

impl ServerConfig {
    /// The limits as the catalogue tells them.
    pub fn limits(&self) -> v1::ServerLimits {
        let ms = |d: Option<Duration>| as_ms(d).min(u64::from(u32::MAX)) as u32;
        v1::ServerLimits {
            default_move_time_ms: ms(self.move_time),
            max_move_time_ms: ms(Some(self.max_move_time)),
            idle_ms: ms(self.idle),
            max_matches: self.max_matches as u32,
            keep_finished_ms: ms(Some(self.keep_finished_for)),
            keep_finished: self.keep_finished as u32,
            max_bot_iterations: self.bot_limits.iterations,
            max_bot_samples: self.bot_limits.samples,
            max_bot_threads: self.bot_limits.threads,
            max_bot_ms: ms(Some(self.bot_limits.time)),
            max_message_bytes: self.max_message_bytes as u32,
            max_yaml_nodes: self.yaml.nodes.min(u64::from(u32::MAX)) as u32,
            max_yaml_bytes: self.yaml.bytes.min(u64::from(u32::MAX)) as u32,
            max_yaml_depth: self.yaml.depth,
            max_play_streams: self.max_sessions as u32,
            max_spectators: self.max_spectators as u32,
            bot_slots: self.bot_slots as u32,
            max_calls: self.max_calls as u32,
            share_matches: self.shares.matches.min(self.max_matches) as u32,
            share_play_streams: self.shares.play_streams.min(self.max_sessions) as u32,
            share_spectators: self.shares.spectators.min(self.max_spectators) as u32,
            share_calls: self.shares.calls.min(self.max_calls) as u32,
            share_calls_per_second: if self.shares.calls_per_second.is_finite() {
                self.shares.calls_per_second as f32
            } else {
                0.0
            },
            share_bot_slots: self.shares.bot_slots.min(self.bot_slots) as u32,
            create_needs_key: self.require_key != KeyRequired::Never,
            max_connections: self.max_connections.min(u32::MAX as usize) as u32,
            share_connections: self.shares.connections.min(self.max_connections).min(u32::MAX as usize) as u32,
        }
    }

    fn check(&self) -> Result<(), String> {
        if let Some(t) = self.move_time
            && t > self.max_move_time
        {
            return Err(format!(
                "the default per-move limit ({} ms) is over the cap a match may ask for ({} ms)",
                t.as_millis(),
                self.max_move_time.as_millis()
            ));
        }
        if let Some(idle) = self.idle
            && idle <= self.max_move_time
        {
            return Err(format!(
                "the idle limit ({} ms) must be longer than the per-move cap ({} ms): a seat thinking within its \
                 limit is not idle",
                idle.as_millis(),
                self.max_move_time.as_millis()
            ));
        }
        let mut folded = HashMap::new();
        for (name, key) in &self.bot_keys {
            if !super::content::is_bare_name(name) || key.len() < 8 {
                return Err(format!(
                    "--bot-key {name}=…: a name of letters, digits, `_` and `-`, and a key of 8 characters or more"
                ));
            }
            if let Some(other) = folded.insert(names::fold(name), name) {
                return Err(format!("--bot-key: `{name}` and `{other}` are one name (they look alike)"));
            }
        }
        if !(16..=128).contains(&self.ipv6_prefix) {
            return Err(format!("the IPv6 prefix length is 16 to 128 bits, not {}", self.ipv6_prefix));
        }
        if self.max_matches == 0
            || self.max_sessions == 0
            || self.max_spectators == 0
            || self.max_calls == 0
            || self.max_connections == 0
        {
            return Err("every pool holds at least one: matches, Play streams, spectators, calls, connections".into());
        }
        Ok(())
    }
}

/// Bounds on what a request may carry besides the message size.
const MAX_PARAMS: usize = 64;
const MAX_NAME: usize = names::MAX_NAME;
const MAX_BOT_SPEC: usize = 256;

/// What a match played elsewhere and shown here is ([`Hub::show`]).
pub struct Shown {
    pub game: String,
    pub spec: Arc<dyn AnySpec>,
    pub seed: u64,
    /// The scenario it started from (empty: a fresh deal).
    pub scenario: String,
    /// Who sits at each seat.
    pub players: Vec<String>,
    /// The per-move limit it is played under (shown, not enforced here).
    pub move_time: Option<Duration>,
}

/// What a match is opened with, its request read.
struct Opening<'a> {
    game: &'a str,
    /// The preset it is played under (a Play client's Hello may name it: `game:preset`).
    preset: &'a str,
    spec: Arc<dyn AnySpec>,
    limits: Limits,
    seed: u64,
    seats: &'a [v1::SeatSpec],
    /// What a built-in agent's seat is called in lists, events and the record (a ladder's
    /// anchor: its name in the standings); none given: its agent spec.
    names: &'a [String],
    scenario: &'a str,
}

struct Finished {
    id: String,
    at: Instant,
}

pub struct Hub {
    pub config: ServerConfig,
    content: ContentDir,
    tables: Mutex<HashMap<String, Arc<Table>>>,
    finished: Mutex<VecDeque<Finished>>,
    tokens: Mutex<HashMap<String, (String, usize)>>,
    /// Live Play clients by the name each holds (folded: names that look alike are one).
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    /// Keyed names, folded: (the name as the operator wrote it, its key).
    bot_keys: HashMap<String, (String, String)>,
    /// Names reserved for agents the arena launches (a ladder's submissions), folded, and the
    /// key each launch was given: only it may hold the name, past the name rules and the gate.
    launches: Mutex<HashMap<String, String>>,
    /// The clients' keys, and who needs one.
    pub clients: ClientKeys,
    /// Woken when a Play client takes a name.
    registered: tokio::sync::Notify,
    /// Counts the Play clients' arrivals and departures (a ladder's standings tell who is
    /// connected: they are sent again on each).
    roster: tokio::sync::watch::Sender<u64>,
    /// Who may hold a name, beyond the server's checks (a ladder's rules).
    gate: std::sync::OnceLock<Weak<dyn NameGate>>,
    /// What a Welcome tells of the house, when a ladder set it (else the server's own).
    house: std::sync::OnceLock<House>,
    pub next_request: Arc<AtomicU64>,
    records: Option<Mutex<std::fs::File>>,
    /// Set when the server stops: long-lived streams (Play, Spectate) end.
    pub stopping: tokio::sync::watch::Sender<bool>,
    /// Every Play round trip, when measured.
    pub latencies: Option<Arc<Mutex<Vec<Duration>>>>,
    /// Matches not over yet.
    matches: Arc<Pool>,
    /// Play streams of names without a key.
    streams: Arc<Pool>,
    /// Spectator and Watch streams.
    pub spectators: Arc<Pool>,
    /// TCP connections, by address.
    pub connections: Arc<Pool>,
    /// Calls being read and built, and how fast each client may start them.
    pub calls: Arc<Pool>,
    pub call_rate: Rate,
    thinking: ThinkingSlots,
    /// The threads server-run agents think on, one per slot, below the request path.
    thinkers: Arc<super::thinkers::Thinkers>,
    /// The threads calls are read and built on (a stranger's YAML, a game's page), one per
    /// core, below the request path too.
    pub readers: Arc<super::thinkers::Thinkers>,
    /// The runtime the matches are driven on.
    runtime: tokio::runtime::Handle,
}

/// 128 random bits from the operating system, as hex.
pub fn secret() -> Result<String, Status> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| Status::internal(format!("no randomness for a token: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// A seed from the operating system's entropy.
pub fn secret_seed() -> Result<u64, Status> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(|e| Status::internal(format!("no randomness for a seed: {e}")))?;
    Ok(u64::from_le_bytes(bytes))
}

impl Hub {
    pub fn new(config: ServerConfig) -> Result<Arc<Hub>, String> {
        config.check()?;
        let content = match &config.content_dir {
            Some(dir) => ContentDir::open(dir)?,
            None => ContentDir::none(),
        };
        let records = match &config.records {
            Some(path) => Some(Mutex::new(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .map_err(|e| format!("cannot open {}: {e}", path.display()))?,
            )),
            None => None,
        };
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| "the hub needs a tokio runtime".to_string())?;
        let mut clients = ClientKeys::new(config.client_keys.clone(), config.require_key)?;
        clients.v6_prefix = config.ipv6_prefix;
        let bot_keys =
            config.bot_keys.iter().map(|(name, key)| (names::fold(name), (name.clone(), key.clone()))).collect();
        let sh = config.shares;
        let hub = Arc::new(Hub {
            content,
            tables: Mutex::new(HashMap::new()),
            finished: Mutex::new(VecDeque::new()),
            tokens: Mutex::new(HashMap::new()),
            sessions: Mutex::new(HashMap::new()),
            bot_keys,
            launches: Mutex::new(HashMap::new()),
            clients,
            registered: tokio::sync::Notify::new(),
            roster: tokio::sync::watch::channel(0).0,
            gate: std::sync::OnceLock::new(),
            house: std::sync::OnceLock::new(),
            next_request: Arc::new(AtomicU64::new(1)),
            records,
            stopping: tokio::sync::watch::channel(false).0,
            latencies: config.measure_latency.then(|| Arc::new(Mutex::new(Vec::new()))),
            matches: Pool::new("matches in play", config.max_matches, sh.matches),
            streams: Pool::new("Play streams", config.max_sessions, sh.play_streams),
            // The last eighth kept for new clients: the web face's event streams are among them.
            spectators: Pool::with_reserve(
                "spectator streams",
                config.max_spectators,
                sh.spectators,
                config.max_spectators / 8,
            ),
            calls: Pool::new("calls being read", config.max_calls, sh.calls),
            connections: Pool::new("connections", config.max_connections, sh.connections),
            call_rate: Rate::new(sh.calls_per_second, sh.calls_per_second * 5.0),
            thinking: ThinkingSlots::new(config.bot_slots, sh.bot_slots),
            thinkers: super::thinkers::Thinkers::new("thinker", config.bot_slots)?,
            readers: super::thinkers::Thinkers::new(
                "reader",
                std::thread::available_parallelism().map_or(2, |n| n.get()),
            )?,
            config,
            runtime,
        });
        // Evict finished matches as they age, while the server runs.
        let weak: Weak<Hub> = Arc::downgrade(&hub);
        let stopped = hub.stopped();
        hub.runtime.spawn(async move {
            tokio::pin!(stopped);
            let mut tick = tokio::time::interval(Duration::from_millis(500));
            loop {
                tokio::select! {
                    _ = tick.tick() => {}
                    _ = &mut stopped => return,
                }
                match weak.upgrade() {
                    Some(hub) => hub.evict(),
                    None => return,
                }
            }
        });
        Ok(hub)
    }

    pub fn table(&self, id: &str) -> Result<Arc<Table>, Status> {
        self.tables.lock().expect("tables").get(id).cloned().ok_or_else(|| {
            Status::not_found(format!("unknown match `{}` (finished matches are kept for a while only)", shown(id)))
        })
    }

    /// The match and seat a token opens; refused unless it is that match's.
    pub fn seat_of(&self, match_id: &str, token: &str) -> Result<(Arc<Table>, usize), Status> {
        let table = self.table(match_id)?;
        match self.tokens.lock().expect("tokens").get(token) {
            Some((m, seat)) if m == match_id => Ok((table, *seat)),
            _ => Err(Status::permission_denied(format!("this token opens no seat of match `{}`", shown(match_id)))),
        }
    }

    /// The match a creator token opens.
    pub fn created(&self, match_id: &str, creator_token: &str) -> Result<Arc<Table>, Status> {
        let table = self.table(match_id)?;
        if creator_token.is_empty() || !same_secret(&table.setup.creator, creator_token) {
            return Err(Status::permission_denied(format!(
                "this is not the creator token of match `{}`",
                shown(match_id)
            )));
        }
        Ok(table)
    }

    /// A call that is read and built (CreateMatch, DescribeGame; the web face's new match) from
    /// the holder of `key` or the peer at `addr`: admitted at its client's rate, or refused.
    pub fn admit_call(
        &self,
        key: Option<&[u8]>,
        addr: Option<std::net::SocketAddr>,
        creates: bool,
    ) -> Result<(), Status> {
        self.clients.identify(key, addr, creates).and_then(|client| self.call_rate.admit(&client))
    }

    /// Matches not over yet.
    pub fn active(&self) -> usize {
        self.matches.total()
    }

    /// Up to `at_most` matches not over yet, the last to move first: (id, game, who sits where, the
    /// match's version; none for a match whose deal holds back what it shows).
    pub fn in_play(&self, at_most: usize) -> Vec<(String, String, Vec<String>, Option<u64>)> {
        let tables: Vec<Arc<Table>> = self.tables.lock().expect("tables").values().cloned().collect();
        let mut out: Vec<_> = tables
            .iter()
            .filter_map(|t| {
                let held = t.moves_held_by().is_some();
                let s = t.lock();
                let version = (!held).then_some(s.version);
                s.ended.is_none().then(|| {
                    (s.last_acted, (t.setup.id.clone(), t.setup.game_name.clone(), t.setup.players.clone(), version))
                })
            })
            .collect();
        out.sort_by_key(|(at, _)| std::cmp::Reverse(*at));
        out.into_iter().take(at_most).map(|(_, m)| m).collect()
    }

    /// Up to `at_most` finished matches still held, the last to end first.
    pub fn recently_finished(&self, at_most: usize) -> Vec<Arc<Table>> {
        let ids: Vec<String> =
            self.finished.lock().expect("finished").iter().rev().take(at_most).map(|f| f.id.clone()).collect();
        let tables = self.tables.lock().expect("tables");
        ids.iter().filter_map(|id| tables.get(id).cloned()).collect()
    }

    /// Matches held in memory (in play and finished, not yet evicted).
    pub fn held(&self) -> usize {
        self.tables.lock().expect("tables").len()
    }

    /// The content sets offered by name.
    pub fn content_sets(&self) -> Vec<String> {
        self.content.names()
    }

    /// Set who may hold a name beyond the server's checks (once; a ladder, as it opens).
    pub fn set_gate(&self, gate: Weak<dyn NameGate>) {
        let _ = self.gate.set(gate);
    }

    /// What the Welcome of every Play stream tells of this house from now on (once; a ladder,
    /// as it opens).
    pub fn set_house(&self, house: House) {
        let _ = self.house.set(house);
    }

    /// The Welcome of the Play stream `session`: the house's name, the games it plays (as
    /// Hello.games names them) and the per-move limit its games are played under.
    pub fn welcome(&self, session: &str) -> v1::Welcome {
        // A plain server: every game, its own per-move limit.
        let House { ladder, tournament, games, move_time_ms } = self.house.get().cloned().unwrap_or_else(|| House {
            games: engine::games().iter().map(|g| g.name.to_string()).collect(),
            move_time_ms: as_ms(self.config.move_time).min(u64::from(u32::MAX)) as u32,
            ..House::default()
        });
        v1::Welcome { session: session.to_string(), ladder, games, move_time_ms, tournament }
    }

    /// Who a Play client saying Hello as `name` with the name's key `key` is: the holder of
    /// the name's key when the name has one and `key` is it, else `client`.
    /// Does the name (or its base, `name@version`) have a key on this server?
    pub fn is_keyed(&self, name: &str) -> bool {
        self.bot_keys.contains_key(&names::fold(names::base(name)))
    }

    pub fn owner_of(&self, name: &str, key: &str, client: &ClientId) -> ClientId {
        let base = names::fold(names::base(name));
        match self.bot_keys.get(&base) {
            Some((_, k)) if same_secret(k, key) => ClientId::Name(base),
            _ => client.clone(),
        }
    }

    /// Give `session` its name: refused if another client's live stream holds it or a name
    /// that looks like it (ALREADY_EXISTS), if the name has a key and `key` is not it
    /// (PERMISSION_DENIED), if `client` holds its share of the streams (RESOURCE_EXHAUSTED), or
    /// by the gate (a ladder's rules). The same owner (the key holder, or the same client)
    /// takes the name over from an older stream of its own: a restarted agent gets its name
    /// back at once, however its old stream died. A keyed name's stream is always let in.
    pub fn register(&self, session: Arc<Session>, key: &str, client: &ClientId) -> Result<(), Status> {
        let folded = names::fold(&session.name);
        let launch = self.launches.lock().expect("launches").get(&folded).cloned();
        if let Some(k) = launch {
            // A launched agent's name: its key, once; no share, no gate (its launcher's).
            if !same_secret(&k, key) {
                return Err(Status::permission_denied(format!(
                    "the name `{}` is reserved for an agent this server launches",
                    session.name
                )));
            }
            let mut sessions = self.sessions.lock().expect("sessions");
            sessions.retain(|_, s| s.is_alive());
            if sessions.contains_key(&folded) {
                return Err(Status::already_exists(format!(
                    "the launched agent `{}` is connected already",
                    session.name
                )));
            }
            sessions.insert(folded, session);
            drop(sessions);
            self.registered.notify_waiters();
            self.roster.send_modify(|n| *n += 1);
            return Ok(());
        }
        // A name's key covers every version of it (`mine@2` is mine's).
        let keyed = self.bot_keys.get(&names::fold(names::base(&session.name)));
        if keyed.is_none() && self.config.only_keyed_names {
            return Err(Status::permission_denied(format!(
                "`{}`: only the names the operator gave a key may join here",
                session.name
            )));
        }
        if let Some((name, k)) = keyed
            && !same_secret(k, key)
        {
            return Err(Status::permission_denied(format!(
                "the name `{name}` is reserved (`{}` is the same name): its holder says Hello with its key",
                session.name
            )));
        }
        let mut sessions = self.sessions.lock().expect("sessions");
        sessions.retain(|_, s| s.is_alive());
        let old = sessions.get(&folded).cloned();
        if let Some(old) = &old
            && (old.owner != session.owner || session.owner == ClientId::Unknown)
        {
            return Err(Status::already_exists(format!(
                "the name `{}` is held by another client's live Play stream (as `{}`: names that look alike are one)",
                session.name, old.name
            )));
        }
        if keyed.is_none() {
            session.hold(self.streams.take(client)?);
        }
        if let Some(gate) = self.gate.get().and_then(Weak::upgrade) {
            gate.admit(&session)?;
        }
        if let Some(old) = old {
            tracing::info!(name = %session.name, "a newer stream of the same owner takes the name over");
            old.end_with(Status::already_exists("a newer stream of this name's owner took the name over"));
        }
        sessions.insert(folded, session);
        self.registered.notify_waiters();
        self.roster.send_modify(|n| *n += 1);
        Ok(())
    }

    /// Reserve `name` for an agent the server launches, which says Hello with `key`.
    pub fn reserve_launch(&self, name: &str, key: &str) {
        self.launches.lock().expect("launches").insert(names::fold(name), key.to_string());
    }

    /// The launch is over: its name is no longer reserved.
    pub fn release_launch(&self, name: &str) {
        self.launches.lock().expect("launches").remove(&names::fold(name));
    }

    /// The session `id` ended: its name is free again.
    pub fn unregister(&self, name: &str, id: &str) {
        let folded = names::fold(name);
        let mut sessions = self.sessions.lock().expect("sessions");
        if sessions.get(&folded).is_some_and(|s| s.id == id) {
            sessions.remove(&folded);
            drop(sessions);
            self.roster.send_modify(|n| *n += 1);
        }
    }

    /// Changes each time a Play client takes a name or gives it up.
    pub fn roster(&self) -> tokio::sync::watch::Receiver<u64> {
        self.roster.subscribe()
    }

    /// A Play client resigns a seat it plays: at its table for a match of this server, else
    /// a seat of a tournament game it plays through the stream. Any other seat is refused and
    /// changes nothing.
    pub fn resign_play(&self, session: &Session, r: &v1::Resign) -> Result<(), super::session::StreamFault> {
        match self.table(&r.match_id) {
            Ok(table) => table.resign_play(session, r.seat),
            Err(_) => session.resign(&r.match_id, r.seat),
        }
    }

    /// The connected Play client with this name.
    pub fn session(&self, name: &str) -> Option<Arc<Session>> {
        self.sessions.lock().expect("sessions").get(&names::fold(name)).filter(|s| s.is_alive()).cloned()
    }

    /// Wait until a Play client with this name is connected (woken by each new one).
    pub async fn wait_for_session(&self, name: &str, timeout: Duration) -> Option<Arc<Session>> {
        let end = tokio::time::Instant::now() + timeout;
        loop {
            let registered = self.registered.notified();
            tokio::pin!(registered);
            registered.as_mut().enable();
            if let Some(s) = self.session(name) {
                return Some(s);
            }
            if tokio::time::timeout_at(end, registered).await.is_err() {
                return None;
            }
        }
    }

    /// Create a match for `client` and start driving it (a place of its share of the matches
    /// held until the match is over).
    pub fn create(
        self: &Arc<Hub>,
        req: v1::CreateMatchRequest,
        client: &ClientId,
    ) -> Result<v1::CreateMatchResponse, Status> {
        // The place is taken first (two creations at the same time cannot both take the last
        // one); a creation that fails below gives it back.
        let place = self.matches.take(client)?;
        self.create_counted(req, place, client)
    }

    /// The per-move limit and policy a request asks for, within the server's bounds.
    fn limits(&self, req: &v1::CreateMatchRequest) -> Result<Limits, Status> {
        let policy = match v1::TimeoutPolicy::try_from(req.on_timeout) {
            Ok(v1::TimeoutPolicy::Unspecified) => self.config.policy,
            Ok(v1::TimeoutPolicy::Forfeit) => Policy::Forfeit,
            Ok(v1::TimeoutPolicy::RandomMove) => Policy::RandomMove,
            Err(_) => return Err(Status::invalid_argument(format!("on_timeout: unknown policy {}", req.on_timeout))),
        };
        // 0 here is the server's default, not "no limit".
        let move_time = match limit_ms(req.move_time_ms.into()) {
            Some(asked) if asked > self.config.max_move_time => {
                return Err(Status::invalid_argument(format!(
                    "move_time_ms: {} ms is over this server's cap of {} ms",
                    req.move_time_ms,
                    self.config.max_move_time.as_millis()
                )));
            }
            Some(asked) => Some(asked),
            None => self.config.move_time,
        };
        // A bank: bounded by the cap (ten moves' worth of it; its increment one), and only
        // beside a per-move limit.
        let bank = match (req.bank_ms, req.bank_increment_ms) {
            (0, 0) => None,
            (0, _) => return Err(Status::invalid_argument("bank_increment_ms: there is no bank (bank_ms is 0)")),
            (base, increment) => {
                let cap = self.config.max_move_time;
                if Duration::from_millis(base.into()) > cap * 10 {
                    return Err(Status::invalid_argument(format!(
                        "bank_ms: {base} ms is over this server's cap of {} ms (10 times its cap on the per-move limit)",
                        (cap * 10).as_millis()
                    )));
                }
                if Duration::from_millis(increment.into()) > cap {
                    return Err(Status::invalid_argument(format!(
                        "bank_increment_ms: {increment} ms is over this server's cap of {} ms",
                        cap.as_millis()
                    )));
                }
                if move_time.is_none() {
                    return Err(Status::invalid_argument(
                        "bank_ms: a bank is drawn on past a per-move limit, and this match has none",
                    ));
                }
                Some(crate::referee::Clock::from_ms(base.into(), increment.into()))
            }
        };
        Ok(Limits { move_time, bank, policy, idle: self.config.idle })
    }

    /// The game a request names, its parameters resolved: every YAML value weighed against one
    /// budget for the request first, the content sets read only through the server's loader.
    /// Errors quote at most a short prefix of a value, and never a file: a set of the
    /// operator's that does not read is logged for the operator, and the client told only so.
    pub fn spec(&self, req: &v1::CreateMatchRequest) -> Result<Arc<dyn AnySpec>, Status> {
        let entry = find_game(&req.game).map_err(|_| {
            let names: Vec<_> = engine::games().iter().map(|g| g.name).collect();
            Status::invalid_argument(format!(
                "game: unknown game `{}`; the games are: {}",
                shown(&req.game),
                names.join(", ")
            ))
        })?;
        if req.params.len() > MAX_PARAMS {
            return Err(Status::invalid_argument(format!(
                "params: {} entries, at most {MAX_PARAMS}",
                req.params.len()
            )));
        }
        if req.preset.len() > MAX_NAME {
            return Err(Status::invalid_argument(format!("preset: unknown preset `{}`", shown(&req.preset))));
        }
        let mut keys: Vec<_> = req.params.iter().collect();
        keys.sort();
        let mut budget = YamlBudget::new(self.config.yaml);
        let mut sources = Vec::new();
        for (k, v) in keys {
            if k.len() > MAX_NAME {
                return Err(Status::invalid_argument(format!("params: unknown parameter `{}`", shown(k))));
            }
            budget.check(v).map_err(|e| Status::invalid_argument(format!("params.{}: {e}", shown(k))))?;
            sources.push(ParamSource::KeyValue { key: k.clone(), value: v.clone() });
        }
        budget.check(&req.scenario).map_err(|e| Status::invalid_argument(format!("scenario: {e}")))?;
        let preset = (!req.preset.is_empty()).then_some(req.preset.as_str());
        // The server's loader: nothing but a bare name from the operator's content directory.
        let opened = AtomicBool::new(false);
        let load = |name: &str| {
            let text = self.content.load(name)?;
            budget.clone().check(&text).map_err(|e| {
                tracing::warn!("content set `{name}` of --content-dir: {e}");
                "this server's set does not read (its operator's log says why)".to_string()
            })?;
            opened.store(true, std::sync::atomic::Ordering::Relaxed);
            Ok(text)
        };
        let spec = (entry.spec)(preset, &sources, &load).map_err(|e| {
            if opened.load(std::sync::atomic::Ordering::Relaxed) {
                tracing::warn!("a request naming a set of --content-dir: {e}");
                Status::invalid_argument(
                    "params: with this server's content set, the parameters do not read (its operator's log says \
                     why)",
                )
            } else {
                Status::invalid_argument(format!("params: {}", brief(&e.to_string())))
            }
        })?;
        Ok(Arc::from(spec))
    }

    fn create_counted(
        self: &Arc<Hub>,
        req: v1::CreateMatchRequest,
        place: Held,
        client: &ClientId,
    ) -> Result<v1::CreateMatchResponse, Status> {
        let spec = self.spec(&req)?;
        let limits = self.limits(&req)?;
        // No seed: one nobody knows. A seed given is the creator's choice (the contract warns).
        let seed = match req.seed {
            Some(s) => s,
            None => secret_seed()?,
        };
        let preset = match req.preset.as_str() {
            "" => engine::find_game(&req.game).map_or("", |e| e.default_preset),
            named => named,
        };
        let opening = Opening {
            game: &req.game,
            preset,
            spec,
            limits,
            seed,
            seats: &req.seats,
            names: &[],
            scenario: &req.scenario,
        };
        self.open(opening, place, client, None).map(|(_, response)| response)
    }

    /// A match the program that runs the server makes for itself (a ladder's): its game
    /// resolved already, each seat a built-in agent (not capped by the wire's bot limits: the
    /// operator chose it) or a connected Play client. Its place among the matches in play is
    /// `client`'s (`ClientId::Host` for the program's own games; a stranger's challenge on a
    /// ladder takes it from the stranger's share: one client cannot fill the pool with them).
    /// On a shared `deal`, its moves and record are held back until the deal is released (the
    /// other games on it are over). `names`: what each built-in agent's seat is called in the
    /// match lists, its events and its record (a ladder's anchors by the names its standings
    /// give them); none, its agent spec.
    #[allow(clippy::too_many_arguments)]
    pub fn create_hosted(
        self: &Arc<Hub>,
        client: &ClientId,
        game: &str,
        preset: &str,
        spec: Arc<dyn AnySpec>,
        seed: u64,
        seats: &[v1::SeatSpec],
        names: &[String],
        move_time: Option<Duration>,
        bank: Option<crate::referee::Clock>,
        deal: Option<Arc<SharedDeal>>,
    ) -> Result<Arc<Table>, Status> {
        let place = self.matches.take(client)?;
        let limits = Limits { move_time, bank, policy: Policy::Forfeit, idle: self.config.idle };
        let opening = Opening { game, preset, spec, limits, seed, seats, names, scenario: "" };
        // Opened as the host's: its seats are the ladder's to choose.
        self.open(opening, place, &ClientId::Host, deal).map(|(table, _)| table)
    }

    /// A match played elsewhere (a tournament's game on its worker), shown here: listed among
    /// the matches in play, its public events streamed to spectators, its record given once it
    /// is over (and its `deal` released). Nobody holds a seat of it; it is told its moves
    /// ([`Table::shown_move`]) and its end ([`Hub::shown_over`]). It takes a place among the
    /// matches in play like any other: with none left, it is not shown.
    pub fn show(
        &self,
        shown: Shown,
        start: Box<dyn AnyGame>,
        deal: Option<Arc<SharedDeal>>,
    ) -> Result<Arc<Table>, Status> {
        let place = self.matches.take(&ClientId::Host)?;
        let seats = shown.players.iter().map(|_| SeatBinding::Elsewhere).collect();
        let n = shown.players.len();
        let id = secret()?[..16].to_string();
        let table = Table::new(
            Setup {
                id: id.clone(),
                cooperative: engine::find_game(&shown.game).is_ok_and(|e| e.cooperative),
                game_name: shown.game,
                spec: shown.spec,
                seed: shown.seed,
                scenario: shown.scenario,
                seats,
                players: shown.players,
                tokens: vec![None; n],
                creator: secret()?,
                limits: Limits { move_time: shown.move_time, bank: None, policy: Policy::Forfeit, idle: None },
                next_request: self.next_request.clone(),
                bot_slots: self.thinking.all.clone(),
                thinkers: self.thinkers.clone(),
                client_slots: self.thinking.of(&ClientId::Host),
                place: Mutex::new(Some(place)),
                latencies: None,
                deal,
            },
            start,
        )?;
        self.tables.lock().expect("tables").insert(id, table.clone());
        Ok(table)
    }

    /// A match shown here ([`Hub::show`]) has ended elsewhere, as `outcome` and `verdicts` say.
    pub fn shown_over(&self, table: &Arc<Table>, outcome: MatchOutcome, verdicts: Vec<Verdict>) {
        table.shown_end(outcome, verdicts);
        self.finished(table);
    }

    /// Open a match and start driving it.
    fn open(
        self: &Arc<Hub>,
        opening: Opening<'_>,
        place: Held,
        client: &ClientId,
        deal: Option<Arc<SharedDeal>>,
    ) -> Result<(Arc<Table>, v1::CreateMatchResponse), Status> {
        let Opening { game: game_name, preset, spec, limits, seed, seats: seat_specs, names, scenario } = opening;
        let n = spec.seats();
        if !seat_specs.is_empty() && seat_specs.len() != n {
            return Err(Status::invalid_argument(format!("seats: {} given, the game has {n}", seat_specs.len())));
        }
        let id = secret()?[..16].to_string();
        let mut seats = Vec::new();
        let mut tokens = Vec::new();
        let mut players = Vec::new();
        for s in 0..n {
            let player = seat_specs.get(s).and_then(|x| x.player.clone());
            let binding = match player {
                None | Some(v1::seat_spec::Player::Token(_)) => {
                    tokens.push(Some(secret()?));
                    players.push("token".to_string());
                    SeatBinding::Token
                }
                Some(v1::seat_spec::Player::Bot(text)) => {
                    let bad = |e: String| Status::invalid_argument(format!("seats[{s}].bot: {e}"));
                    if text.len() > MAX_BOT_SPEC {
                        return Err(bad(format!("over {MAX_BOT_SPEC} characters")));
                    }
                    let agent_seed = engine::core::game_seed(seed, 1 + s as u64);
                    let own = self.config.agents.as_ref().and_then(|m| (m.0)(&text, spec.as_ref(), agent_seed));
                    let (agent, name) = match own {
                        Some(made) => (made.map_err(bad)?, text.clone()),
                        None => {
                            let bot = BotSpec::parse(&text).map_err(bad)?;
                            if *client != ClientId::Host {
                                bot.check_limits(&self.config.bot_limits).map_err(bad)?;
                            }
                            (bots::make_agent(&bot, spec.as_ref(), agent_seed).map_err(bad)?, bot.to_string())
                        }
                    };
                    tokens.push(None);
                    players.push(names.get(s).filter(|n| !n.is_empty()).cloned().unwrap_or(name));
                    SeatBinding::Bot(Mutex::new(Some(agent)))
                }
                Some(v1::seat_spec::Player::Play(name)) => {
                    let session = self.session(&name).ok_or_else(|| {
                        Status::failed_precondition(format!(
                            "seats[{s}].play: no Play client `{}` is connected",
                            shown(&name)
                        ))
                    })?;
                    if !session.plays(game_name, preset) {
                        return Err(Status::failed_precondition(format!(
                            "seats[{s}].play: `{name}` does not play {game_name}:{preset} (its Hello.games)"
                        )));
                    }
                    if self.config.challenges_need_consent && *client != ClientId::Host && !session.accept_challenges {
                        return Err(Status::failed_precondition(format!(
                            "seats[{s}].play: `{name}` plays this ladder's pairings only (its Hello does not accept \
                             challenges)"
                        )));
                    }
                    if session.is_leaving() {
                        return Err(Status::failed_precondition(format!(
                            "seats[{s}].play: `{name}` is leaving (its client sent Leave): it takes no new games"
                        )));
                    }
                    tokens.push(None);
                    players.push(name.clone());
                    SeatBinding::Play(session)
                }
            };
            seats.push(binding);
        }
        let game = if scenario.trim().is_empty() {
            spec.new_game(seed)
        } else {
            spec.scenario(seed, scenario).map_err(|e| Status::invalid_argument(brief(&e)))?
        };
        let creator = secret()?;
        let table = Table::new(
            Setup {
                id: id.clone(),
                game_name: game_name.to_string(),
                cooperative: engine::find_game(game_name).is_ok_and(|e| e.cooperative),
                spec,
                seed,
                scenario: scenario.to_string(),
                seats,
                players,
                tokens: tokens.clone(),
                creator: creator.clone(),
                limits,
                next_request: self.next_request.clone(),
                bot_slots: self.thinking.all.clone(),
                thinkers: self.thinkers.clone(),
                client_slots: self.thinking.of(client),
                place: Mutex::new(Some(place)),
                latencies: self.latencies.clone(),
                deal,
            },
            game,
        )?;
        {
            let mut t = self.tokens.lock().expect("tokens");
            for (s, tok) in tokens.iter().enumerate() {
                if let Some(tok) = tok {
                    t.insert(tok.clone(), (id.clone(), s));
                }
            }
        }
        self.tables.lock().expect("tables").insert(id.clone(), table.clone());
        tracing::info!(match_id = %id, game = %game_name, seats = n, "match created");
        let hub = self.clone();
        let driven = table.clone();
        self.runtime.spawn(async move {
            driven.clone().drive().await;
            hub.finished(&driven);
        });
        let tokens = tokens
            .into_iter()
            .enumerate()
            .filter_map(|(seat, t)| t.map(|token| v1::SeatToken { seat: seat as u32, token }))
            .collect();
        Ok((table, v1::CreateMatchResponse { match_id: id, seats: n as u32, tokens, creator_token: creator }))
    }

    /// The connected Play clients.
    pub fn sessions(&self) -> Vec<Arc<Session>> {
        self.sessions.lock().expect("sessions").values().filter(|s| s.is_alive()).cloned().collect()
    }

    /// A match is over: write its record, free what it no longer needs, keep it for a while.
    fn finished(&self, table: &Arc<Table>) {
        table.release();
        if let (Some(file), Ok(record)) = (&self.records, table.record()) {
            let mut f = file.lock().expect("records");
            if let Err(e) = record
                .to_line()
                .and_then(|l| f.write_all(l.as_bytes()).and_then(|_| f.flush()).map_err(|e| e.to_string()))
            {
                tracing::error!("cannot write the record of match {}: {e}", table.setup.id);
            }
        }
        tracing::info!(match_id = %table.setup.id, "match over");
        self.finished.lock().expect("finished").push_back(Finished { id: table.setup.id.clone(), at: Instant::now() });
        self.evict();
    }

    /// Evict finished matches past the retention time, and the oldest past the count.
    pub fn evict(&self) {
        let mut gone = Vec::new();
        {
            let mut done = self.finished.lock().expect("finished");
            let now = Instant::now();
            while let Some(f) = done.front() {
                if done.len() > self.config.keep_finished || now.duration_since(f.at) >= self.config.keep_finished_for {
                    gone.push(done.pop_front().expect("a front").id);
                } else {
                    break;
                }
            }
        }
        if gone.is_empty() {
            return;
        }
        let removed: Vec<Arc<Table>> = {
            let mut tables = self.tables.lock().expect("tables");
            gone.iter().filter_map(|id| tables.remove(id)).collect()
        };
        let mut tokens = self.tokens.lock().expect("tokens");
        for t in &removed {
            t.setup.tokens.iter().flatten().for_each(|tok| {
                tokens.remove(tok);
            });
        }
    }

    /// A future that completes when the server stops.
    pub fn stopped(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut rx = self.stopping.subscribe();
        async move {
            let _ = rx.wait_for(|stopping| *stopping).await;
        }
    }

    /// The server stops: Play clients hear it (their streams end), waiting seats stop waiting.
    pub fn stop(&self) {
        self.stopping.send_replace(true);
        for (_, s) in self.sessions.lock().expect("sessions").drain() {
            s.close();
        }
    }

    /// Flush the records file (on shutdown).
    pub fn flush(&self) {
        if let Some(f) = &self.records {
            let _ = f.lock().expect("records").sync_all();
        }
    }
}
