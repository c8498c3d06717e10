//! The server's shared state: matches (and the secret tokens of their seats), connected Play
//! clients, limits, and the log of finished matches.

use super::session::Session;
use super::table::{Policy, SeatBinding, Table, TableState};
use crate::load_file;
use engine::core::{AnySpec, ParamSource, find_game};
use proto::v1;
use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tonic::Status;

/// How the server behaves, and its limits.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Matches in play at once; more are refused (RESOURCE_EXHAUSTED).
    pub max_matches: usize,
    /// The largest message the server accepts.
    pub max_message_bytes: usize,
    /// The per-move limit when a match names none.
    pub move_time: Option<Duration>,
    /// What happens to a seat that does not move in time, when a match names no policy.
    pub policy: Policy,
    /// Finished matches kept for GetRecord and late spectators.
    pub keep_finished: usize,
    /// Append the record of every finished match to this file (one JSON object per line).
    pub records: Option<PathBuf>,
    /// Note the time of every Play round trip (for `arena bench-wire`).
    pub measure_latency: bool,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            max_matches: 1000,
            max_message_bytes: 1 << 20,
            move_time: Some(Duration::from_secs(30)),
            policy: Policy::Forfeit,
            keep_finished: 10_000,
            records: None,
            measure_latency: false,
        }
    }
}

pub struct Hub {
    pub config: ServerConfig,
    tables: Mutex<HashMap<String, Arc<Table>>>,
    finished: Mutex<VecDeque<String>>,
    tokens: Mutex<HashMap<String, (String, usize)>>,
    sessions: Mutex<Vec<Arc<Session>>>,
    pub next_request: Arc<AtomicU64>,
    records: Option<Mutex<std::fs::File>>,
    /// Set when the server stops: long-lived streams (Play, Spectate) end.
    pub stopping: tokio::sync::watch::Sender<bool>,
    /// Every Play round trip, when measured.
    pub latencies: Option<Arc<Mutex<Vec<Duration>>>>,
    /// Matches not over yet.
    active: AtomicUsize,
    /// The runtime the matches are driven on.
    runtime: tokio::runtime::Handle,
}

/// 128 random bits from the operating system, as hex.
pub fn secret() -> Result<String, Status> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| Status::internal(format!("no randomness for a token: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

impl Hub {
    pub fn new(config: ServerConfig) -> Result<Arc<Hub>, String> {
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
        Ok(Arc::new(Hub {
            tables: Mutex::new(HashMap::new()),
            finished: Mutex::new(VecDeque::new()),
            tokens: Mutex::new(HashMap::new()),
            sessions: Mutex::new(Vec::new()),
            next_request: Arc::new(AtomicU64::new(1)),
            records,
            stopping: tokio::sync::watch::channel(false).0,
            latencies: config.measure_latency.then(|| Arc::new(Mutex::new(Vec::new()))),
            active: AtomicUsize::new(0),
            config,
            runtime: tokio::runtime::Handle::try_current().map_err(|_| "the hub needs a tokio runtime".to_string())?,
        }))
    }

    pub fn table(&self, id: &str) -> Result<Arc<Table>, Status> {
        self.tables
            .lock()
            .expect("tables")
            .get(id)
            .cloned()
            .ok_or_else(|| Status::not_found(format!("unknown match `{id}`")))
    }

    /// The match and seat a token opens; refused unless it is that match's.
    pub fn seat_of(&self, match_id: &str, token: &str) -> Result<(Arc<Table>, usize), Status> {
        let table = self.table(match_id)?;
        match self.tokens.lock().expect("tokens").get(token) {
            Some((m, seat)) if m == match_id => Ok((table, *seat)),
            _ => Err(Status::permission_denied(format!("this token opens no seat of match `{match_id}`"))),
        }
    }

    /// Matches not over yet.
    pub fn active(&self) -> usize {
        self.active.load(Ordering::Acquire)
    }

    pub fn register(&self, session: Arc<Session>) {
        let mut s = self.sessions.lock().expect("sessions");
        s.retain(|x| x.is_alive());
        s.push(session);
    }

    pub fn unregister(&self, id: &str) {
        self.sessions.lock().expect("sessions").retain(|x| x.id != id);
    }

    /// The most recent connected Play client with this name.
    pub fn session(&self, name: &str) -> Option<Arc<Session>> {
        self.sessions.lock().expect("sessions").iter().rev().find(|s| s.name == name && s.is_alive()).cloned()
    }

    /// Wait until a Play client with this name is connected.
    pub fn wait_for_session(&self, name: &str, timeout: Duration) -> Option<Arc<Session>> {
        let end = Instant::now() + timeout;
        loop {
            if let Some(s) = self.session(name) {
                return Some(s);
            }
            if Instant::now() >= end {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Create a match and start driving it.
    pub fn create(self: &Arc<Hub>, req: v1::CreateMatchRequest) -> Result<v1::CreateMatchResponse, Status> {
        // Count the match in at once (two creations at the same time cannot both take the
        // last place); a creation that fails below counts it out again.
        if self.active.fetch_add(1, Ordering::AcqRel) >= self.config.max_matches {
            self.active.fetch_sub(1, Ordering::AcqRel);
            return Err(Status::resource_exhausted(format!(
                "the server plays {} matches at once already (its limit)",
                self.config.max_matches
            )));
        }
        let created = self.create_counted(req);
        if created.is_err() {
            self.active.fetch_sub(1, Ordering::AcqRel);
        }
        created
    }

    fn create_counted(self: &Arc<Hub>, req: v1::CreateMatchRequest) -> Result<v1::CreateMatchResponse, Status> {
        let entry = find_game(&req.game).map_err(Status::invalid_argument)?;
        let mut sources = Vec::new();
        let mut keys: Vec<_> = req.params.iter().collect();
        keys.sort();
        for (k, v) in keys {
            sources.push(ParamSource::KeyValue { key: k.clone(), value: v.clone() });
        }
        let preset = (!req.preset.is_empty()).then_some(req.preset.as_str());
        let spec: Arc<dyn AnySpec> =
            Arc::from((entry.spec)(preset, &sources, &load_file).map_err(|e| Status::invalid_argument(e.to_string()))?);
        let n = spec.seats();
        if !req.seats.is_empty() && req.seats.len() != n {
            return Err(Status::invalid_argument(format!("{} seats given, the game has {n}", req.seats.len())));
        }
        let id = secret()?[..16].to_string();
        let mut seats = Vec::new();
        let mut tokens = Vec::new();
        for s in 0..n {
            let player = req.seats.get(s).and_then(|x| x.player.clone());
            let binding = match player {
                None | Some(v1::seat_spec::Player::Token(_)) => {
                    tokens.push(Some(secret()?));
                    SeatBinding::Token
                }
                Some(v1::seat_spec::Player::Bot(text)) => {
                    let seed = engine::core::game_seed(req.seed, 1 + s as u64);
                    let agent = bots::agent(&text, spec.as_ref(), seed)
                        .map_err(|e| Status::invalid_argument(format!("seat {s}: {e}")))?;
                    tokens.push(None);
                    SeatBinding::Bot(Mutex::new(agent))
                }
                Some(v1::seat_spec::Player::Play(name)) => {
                    let session = self.session(&name).ok_or_else(|| {
                        Status::failed_precondition(format!("seat {s}: no Play client `{name}` is connected"))
                    })?;
                    if !session.plays(&req.game) {
                        return Err(Status::failed_precondition(format!(
                            "seat {s}: `{name}` does not play {}",
                            req.game
                        )));
                    }
                    tokens.push(None);
                    SeatBinding::Play(session)
                }
            };
            seats.push(binding);
        }
        let policy = match req.on_timeout() {
            v1::TimeoutPolicy::Unspecified => self.config.policy,
            v1::TimeoutPolicy::Forfeit => Policy::Forfeit,
            v1::TimeoutPolicy::RandomMove => Policy::RandomMove,
        };
        let move_time = if req.move_time_ms > 0 {
            Some(Duration::from_millis(req.move_time_ms.into()))
        } else {
            self.config.move_time
        };
        let params_yaml = serde_yaml::to_string(&spec.params_yaml()).map_err(|e| Status::internal(e.to_string()))?;
        let game = if req.scenario.trim().is_empty() {
            spec.new_game(req.seed)
        } else {
            spec.scenario(req.seed, &req.scenario).map_err(Status::invalid_argument)?
        };
        let (events, _) = tokio::sync::broadcast::channel(4096);
        let table = Arc::new(Table {
            id: id.clone(),
            game_name: req.game.clone(),
            params_yaml,
            seed: req.seed,
            scenario: req.scenario.clone(),
            seats,
            tokens: tokens.clone(),
            move_time,
            policy,
            state: Mutex::new(TableState {
                game,
                version: 0,
                actions: Vec::new(),
                turn_started: Instant::now(),
                verdicts: Vec::new(),
                ended: None,
                events: Vec::new(),
            }),
            changed: tokio::sync::Notify::new(),
            over: tokio::sync::Notify::new(),
            events,
            next_request: self.next_request.clone(),
            spec,
            latencies: self.latencies.clone(),
        });
        table.started();
        {
            let mut t = self.tokens.lock().expect("tokens");
            for (s, tok) in tokens.iter().enumerate() {
                if let Some(tok) = tok {
                    t.insert(tok.clone(), (id.clone(), s));
                }
            }
        }
        self.tables.lock().expect("tables").insert(id.clone(), table.clone());
        tracing::info!(match_id = %id, game = %req.game, seats = n, "match created");
        let hub = self.clone();
        self.runtime.spawn(async move {
            table.clone().drive().await;
            hub.finished(&table);
        });
        let tokens = tokens
            .into_iter()
            .enumerate()
            .filter_map(|(seat, t)| t.map(|token| v1::SeatToken { seat: seat as u32, token }))
            .collect();
        Ok(v1::CreateMatchResponse { match_id: id, seats: n as u32, tokens })
    }

    /// A match is over: log its record, keep it for a while.
    fn finished(&self, table: &Arc<Table>) {
        self.active.fetch_sub(1, Ordering::AcqRel);
        if let (Some(file), Ok(record)) = (&self.records, table.record()) {
            let line = format!(
                "{}\n",
                serde_json::json!({
                    "match_id": table.id,
                    "game": record.game,
                    "params_yaml": record.params_yaml,
                    "seed": record.seed,
                    "actions": record.actions,
                    "scores": record.outcome.as_ref().map(|o| o.scores.clone()),
                    "ranks": record.outcome.as_ref().map(|o| o.ranks.clone()),
                    "verdicts": record.outcome.as_ref().map(|o| o.verdicts.iter().map(|v| serde_json::json!({"seat": v.seat, "kind": v.kind, "detail": v.detail, "policy": v.policy})).collect::<Vec<_>>()),
                })
            );
            let mut f = file.lock().expect("records");
            if let Err(e) = f.write_all(line.as_bytes()).and_then(|_| f.flush()) {
                tracing::error!("cannot write the record of match {}: {e}", table.id);
            }
        }
        tracing::info!(match_id = %table.id, "match over");
        let mut done = self.finished.lock().expect("finished");
        done.push_back(table.id.clone());
        while done.len() > self.config.keep_finished {
            if let Some(old) = done.pop_front()
                && let Some(t) = self.tables.lock().expect("tables").remove(&old)
            {
                let mut tokens = self.tokens.lock().expect("tokens");
                t.tokens.iter().flatten().for_each(|tok| {
                    tokens.remove(tok);
                });
            }
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
        for s in self.sessions.lock().expect("sessions").drain(..) {
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
