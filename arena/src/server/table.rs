//! One match on the server: the game, who sits at each seat, and the task that drives it.
//!
//! A token seat moves when its holder calls Act (checked and applied at once, under the
//! match's lock), and may resign at any time; the creator may cancel. A built-in agent or a
//! Play client is asked by the match's driver task, which also enforces the per-move limit on
//! every seat: when a seat does not move in time, disconnects or answers with an illegal
//! action, the match's policy applies — it forfeits (the match ends, the seat last) or a
//! random legal action is played for it — and the verdict is recorded. A match in which no
//! seat acts for the server's idle limit ends (verdict `idle`, the seat to move losing).
//! Nothing reaches a seat but its own view.

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
    /// A built-in agent (dropped once the match is over).
    Bot(Mutex<Option<Box<dyn Agent>>>),
    Play(Arc<Session>),
}

pub struct TableState {
    pub game: Box<dyn AnyGame>,
    pub version: u64,
    pub actions: Vec<ActionId>,
    pub turn_started: Instant,
    /// When a seat last acted itself (a move played for it by the policy does not count).
    pub last_acted: Instant,
    pub verdicts: Vec<v1::Verdict>,
    pub ended: Option<v1::Outcome>,
    /// Every public event so far (spectators read them from here, from any version).
    pub events: Vec<v1::MatchEvent>,
}

/// The limits a match runs under.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The per-move limit.
    pub move_time: Option<Duration>,
    pub policy: Policy,
    /// No seat acting for this long ends the match.
    pub idle: Option<Duration>,
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
    /// The creator's token (CancelMatch).
    pub creator: String,
    pub limits: Limits,
    pub state: Mutex<TableState>,
    /// Woken whenever the match changes (an Act, an event, the end).
    pub changed: tokio::sync::Notify,
    /// Woken when the match ends (a permit is stored, so the driver hears it however late).
    pub over: tokio::sync::Notify,
    pub next_request: Arc<AtomicU64>,
    pub spec: Arc<dyn AnySpec>,
    /// Server-run agents think one at a time per slot (a slot taken, the move's clock starts).
    pub bot_slots: Arc<tokio::sync::Semaphore>,
    /// Where to note each Play round trip, when the server measures them (benchmarks).
    pub latencies: Option<Arc<Mutex<Vec<Duration>>>>,
}

fn random_index(seed: u64, version: u64, n: usize) -> usize {
    SmallRng::seed_from_u64(seed ^ version.wrapping_mul(0x9E37_79B9_7F4A_7C15)).random_range(0..n)
}

/// The outcome of a match that `seat` lost by a verdict: it last, every other seat first.
fn forfeit(n: usize, seat: usize, verdicts: &[v1::Verdict]) -> v1::Outcome {
    let ranks = (0..n).map(|i| if i == seat { (n - 1) as u32 } else { 0 }).collect();
    v1::Outcome { scores: vec![0; n], ranks, verdicts: verdicts.to_vec(), cancelled: false }
}

/// What the driver waits for, and what ends the wait.
enum Waited {
    Chosen(Result<ActionId, (String, String)>),
    /// The per-move limit passed.
    Timeout,
    /// No seat acted for the idle limit.
    Idle,
    /// The match changed (an Act, a resignation, a cancellation): look again.
    Changed,
}

impl Table {
    pub fn lock(&self) -> std::sync::MutexGuard<'_, TableState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn event(&self, s: &mut TableState, event: v1::match_event::Event) {
        s.events.push(v1::MatchEvent { match_id: self.id.clone(), version: s.version, event: Some(event) });
        self.changed.notify_waiters();
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
        let time_left_ms = match (mine, self.limits.move_time) {
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

    /// Apply a checked action (the lock held); ends the match if the game is over. `by_seat`:
    /// the seat chose it (not the policy).
    fn apply_locked(
        &self,
        s: &mut TableState,
        seat: usize,
        action: ActionId,
        by_seat: bool,
    ) -> Result<(), ActionError> {
        let label = s.game.action_label(action);
        s.game.apply(action)?;
        s.actions.push(action);
        s.version += 1;
        s.turn_started = Instant::now();
        if by_seat {
            s.last_acted = s.turn_started;
        }
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
    }

    /// Drop what a finished match no longer needs (its agents); a search still running on a
    /// blocking thread keeps its agent until it returns.
    pub fn release(&self) {
        for b in &self.seats {
            if let SeatBinding::Bot(agent) = b
                && let Ok(mut a) = agent.try_lock()
            {
                *a = None;
            }
        }
    }

    pub fn is_over(&self) -> bool {
        self.lock().ended.is_some()
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
        self.apply_locked(&mut s, seat, action, true).map_err(|e| Status::internal(e.to_string()))?;
        self.seat_state(&s, seat)
    }

    /// A token seat gives up: it loses, the match ends.
    pub fn resign(&self, seat: usize) -> Result<v1::SeatState, Status> {
        let mut s = self.lock();
        if s.ended.is_some() {
            return Err(Status::failed_precondition(format!("match {}: the match is over", self.id)));
        }
        let detail = format!("seat {seat} resigned at version {}", s.version);
        tracing::info!(match_id = %self.id, seat, "resigned");
        s.verdicts.push(v1::Verdict {
            seat: seat as u32,
            kind: "resigned".into(),
            detail,
            policy: Policy::Forfeit.name().into(),
        });
        let outcome = forfeit(self.seats.len(), seat, &s.verdicts);
        self.finish(&mut s, outcome);
        self.seat_state(&s, seat)
    }

    /// The creator ends the match: no result.
    pub fn cancel(&self) -> Result<(), Status> {
        let mut s = self.lock();
        if s.ended.is_some() {
            return Err(Status::failed_precondition(format!("match {}: the match is over", self.id)));
        }
        tracing::info!(match_id = %self.id, "cancelled by its creator");
        let n = self.seats.len();
        let outcome =
            v1::Outcome { scores: vec![0; n], ranks: vec![0; n], verdicts: s.verdicts.clone(), cancelled: true };
        self.finish(&mut s, outcome);
        Ok(())
    }

    /// The policy for a seat that did not move properly (the lock held).
    fn penalise(&self, s: &mut TableState, seat: usize, kind: &str, detail: String) {
        let policy = self.limits.policy;
        let verdict = v1::Verdict { seat: seat as u32, kind: kind.into(), detail, policy: policy.name().into() };
        tracing::info!(match_id = %self.id, seat, kind, policy = policy.name(), "verdict: {}", verdict.detail);
        s.verdicts.push(verdict);
        match policy {
            Policy::RandomMove => {
                let (legal, _) = wire::legal(s.game.as_ref());
                let a = legal[random_index(self.seed, s.version, legal.len())];
                self.apply_locked(s, seat, a, false).expect("a listed action is legal");
            }
            Policy::Forfeit => {
                let outcome = forfeit(self.seats.len(), seat, &s.verdicts);
                self.finish(s, outcome);
            }
        }
    }

    /// No seat acted for the idle limit: the seat to move loses, whatever the policy.
    fn end_idle(&self, s: &mut TableState, seat: usize) {
        let idle = self.limits.idle.unwrap_or_default().as_secs_f64();
        let detail = format!("no seat acted for {idle:.0} s (the server's idle limit)");
        tracing::info!(match_id = %self.id, seat, "verdict: {detail}");
        s.verdicts.push(v1::Verdict { seat: seat as u32, kind: "idle".into(), detail, policy: "forfeit".into() });
        let outcome = forfeit(self.seats.len(), seat, &s.verdicts);
        self.finish(s, outcome);
    }

    /// Drive the match to its end (a task on the server's runtime): ask agents and Play
    /// clients, enforce the per-move and idle limits on every seat.
    pub async fn drive(self: Arc<Self>) {
        loop {
            // Enabled before the state is read, so that no change slips between.
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let (seat, version, snapshot, idle_at) = {
                let s = self.lock();
                if s.ended.is_some() {
                    return;
                }
                let Some(seat) = s.game.to_move() else { return };
                // An agent or a client thinks on a copy; a token seat's move comes by Act.
                let token = matches!(self.seats[seat.index()], SeatBinding::Token);
                let idle_at = self.limits.idle.map(|d| tokio::time::Instant::from_std(s.last_acted + d));
                (seat.index(), s.version, (!token).then(|| s.game.clone_box()), idle_at)
            };
            let move_time = self.limits.move_time;
            let limit_ms = move_time.unwrap_or_default().as_millis();
            let idle = async {
                match idle_at {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            };
            let waited = match &self.seats[seat] {
                SeatBinding::Token => {
                    // Wait for Act (or a limit).
                    let deadline = move_time.map(|d| tokio::time::Instant::now() + d);
                    let timeout = async {
                        match deadline {
                            Some(d) => tokio::time::sleep_until(d).await,
                            None => std::future::pending().await,
                        }
                    };
                    tokio::select! {
                        _ = changed => Waited::Changed,
                        _ = timeout => Waited::Timeout,
                        _ = idle => Waited::Idle,
                    }
                }
                SeatBinding::Bot(_) => {
                    let snapshot = snapshot.expect("a copy for the agent");
                    let think = self.clone().think(seat, snapshot);
                    tokio::select! {
                        chosen = think => Waited::Chosen(chosen),
                        _ = self.over.notified() => return,
                        _ = idle => Waited::Idle,
                    }
                }
                SeatBinding::Play(session) => {
                    let snapshot = snapshot.expect("a copy for the client");
                    let deadline = move_time.map(|d| tokio::time::Instant::now() + d);
                    let ask = self.ask(session, seat, version, snapshot, deadline);
                    tokio::select! {
                        chosen = ask => match chosen {
                            Err((kind, _)) if kind == "timeout" => Waited::Timeout,
                            chosen => Waited::Chosen(chosen),
                        },
                        _ = self.over.notified() => return,
                        _ = idle => Waited::Idle,
                    }
                }
            };
            let mut s = self.lock();
            if s.ended.is_some() || s.version != version {
                continue;
            }
            match waited {
                Waited::Changed => {}
                Waited::Idle => self.end_idle(&mut s, seat),
                Waited::Timeout => self.penalise(&mut s, seat, "timeout", format!("no action within {limit_ms} ms")),
                Waited::Chosen(Ok(a)) => {
                    let (legal, _) = wire::legal(s.game.as_ref());
                    if legal.contains(&a) {
                        self.apply_locked(&mut s, seat, a, true).expect("checked legal");
                    } else {
                        self.penalise(&mut s, seat, "illegal", format!("action {a} is not legal; legal: {legal:?}"));
                    }
                }
                Waited::Chosen(Err((kind, detail))) => self.penalise(&mut s, seat, &kind, detail),
            }
        }
    }

    /// A server-run agent's move: it waits for a thinking slot, then thinks on a blocking
    /// thread within the per-move limit (judged when it returns: the caps bound its work).
    async fn think(self: Arc<Self>, seat: usize, snapshot: Box<dyn AnyGame>) -> Result<ActionId, (String, String)> {
        let slot = self.bot_slots.clone().acquire_owned().await.map_err(|e| ("crash".to_string(), e.to_string()))?;
        let started = Instant::now();
        let table = self.clone();
        let work = tokio::task::spawn_blocking(move || {
            // The slot is held while the agent thinks, even if the match ends meanwhile.
            let _slot = slot;
            let SeatBinding::Bot(agent) = &table.seats[seat] else { unreachable!("a bot seat") };
            let mut legal = Vec::new();
            snapshot.legal_actions(&mut legal);
            let budget = Budget { per_move: table.limits.move_time };
            let view = SeatView::local(snapshot.as_ref(), Seat(seat as u8), &legal, budget);
            let mut agent = agent.lock().unwrap_or_else(|p| p.into_inner());
            let Some(agent) = agent.as_mut() else {
                return Err(("crash".to_string(), "the match is over".to_string()));
            };
            match catch_unwind(AssertUnwindSafe(|| agent.act(&view))) {
                Ok(Ok(a)) => Ok(a),
                Ok(Err(e)) => Err(("crash".to_string(), e.to_string())),
                Err(_) => Err(("crash".to_string(), "the agent panicked".to_string())),
            }
        });
        let chosen = work.await.unwrap_or_else(|e| Err(("crash".into(), e.to_string())))?;
        match self.limits.move_time {
            Some(limit) if started.elapsed() > limit => {
                Err(("timeout".into(), format!("answered after the {} ms limit", limit.as_millis())))
            }
            _ => Ok(chosen),
        }
    }

    /// A Play client's move, within the limit.
    async fn ask(
        &self,
        session: &Session,
        seat: usize,
        version: u64,
        snapshot: Box<dyn AnyGame>,
        deadline: Option<tokio::time::Instant>,
    ) -> Result<ActionId, (String, String)> {
        let (_, legal) = wire::legal(snapshot.as_ref());
        let observation = wire::observation(snapshot.as_ref(), Seat(seat as u8)).map_err(|e| ("crash".into(), e))?;
        let limit_ms = self.limits.move_time.unwrap_or_default().as_millis();
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
            NoDecision::Timeout(_) => ("timeout".into(), format!("no decision within {limit_ms} ms")),
            NoDecision::Disconnected => ("disconnected".into(), e.to_string()),
        })
    }

    /// The record of a finished match.
    pub fn record(&self) -> Result<v1::MatchRecord, Status> {
        let s = self.lock();
        let Some(outcome) = &s.ended else {
            return Err(Status::failed_precondition(format!(
                "match {} is in play: its record (and seed) is given once it is over",
                self.id
            )));
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
