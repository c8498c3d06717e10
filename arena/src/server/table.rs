//! One match on the server: the game, who sits at each seat, and the thread that drives it.
//!
//! A token seat moves when its holder calls Act (checked and applied at once, under the
//! match's lock). A built-in agent or a Play client is asked by the match's driver thread,
//! which also enforces the per-move limit on every seat: when a seat does not move in time,
//! disconnects or answers with an illegal action, the match's policy applies — it forfeits
//! (the match ends, the seat last) or a random legal action is played for it — and the
//! verdict is recorded. Nothing reaches a seat but its own view.

use super::session::{NoDecision, Session};
use super::wire;
use bots::{Agent, Budget, SeatView};
use engine::core::{ActionError, ActionId, AnyGame, AnySpec, Seat, SmallRng};
use proto::v1;
use rand::{RngExt, SeedableRng};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::broadcast;
use tonic::Status;

/// What happens to a seat that does not move in time (or disconnects, or answers garbage).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    Forfeit,
    RandomMove,
}

impl Policy {
    pub fn name(self) -> &'static str {
        match self {
            Policy::Forfeit => "forfeit",
            Policy::RandomMove => "random move",
        }
    }
}

pub enum SeatBinding {
    Token,
    Bot(Mutex<Box<dyn Agent>>),
    Play(Arc<Session>),
}

pub struct TableState {
    pub game: Box<dyn AnyGame>,
    pub version: u64,
    pub actions: Vec<ActionId>,
    pub turn_started: Instant,
    pub verdicts: Vec<v1::Verdict>,
    pub ended: Option<v1::Outcome>,
    /// Every public event so far (spectators joining late get them first).
    pub events: Vec<v1::MatchEvent>,
}

pub struct Table {
    pub id: String,
    pub game_name: String,
    pub params_yaml: String,
    pub seed: u64,
    /// The scenario it started from (empty: a fresh deal).
    pub scenario: String,
    pub seats: Vec<SeatBinding>,
    pub tokens: Vec<Option<String>>,
    pub move_time: Option<Duration>,
    pub policy: Policy,
    pub state: Mutex<TableState>,
    /// Woken whenever the match changes (an Act, the end).
    pub changed: tokio::sync::Notify,
    /// Woken when the match ends (a permit is stored, so a late waiter still hears it).
    pub over: tokio::sync::Notify,
    pub events: broadcast::Sender<v1::MatchEvent>,
    pub next_request: Arc<AtomicU64>,
    pub spec: Arc<dyn AnySpec>,
    /// Where to note each Play round trip, when the server measures them (benchmarks).
    pub latencies: Option<Arc<Mutex<Vec<Duration>>>>,
}

fn random_index(seed: u64, version: u64, n: usize) -> usize {
    SmallRng::seed_from_u64(seed ^ version.wrapping_mul(0x9E37_79B9_7F4A_7C15)).random_range(0..n)
}

impl Table {
    pub fn lock(&self) -> std::sync::MutexGuard<'_, TableState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn event(&self, s: &mut TableState, event: v1::match_event::Event) {
        let e = v1::MatchEvent { match_id: self.id.clone(), version: s.version, event: Some(event) };
        s.events.push(e.clone());
        let _ = self.events.send(e);
    }

    pub fn started(&self) {
        let mut s = self.lock();
        let seats = self.seats.len() as u32;
        let started = v1::Started { game: self.game_name.clone(), params_yaml: self.params_yaml.clone(), seats };
        self.event(&mut s, v1::match_event::Event::Started(started));
    }

    /// A seat's view now.
    pub fn seat_state(&self, s: &TableState, seat: usize) -> Result<v1::SeatState, Status> {
        let to_move = s.game.to_move().filter(|_| s.ended.is_none()).map(|m| u32::from(m.0));
        let mine = to_move == Some(seat as u32);
        let legal = if mine { wire::legal(s.game.as_ref()).1 } else { Vec::new() };
        let time_left_ms = match (mine, self.move_time) {
            (true, Some(limit)) => limit.saturating_sub(s.turn_started.elapsed()).as_millis() as u32,
            _ => 0,
        };
        Ok(v1::SeatState {
            match_id: self.id.clone(),
            seat: seat as u32,
            version: s.version,
            to_move,
            observation: Some(wire::observation(s.game.as_ref(), Seat(seat as u8)).map_err(Status::internal)?),
            legal,
            time_left_ms,
            outcome: s.ended.clone(),
        })
    }

    /// Apply a checked action (the lock held); ends the match if the game is over.
    fn apply_locked(&self, s: &mut TableState, seat: usize, action: ActionId) -> Result<(), ActionError> {
        let label = s.game.action_label(action);
        s.game.apply(action)?;
        s.actions.push(action);
        s.version += 1;
        s.turn_started = Instant::now();
        let to_move = s.game.to_move().map(|m| u32::from(m.0));
        self.event(s, v1::match_event::Event::Moved(v1::Moved { seat: seat as u32, action, label, to_move }));
        if s.game.is_terminal() {
            let o = s.game.outcome().expect("a finished game has an outcome");
            self.finish(s, wire::outcome(&o, &s.verdicts));
        }
        Ok(())
    }

    fn finish(&self, s: &mut TableState, outcome: v1::Outcome) {
        s.ended = Some(outcome.clone());
        self.over.notify_one();
        self.event(s, v1::match_event::Event::Ended(v1::Ended { outcome: Some(outcome.clone()) }));
        for (seat, b) in self.seats.iter().enumerate() {
            if let SeatBinding::Play(session) = b {
                session.ended(v1::MatchEnded {
                    match_id: self.id.clone(),
                    seat: seat as u32,
                    outcome: Some(outcome.clone()),
                });
            }
        }
        self.changed.notify_waiters();
    }

    /// A token seat's move (Act): every check under the lock, then applied; an error changes
    /// nothing.
    pub fn act(&self, seat: usize, action: ActionId, version: Option<u64>) -> Result<v1::SeatState, Status> {
        let mut s = self.lock();
        if s.ended.is_some() {
            return Err(Status::failed_precondition(format!("match {}: the match is over", self.id)));
        }
        let to_move = s.game.to_move().map(|m| m.index());
        if to_move != Some(seat) {
            let who = to_move.map_or("nobody".to_string(), |m| format!("seat {m}"));
            return Err(Status::failed_precondition(format!("not your turn: {who} is to move, not seat {seat}")));
        }
        if let Some(v) = version
            && v != s.version
        {
            return Err(Status::aborted(format!(
                "stale state: the action was chosen at version {v}, the match is at version {}",
                s.version
            )));
        }
        let mut legal = Vec::new();
        s.game.legal_actions(&mut legal);
        if !legal.contains(&action) {
            return Err(Status::invalid_argument(format!(
                "action {action} ({}) is not legal now; the legal actions are {legal:?}",
                s.game.action_label(action)
            )));
        }
        self.apply_locked(&mut s, seat, action).map_err(|e| Status::internal(e.to_string()))?;
        self.changed.notify_waiters();
        self.seat_state(&s, seat)
    }

    /// The policy for a seat that did not move properly (the lock held).
    fn penalise(&self, s: &mut TableState, seat: usize, kind: &str, detail: String) {
        let verdict = v1::Verdict { seat: seat as u32, kind: kind.into(), detail, policy: self.policy.name().into() };
        tracing::info!(match_id = %self.id, seat, kind, policy = self.policy.name(), "verdict: {}", verdict.detail);
        s.verdicts.push(verdict);
        match self.policy {
            Policy::RandomMove => {
                let (legal, _) = wire::legal(s.game.as_ref());
                let a = legal[random_index(self.seed, s.version, legal.len())];
                self.apply_locked(s, seat, a).expect("a listed action is legal");
            }
            Policy::Forfeit => {
                let n = self.seats.len();
                let ranks = (0..n).map(|i| if i == seat { (n - 1) as u32 } else { 0 }).collect();
                let outcome = v1::Outcome { scores: vec![0; n], ranks, verdicts: s.verdicts.clone() };
                self.finish(s, outcome);
            }
        }
        self.changed.notify_waiters();
    }

    /// Drive the match to its end (a task on the server's runtime): ask agents and Play
    /// clients, enforce the limit on every seat.
    pub async fn drive(self: Arc<Self>) {
        loop {
            // Enabled before the state is read, so that no Act slips between.
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let (seat, version, snapshot) = {
                let s = self.lock();
                if s.ended.is_some() {
                    return;
                }
                let Some(seat) = s.game.to_move() else { return };
                // An agent or a client thinks on a copy; a token seat's move comes by Act.
                let token = matches!(self.seats[seat.index()], SeatBinding::Token);
                (seat.index(), s.version, (!token).then(|| s.game.clone_box()))
            };
            let deadline = self.move_time.map(|d| tokio::time::Instant::now() + d);
            let limit_ms = self.move_time.unwrap_or_default().as_millis();
            let chosen: Result<ActionId, (String, String)> = match &self.seats[seat] {
                SeatBinding::Token => {
                    // Wait for Act (or the limit). With no limit and only token seats there
                    // is nothing to drive: Act moves the match on, and ends it.
                    let timed_out = match deadline {
                        Some(d) => tokio::time::timeout_at(d, changed).await.is_err(),
                        None if self.seats.iter().all(|b| matches!(b, SeatBinding::Token)) => {
                            self.over.notified().await;
                            continue;
                        }
                        None => {
                            changed.await;
                            false
                        }
                    };
                    if timed_out {
                        let mut s = self.lock();
                        if s.ended.is_none() && s.version == version {
                            self.penalise(&mut s, seat, "timeout", format!("no action within {limit_ms} ms"));
                        }
                    }
                    continue;
                }
                SeatBinding::Bot(_) => {
                    let snapshot = snapshot.expect("a copy for the agent");
                    let table = self.clone();
                    let work = tokio::task::spawn_blocking(move || {
                        let SeatBinding::Bot(agent) = &table.seats[seat] else { unreachable!("a bot seat") };
                        let mut legal = Vec::new();
                        snapshot.legal_actions(&mut legal);
                        let budget = Budget { per_move: table.move_time };
                        let view = SeatView::local(snapshot.as_ref(), Seat(seat as u8), &legal, budget);
                        let mut agent = agent.lock().unwrap_or_else(|p| p.into_inner());
                        match catch_unwind(AssertUnwindSafe(|| agent.act(&view))) {
                            Ok(Ok(a)) => Ok(a),
                            Ok(Err(e)) => Err(("crash".to_string(), e.to_string())),
                            Err(_) => Err(("crash".to_string(), "the agent panicked".to_string())),
                        }
                    });
                    work.await.unwrap_or_else(|e| Err(("crash".into(), e.to_string())))
                }
                SeatBinding::Play(session) => {
                    let snapshot = snapshot.expect("a copy for the client");
                    let (_, legal) = wire::legal(snapshot.as_ref());
                    match wire::observation(snapshot.as_ref(), Seat(seat as u8)) {
                        Err(e) => Err(("crash".into(), e)),
                        Ok(observation) => {
                            let request = v1::DecisionRequest {
                                request_id: self.next_request.fetch_add(1, Ordering::Relaxed),
                                match_id: self.id.clone(),
                                seat: seat as u32,
                                game: self.game_name.clone(),
                                params_yaml: self.params_yaml.clone(),
                                observation: Some(observation),
                                legal,
                                time_left_ms: limit_ms as u32,
                                version,
                            };
                            let asked = Instant::now();
                            let answer = session.decide_async(request, deadline).await;
                            if let Some(l) = &self.latencies {
                                l.lock().unwrap_or_else(|p| p.into_inner()).push(asked.elapsed());
                            }
                            answer.map_err(|e| match e {
                                NoDecision::Timeout(_) => {
                                    ("timeout".into(), format!("no decision within {limit_ms} ms"))
                                }
                                NoDecision::Disconnected => ("disconnected".into(), e.to_string()),
                            })
                        }
                    }
                }
            };
            let late = deadline.is_some_and(|d| tokio::time::Instant::now() > d);
            let mut s = self.lock();
            if s.ended.is_some() || s.version != version {
                continue;
            }
            match chosen {
                Ok(_) if late => {
                    self.penalise(&mut s, seat, "timeout", format!("answered after the {limit_ms} ms limit"));
                }
                Ok(a) => {
                    let (legal, _) = wire::legal(s.game.as_ref());
                    if legal.contains(&a) {
                        self.apply_locked(&mut s, seat, a).expect("checked legal");
                        self.changed.notify_waiters();
                    } else {
                        self.penalise(&mut s, seat, "illegal", format!("action {a} is not legal; legal: {legal:?}"));
                    }
                }
                Err((kind, detail)) => self.penalise(&mut s, seat, &kind, detail),
            }
        }
    }

    /// The record of a finished match.
    pub fn record(&self) -> Result<v1::MatchRecord, Status> {
        let s = self.lock();
        let Some(outcome) = &s.ended else {
            return Err(Status::failed_precondition(format!("match {} is not over yet", self.id)));
        };
        Ok(v1::MatchRecord {
            game: self.game_name.clone(),
            params_yaml: self.params_yaml.clone(),
            seed: self.seed,
            actions: s.actions.clone(),
            outcome: Some(outcome.clone()),
            scenario: self.scenario.clone(),
        })
    }
}
