//! A connected Play client: one bot process that serves any number of seats, in any number of
//! matches. The server sends it a DecisionRequest at each decision of a seat it plays and
//! waits (on a plain thread: matches and tournaments run synchronously) for the Decision that
//! answers it, up to the per-move limit.

use bots::{Agent, AgentError, SeatView};
use engine::core::ActionId;
use proto::v1;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};
use tonic::Status;

pub type Outbound = tokio::sync::mpsc::Sender<Result<v1::ServerMessage, Status>>;

/// Why no decision came.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoDecision {
    /// Nothing within the limit.
    Timeout(Duration),
    /// The client is gone.
    Disconnected,
}

impl std::fmt::Display for NoDecision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoDecision::Timeout(d) => write!(f, "no decision within {} ms", d.as_millis()),
            NoDecision::Disconnected => write!(f, "the Play client disconnected"),
        }
    }
}

/// Who waits for a decision: a plain thread (tournaments), or the match's task.
enum Waiter {
    Blocking(mpsc::SyncSender<ActionId>),
    Async(tokio::sync::oneshot::Sender<ActionId>),
}

pub struct Session {
    pub id: String,
    pub name: String,
    pub games: Vec<String>,
    tx: Outbound,
    pending: Mutex<HashMap<u64, Waiter>>,
    alive: AtomicBool,
}

impl Session {
    pub fn new(id: String, name: String, games: Vec<String>, tx: Outbound) -> Session {
        Session { id, name, games, tx, pending: Mutex::new(HashMap::new()), alive: AtomicBool::new(true) }
    }

    pub fn is_alive(&self) -> bool {
        self.alive.load(Ordering::Acquire) && !self.tx.is_closed()
    }

    /// Does it play this game?
    pub fn plays(&self, game: &str) -> bool {
        self.games.is_empty() || self.games.iter().any(|g| g == game)
    }

    /// Send a request and wait for its answer until `deadline` (blocking: call it from a
    /// plain thread, never from async code).
    pub fn decide(&self, request: v1::DecisionRequest, deadline: Option<Instant>) -> Result<ActionId, NoDecision> {
        if !self.is_alive() {
            return Err(NoDecision::Disconnected);
        }
        let id = request.request_id;
        let (answer, wait) = mpsc::sync_channel(1);
        self.pending.lock().expect("pending").insert(id, Waiter::Blocking(answer));
        let message = v1::ServerMessage { message: Some(v1::server_message::Message::Request(request)) };
        if self.tx.blocking_send(Ok(message)).is_err() {
            self.pending.lock().expect("pending").remove(&id);
            return Err(NoDecision::Disconnected);
        }
        let got = match deadline {
            Some(d) => wait.recv_timeout(d.saturating_duration_since(Instant::now())).map_err(|e| match e {
                mpsc::RecvTimeoutError::Timeout => NoDecision::Timeout(Duration::ZERO),
                mpsc::RecvTimeoutError::Disconnected => NoDecision::Disconnected,
            }),
            None => wait.recv().map_err(|_| NoDecision::Disconnected),
        };
        self.pending.lock().expect("pending").remove(&id);
        got
    }

    /// [`Session::decide`] for async callers (the match driver): no thread waits.
    pub async fn decide_async(
        &self,
        request: v1::DecisionRequest,
        deadline: Option<tokio::time::Instant>,
    ) -> Result<ActionId, NoDecision> {
        if !self.is_alive() {
            return Err(NoDecision::Disconnected);
        }
        let id = request.request_id;
        let (answer, wait) = tokio::sync::oneshot::channel();
        self.pending.lock().expect("pending").insert(id, Waiter::Async(answer));
        let message = v1::ServerMessage { message: Some(v1::server_message::Message::Request(request)) };
        if self.tx.send(Ok(message)).await.is_err() {
            self.pending.lock().expect("pending").remove(&id);
            return Err(NoDecision::Disconnected);
        }
        let got = match deadline {
            Some(d) => match tokio::time::timeout_at(d, wait).await {
                Ok(Ok(a)) => Ok(a),
                Ok(Err(_)) => Err(NoDecision::Disconnected),
                Err(_) => Err(NoDecision::Timeout(Duration::ZERO)),
            },
            None => wait.await.map_err(|_| NoDecision::Disconnected),
        };
        self.pending.lock().expect("pending").remove(&id);
        got
    }

    /// A Decision arrived: hand it to whoever waits for it (late or unknown ones are dropped).
    pub fn answer(&self, decision: v1::Decision) {
        match self.pending.lock().expect("pending").remove(&decision.request_id) {
            Some(Waiter::Blocking(tx)) => {
                let _ = tx.try_send(decision.action);
            }
            Some(Waiter::Async(tx)) => {
                let _ = tx.send(decision.action);
            }
            None => {}
        }
    }

    /// Tell the client a match of its is over (best effort).
    pub fn ended(&self, ended: v1::MatchEnded) {
        let _ = self.tx.try_send(Ok(v1::ServerMessage { message: Some(v1::server_message::Message::Ended(ended)) }));
    }

    /// The stream is gone: everyone waiting hears so at once.
    pub fn close(&self) {
        self.alive.store(false, Ordering::Release);
        self.pending.lock().expect("pending").clear();
    }
}

/// A seat played by a Play client, as an [`Agent`] of the tournament runner: each decision
/// becomes a DecisionRequest built from the seat's view alone.
pub struct RemoteAgent {
    pub session: Arc<Session>,
    pub name: String,
    pub match_id: String,
    pub game: String,
    pub params_yaml: String,
    pub next_request: Arc<std::sync::atomic::AtomicU64>,
    pub version: u64,
}

impl Agent for RemoteAgent {
    fn name(&self) -> &str {
        &self.name
    }

    fn act(&mut self, view: &SeatView) -> Result<ActionId, AgentError> {
        let observation =
            proto::convert::observation_to_proto(&self.game, &view.observation_json(), &view.observation_text())
                .map_err(AgentError)?;
        let legal = view.legal().iter().map(|&id| v1::LegalAction { id, label: view.label(id) }).collect();
        let limit = view.budget().per_move;
        self.version += 1;
        let request = v1::DecisionRequest {
            request_id: self.next_request.fetch_add(1, Ordering::Relaxed),
            match_id: self.match_id.clone(),
            seat: u32::from(view.seat().0),
            game: self.game.clone(),
            params_yaml: self.params_yaml.clone(),
            observation: Some(observation),
            legal,
            time_left_ms: limit.map_or(0, |d| d.as_millis() as u32),
            version: self.version,
        };
        let action = self
            .session
            .decide(request, limit.map(|d| Instant::now() + d))
            .map_err(|e| AgentError(format!("{}: {e}", self.session.name)))?;
        Ok(action)
    }
}
