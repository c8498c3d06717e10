//! `arena worker`: plays a ladder's games on this machine (the ladder's Work service).
//!
//! It asks the ladder for games (`Acquire`, as many as it has free slots), plays each on a hub
//! of its own — anchors as built-in agents, submissions launched in their sandboxes from the
//! archive it fetched (kept under `DATA/submissions/`), exactly as the ladder would — tells the
//! ladder each game's moves as they are played (`Progress`, which keeps the lease), and
//! reports the record (`Report`). A finished game's report is written to `DATA/pending/` before
//! it is first sent and removed only once the ladder has answered for good (stored, or refused),
//! so a worker killed at any moment sends it again when it starts, and a ladder that is away is
//! sent it when it is back.

use crate::ladder::config::SubmissionsConfig;
use crate::ladder::launches::{Finished, Launching, Subs};
use crate::ladder::submissions::{ArchiveLimits, unpack};
use crate::server::{self, Hub, ServerConfig};
use engine::core::ParamSource;
use proto::v1;
use proto::v1::work_client::WorkClient;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tonic::Code;
use tonic::transport::Channel;

/// A game's new moves are told to the ladder at most this often: a watcher sees them this
/// late at most, and the ladder relays a handful of calls a second per game, not one a move.
const TELL_EVERY: Duration = Duration::from_millis(100);

/// How a worker runs.
#[derive(Clone, Debug)]
pub struct WorkerConfig {
    /// The ladder, `http://HOST:PORT`.
    pub ladder: String,
    pub name: String,
    pub key: String,
    /// This worker among those sharing its name (empty: the only one).
    pub instance: String,
    /// Games at once.
    pub slots: u32,
    /// Where it keeps its pending reports and the submissions it fetched.
    pub data: PathBuf,
    /// Take games of submissions (if bubblewrap and cgroups are found).
    pub sandbox: bool,
    /// Serve the standard gRPC health service here: SERVING while the ladder answers it (a
    /// Kubernetes readiness probe).
    pub health: Option<std::net::SocketAddr>,
    /// On a stop: how long the games in play get to end and their reports to be answered.
    pub grace: Duration,
}

/// A finished game not yet answered for by the ladder (`DATA/pending/LEASE.json`).
#[derive(Serialize, Deserialize)]
struct Pending {
    lease: String,
    record_json: String,
    logs: Vec<(u64, Vec<u8>)>,
}

struct Worker {
    config: WorkerConfig,
    client: WorkClient<Channel>,
    hub: Arc<Hub>,
    subs: Option<Subs>,
    /// One fetch of a submission's files at a time.
    fetching: tokio::sync::Mutex<()>,
    free: tokio::sync::Semaphore,
    /// The rules this arena plays, as every Acquire tells them (built once).
    rules: Vec<String>,
    /// The health service's reporter, and whether it says SERVING now.
    health: Option<tonic_health::server::HealthReporter>,
    serving: std::sync::atomic::AtomicBool,
}

/// The rules this arena plays, as `Acquire` tells them (`expedition=4`).
fn rules() -> Vec<String> {
    engine::games()
        .iter()
        .filter_map(|g| {
            let spec = (g.spec)(None, &[], &crate::files::refuse_files).ok()?;
            Some(format!("{}={}", g.name, spec.rules_version()))
        })
        .collect()
}

/// One line on stdout, whole (its log: what a test or an operator counts), a closed pipe
/// ignored.
fn say(line: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(format!("{line}\n").as_bytes()).and_then(|()| out.flush());
}

fn pending_dir(data: &Path) -> PathBuf {
    data.join("pending")
}

/// Run until `stop` resolves: the games in play then are left (their leases lapse on the
/// ladder), the reports not yet answered stay in `DATA/pending/` for the next start.
pub async fn run(config: WorkerConfig, stop: impl std::future::Future<Output = ()>) -> Result<(), String> {
    std::fs::create_dir_all(pending_dir(&config.data))
        .map_err(|e| format!("cannot create {}: {e}", pending_dir(&config.data).display()))?;
    let data = std::fs::canonicalize(&config.data).map_err(|e| format!("{}: {e}", config.data.display()))?;
    let socket_dir = tempfile::Builder::new()
        .prefix("arena-worker-")
        .tempdir()
        .map_err(|e| format!("cannot make a folder for the worker's Unix socket: {e}"))?;
    let server_config = ServerConfig {
        unix_socket: config.sandbox.then(|| socket_dir.path().join("play.sock")),
        ..ServerConfig::default()
    };
    let running = server::start("127.0.0.1:0".parse().expect("an address"), server_config).await?;
    let subs = match (config.sandbox, &running.unix) {
        (true, Some(socket)) => {
            let sub_config = SubmissionsConfig {
                limits: Some(crate::limits::Limits::default()),
                archive: ArchiveLimits::default(),
                versions_per_name: 1,
                games: 1,
                connect_timeout_ms: 20_000,
            };
            match Subs::new(sub_config, &data, Some(socket.clone())) {
                Ok(s) => Some(s),
                Err(e) => {
                    tracing::warn!("worker: it takes no games of submissions: {e}");
                    None
                }
            }
        }
        _ => None,
    };
    let channel = Channel::from_shared(config.ladder.clone())
        .map_err(|e| format!("bad ladder address `{}`: {e}", config.ladder))?
        .connect_timeout(Duration::from_secs(5))
        .connect_lazy();
    let client = WorkClient::new(channel).max_decoding_message_size(1 << 30);
    let health = match config.health {
        Some(addr) => {
            let (reporter, service) = tonic_health::server::health_reporter();
            reporter.set_service_status("", tonic_health::ServingStatus::NotServing).await;
            let incoming = tonic::transport::server::TcpIncoming::bind(addr)
                .map_err(|e| format!("--health {addr}: cannot listen: {e}"))?;
            tokio::spawn(tonic::transport::Server::builder().add_service(service).serve_with_incoming(incoming));
            Some(reporter)
        }
        None => None,
    };
    let slots = config.slots as usize;
    let grace = config.grace;
    let worker = Arc::new(Worker {
        rules: rules(),
        health,
        serving: std::sync::atomic::AtomicBool::new(false),
        free: tokio::sync::Semaphore::new(config.slots as usize),
        config: WorkerConfig { data, ..config },
        client,
        hub: running.hub.clone(),
        subs,
        fetching: tokio::sync::Mutex::new(()),
    });
    let instance = match worker.config.instance.as_str() {
        "" => String::new(),
        i => format!(" (instance {i})"),
    };
    say(&format!(
        "worker `{}`{instance} for {} ({} slots{})",
        worker.config.name,
        worker.config.ladder,
        worker.config.slots,
        if worker.subs.is_some() { ", submissions in sandboxes" } else { ", anchors only" }
    ));
    // Reports a past run left unanswered, sent first.
    for pending in worker.pending()? {
        let w = worker.clone();
        tokio::spawn(async move { w.report(pending).await });
    }
    let pulling = worker.clone().pull();
    tokio::select! {
        r = pulling => r?,
        _ = stop => {}
    }
    // No new game; those in play end and are reported, within the grace.
    worker.say_serving(false).await;
    let end = tokio::time::Instant::now() + grace;
    loop {
        let idle = worker.free.available_permits() >= slots;
        let sent = std::fs::read_dir(pending_dir(&worker.config.data)).map_or(true, |mut d| d.next().is_none());
        if (idle && sent) || tokio::time::Instant::now() >= end {
            if !(idle && sent) {
                say("stopping: the grace is over; the reports not yet answered are sent at the next start");
            }
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let _ = running.stop().await;
    drop(socket_dir);
    Ok(())
}

impl Worker {
    /// Tell the health service whether the ladder answers (when that changes).
    async fn say_serving(&self, serving: bool) {
        let Some(h) = &self.health else { return };
        if self.serving.swap(serving, std::sync::atomic::Ordering::Relaxed) != serving {
            let status =
                if serving { tonic_health::ServingStatus::Serving } else { tonic_health::ServingStatus::NotServing };
            h.set_service_status("", status).await;
        }
    }

    fn id(&self) -> Option<v1::WorkerId> {
        Some(v1::WorkerId {
            name: self.config.name.clone(),
            key: self.config.key.clone(),
            instance: self.config.instance.clone(),
        })
    }

    /// Reports written and not yet answered.
    fn pending(&self) -> Result<Vec<Pending>, String> {
        let dir = pending_dir(&self.config.data);
        let mut out = Vec::new();
        for e in std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?.flatten() {
            let path = e.path();
            if path.extension().is_some_and(|x| x == "json") {
                match std::fs::read(&path)
                    .map_err(|e| e.to_string())
                    .and_then(|b| serde_json::from_slice::<Pending>(&b).map_err(|e| e.to_string()))
                {
                    Ok(p) => out.push(p),
                    // A report cut short as it was written was never sent: its lease lapses.
                    Err(e) => {
                        tracing::warn!("worker: {} does not read ({e}): removed", path.display());
                        let _ = std::fs::remove_file(&path);
                    }
                }
            } else if path.extension().is_some_and(|x| x == "tmp") {
                let _ = std::fs::remove_file(&path);
            }
        }
        Ok(out)
    }

    /// Ask for games while slots are free, and play each.
    async fn pull(self: Arc<Self>) -> Result<(), String> {
        let mut backoff = Duration::from_millis(100);
        loop {
            // At least one slot free before asking.
            let first = self.free.acquire().await.map_err(|e| e.to_string())?;
            first.forget();
            let mut free = 1;
            while let Ok(p) = self.free.try_acquire() {
                p.forget();
                free += 1;
            }
            let req = v1::AcquireRequest {
                worker: self.id(),
                slots: free,
                sandbox: self.subs.is_some(),
                rules: self.rules.clone(),
            };
            let leases = match self.client.clone().acquire(req).await {
                Ok(r) => {
                    backoff = Duration::from_millis(100);
                    self.say_serving(true).await;
                    r.into_inner().leases
                }
                Err(s) if matches!(s.code(), Code::PermissionDenied | Code::FailedPrecondition) => {
                    return Err(format!("{}: {}", self.config.ladder, s.message()));
                }
                Err(s) => {
                    tracing::debug!("worker: acquire: {}", s.message());
                    self.say_serving(false).await;
                    self.free.add_permits(free as usize);
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_secs(2));
                    continue;
                }
            };
            self.free.add_permits(free as usize - leases.len());
            for lease in leases {
                let me = self.clone();
                tokio::spawn(async move {
                    let id = lease.lease.clone();
                    if let Err(e) = me.play(lease).await {
                        say(&format!("lease {id}: not played: {e}"));
                    }
                    me.free.add_permits(1);
                });
            }
        }
    }

    /// A submission's folder here, fetched and unpacked if it is not yet.
    async fn folder(&self, lease: &str, sub: &v1::LeasedSubmission) -> Result<PathBuf, String> {
        let dir = self.config.data.join("submissions").join(format!("{}-{}-{}", sub.id, sub.submitted_ms, sub.bytes));
        let _one = self.fetching.lock().await;
        if dir.is_dir() {
            return Ok(dir);
        }
        let req = v1::FetchRequest { worker: self.id(), lease: lease.to_string(), submission: sub.id };
        let archive =
            self.client.clone().fetch(req).await.map_err(|s| format!("fetch: {}", s.message()))?.into_inner().archive;
        let limits = ArchiveLimits { archive_bytes: 1 << 30, unpacked_bytes: 4 << 30, entries: 100_000, depth: 64 };
        let into = dir.clone();
        tokio::task::spawn_blocking(move || unpack(&archive, &into, &limits))
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| format!("submission {}: {e}", sub.id))?;
        Ok(dir)
    }

    /// Play one leased game, tell its moves, and report it.
    async fn play(self: &Arc<Self>, lease: v1::Lease) -> Result<(), String> {
        let found = engine::find_game(&lease.game)?;
        let source = ParamSource::Yaml { name: format!("lease {}", lease.lease), text: lease.params_yaml.clone() };
        let spec: Arc<dyn engine::core::AnySpec> =
            (found.spec)(None, &[source], &crate::files::refuse_files).map_err(|e| e.to_string())?.into();
        let limits = lease.limits.map(|l| crate::limits::Limits {
            cpus: l.cpus,
            memory: l.memory,
            pids: l.pids,
            cpu_seconds: (l.cpu_seconds > 0.0).then_some(l.cpu_seconds),
            wall_seconds: (l.wall_seconds > 0.0).then_some(l.wall_seconds),
        });
        // Each submission launched (once for all its seats).
        let mut launched: Vec<(u64, Launching)> = Vec::new();
        let mut result = Ok(());
        for seat in &lease.seats {
            let Some(v1::lease_seat::Player::Submission(sub)) = &seat.player else { continue };
            if launched.iter().any(|(id, _)| *id == sub.id) {
                continue;
            }
            let subs = match &self.subs {
                Some(s) => s,
                None => {
                    result = Err("a game of a submission, and this worker launches none".to_string());
                    break;
                }
            };
            let started = match self.folder(&lease.lease, sub).await {
                Ok(folder) => {
                    let timeout = Duration::from_millis(lease.connect_timeout_ms);
                    subs.launch(&self.hub, &folder, &sub.command, limits, timeout).await
                }
                Err(e) => Err(e),
            };
            match started {
                Ok(l) => launched.push((sub.id, l)),
                Err(e) => {
                    result = Err(format!("`{}` did not start: {e}", seat.name));
                    break;
                }
            }
        }
        if let Err(e) = result {
            for (_, l) in &mut launched {
                Subs::finish(&self.hub, l).await;
            }
            return Err(e);
        }
        let seats: Vec<v1::SeatSpec> = lease
            .seats
            .iter()
            .map(|s| {
                let player = match &s.player {
                    Some(v1::lease_seat::Player::Bot(bot)) => v1::seat_spec::Player::Bot(bot.clone()),
                    Some(v1::lease_seat::Player::Submission(sub)) => {
                        let l = launched.iter().find(|(id, _)| *id == sub.id).expect("launched");
                        v1::seat_spec::Player::Play(l.1.play_name.clone())
                    }
                    None => v1::seat_spec::Player::Bot("random".into()),
                };
                v1::SeatSpec { player: Some(player) }
            })
            .collect();
        let names: Vec<String> = lease.seats.iter().map(|s| s.name.clone()).collect();
        let bank = (lease.bank_ms > 0).then(|| crate::referee::Clock::from_ms(lease.bank_ms, lease.bank_increment_ms));
        let table = self.hub.create_hosted(
            &crate::server::ClientId::Host,
            &lease.game,
            &lease.preset,
            spec,
            lease.seed,
            &seats,
            &names,
            Some(Duration::from_millis(lease.move_time_ms)),
            bank,
            None,
        );
        let table = match table {
            Ok(t) => t,
            Err(e) => {
                for (_, l) in &mut launched {
                    Subs::finish(&self.hub, l).await;
                }
                return Err(e.message().to_string());
            }
        };
        // Its moves told as they come, at most every TELL_EVERY (which keeps the lease).
        let keep = Duration::from_millis((lease.lease_ms / 4).clamp(100, 5000));
        let mut sent = 0usize;
        let mut told = tokio::time::Instant::now();
        let mut voided = None;
        loop {
            let changed = table.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let ended = table.over.notified();
            tokio::pin!(ended);
            ended.as_mut().enable();
            let (actions, over) = {
                let s = table.lock();
                (s.actions.clone(), s.ended.is_some())
            };
            if over {
                break;
            }
            let pending = actions.len() > sent;
            if (pending && told.elapsed() >= TELL_EVERY) || told.elapsed() >= keep {
                let req = v1::ProgressRequest {
                    worker: self.id(),
                    lease: lease.lease.clone(),
                    from: sent as u32,
                    actions: actions[sent..].to_vec(),
                };
                match self.client.clone().progress(req).await {
                    Ok(r) => sent = (r.into_inner().known as usize).min(actions.len()),
                    Err(s)
                        if matches!(s.code(), Code::FailedPrecondition | Code::NotFound | Code::PermissionDenied) =>
                    {
                        voided = Some(s.message().to_string());
                        break;
                    }
                    // The ladder away: play on, tell it later.
                    Err(_) => {}
                }
                told = tokio::time::Instant::now();
            }
            // Moves not yet told: told at the next tick; none: wait for one (or the keep's time).
            if pending {
                tokio::select! {
                    _ = tokio::time::sleep_until(told + TELL_EVERY) => {}
                    _ = &mut ended => {}
                }
            } else {
                let _ = tokio::time::timeout_at(told + keep, changed).await;
            }
        }
        if voided.is_some() {
            table.abort();
        }
        let mut finished: Vec<(u64, Finished)> = Vec::new();
        for (id, l) in &mut launched {
            finished.push((*id, Subs::finish(&self.hub, l).await));
        }
        if let Some(why) = voided {
            return Err(format!("given up: {why}"));
        }
        let mut record = table.record().map_err(|e| e.message().to_string())?;
        // The seats a submission that broke a limit played: their verdicts say which.
        let order: Vec<usize> = lease
            .seats
            .iter()
            .map(|s| match &s.player {
                Some(v1::lease_seat::Player::Submission(sub)) => sub.id as usize,
                _ => usize::MAX,
            })
            .collect();
        let by_agent: Vec<(usize, Finished)> = finished.iter().map(|(id, f)| (*id as usize, f.clone())).collect();
        crate::ladder::mark_limits(&mut record, &order, &by_agent);
        let record_json = serde_json::to_string(&record).map_err(|e| e.to_string())?;
        let logs = finished.into_iter().map(|(id, f)| (id, f.stderr.into_bytes())).collect();
        let pending = Pending { lease: lease.lease.clone(), record_json, logs };
        self.keep(&pending)?;
        self.report(pending).await;
        Ok(())
    }

    /// Write a report before it is first sent (atomically: a temporary file renamed).
    fn keep(&self, p: &Pending) -> Result<(), String> {
        let dir = pending_dir(&self.config.data);
        let tmp = dir.join(format!("{}.tmp", p.lease));
        let path = dir.join(format!("{}.json", p.lease));
        let bytes = serde_json::to_vec(p).map_err(|e| e.to_string())?;
        let write = || -> std::io::Result<()> {
            use std::io::Write;
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(&bytes)?;
            f.sync_all()?;
            std::fs::rename(&tmp, &path)?;
            std::fs::File::open(&dir)?.sync_all()
        };
        write().map_err(|e| format!("cannot keep the report of lease {}: {e}", p.lease))
    }

    /// Send a report until the ladder answers for good; then forget it.
    async fn report(&self, p: Pending) {
        let mut backoff = Duration::from_millis(100);
        let path = pending_dir(&self.config.data).join(format!("{}.json", p.lease));
        loop {
            let req = v1::ReportRequest {
                worker: self.id(),
                lease: p.lease.clone(),
                record_json: p.record_json.clone(),
                logs: p
                    .logs
                    .iter()
                    .map(|(id, e)| v1::SubmissionStderr { submission: *id, stderr: e.clone() })
                    .collect(),
            };
            match self.client.clone().report(req).await {
                Ok(r) => {
                    let r = r.into_inner();
                    let again = if r.already { " (stored before)" } else { "" };
                    say(&format!("reported lease {}: game {}{again}", p.lease, r.game_id));
                    break;
                }
                Err(s)
                    if matches!(
                        s.code(),
                        Code::InvalidArgument | Code::NotFound | Code::FailedPrecondition | Code::PermissionDenied
                    ) =>
                {
                    say(&format!("refused lease {}: {}", p.lease, s.message()));
                    break;
                }
                Err(s) => {
                    tracing::debug!("worker: report of lease {}: {}", p.lease, s.message());
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_secs(2));
                }
            }
        }
        let _ = std::fs::remove_file(&path);
    }
}
