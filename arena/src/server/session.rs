//! A connected Play client: one bot process that serves any number of seats, in any number of
//! matches, under a name that is its own while its stream lives. The server sends it a
//! DecisionRequest at each decision of a seat it plays and waits (a task, no thread) for the
//! Decision that answers it, up to the per-move limit (or, in a tournament, the idle limit of
//! a decision nothing else bounds). The client may resign a seat it plays (Resign). Whatever
//! else the client sends — a second Hello, a Decision for a request that is not one of its open
//! ones (it may have several open at once, one per seat to move), a duplicate, a Resign for a
//! seat it does not play — is answered with a StreamError and counted.

use super::wire;
use crate::referee::{Ending, Limit, MatchOutcome};
use bots::{Agent, AgentError, SeatView};
use engine::core::{ActionId, AnySpec, Outcome, Seat};
use proto::v1;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tonic::Status;

pub type Outbound = tokio::sync::mpsc::Sender<Result<v1::ServerMessage, Status>>;

/// Why no decision came.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoDecision {
    /// Nothing within this limit.
    Expired(Limit),
    /// The client is gone.
    Disconnected,
    /// The client resigned the seat.
    Resigned,
}

const DISCONNECTED: &str = "the Play client disconnected";

impl NoDecision {
    /// The verdict's detail of a disconnection of the Play client `name`: one wording in a
    /// server match, a ladder's game and a tournament's.
    pub fn disconnected(name: &str) -> String {
        format!("{name}: {DISCONNECTED}")
    }
}

impl std::fmt::Display for NoDecision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoDecision::Expired(limit) => f.write_str(&limit.missed()),
            NoDecision::Disconnected => f.write_str(DISCONNECTED),
            NoDecision::Resigned => write!(f, "the Play client resigned the seat"),
        }
    }
}

/// What answers a request: the seat's action, or its resignation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Answer {
    Act(ActionId),
    Resign,
}

/// An open request: who waits for its answer, and the seat it is for.
struct Open {
    waiter: tokio::sync::oneshot::Sender<Answer>,
    match_id: String,
    seat: u32,
}

/// Something a client sent that the server could not take (see `StreamError.code`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamFault {
    SecondHello,
    UnknownRequest,
    DuplicateDecision,
    LateDecision,
    EmptyMessage,
    NotYourSeat,
}

impl StreamFault {
    pub fn code(self) -> &'static str {
        match self {
            StreamFault::SecondHello => "second_hello",
            StreamFault::UnknownRequest => "unknown_request",
            StreamFault::DuplicateDecision => "duplicate_decision",
            StreamFault::LateDecision => "late_decision",
            StreamFault::EmptyMessage => "empty_message",
            StreamFault::NotYourSeat => "not_your_seat",
        }
    }

    fn message(self, request_id: u64) -> String {
        match self {
            StreamFault::SecondHello => "a second Hello on one stream: the stream keeps its first name".into(),
            StreamFault::UnknownRequest => {
                format!("request {request_id} is not an open request of this stream: the Decision is ignored")
            }
            StreamFault::DuplicateDecision => {
                format!("request {request_id} was answered already: the first Decision stands")
            }
            StreamFault::LateDecision => {
                format!("request {request_id} is closed: its limit passed and the match's policy applied")
            }
            StreamFault::EmptyMessage => "a BotMessage with nothing in it".into(),
            StreamFault::NotYourSeat => {
                "Resign: not a seat this stream plays in a match in play: the Resign is ignored".into()
            }
        }
    }
}

/// How a request of this stream was closed (kept for the last few, to tell a duplicate or a
/// late Decision from one for a request this stream never had).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Closed {
    Answered,
    Expired,
}

const CLOSED_KEPT: usize = 1024;

#[derive(Default)]
struct Requests {
    open: HashMap<u64, Open>,
    closed: VecDeque<(u64, Closed)>,
    /// Seats of tournament games this stream plays (by match and seat), each with whether it
    /// resigned between two of its requests (the resignation then answers the next one).
    seats: HashMap<(String, u32), bool>,
}

impl Requests {
    fn close(&mut self, id: u64, how: Closed) {
        if self.closed.len() == CLOSED_KEPT {
            self.closed.pop_front();
        }
        self.closed.push_back((id, how));
    }
}

pub struct Session {
    pub id: String,
    pub name: String,
    pub games: Vec<String>,
    /// Send each request's observation tensor and legal mask.
    pub tensors: bool,
    /// How much of the observation each request carries.
    pub observation: wire::Shown,
    /// Games it takes at once on a ladder (0: the ladder's default).
    pub max_games: u32,
    /// Who it is: the holder of its name's key if its Hello gave it, else the client it
    /// connected as (its client key, or its address).
    pub owner: super::shares::ClientId,
    /// On a ladder, it may be seated in matches others create (`Hello.accept_challenges`).
    pub accept_challenges: bool,
    tx: Outbound,
    requests: Mutex<Requests>,
    alive: AtomicBool,
    faults: AtomicU32,
    /// Its place among the server's Play streams (none for a keyed name), given back when the
    /// stream ends.
    place: Mutex<Option<super::shares::Held>>,
    /// It sent Leave: no new games, and the stream ends once `in_play` is 0.
    leaving: AtomicBool,
    /// Seats of matches in play that are its ([`SeatHeld`]s alive).
    in_play: AtomicU32,
}

/// A seat of a match in play that a Play stream holds, counted while it lives: a leaving
/// stream ends when it holds none. Dropped when the match ends (or its table goes).
pub struct SeatHeld(Arc<Session>);

impl SeatHeld {
    pub fn new(session: &Arc<Session>) -> SeatHeld {
        session.in_play.fetch_add(1, Ordering::AcqRel);
        SeatHeld(session.clone())
    }
}

impl Drop for SeatHeld {
    fn drop(&mut self) {
        if self.0.in_play.fetch_sub(1, Ordering::AcqRel) == 1 && self.0.is_leaving() {
            self.0.left();
        }
    }
}

/// Removes a request from the open ones when its waiter gives up (limit, match over).
struct OpenRequest<'a> {
    session: &'a Session,
    id: u64,
}

impl Drop for OpenRequest<'_> {
    fn drop(&mut self) {
        let mut r = self.session.requests.lock().unwrap_or_else(|p| p.into_inner());
        if r.open.remove(&self.id).is_some() {
            r.close(self.id, Closed::Expired);
        }
    }
}

impl Session {
    pub fn new(id: String, name: String, games: Vec<String>, tx: Outbound) -> Session {
        Session {
            id,
            name,
            games,
            tensors: false,
            observation: wire::Shown::WithText,
            max_games: 0,
            owner: super::shares::ClientId::Unknown,
            accept_challenges: false,
            tx,
            requests: Mutex::new(Requests::default()),
            alive: AtomicBool::new(true),
            faults: AtomicU32::new(0),
            place: Mutex::new(None),
            leaving: AtomicBool::new(false),
            in_play: AtomicU32::new(0),
        }
    }

    /// It sent Leave (see the contract's `Leave`).
    pub fn is_leaving(&self) -> bool {
        self.leaving.load(Ordering::Acquire)
    }

    /// Take no new games; end the stream now if no game of its is in play, else when the
    /// last one ends.
    pub fn leave(&self) {
        self.leaving.store(true, Ordering::Release);
        if self.in_play.load(Ordering::Acquire) == 0 {
            self.left();
        }
    }

    fn left(&self) {
        tracing::info!(name = %self.name, "Play client left: no game of its is in play");
        self.end_with(Status::ok("left: no game of this stream is in play"));
    }

    /// Keep this place while the stream lives.
    pub fn hold(&self, place: super::shares::Held) {
        *self.place.lock().unwrap_or_else(|p| p.into_inner()) = Some(place);
    }

    pub fn is_alive(&self) -> bool {
        self.alive.load(Ordering::Acquire) && !self.tx.is_closed()
    }

    /// Does it play this game under this preset? Its Hello's games name a game (any preset)
    /// or a game and one preset (`expedition:no-dice`).
    pub fn plays(&self, game: &str, preset: &str) -> bool {
        self.games.is_empty()
            || self.games.iter().any(|g| match g.split_once(':') {
                Some((named, p)) => named == game && p == preset,
                None => g == game,
            })
    }

    fn open(
        &self,
        id: u64,
        waiter: tokio::sync::oneshot::Sender<Answer>,
        match_id: &str,
        seat: u32,
    ) -> OpenRequest<'_> {
        let open = Open { waiter, match_id: match_id.to_string(), seat };
        self.requests.lock().unwrap_or_else(|p| p.into_inner()).open.insert(id, open);
        OpenRequest { session: self, id }
    }

    /// Send a request and wait for its answer until `deadline`, the limit it is of. Dropping
    /// the future (the match ended meanwhile) closes the request.
    pub async fn decide(
        &self,
        request: v1::DecisionRequest,
        deadline: Option<(tokio::time::Instant, Limit)>,
    ) -> Result<ActionId, NoDecision> {
        if !self.is_alive() {
            return Err(NoDecision::Disconnected);
        }
        let (answer, wait) = tokio::sync::oneshot::channel();
        let _open = self.open(request.request_id, answer, &request.match_id, request.seat);
        let message = v1::ServerMessage { message: Some(v1::server_message::Message::Request(request)) };
        if self.tx.send(Ok(message)).await.is_err() {
            return Err(NoDecision::Disconnected);
        }
        let answer = match deadline {
            Some((at, limit)) => match tokio::time::timeout_at(at, wait).await {
                Ok(answer) => answer,
                Err(_) => return Err(NoDecision::Expired(limit)),
            },
            None => wait.await,
        };
        match answer {
            Ok(Answer::Act(a)) => Ok(a),
            Ok(Answer::Resign) => Err(NoDecision::Resigned),
            Err(_) => Err(NoDecision::Disconnected),
        }
    }

    /// A Decision arrived: hand it to whoever waits for it; anything else is a fault.
    pub fn answer(&self, decision: v1::Decision) -> Result<(), StreamFault> {
        let mut r = self.requests.lock().unwrap_or_else(|p| p.into_inner());
        match r.open.remove(&decision.request_id) {
            Some(open) => {
                r.close(decision.request_id, Closed::Answered);
                let _ = open.waiter.send(Answer::Act(decision.action));
                Ok(())
            }
            None => Err(match r.closed.iter().rev().find(|(id, _)| *id == decision.request_id) {
                Some((_, Closed::Answered)) => StreamFault::DuplicateDecision,
                Some((_, Closed::Expired)) => StreamFault::LateDecision,
                None => StreamFault::UnknownRequest,
            }),
        }
    }

    /// The client resigns a seat of a tournament game it plays (a server match's seats are
    /// resigned at their table): its open request, if it has one, is answered with the
    /// resignation; else the seat's next request will be. A seat this stream does not play is
    /// a fault (nothing changes).
    pub fn resign(&self, match_id: &str, seat: u32) -> Result<(), StreamFault> {
        let mut r = self.requests.lock().unwrap_or_else(|p| p.into_inner());
        let asked = r.open.iter().find(|(_, o)| o.match_id == match_id && o.seat == seat).map(|(&id, _)| id);
        if let Some(id) = asked
            && let Some(open) = r.open.remove(&id)
        {
            r.close(id, Closed::Answered);
            let _ = open.waiter.send(Answer::Resign);
            return Ok(());
        }
        match r.seats.get_mut(&(match_id.to_string(), seat)) {
            Some(resigned) => {
                *resigned = true;
                Ok(())
            }
            None => Err(StreamFault::NotYourSeat),
        }
    }

    /// A seat of a tournament game is this stream's while the game lasts (from its first
    /// request on): has the client resigned it since its last request?
    fn hold_seat(&self, match_id: &str, seat: u32) -> bool {
        let mut r = self.requests.lock().unwrap_or_else(|p| p.into_inner());
        *r.seats.entry((match_id.to_string(), seat)).or_insert(false)
    }

    /// The tournament game is over: the seat is no longer this stream's.
    fn seat_released(&self, match_id: &str, seat: u32) {
        self.requests.lock().unwrap_or_else(|p| p.into_inner()).seats.remove(&(match_id.to_string(), seat));
    }

    /// Count a fault and tell the client; `Err` once the stream is past `limit` faults (the
    /// caller then closes it).
    pub async fn fault(&self, fault: StreamFault, request_id: u64, limit: u32) -> Result<(), u32> {
        let count = self.faults.fetch_add(1, Ordering::AcqRel) + 1;
        tracing::warn!(name = %self.name, code = fault.code(), count, "Play client: {}", fault.message(request_id));
        let error =
            v1::StreamError { code: fault.code().into(), message: fault.message(request_id), request_id, count, limit };
        let _ = self.tx.send(Ok(v1::ServerMessage { message: Some(v1::server_message::Message::Error(error)) })).await;
        if count >= limit { Err(count) } else { Ok(()) }
    }

    /// Tell the client something that is not a fault of what it sent (a `StreamError` with
    /// `code`, not counted: a ladder resting it, say).
    pub fn notice(&self, code: &str, message: &str) {
        let error = v1::StreamError {
            code: code.into(),
            message: message.into(),
            request_id: 0,
            count: self.faults(),
            limit: 0,
        };
        let _ = self.tx.try_send(Ok(v1::ServerMessage { message: Some(v1::server_message::Message::Error(error)) }));
    }

    /// Faults counted on this stream.
    pub fn faults(&self) -> u32 {
        self.faults.load(Ordering::Acquire)
    }

    /// Tell the client a match of its is over (best effort).
    pub fn ended(&self, ended: v1::MatchEnded) {
        let _ = self.tx.try_send(Ok(v1::ServerMessage { message: Some(v1::server_message::Message::Ended(ended)) }));
    }

    /// End the client's stream with `status` (best effort), and close the session.
    pub fn end_with(&self, status: Status) {
        let _ = self.tx.try_send(Err(status));
        self.close();
    }

    /// The stream is gone: everyone waiting hears so at once.
    pub fn close(&self) {
        self.alive.store(false, Ordering::Release);
        self.requests.lock().unwrap_or_else(|p| p.into_inner()).open.clear();
        self.place.lock().unwrap_or_else(|p| p.into_inner()).take();
    }
}

/// A seat played by a Play client, as an [`Agent`] of the tournament runner (which runs on plain
/// threads): each decision becomes a DecisionRequest built from the seat's view alone, waited
/// for on the server's runtime — up to the seat's per-move limit (or clock), or else the idle
/// limit; the client may resign it; the game's end becomes a MatchEnded with its verdicts.
pub struct RemoteAgent {
    session: Arc<Session>,
    match_id: String,
    game: String,
    params_yaml: String,
    cooperative: bool,
    action_count: u32,
    next_request: Arc<AtomicU64>,
    runtime: tokio::runtime::Handle,
    version: u64,
    /// How long a decision nothing else bounds may wait (None: for ever).
    idle: Option<Duration>,
    /// The seat it plays, once asked, counted as the stream's while the game is in play.
    seat: Option<(u32, SeatHeld)>,
}

impl RemoteAgent {
    pub fn new(
        session: Arc<Session>,
        match_id: String,
        spec: &dyn AnySpec,
        next_request: Arc<AtomicU64>,
        runtime: tokio::runtime::Handle,
    ) -> Result<RemoteAgent, String> {
        Ok(RemoteAgent {
            session,
            match_id,
            game: spec.game().to_string(),
            params_yaml: engine::core::params_to_yaml(&spec.params_yaml()).map_err(|e| e.to_string())?,
            cooperative: engine::find_game(spec.game()).is_ok_and(|g| g.cooperative),
            action_count: spec.action_count(),
            next_request,
            runtime,
            version: 0,
            idle: None,
            seat: None,
        })
    }

    /// A decision no per-move limit or clock bounds waits at most `idle` (verdict `idle`).
    pub fn with_idle(mut self, idle: Option<Duration>) -> RemoteAgent {
        self.idle = idle;
        self
    }
}

impl Drop for RemoteAgent {
    fn drop(&mut self) {
        self.release_seat();
    }
}

impl Agent for RemoteAgent {
    fn name(&self) -> &str {
        &self.session.name
    }

    fn act(&mut self, view: &SeatView) -> Result<ActionId, AgentError> {
        let seat = u32::from(view.seat().0);
        match &mut self.seat {
            Some((s, _)) => *s = seat,
            None => self.seat = Some((seat, SeatHeld::new(&self.session))),
        }
        // The referee words a resignation (the seat and the move).
        if self.session.hold_seat(&self.match_id, seat) {
            return Err(AgentError::Resigned(String::new()));
        }
        self.version += 1;
        let asking = wire::Asking {
            request_id: self.next_request.fetch_add(1, Ordering::Relaxed),
            match_id: &self.match_id,
            game: &self.game,
            params_yaml: &self.params_yaml,
            version: self.version,
            tensors: self.session.tensors.then_some(self.action_count),
            observation: self.session.observation,
        };
        let request = wire::decision_request(view, asking).map_err(AgentError::Failed)?;
        let limit = view.budget().per_move;
        // The seat's own limit (the referee words it in the verdict), else the idle limit.
        let limit = limit.map(Limit::PerMove).or(self.idle.map(Limit::Idle));
        let deadline = limit.map(|l| (tokio::time::Instant::now() + l.duration(), l));
        self.runtime.block_on(self.session.decide(request, deadline)).map_err(|e| match e {
            NoDecision::Expired(Limit::Idle(_)) => AgentError::Idle(e.to_string()),
            NoDecision::Expired(_) => AgentError::TimedOut(String::new()),
            NoDecision::Disconnected => AgentError::Disconnected(NoDecision::disconnected(&self.session.name)),
            NoDecision::Resigned => AgentError::Resigned(String::new()),
        })
    }

    /// It waits for its client up to the limit, never longer.
    fn answers_in_time(&self) -> bool {
        true
    }

    fn game_over(&mut self, seat: Seat, outcome: &Outcome) {
        self.tell_ended(seat, &MatchOutcome::played(outcome.clone()), &[]);
    }

    /// The end as the referee ruled it: the verdicts and the seat whose verdict ended it go
    /// to the client too, as a server match's MatchEnded carries them.
    fn ended(&mut self, seat: Seat, outcome: &Outcome, account: &dyn std::any::Any) {
        match account.downcast_ref::<Ending>() {
            Some(ending) => self.tell_ended(seat, &ending.outcome, &ending.verdicts),
            None => self.game_over(seat, outcome),
        }
    }
}

impl RemoteAgent {
    fn tell_ended(&mut self, seat: Seat, outcome: &MatchOutcome, verdicts: &[crate::referee::Verdict]) {
        let outcome = wire::outcome(outcome, verdicts, self.cooperative);
        self.session.ended(v1::MatchEnded {
            match_id: self.match_id.clone(),
            seat: u32::from(seat.0),
            outcome: Some(outcome),
        });
        self.release_seat();
    }

    /// The game is over (or the agent gone): the seat is no longer the stream's.
    fn release_seat(&mut self) {
        if let Some((seat, held)) = self.seat.take() {
            drop(held);
            self.session.seat_released(&self.match_id, seat);
        }
    }
}
