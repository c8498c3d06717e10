//! One match on the server: the game, who sits at each seat, and the task that drives it.
//!
//! A token seat moves when its holder calls Act (checked and applied at once, under the
//! match's lock), and may resign at any time, as may the Play client of a Play seat; the
//! creator may cancel. A built-in agent or a Play client is asked by the match's driver task,
//! which also enforces the per-move limit on every seat. Every answer and every fault is judged by the match's [`Referee`] — the same
//! one `arena play` and tournaments use: a seat that does not move in time, disconnects or
//! answers with an illegal action forfeits or has a random legal action played for it, and the
//! verdict is kept. A match in which no seat acts for the server's idle limit ends (verdict
//! `idle`, the seat to move losing). Nothing reaches a seat but its own view.

use super::session::{NoDecision, SeatHeld, Session, StreamFault};
use super::wire;
use crate::record::MatchRecord;
use crate::referee::{Fault, Limit, MatchOutcome, NoAnswer, Policy, Referee, Ruling, ask, grace, resigned};
use bots::{Agent, Budget, SeatView};
use engine::core::{ActionId, AnyGame, AnySpec, Seat};
use proto::v1;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tonic::Status;

pub enum SeatBinding {
    Token,
    /// A seat played outside this server (a tournament's worker): the match is shown here,
    /// move by move as it is told them, and never driven.
    Elsewhere,
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
    /// Judges every answer and fault; keeps the verdicts.
    pub referee: Referee,
    pub ended: Option<MatchOutcome>,
    /// Every public event so far (spectators read them from here, from any version).
    pub events: Vec<v1::MatchEvent>,
    /// The last table made for spectators ([`Table::public_table`]), when, and of which
    /// [`TableState::stage`]: they share it.
    public: Option<(Instant, Stage, v1::MatchEvent)>,
    /// The Play streams' seats, counted as theirs until the match ends.
    held: Vec<SeatHeld>,
}

/// How far a match has come, for its tables: its version, and whether it is over (a
/// resignation or a timeout ends a match without a move).
pub type Stage = (u64, bool);

impl TableState {
    /// How far the match has come now.
    pub fn stage(&self) -> Stage {
        (self.version, self.ended.is_some())
    }

    /// The outcome as it crosses the wire, once over.
    pub fn outcome(&self, cooperative: bool) -> Option<v1::MatchOutcome> {
        self.ended.as_ref().map(|o| wire::outcome(o, self.referee.verdicts(), cooperative))
    }
}

/// A spectator asking for the table is sent it at most this often while the match moves, and
/// a table is made at most this often for all of them.
pub const TABLE_EVERY: Duration = Duration::from_millis(100);

/// Which table one spectator's stream sends, and when: the newest there is once the last sent
/// is TABLE_EVERY old, and the last at the end.
#[derive(Default)]
pub struct TableFeed {
    /// The last sent: when, and of which stage.
    sent: Option<(Instant, Stage)>,
}

impl TableFeed {
    /// The table to send now, if one is due and newer than the last sent, and when to look
    /// again if the stream is not up to date by then (`None`: at the match's next change).
    pub fn next(
        &mut self,
        table: &Table,
        s: &mut TableState,
        now: Instant,
    ) -> Result<(Option<v1::MatchEvent>, Option<Instant>), Status> {
        if self.sent.is_some_and(|(_, stage)| stage == s.stage()) {
            return Ok((None, None));
        }
        if let Some((at, _)) = self.sent
            && s.ended.is_none()
            && now < at + TABLE_EVERY
        {
            return Ok((None, Some(at + TABLE_EVERY)));
        }
        let (event, made, stage) = table.public_table(s, now)?;
        if self.sent.is_some_and(|(_, sent)| stage <= sent) {
            // Not newer than what this stream has: the next is made once this one is old.
            return Ok((None, Some(made + TABLE_EVERY)));
        }
        self.sent = Some((now, stage));
        let behind = stage != s.stage();
        Ok((Some(event), behind.then_some(now + TABLE_EVERY)))
    }
}

/// The limits a match runs under.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The per-move limit.
    pub move_time: Option<Duration>,
    /// An overage bank beside it (each seat's own).
    pub bank: Option<crate::referee::Clock>,
    pub policy: Policy,
    /// No seat acting for this long ends the match.
    pub idle: Option<Duration>,
}

pub struct Table {
    /// What the match is made of, fixed when it is made.
    pub setup: Setup,
    pub params_yaml: String,
    pub state: Mutex<TableState>,
    /// Woken whenever the match changes (an Act, an event, the end).
    pub changed: tokio::sync::Notify,
    /// Woken when the match ends (a permit is stored, so the driver hears it however late).
    pub over: tokio::sync::Notify,
}

/// What the driver waits for, and what ends the wait.
enum Waited {
    /// An answer, and the time it took.
    Chosen(Result<ActionId, NoAnswer>, Duration),
    /// The per-move limit passed.
    Timeout,
    /// No seat acted for the idle limit.
    Idle,
    /// The match changed (an Act, a resignation, a cancellation): look again.
    Changed,
}

/// Everything a match is made of but its game, fixed when it is made.
pub struct Setup {
    pub id: String,
    pub game_name: String,
    pub spec: Arc<dyn AnySpec>,
    pub seed: u64,
    /// The scenario it started from (empty: a fresh deal).
    pub scenario: String,
    pub seats: Vec<SeatBinding>,
    /// Who sits at each seat, for the record.
    pub players: Vec<String>,
    pub tokens: Vec<Option<String>>,
    /// The creator's token (CancelMatch).
    pub creator: String,
    pub limits: Limits,
    pub cooperative: bool,
    pub next_request: Arc<AtomicU64>,
    /// Server-run agents think one at a time per slot (a slot taken, the move's clock starts):
    /// a slot of the creator's share first, then one of the server's.
    pub bot_slots: Arc<tokio::sync::Semaphore>,
    pub client_slots: Arc<tokio::sync::Semaphore>,
    /// The threads they think on, below the request path's priority.
    pub thinkers: Arc<super::thinkers::Thinkers>,
    /// The creator's place among the matches in play, given back when the match is over.
    pub place: Mutex<Option<super::shares::Held>>,
    /// Where to note each Play round trip, when the server measures them (benchmarks).
    pub latencies: Option<Arc<Mutex<Vec<Duration>>>>,
    /// For a match whose deal other matches share (a ladder's pairing, a tournament's deal with
    /// strangers at its tables): what it shows is held back until every one of them is over.
    pub deal: Option<Arc<SharedDeal>>,
}

/// The matches that share a deal. Until every one of them is over, a match's record (its seed
/// tells every hidden card of the deal) is given to no one. Its moves are held back too when
/// someone may play the deal without having played this match (`moves`): its moves would tell
/// them what their deal holds. Where every match on a deal is played one after another by the
/// same agents (a ladder's competitive pairing), its moves tell its players nothing they did
/// not see at its table: they are shown live.
#[derive(Default)]
pub struct SharedDeal {
    released: std::sync::atomic::AtomicBool,
    notify: tokio::sync::Notify,
    moves: bool,
}

impl SharedDeal {
    /// A deal whose matches hold back their records until they are all over.
    pub fn records() -> Arc<SharedDeal> {
        Arc::new(SharedDeal::default())
    }

    /// A deal whose matches hold back their records and their moves until they are all over.
    pub fn records_and_moves() -> Arc<SharedDeal> {
        Arc::new(SharedDeal { moves: true, ..SharedDeal::default() })
    }

    /// Every match on the deal is over: what they show is given from now on.
    pub fn release(&self) {
        self.released.store(true, Ordering::Release);
        self.notify.notify_waiters();
    }

    pub fn is_released(&self) -> bool {
        self.released.load(Ordering::Acquire)
    }

    /// Wait until the deal is released.
    pub async fn released(&self) {
        loop {
            let notified = self.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.is_released() {
                return;
            }
            notified.await;
        }
    }
}

impl Table {
    /// A match ready to be driven; its Started event is the first.
    pub fn new(setup: Setup, game: Box<dyn AnyGame>) -> Result<Arc<Table>, Status> {
        let params_yaml =
            engine::core::params_to_yaml(&setup.spec.params_yaml()).map_err(|e| Status::internal(e.to_string()))?;
        let now = Instant::now();
        let control =
            crate::referee::TimeControl { per_move: setup.limits.move_time, clock: None, bank: setup.limits.bank };
        let referee = Referee::with_controls(vec![control], setup.limits.policy, setup.seed);
        let held = setup
            .seats
            .iter()
            .filter_map(|b| match b {
                SeatBinding::Play(session) => Some(SeatHeld::new(session)),
                _ => None,
            })
            .collect();
        let table = Arc::new(Table {
            setup,
            params_yaml,
            state: Mutex::new(TableState {
                game,
                version: 0,
                actions: Vec::new(),
                turn_started: now,
                last_acted: now,
                referee,
                ended: None,
                events: Vec::new(),
                public: None,
                held,
            }),
            changed: tokio::sync::Notify::new(),
            over: tokio::sync::Notify::new(),
        });
        table.started();
        Ok(table)
    }

    pub fn lock(&self) -> std::sync::MutexGuard<'_, TableState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn event(&self, s: &mut TableState, event: v1::match_event::Event) {
        s.events.push(v1::MatchEvent { match_id: self.setup.id.clone(), version: s.version, event: Some(event) });
        self.changed.notify_waiters();
    }

    fn started(&self) {
        let mut s = self.lock();
        let seats = self.setup.seats.len() as u32;
        let started = v1::Started { game: self.setup.game_name.clone(), params_yaml: self.params_yaml.clone(), seats };
        self.event(&mut s, v1::match_event::Event::Started(started));
    }

    /// A seat's view now (with its tensor and legal mask when `tensors`).
    pub fn seat_state(&self, s: &TableState, seat: usize, tensors: bool) -> Result<v1::SeatState, Status> {
        let to_move = s.game.to_move().filter(|_| s.ended.is_none()).map(|m| u32::from(m.0));
        let mine = to_move == Some(seat as u32);
        let mut ids = Vec::new();
        if mine {
            s.game.legal_actions(&mut ids);
        }
        // The seat's view (its legal actions only when it is to move).
        let view = SeatView::local(s.game.as_ref(), Seat(seat as u8), &ids, Budget::default());
        let (tensor, legal_mask) = if tensors {
            (view.observation_tensor(), wire::legal_mask(self.setup.spec.action_count(), &ids))
        } else {
            (Vec::new(), Vec::new())
        };
        let time_left_ms = match (mine, s.referee.allowed(seat)) {
            (true, Some(limit)) => limit.saturating_sub(s.turn_started.elapsed()).as_millis() as u32,
            _ => 0,
        };
        let bank_left_ms = s.referee.bank_left(seat).map(|b| b.as_millis().min(u128::from(u32::MAX)) as u32);
        Ok(v1::SeatState {
            match_id: self.setup.id.clone(),
            seat: seat as u32,
            version: s.version,
            to_move,
            observation: Some(wire::observation(&self.setup.game_name, &view).map_err(Status::internal)?),
            legal: wire::legal(&view),
            time_left_ms,
            outcome: s.outcome(self.setup.cooperative),
            tensor,
            legal_mask,
            bank_left_ms,
        })
    }

    /// The table as anyone watching sees it (a Table event): the game's public observation, no
    /// seat's, typed and as text; and when it was made. Spectators share one: it is made again
    /// only once it is TABLE_EVERY old (or the match is over) and the match has moved since,
    /// so it may be of an earlier version than now. Whoever asks for it must hold back what
    /// [`Table::moves_held_by`] holds back: it tells the deal as the moves do.
    pub fn public_table(&self, s: &mut TableState, now: Instant) -> Result<(v1::MatchEvent, Instant, Stage), Status> {
        if let Some((at, stage, e)) = &s.public
            && (*stage == s.stage() || (s.ended.is_none() && now < *at + TABLE_EVERY))
        {
            return Ok((e.clone(), *at, *stage));
        }
        let event = self.make_public_table(s)?;
        s.public = Some((now, s.stage(), event.clone()));
        Ok((event, now, s.stage()))
    }

    /// The table as anyone watching sees it now, made afresh (what [`Table::public_table`]
    /// shares).
    pub fn make_public_table(&self, s: &TableState) -> Result<v1::MatchEvent, Status> {
        let observation = wire::public_observation(&self.setup.game_name, s.game.as_ref()).map_err(Status::internal)?;
        let to_move = s.game.to_move().filter(|_| s.ended.is_none()).map(|m| u32::from(m.0));
        Ok(v1::MatchEvent {
            match_id: self.setup.id.clone(),
            version: s.version,
            event: Some(v1::match_event::Event::Table(v1::Table { observation: Some(observation), to_move })),
        })
    }

    /// Apply a legal action (the lock held); ends the match if the game is over. `by_seat`:
    /// the seat chose it (not the policy).
    fn apply_locked(&self, s: &mut TableState, seat: usize, action: ActionId, by_seat: bool) {
        let label = s.game.action_label(action);
        let target = s.game.action_target(action).unwrap_or_default();
        s.game.apply(action).expect("only legal actions are applied");
        s.actions.push(action);
        s.version += 1;
        s.turn_started = Instant::now();
        if by_seat {
            s.last_acted = s.turn_started;
        }
        let to_move = s.game.to_move().map(|m| u32::from(m.0));
        self.event(s, v1::match_event::Event::Moved(v1::Moved { seat: seat as u32, action, label, to_move, target }));
        if s.game.is_terminal() {
            let o = Referee::outcome(s.game.as_ref(), None);
            self.finish(s, o);
        }
    }

    /// Carry out the referee's ruling (the lock held).
    fn rule(&self, s: &mut TableState, seat: usize, ruling: Ruling) {
        match ruling {
            Ruling::Play(a) => self.apply_locked(s, seat, a, true),
            Ruling::Substitute(a) => self.apply_locked(s, seat, a, false),
            Ruling::Forfeit(loser) => self.finish(s, MatchOutcome::forfeit(self.setup.seats.len(), loser)),
        }
    }

    /// `seat` is at fault (the lock held): the referee rules.
    fn fault(&self, s: &mut TableState, seat: usize, kind: Fault, detail: String) {
        tracing::info!(match_id = %self.setup.id, seat, kind = kind.name(), "verdict: {detail}");
        let at = s.actions.len();
        let ruling = s.referee.fault(s.game.as_ref(), seat, at, kind, detail);
        self.rule(s, seat, ruling);
    }

    fn finish(&self, s: &mut TableState, outcome: MatchOutcome) {
        s.ended = Some(outcome);
        let wire = s.outcome(self.setup.cooperative);
        self.over.notify_one();
        self.event(s, v1::match_event::Event::Ended(v1::Ended { outcome: wire.clone() }));
        for (seat, b) in self.setup.seats.iter().enumerate() {
            if let SeatBinding::Play(session) = b {
                session.ended(v1::MatchEnded {
                    match_id: self.setup.id.clone(),
                    seat: seat as u32,
                    outcome: wire.clone(),
                });
            }
        }
        // After the MatchEnded: a leaving stream that held only these seats ends now.
        s.held.clear();
    }

    /// Drop what a finished match no longer needs (its agents); a search still running on a
    /// blocking thread keeps its agent until it returns.
    pub fn release(&self) {
        self.setup.place.lock().unwrap_or_else(|p| p.into_inner()).take();
        for b in &self.setup.seats {
            if let SeatBinding::Bot(agent) = b
                && let Ok(mut a) = agent.try_lock()
            {
                *a = None;
            }
        }
    }

    /// Wait until the match is over (at once if it is).
    pub async fn wait_over(&self) {
        loop {
            let notified = self.over.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.is_over() {
                return;
            }
            notified.await;
        }
    }

    pub fn is_over(&self) -> bool {
        self.lock().ended.is_some()
    }

    /// A token seat's move (Act): every check under the lock, then applied; an error changes
    /// nothing (an illegal Act is refused, not a verdict: the seat may try again in time).
    pub fn act(&self, seat: usize, action: ActionId, version: Option<u64>) -> Result<v1::SeatState, Status> {
        let mut s = self.lock();
        if s.ended.is_some() {
            return Err(Status::failed_precondition(format!("match {}: the match is over", self.setup.id)));
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
        self.apply_locked(&mut s, seat, action, true);
        self.seat_state(&s, seat, false)
    }

    /// A token seat gives up: it loses, the match ends.
    pub fn resign(&self, seat: usize) -> Result<v1::SeatState, Status> {
        let mut s = self.lock();
        if s.ended.is_some() {
            return Err(Status::failed_precondition(format!("match {}: the match is over", self.setup.id)));
        }
        self.resign_locked(&mut s, seat);
        self.seat_state(&s, seat, false)
    }

    /// A Play client gives up a seat of this match, which must be one it plays (the same
    /// stream): it loses, the match ends. Anything else changes nothing.
    pub fn resign_play(&self, session: &Session, seat: u32) -> Result<(), StreamFault> {
        let seat = seat as usize;
        match self.setup.seats.get(seat) {
            Some(SeatBinding::Play(s)) if s.id == session.id => {}
            _ => return Err(StreamFault::NotYourSeat),
        }
        let mut s = self.lock();
        if s.ended.is_some() {
            return Err(StreamFault::NotYourSeat);
        }
        self.resign_locked(&mut s, seat);
        Ok(())
    }

    fn resign_locked(&self, s: &mut TableState, seat: usize) {
        let detail = resigned(seat, s.actions.len());
        self.fault(s, seat, Fault::Resigned, detail);
    }

    /// The creator ends the match: no result.
    pub fn cancel(&self) -> Result<(), Status> {
        let mut s = self.lock();
        if s.ended.is_some() {
            return Err(Status::failed_precondition(format!("match {}: the match is over", self.setup.id)));
        }
        tracing::info!(match_id = %self.setup.id, "cancelled by its creator");
        self.finish(&mut s, MatchOutcome::cancelled(self.setup.seats.len()));
        Ok(())
    }

    /// The server stops before the match ends: it ends now, with no result and nobody at fault
    /// (its seats stop waiting). A match already over is left as it is.
    pub fn abort(&self) {
        let mut s = self.lock();
        if s.ended.is_none() {
            tracing::info!(match_id = %self.setup.id, "aborted: the server stops");
            self.finish(&mut s, MatchOutcome::aborted(self.setup.seats.len()));
        }
    }

    /// A move of a match played elsewhere ([`SeatBinding::Elsewhere`]), as its referee let it
    /// be played: shown as a move of this server's own is. One this game does not allow
    /// (the two copies disagree) is refused, and changes nothing.
    pub fn shown_move(&self, seat: usize, action: ActionId) -> Result<(), String> {
        let mut s = self.lock();
        if s.ended.is_some() {
            return Err(format!("match {}: the match is over", self.setup.id));
        }
        if s.game.to_move().map(|m| m.index()) != Some(seat) {
            return Err(format!("match {}: seat {seat} is not to move", self.setup.id));
        }
        let mut legal = Vec::new();
        s.game.legal_actions(&mut legal);
        if !legal.contains(&action) {
            return Err(format!("match {}: action {action} is not legal here", self.setup.id));
        }
        self.apply_locked(&mut s, seat, action, true);
        Ok(())
    }

    /// The end of a match played elsewhere, as its referee ruled (its verdicts kept), if its
    /// last move did not end it already.
    pub fn shown_end(&self, outcome: MatchOutcome, verdicts: Vec<crate::referee::Verdict>) {
        let mut s = self.lock();
        s.referee.keep(verdicts);
        if s.ended.is_none() {
            self.finish(&mut s, outcome);
        }
    }

    /// Drive the match to its end (a task on the server's runtime): ask agents and Play
    /// clients, enforce the per-move and idle limits on every seat.
    pub async fn drive(self: Arc<Self>) {
        loop {
            // Enabled before the state is read, so that no change slips between.
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let (seat, version, snapshot, idle_at, limit, budget) = {
                let s = self.lock();
                if s.ended.is_some() {
                    return;
                }
                let Some(seat) = s.game.to_move() else { return };
                // An agent or a client thinks on a copy; a token seat's move comes by Act.
                let token = matches!(self.setup.seats[seat.index()], SeatBinding::Token | SeatBinding::Elsewhere);
                let idle_at = self.setup.limits.idle.map(|d| tokio::time::Instant::from_std(s.last_acted + d));
                let i = seat.index();
                (i, s.version, (!token).then(|| s.game.clone_box()), idle_at, s.referee.limit(i), s.referee.budget(i))
            };
            // This move's limit: the per-move limit, and what is left in the seat's bank.
            let move_time = limit.map(Limit::duration);
            let idle = async {
                match idle_at {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            };
            let waited = match &self.setup.seats[seat] {
                // Told its moves ([`Table::shown_move`]), never driven.
                SeatBinding::Elsewhere => return,
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
                    let think = self.clone().think(seat, snapshot, budget);
                    tokio::select! {
                        (chosen, took) = think => Waited::Chosen(chosen, took),
                        _ = self.over.notified() => return,
                        _ = idle => Waited::Idle,
                    }
                }
                SeatBinding::Play(session) => {
                    let snapshot = snapshot.expect("a copy for the client");
                    let deadline = limit.map(|l| (tokio::time::Instant::now() + l.duration(), l));
                    let asked = Instant::now();
                    let ask = self.ask(session, seat, version, snapshot, deadline, budget);
                    tokio::select! {
                        chosen = ask => match chosen {
                            Err((Fault::Timeout, _)) => Waited::Timeout,
                            chosen => Waited::Chosen(chosen, asked.elapsed()),
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
                Waited::Idle => {
                    let idle = Limit::Idle(self.setup.limits.idle.unwrap_or_default());
                    self.fault(&mut s, seat, Fault::Idle, idle.missed());
                }
                Waited::Timeout => {
                    let detail = s.referee.timed_out(seat, "");
                    self.fault(&mut s, seat, Fault::Timeout, detail);
                }
                Waited::Chosen(answer, took) => {
                    if let Err((kind, detail)) = &answer {
                        tracing::info!(match_id = %self.setup.id, seat, kind = kind.name(), "verdict: {detail}");
                    }
                    let st = &mut *s;
                    let ruling = st.referee.judge(st.game.as_ref(), seat, st.actions.len(), answer, took);
                    self.rule(st, seat, ruling);
                }
            }
        }
    }

    /// A server-run agent's move and the time it took: it waits for a thinking slot, then
    /// thinks on one of the server's thinking threads (its clock starts with the slot), below
    /// the request path's priority. One that runs past the limit and a grace is cut off (the
    /// thread is left to finish on its own, the slot held till then).
    async fn think(
        self: Arc<Self>,
        seat: usize,
        snapshot: Box<dyn AnyGame>,
        budget: Budget,
    ) -> (Result<ActionId, NoAnswer>, Duration) {
        let slot = match self.setup.client_slots.clone().acquire_owned().await {
            Ok(own) => match self.setup.bot_slots.clone().acquire_owned().await {
                Ok(slot) => (own, slot),
                Err(e) => return (Err((Fault::Crash, e.to_string())), Duration::ZERO),
            },
            Err(e) => return (Err((Fault::Crash, e.to_string())), Duration::ZERO),
        };
        let started = Instant::now();
        let table = self.clone();
        let work = self.setup.thinkers.run(move || {
            // The slot is held while the agent thinks, even if the match ends meanwhile.
            let _slot = slot;
            let SeatBinding::Bot(agent) = &table.setup.seats[seat] else { unreachable!("a bot seat") };
            let mut agent = agent.lock().unwrap_or_else(|p| p.into_inner());
            match agent.as_mut() {
                Some(agent) => ask(agent.as_mut(), snapshot.as_ref(), Seat(seat as u8), budget),
                None => Err((Fault::Crash, "the match is over".to_string())),
            }
        });
        let chosen = match budget.per_move {
            Some(limit) => match tokio::time::timeout(limit.saturating_add(grace(limit)), work).await {
                Ok(done) => done.unwrap_or_else(|_| Err((Fault::Crash, "the agent panicked".to_string()))),
                // The referee words the limit.
                Err(_) => Err((Fault::Timeout, "cut off and left behind".to_string())),
            },
            None => work.await.unwrap_or_else(|_| Err((Fault::Crash, "the agent panicked".to_string()))),
        };
        (chosen, started.elapsed())
    }

    /// A Play client's move, within the limit.
    async fn ask(
        &self,
        session: &Session,
        seat: usize,
        version: u64,
        snapshot: Box<dyn AnyGame>,
        deadline: Option<(tokio::time::Instant, Limit)>,
        budget: Budget,
    ) -> Result<ActionId, NoAnswer> {
        let mut ids = Vec::new();
        snapshot.legal_actions(&mut ids);
        let view = SeatView::local(snapshot.as_ref(), Seat(seat as u8), &ids, budget);
        let asking = wire::Asking {
            request_id: self.setup.next_request.fetch_add(1, Ordering::Relaxed),
            match_id: &self.setup.id,
            game: &self.setup.game_name,
            params_yaml: &self.params_yaml,
            version,
            tensors: session.tensors.then(|| self.setup.spec.action_count()),
            observation: session.observation,
        };
        let request = wire::decision_request(&view, asking).map_err(|e| (Fault::Crash, e))?;
        let asked = Instant::now();
        let answer = session.decide(request, deadline).await;
        if let Some(l) = &self.setup.latencies {
            l.lock().unwrap_or_else(|p| p.into_inner()).push(asked.elapsed());
        }
        answer.map_err(|e| match e {
            // The referee words the limit and the resignation.
            NoDecision::Expired(_) => (Fault::Timeout, String::new()),
            NoDecision::Resigned => (Fault::Resigned, String::new()),
            NoDecision::Disconnected => (Fault::Disconnected, NoDecision::disconnected(&session.name)),
        })
    }

    /// The shared deal that holds back its moves from spectators, while it does (another
    /// match on its deal is not over yet).
    pub fn moves_held_by(&self) -> Option<&Arc<SharedDeal>> {
        self.setup.deal.as_ref().filter(|d| d.moves && !d.is_released())
    }

    /// Is its record held back (another match on its deal is not over yet)?
    fn held_back(&self) -> bool {
        self.setup.deal.as_ref().is_some_and(|d| !d.is_released())
    }

    /// Is its record given (over, and no other match on its deal in play)?
    pub fn is_published(&self) -> bool {
        !self.held_back() && self.is_over()
    }

    /// The record of a finished match, as a client may have it: held back while another match
    /// on its deal is in play.
    pub fn published_record(&self) -> Result<MatchRecord, Status> {
        if self.held_back() {
            return Err(Status::failed_precondition(format!(
                "match {} is over, but its deal is still in play in another match: its record (and seed) is \
                 given once that is over",
                self.setup.id
            )));
        }
        self.record()
    }

    /// The record of a finished match.
    pub fn record(&self) -> Result<MatchRecord, Status> {
        let s = self.lock();
        let Some(outcome) = &s.ended else {
            return Err(Status::failed_precondition(format!(
                "match {} is in play: its record (and seed) is given once it is over",
                self.setup.id
            )));
        };
        let scenario = (!self.setup.scenario.trim().is_empty()).then_some(self.setup.scenario.as_str());
        let mut game = self.setup.spec.record(self.setup.seed, scenario);
        game.actions = s.actions.clone();
        let metrics = match outcome.forfeited_by {
            None if !outcome.cancelled => s.game.metrics().into_iter().map(|m| (m.name.to_string(), m.value)).collect(),
            _ => Default::default(),
        };
        Ok(MatchRecord {
            game,
            players: self.setup.players.clone(),
            outcome: outcome.clone(),
            verdicts: s.referee.verdicts().to_vec(),
            metrics,
            move_ms: Vec::new(),
            match_id: Some(self.setup.id.clone()),
            tournament: None,
        })
    }
}
