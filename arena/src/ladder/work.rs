//! A ladder's games played by workers on other machines (`workers:` in its file; the Work
//! service of the contract; the worker is [`crate::worker`]).
//!
//! A pairing whose agents are all anchors or submissions is played game by game on workers: each
//! game waits in a queue ([`Job`]) until a worker that can play it asks (`Acquire`); it is then
//! leased to that worker (a row in the store, `leases`: the deal, the seats, `open`), shown here
//! live as a match played elsewhere (the worker tells its moves: `Progress`, which also keeps the
//! lease), and its record, once reported (`Report`), is checked (the lease's game, deal and
//! seats; it replays to its outcome) and committed with the lease marked `done` in the same
//! transaction: a game is stored once however often it is reported. A lease not kept for
//! `lease_ms` is voided and its game queued again with the same deal (at most [`ATTEMPTS`]
//! leases per game).
//!
//! A restart finds the leases its predecessor left open (orphans): a report of one is still
//! stored (its worker finished the game while the ladder was away; a cooperative play alone is
//! stored unrated, its pairing being gone); a Progress of one voids it (the game was in play at
//! the crash: its pairing is not replayed as such, the matchmaker pairs again); those nobody
//! reports within `lease_ms` are voided.

use super::config::WorkersConfig;
use super::store::{LeaseRow, Leased};
use super::{Entry, Ladder};
use crate::record::{MatchRecord, TournamentGame};
use crate::referee::MatchOutcome;
use crate::server::hub::{Shown, secret};
use crate::server::names;
use crate::server::shares::same_secret;
use crate::server::table::{SharedDeal, Table};
use crate::tournament::rate::rated_games;
use engine::core::AnySpec;
use proto::v1;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;
use tonic::Status;

/// Leases one game may have before its pairing gives up.
pub const ATTEMPTS: u32 = 3;

/// The most leases one Acquire is given.
const MAX_SLOTS: u32 = 64;

/// How long an Acquire with nothing to give waits for a game to be queued.
const LONG_POLL: Duration = Duration::from_secs(1);

/// What a ladder with workers keeps of them.
pub struct Work {
    pub config: WorkersConfig,
    /// The workers' keys, by their folded names.
    keys: HashMap<String, String>,
    inner: Mutex<Inner>,
    /// Woken when a game is queued.
    queued: tokio::sync::Notify,
}

#[derive(Default)]
struct Inner {
    queue: VecDeque<Job>,
    leased: HashMap<String, Held>,
    /// Leases a stopped ladder left open, and until when a report of one is taken.
    orphans: HashMap<String, Instant>,
}

/// A game waiting for a worker.
pub(super) struct Job {
    pub pairing: u64,
    /// The entry's store index, its game, and the agent at each seat.
    pub group: usize,
    pub spec: Arc<dyn AnySpec>,
    pub game: String,
    pub preset: String,
    pub seats: Vec<usize>,
    pub names: Vec<String>,
    pub players: Vec<v1::LeaseSeat>,
    pub seed: u64,
    /// Does it seat a submission (only a worker with sandboxes takes it)?
    pub sandbox: bool,
    /// Its pairing's deal, held back until the pairing is over.
    pub deal: Option<Arc<SharedDeal>>,
    pub done: oneshot::Sender<Delivered>,
}

/// A leased game.
struct Held {
    job: Job,
    worker: String,
    seen: Instant,
    /// Its match shown here.
    mirror: Option<Arc<Table>>,
}

/// A leased game's record, checked, handed to its pairing; `ack` says what was stored.
pub(super) struct Delivered {
    pub lease: String,
    pub record: MatchRecord,
    pub logs: Vec<(u64, Vec<u8>)>,
    pub ack: oneshot::Sender<Result<v1::ReportResponse, Status>>,
}

impl Work {
    /// The workers of `config`, with `keys` (NAME=KEY) checked as names.
    pub fn new(config: WorkersConfig, keys: HashMap<String, String>) -> Result<Work, String> {
        let mut folded = HashMap::new();
        for (name, key) in keys {
            names::check(&name).map_err(|e| format!("a worker's name `{name}`: {e}"))?;
            if key.len() < 16 {
                return Err(format!("the worker `{name}`'s key is shorter than 16 characters"));
            }
            if folded.insert(names::fold(&name), key).is_some() {
                return Err(format!("the worker `{name}` is named twice (or a name like it)"));
            }
        }
        Ok(Work { config, keys: folded, inner: Mutex::new(Inner::default()), queued: tokio::sync::Notify::new() })
    }

    fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Is `name` a worker's name (names that look alike are one)?
    pub fn is_worker(&self, name: &str) -> bool {
        self.keys.contains_key(&names::fold(names::base(name)))
    }

    /// Games waiting for a worker, and games leased now.
    pub fn counts(&self) -> (usize, usize) {
        let inner = self.inner();
        (inner.queue.len(), inner.leased.len())
    }
}

/// Checked against its lease: the game, every parameter, the deal, the seats; it replays to
/// the outcome it claims.
fn check_record(record: &MatchRecord, game: &str, spec: &dyn AnySpec, seed: u64, seats: usize) -> Result<(), String> {
    if record.game.game != game {
        return Err(format!("the record is of `{}`, the lease of `{game}`", record.game.game));
    }
    if record.game.params != spec.params_yaml() {
        return Err("the record's parameters are not the lease's".into());
    }
    if record.game.seed != seed {
        return Err("the record's deal (seed) is not the lease's".into());
    }
    if record.game.scenario.is_some() {
        return Err("the record starts from a scenario; the lease is a fresh deal".into());
    }
    if record.players.len() != seats || record.outcome.result.scores.len() != seats {
        return Err(format!("the record has {} seats, the lease {seats}", record.players.len()));
    }
    if let Some(v) = record.verdicts.iter().find(|v| v.seat >= seats) {
        return Err(format!("a verdict names seat {}, the game has {seats}", v.seat));
    }
    if record.outcome.cancelled || record.outcome.aborted {
        return Err("the record is of a game that was not played to its end".into());
    }
    record.replay(&crate::files::refuse_files, |_| {}).map(|_| ())
}

/// Show the moves `actions` (the game's from index `from` on) on a match shown here, those it
/// has not been told yet.
fn show_moves(t: &Table, from: usize, actions: &[engine::core::ActionId]) -> Result<(), String> {
    let known = t.lock().actions.len();
    for (k, &a) in actions.iter().enumerate() {
        if from + k < known {
            continue;
        }
        let to_move = t.lock().game.to_move().map(|m| m.index());
        let Some(seat) = to_move else { break };
        t.shown_move(seat, a)?;
    }
    Ok(())
}

impl Ladder {
    fn work(&self) -> Result<&Work, Status> {
        self.work.as_ref().ok_or_else(|| Status::failed_precondition("this ladder takes no workers"))
    }

    /// The worker a request comes from (its folded name), if its key is that worker's.
    pub fn worker(&self, id: Option<&v1::WorkerId>) -> Result<String, Status> {
        let work = self.work()?;
        let id = id.ok_or_else(|| Status::invalid_argument("worker: the worker's name and key are needed"))?;
        if id.name.len() > 4 * names::MAX_NAME || id.key.len() > 256 {
            return Err(Status::invalid_argument("worker: a name or key longer than any worker's"));
        }
        let folded = names::fold(&id.name);
        match work.keys.get(&folded) {
            Some(key) if same_secret(key, &id.key) => match id.instance.as_str() {
                "" => Ok(folded),
                instance => {
                    names::check(instance).map_err(|e| Status::invalid_argument(format!("worker.instance: {e}")))?;
                    Ok(format!("{folded}/{instance}"))
                }
            },
            Some(_) => Err(Status::permission_denied(format!("`{}`: that is not this worker's key", id.name))),
            None if self.agent_index(&id.name).is_some() || self.hub.is_keyed(&id.name) => {
                Err(Status::permission_denied(format!(
                    "`{}` is an agent of this ladder, not a worker: an agent's key plays, it does not take work",
                    id.name
                )))
            }
            None => Err(Status::permission_denied(format!("`{}` is not a worker of this ladder", id.name))),
        }
    }

    /// Queue a game of a pairing for the workers, and wait for its record (leased again, with
    /// the same deal, when a lease is voided; at most [`ATTEMPTS`] times).
    pub(super) async fn remote_game(
        self: &Arc<Self>,
        entry: &Entry,
        pairing: u64,
        order: &[usize],
        seed: u64,
        deal: Option<Arc<SharedDeal>>,
    ) -> Result<Delivered, String> {
        let work = self.work.as_ref().ok_or("this ladder takes no workers")?;
        for _ in 0..ATTEMPTS {
            let (names, players, sandbox) = {
                let s = self.state();
                let mut sandbox = false;
                let players = order
                    .iter()
                    .map(|&a| {
                        let player = match (&s.anchors[a], s.submission.get(&a)) {
                            (Some(bot), _) => Some(v1::lease_seat::Player::Bot(bot.clone())),
                            (None, Some(sub)) => {
                                sandbox = true;
                                Some(v1::lease_seat::Player::Submission(v1::LeasedSubmission {
                                    id: sub.id,
                                    command: sub.command.clone(),
                                    bytes: sub.bytes,
                                    submitted_ms: sub.submitted_ms,
                                }))
                            }
                            (None, None) => None,
                        };
                        v1::LeaseSeat { name: s.names[a].clone(), player }
                    })
                    .collect::<Vec<_>>();
                (order.iter().map(|&a| s.names[a].clone()).collect::<Vec<_>>(), players, sandbox)
            };
            let (done, mut delivered) = oneshot::channel();
            let job = Job {
                pairing,
                group: entry.group,
                spec: entry.spec.clone(),
                game: entry.game.clone(),
                preset: entry.preset.clone(),
                seats: order.to_vec(),
                names,
                players,
                seed,
                sandbox,
                deal: deal.clone(),
                done,
            };
            work.inner().queue.push_back(job);
            work.queued.notify_waiters();
            loop {
                tokio::select! {
                    d = &mut delivered => match d {
                        Ok(d) => return Ok(d),
                        // Voided (or withdrawn as the ladder stops).
                        Err(_) => break,
                    },
                    _ = tokio::time::sleep(Duration::from_millis(200)) => {}
                }
                if self.draining() {
                    return Err("the ladder stops: the pairing ends here".into());
                }
            }
            if self.draining() {
                return Err("the ladder stops: the pairing ends here".into());
            }
        }
        Err(format!("{ATTEMPTS} leases of one game were voided: the pairing ends here"))
    }

    /// Up to `slots` games for a worker, leased to it.
    pub async fn acquire(
        self: &Arc<Self>,
        worker: &str,
        req: &v1::AcquireRequest,
    ) -> Result<v1::AcquireResponse, Status> {
        let work = self.work()?;
        // Its rules must be the ladder's, game by game.
        let mut rules: HashMap<&str, &str> = HashMap::new();
        for r in req.rules.iter().take(64) {
            if let Some((game, version)) = r.split_once('=') {
                rules.insert(game, version);
            }
        }
        for e in &self.entries {
            let ours = e.spec.rules_version().to_string();
            match rules.get(e.game.as_str()) {
                Some(v) if *v == ours => {}
                Some(v) => {
                    return Err(Status::failed_precondition(format!(
                        "this worker plays {}'s rules version {v}, the ladder version {ours}: run the ladder's arena",
                        e.game
                    )));
                }
                None => {
                    return Err(Status::failed_precondition(format!(
                        "this worker does not say which rules of {} it plays (rules: `{}={ours}`)",
                        e.game, e.game
                    )));
                }
            }
        }
        let deadline = tokio::time::Instant::now() + LONG_POLL;
        loop {
            let queued = work.queued.notified();
            tokio::pin!(queued);
            queued.as_mut().enable();
            let taken = self.take_jobs(work, worker, req)?;
            if !taken.is_empty() || self.draining() {
                return Ok(v1::AcquireResponse { leases: taken });
            }
            if tokio::time::timeout_at(deadline, queued).await.is_err() {
                return Ok(v1::AcquireResponse::default());
            }
        }
    }

    /// Lease the queued games a worker can play, as many as it may hold.
    fn take_jobs(&self, work: &Work, worker: &str, req: &v1::AcquireRequest) -> Result<Vec<v1::Lease>, Status> {
        let mut jobs = Vec::new();
        {
            let mut inner = work.inner();
            let held = inner.leased.values().filter(|h| h.worker == worker).count() as u32;
            let free = req.slots.min(MAX_SLOTS).min(work.config.slots.saturating_sub(held));
            let mut k = 0;
            while (jobs.len() as u32) < free && k < inner.queue.len() {
                if inner.queue[k].sandbox && !req.sandbox {
                    k += 1;
                    continue;
                }
                jobs.push(inner.queue.remove(k).expect("in the queue"));
            }
        }
        let mut leases = Vec::new();
        for job in jobs {
            let id = secret()?;
            let row = LeaseRow {
                id: id.clone(),
                worker: worker.to_string(),
                pairing: job.pairing,
                entry: job.group,
                seats: job.seats.clone(),
                seed: job.seed,
                state: "open".into(),
                game: None,
            };
            if let Err(e) = tokio::task::block_in_place(|| self.store().add_lease(&row)) {
                // Back to the queue's head: another Acquire tries again.
                work.inner().queue.push_front(job);
                return Err(Status::internal(e));
            }
            let shown = Shown {
                game: job.game.clone(),
                spec: job.spec.clone(),
                seed: job.seed,
                scenario: String::new(),
                players: job.names.clone(),
                move_time: Some(Duration::from_millis(self.config.move_time_ms)),
            };
            let mirror = self.hub.show(shown, job.spec.new_game(job.seed), job.deal.clone()).ok();
            if let Some(t) = &mirror {
                self.mark_playing(t, true);
            }
            let limits = self.config.submissions.as_ref().and_then(|c| c.limits).map(|l| v1::LaunchLimits {
                cpus: l.cpus,
                memory: l.memory,
                pids: l.pids,
                cpu_seconds: l.cpu_seconds.unwrap_or(0.0),
                wall_seconds: l.wall_seconds.unwrap_or(0.0),
            });
            let params_yaml =
                engine::core::params_to_yaml(&job.spec.params_yaml()).map_err(|e| Status::internal(e.to_string()))?;
            leases.push(v1::Lease {
                lease: id.clone(),
                game: job.game.clone(),
                preset: job.preset.clone(),
                params_yaml,
                seed: job.seed,
                seats: job.players.clone(),
                move_time_ms: self.config.move_time_ms,
                bank_ms: self.config.bank.map_or(0, |b| b.base_ms),
                bank_increment_ms: self.config.bank.map_or(0, |b| b.increment_ms),
                lease_ms: work.config.lease_ms,
                limits,
                connect_timeout_ms: self.config.submissions.as_ref().map_or(20_000, |c| c.connect_timeout_ms),
            });
            work.inner().leased.insert(id, Held { job, worker: worker.to_string(), seen: Instant::now(), mirror });
        }
        Ok(leases)
    }

    /// A shown match is over here (its game delivered or its lease voided).
    fn unmirror(&self, mirror: Option<Arc<Table>>, outcome: MatchOutcome, verdicts: Vec<crate::referee::Verdict>) {
        if let Some(t) = mirror {
            self.hub.shown_over(&t, outcome, verdicts);
            self.mark_playing(&t, false);
        }
    }

    /// A leased game's moves so far: shown here; the lease kept.
    pub fn progress(&self, worker: &str, req: &v1::ProgressRequest) -> Result<v1::ProgressResponse, Status> {
        let work = self.work()?;
        let mirror = {
            let mut inner = work.inner();
            let mine = inner.leased.get(&req.lease).is_some_and(|h| h.worker == worker);
            if !mine {
                let orphan = inner.orphans.remove(&req.lease).is_some();
                drop(inner);
                if !orphan {
                    return Err(self.not_held(worker, &req.lease));
                }
                tokio::task::block_in_place(|| self.store().void_lease(&req.lease)).map_err(Status::internal)?;
                return Err(Status::failed_precondition(format!(
                    "lease {}: the ladder restarted while its game was in play, and voided it: stop the game",
                    req.lease
                )));
            }
            let h = inner.leased.get_mut(&req.lease).expect("held");
            h.seen = Instant::now();
            h.mirror.clone()
        };
        let Some(t) = mirror else { return Ok(v1::ProgressResponse { known: req.from + req.actions.len() as u32 }) };
        show_moves(&t, req.from as usize, &req.actions)
            .map_err(|e| Status::invalid_argument(format!("lease {}: {e}", req.lease)))?;
        let known = t.lock().actions.len() as u32;
        Ok(v1::ProgressResponse { known })
    }

    /// Why a lease this worker named is not one it holds: void, or not its.
    fn not_held(&self, worker: &str, lease: &str) -> Status {
        let row = self.with_store(|s| s.lease(lease)).ok().flatten().filter(|r| r.worker == worker);
        match row {
            Some(r) if r.state == "void" => Status::failed_precondition(format!(
                "lease {lease} was voided (not kept for {} ms): its game was given to another worker",
                self.work.as_ref().map_or(0, |w| w.config.lease_ms)
            )),
            Some(r) if r.state == "done" => {
                Status::failed_precondition(format!("lease {lease} is over: its game is stored (game {:?})", r.game))
            }
            _ => Status::not_found(format!("no lease `{lease}` was given to this worker")),
        }
    }

    /// A submission's archive, for a worker holding a lease that seats it.
    pub async fn fetch(&self, worker: &str, req: &v1::FetchRequest) -> Result<v1::FetchResponse, Status> {
        let work = self.work()?;
        let seated = {
            let inner = work.inner();
            match inner.leased.get(&req.lease) {
                Some(h) if h.worker == worker => h.job.players.iter().any(
                    |p| matches!(&p.player, Some(v1::lease_seat::Player::Submission(s)) if s.id == req.submission),
                ),
                _ => return Err(Status::not_found(format!("no lease `{}` is held by this worker", req.lease))),
            }
        };
        if !seated {
            return Err(Status::not_found(format!("lease {} seats no submission {}", req.lease, req.submission)));
        }
        let subs = self.subs.as_ref().ok_or_else(|| Status::failed_precondition("this ladder takes no submissions"))?;
        let folder = subs.folder(req.submission);
        let archive = tokio::task::spawn_blocking(move || super::submissions::pack(&folder))
            .await
            .map_err(|e| Status::internal(e.to_string()))?
            .map_err(Status::internal)?;
        Ok(v1::FetchResponse { archive })
    }

    /// A leased game's record: checked, stored once, its pairing told.
    pub async fn report(self: &Arc<Self>, worker: &str, req: v1::ReportRequest) -> Result<v1::ReportResponse, Status> {
        let work = self.work()?;
        let mut record: MatchRecord = serde_json::from_str(&req.record_json)
            .map_err(|e| Status::invalid_argument(format!("record_json: not a match record: {e}")))?;
        let logs: Vec<(u64, Vec<u8>)> = req
            .logs
            .into_iter()
            .take(8)
            .map(|l| {
                let from = l.stderr.len().saturating_sub(super::launches::LOG_BYTES);
                (l.submission, l.stderr[from..].to_vec())
            })
            .collect();
        // What the lease expects, read under the lock; the record checked outside it.
        enum Found {
            Held(String, Arc<dyn AnySpec>, u64, usize),
            Orphan,
            Neither,
        }
        let found = {
            let inner = work.inner();
            match inner.leased.get(&req.lease) {
                Some(h) if h.worker == worker => {
                    Found::Held(h.job.game.clone(), h.job.spec.clone(), h.job.seed, h.job.seats.len())
                }
                None if inner.orphans.contains_key(&req.lease) => Found::Orphan,
                _ => Found::Neither,
            }
        };
        let held = match found {
            Found::Held(game, spec, seed, seats) => {
                let checked = tokio::task::block_in_place(|| check_record(&record, &game, spec.as_ref(), seed, seats));
                if let Err(e) = checked {
                    return Err(Status::invalid_argument(format!(
                        "lease {}: {e}; nothing is stored (the lease stands until it is voided)",
                        req.lease
                    )));
                }
                // Taken once: a report sent twice at once finds it gone (and then stored).
                let mut inner = work.inner();
                match inner.leased.get(&req.lease) {
                    Some(h) if h.worker == worker => inner.leased.remove(&req.lease),
                    _ => None,
                }
            }
            Found::Orphan => {
                if work.inner().orphans.remove(&req.lease).is_none() {
                    return Err(Status::unavailable(format!("lease {}: being stored now: report it again", req.lease)));
                }
                return self.report_orphan(worker, &req.lease, record, logs).await;
            }
            Found::Neither => None,
        };
        let Some(held) = held else {
            let row = self.with_store(|s| s.lease(&req.lease)).map_err(Status::internal)?;
            return match row.filter(|r| r.worker == worker) {
                Some(r) if r.state == "done" => Ok(v1::ReportResponse { game_id: r.game.unwrap_or(0), already: true }),
                Some(r) if r.state == "open" => Err(Status::unavailable(format!(
                    "lease {}: its record is being stored now: report it again",
                    req.lease
                ))),
                _ => Err(self.not_held(worker, &req.lease)),
            };
        };
        if let Some(t) = &held.mirror {
            record.match_id = Some(t.setup.id.clone());
            // The moves not yet told (the last ones, at least) shown before its end.
            if let Err(e) = show_moves(t, 0, &record.game.actions) {
                tracing::warn!(lease = %req.lease, worker, "ladder: the moves shown were not the record's: {e}");
            }
        }
        self.unmirror(held.mirror, record.outcome.clone(), record.verdicts.clone());
        let (ack, answer) = oneshot::channel();
        let delivered = Delivered { lease: req.lease.clone(), record, logs, ack };
        if held.job.done.send(delivered).is_err() {
            return Err(Status::unavailable("the ladder is stopping: report the game again once it is back"));
        }
        answer.await.unwrap_or_else(|_| Err(Status::unavailable("the ladder is stopping: report the game again")))
    }

    /// A report of a lease a stopped ladder left open: stored (rated, when it is a competitive
    /// game: a cooperative play alone is not compared) if it is the lease's game.
    async fn report_orphan(
        &self,
        worker: &str,
        lease: &str,
        mut record: MatchRecord,
        logs: Vec<(u64, Vec<u8>)>,
    ) -> Result<v1::ReportResponse, Status> {
        let row = self
            .with_store(|s| s.lease(lease))
            .map_err(Status::internal)?
            .filter(|r| r.worker == worker && r.state == "open")
            .ok_or_else(|| self.not_held(worker, lease))?;
        let known = self.known.get(row.entry).ok_or_else(|| Status::internal("a lease of an unknown entry"))?;
        let checked = tokio::task::block_in_place(|| {
            check_record(&record, known.spec.game(), known.spec.as_ref(), row.seed, row.seats.len())
        });
        if let Err(e) = checked {
            // Back among the orphans: it may still be reported right.
            if let Some(w) = &self.work {
                w.inner().orphans.insert(lease.to_string(), Instant::now() + Duration::from_millis(w.config.lease_ms));
            }
            return Err(Status::invalid_argument(format!("lease {lease}: {e}; nothing is stored")));
        }
        self.place(&mut record, row.entry, row.pairing, &row.seats);
        let rated =
            if known.cooperative { Vec::new() } else { rated_games(std::slice::from_ref(&record), &self.known) };
        let (game_id, already) = self.commit_record(&mut record, &rated, Some(lease)).map_err(Status::internal)?;
        if !already {
            self.keep_logs(game_id, &logs);
        }
        Ok(v1::ReportResponse { game_id, already })
    }

    /// Name a record's seats and place it in its pairing (its id set as it is stored).
    pub(super) fn place(&self, record: &mut MatchRecord, group: usize, pairing: u64, seats: &[usize]) {
        let s = self.state();
        record.players = seats.iter().map(|&a| s.names.get(a).cloned().unwrap_or_default()).collect();
        record.tournament = Some(TournamentGame {
            job: 0,
            group,
            label: self.labels[group].clone(),
            deal: pairing as u32,
            seats: seats.to_vec(),
            play_ms: 0.0,
        });
    }

    /// Keep each submission's stderr of game `game`.
    pub(super) fn keep_logs(&self, game: u64, logs: &[(u64, Vec<u8>)]) {
        let known: Vec<u64> = self.state().submission.values().map(|s| s.id).collect();
        for (id, stderr) in logs.iter().filter(|(id, _)| known.contains(id)) {
            if let Err(e) = self.store().keep_log(*id, Some(game), stderr) {
                tracing::error!("ladder: {e}");
            }
        }
    }

    /// Void the leases not kept for `lease_ms` (their games queued again by their pairings),
    /// and the orphans nobody reported in time. Every quarter second until the hub stops.
    pub(super) async fn sweep_leases(self: Arc<Self>) {
        let Some(work) = self.work.as_ref() else { return };
        let stopped = self.hub.stopped();
        tokio::pin!(stopped);
        let lease = Duration::from_millis(work.config.lease_ms);
        loop {
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(250)) => {}
                _ = &mut stopped => return,
            }
            let now = Instant::now();
            let (expired, orphans): (Vec<(String, Held)>, Vec<String>) = {
                let mut inner = work.inner();
                let ids: Vec<String> = inner
                    .leased
                    .iter()
                    .filter(|(_, h)| now.duration_since(h.seen) > lease)
                    .map(|(id, _)| id.clone())
                    .collect();
                let expired = ids.into_iter().filter_map(|id| inner.leased.remove(&id).map(|h| (id, h))).collect();
                let orphans: Vec<String> =
                    inner.orphans.iter().filter(|(_, until)| **until < now).map(|(id, _)| id.clone()).collect();
                for id in &orphans {
                    inner.orphans.remove(id);
                }
                (expired, orphans)
            };
            for (id, held) in expired {
                tracing::info!(lease = %id, worker = %held.worker, "ladder: a lease was not kept: voided, its game queued again");
                if let Err(e) = tokio::task::block_in_place(|| self.store().void_lease(&id)) {
                    tracing::error!("ladder: {e}");
                }
                let n = held.job.seats.len();
                self.unmirror(held.mirror, MatchOutcome::cancelled(n), Vec::new());
                // Dropping the job tells its pairing.
            }
            for id in orphans {
                tracing::info!(lease = %id, "ladder: a lease left open at the last stop was not reported: voided");
                if let Err(e) = tokio::task::block_in_place(|| self.store().void_lease(&id)) {
                    tracing::error!("ladder: {e}");
                }
            }
        }
    }

    /// The leases the last run left open become orphans, reported until `lease_ms` from now.
    pub(super) fn adopt_orphans(&self) -> Result<usize, String> {
        let Some(work) = self.work.as_ref() else { return Ok(0) };
        let open = self.with_store(|s| s.open_leases())?;
        let until = Instant::now() + Duration::from_millis(work.config.lease_ms);
        let mut inner = work.inner();
        for r in &open {
            inner.orphans.insert(r.id.clone(), until);
        }
        Ok(open.len())
    }

    /// The ladder stops: the games waiting for a worker are withdrawn (their pairings end).
    pub(super) fn withdraw_jobs(&self) {
        if let Some(work) = self.work.as_ref() {
            work.inner().queue.clear();
        }
    }

    /// Commit one record (its place set) with `rated`, against `lease` if leased: its id, and
    /// whether its lease had been stored already.
    pub(super) fn commit_record(
        &self,
        record: &mut MatchRecord,
        rated: &[reports::ratings::RatedGame],
        lease: Option<&str>,
    ) -> Result<(u64, bool), String> {
        let stored = {
            let mut store = self.store();
            let id = store.next_game()?;
            if let Some(t) = record.tournament.as_mut() {
                t.job = id;
            }
            match lease {
                None => tokio::task::block_in_place(|| store.commit(record, rated)).map(|()| (id, Leased::Stored))?,
                Some(l) => (id, tokio::task::block_in_place(|| store.commit_leased(record, rated, l))?),
            }
        };
        match stored {
            (id, Leased::Stored) => {
                self.noted(rated);
                Ok((id, false))
            }
            (_, Leased::Already(game)) => Ok((game, true)),
            (_, Leased::Void) => Err("its lease is void: nothing stored".into()),
        }
    }
}

/// The Work service of the contract: a ladder's workers take, keep and report its games.
#[derive(Clone)]
pub struct WorkService {
    pub ladder: Arc<Ladder>,
}

#[tonic::async_trait]
impl v1::work_server::Work for WorkService {
    async fn acquire(
        &self,
        request: tonic::Request<v1::AcquireRequest>,
    ) -> Result<tonic::Response<v1::AcquireResponse>, Status> {
        let req = request.into_inner();
        let worker = self.ladder.worker(req.worker.as_ref())?;
        self.ladder.acquire(&worker, &req).await.map(tonic::Response::new)
    }

    async fn progress(
        &self,
        request: tonic::Request<v1::ProgressRequest>,
    ) -> Result<tonic::Response<v1::ProgressResponse>, Status> {
        let req = request.into_inner();
        let worker = self.ladder.worker(req.worker.as_ref())?;
        self.ladder.progress(&worker, &req).map(tonic::Response::new)
    }

    async fn fetch(
        &self,
        request: tonic::Request<v1::FetchRequest>,
    ) -> Result<tonic::Response<v1::FetchResponse>, Status> {
        let req = request.into_inner();
        let worker = self.ladder.worker(req.worker.as_ref())?;
        self.ladder.fetch(&worker, &req).await.map(tonic::Response::new)
    }

    async fn report(
        &self,
        request: tonic::Request<v1::ReportRequest>,
    ) -> Result<tonic::Response<v1::ReportResponse>, Status> {
        let req = request.into_inner();
        let worker = self.ladder.worker(req.worker.as_ref())?;
        self.ladder.report(&worker, req).await.map(tonic::Response::new)
    }
}
