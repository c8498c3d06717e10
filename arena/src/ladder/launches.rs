//! A ladder's submissions at play: stored and validated ([`Ladder::submit`]), then launched for
//! each of their games in a sandbox of their own ([`Ladder::launch`]).
//!
//! Each game of a submission is a fresh process: `sh -c COMMAND` in the submission's folder
//! (read-only, `/run/agent`), in a bubblewrap sandbox that hides the ladder's data directory
//! (its store, the other submissions), with no network but the ladder's server (through
//! `arena sandbox-relay`, `ARENA_SERVER=http://127.0.0.1:50051`), in a cgroup with the ladder's
//! `submissions.limits`. It says Hello under a name reserved for that launch
//! (`ARENA_NAME`, with its own key in `ARENA_KEY`), is seated as the submission
//! (`NAME@VERSION` in the game's record), and is stopped when the game is over; the end of
//! its stderr is kept for the game ([`store::LOGS_KEPT`] games per submission).

use super::Ladder;
use super::config::SubmissionsConfig;
use super::store::{self, StoredSubmission};
use super::submissions;
use crate::launch::{Launch, Launched};
use crate::limits;
use crate::sandbox::Sandbox;
use crate::server::Hub;
use crate::server::hub::secret;
use crate::server::names;
use crate::server::shares::ClientId;
use proto::v1;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tonic::Status;

/// The end of a submission's stderr kept for each of its games.
pub const LOG_BYTES: usize = 16 << 10;

/// Failed starts in a row after which a submission is refused (it no longer starts).
pub const FAILED_STARTS: u32 = 3;

/// What a ladder that takes submissions holds for them.
pub struct Subs {
    pub config: SubmissionsConfig,
    /// The ladder's data directory, which every sandbox hides…
    data: PathBuf,
    /// …and, in it, the submissions' folders (`ID/`).
    files: PathBuf,
    /// The server's Unix socket, which the sandboxes' relays reach.
    socket: PathBuf,
    /// The relay (the arena's binary).
    arena: PathBuf,
    /// Where the launches' cgroups are made (none with `limits: none`).
    host: Option<limits::Host>,
    /// Validation games at once.
    validations: tokio::sync::Semaphore,
    /// Held from a submission's count against its name's versions to its being stored, so
    /// that uploads at once cannot pass the count together.
    storing: tokio::sync::Mutex<()>,
}

/// A submission as the ladder knows it now.
#[derive(Clone, Debug)]
pub struct Sub {
    pub id: u64,
    pub command: String,
    pub state: State,
    /// Starts that failed in a row.
    pub failed_starts: u32,
    /// Its archive's size as sent, and when it was submitted (what a worker keeps its files by).
    pub bytes: u64,
    pub submitted_ms: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Validating,
    Active,
    Refused,
    Retired,
}

impl State {
    pub fn name(self) -> &'static str {
        match self {
            State::Validating => "validating",
            State::Active => "active",
            State::Refused => "refused",
            State::Retired => "retired",
        }
    }

    fn parse(s: &str) -> State {
        match s {
            "active" => State::Active,
            "retired" => State::Retired,
            "validating" => State::Validating,
            _ => State::Refused,
        }
    }
}

impl Subs {
    /// Ready to launch submissions: bubblewrap and cgroups checked (a host without them says
    /// what is missing), the folders made.
    pub fn new(config: SubmissionsConfig, data: &std::path::Path, socket: Option<PathBuf>) -> Result<Subs, String> {
        let socket =
            socket.ok_or("a ladder that takes submissions listens on a Unix socket (its sandboxes' way in)")?;
        let files = data.join("submissions");
        std::fs::create_dir_all(&files).map_err(|e| format!("cannot create {}: {e}", files.display()))?;
        // Archives unpacked by a ladder that stopped before storing them.
        if let Ok(entries) = std::fs::read_dir(&files) {
            for e in entries.flatten() {
                if e.file_name().to_string_lossy().starts_with("incoming-") {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
        let arena = std::env::current_exe()
            .map_err(|e| format!("cannot find the arena's binary, the sandboxes' relay: {e}"))?;
        let data = std::fs::canonicalize(data).map_err(|e| format!("{}: {e}", data.display()))?;
        Sandbox::new().hide(&data).check(&[]).map_err(|e| {
            format!("{e}. A ladder launches its submissions in sandboxes: install bubblewrap, or take no submissions")
        })?;
        let host = match config.limits {
            Some(_) => Some(limits::Host::find().map_err(|e| {
                format!(
                    "{e}. A ladder launches its submissions with limits: run it as root or in a delegated cgroup, \
                     or set `submissions: {{ limits: none }}`"
                )
            })?),
            None => None,
        };
        Ok(Subs {
            config,
            data,
            files,
            socket,
            arena,
            host,
            validations: tokio::sync::Semaphore::new(2),
            storing: tokio::sync::Mutex::new(()),
        })
    }
}

impl Subs {
    /// The folder submission `id`'s files are unpacked in.
    pub fn folder(&self, id: u64) -> PathBuf {
        self.files.join(id.to_string())
    }

    /// Can it launch with limits (a cgroup host was found)?
    pub fn limited(&self) -> bool {
        self.host.is_some()
    }

    /// Launch the agent in `folder` (its `command`) for a game on `hub`, in its sandbox and
    /// with `limits`: when it has said Hello (within `timeout`), its name on the server.
    pub async fn launch(
        &self,
        hub: &Arc<Hub>,
        folder: &std::path::Path,
        command: &str,
        limits: Option<limits::Limits>,
        timeout: Duration,
    ) -> Result<Launching, String> {
        let key = secret().map_err(|e| e.message().to_string())?;
        let play_name = format!("launch-{}", &secret().map_err(|e| e.message().to_string())?[..16]);
        // A stranger's program: the ladder's data hidden, and the host's temporary folders
        // (other programs' files and sockets) too.
        let sandbox = ["/tmp", "/var/tmp"]
            .into_iter()
            .filter(|d| std::path::Path::new(d).is_dir())
            .fold(Sandbox::new(), |s, d| s.hide(d))
            .hide(&self.data)
            .arena_only(&self.socket, &self.arena)
            .agent_folder(folder.to_path_buf())
            .env("ARENA_KEY", key.clone());
        let group = match (&self.host, limits) {
            (Some(host), Some(limits)) => Some(host.group(&play_name, &limits)?),
            (None, Some(_)) => return Err("limits are asked, and this host has no cgroups to enforce them".into()),
            _ => None,
        };
        let launch = Launch {
            name: play_name.clone(),
            command: command.to_string(),
            prefix: Vec::new(),
            sandbox: Some(sandbox),
            env: Vec::new(),
            cwd: None,
            echo_stderr: false,
            kept: LOG_BYTES,
        };
        hub.reserve_launch(&play_name, &key);
        let stopping = Arc::new(AtomicBool::new(false));
        let log = self.files.join("logs").join(format!("{play_name}.log"));
        let spawned = tokio::task::block_in_place(|| launch.spawn("", group, &log, stopping.clone()));
        let launched = match spawned {
            Ok(l) => l,
            Err(e) => {
                hub.release_launch(&play_name);
                return Err(e);
            }
        };
        let mut launching = Launching { play_name, launched, stopping };
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let wait = left.min(Duration::from_millis(50));
            if hub.wait_for_session(&launching.play_name, wait).await.is_some() {
                return Ok(launching);
            }
            if launching.launched.watch.poll().is_some() || left.is_zero() {
                let said = if left.is_zero() {
                    format!("it did not say Hello within {} ms", timeout.as_millis())
                } else {
                    "it ended before it said Hello".to_string()
                };
                let f = Subs::finish(hub, &mut launching).await;
                let limit = f.limit.map(|l| format!(" (it {l})")).unwrap_or_default();
                let stderr = if f.stderr.is_empty() { "nothing".to_string() } else { f.stderr };
                return Err(format!("{said}{limit}; the end of its stderr: {stderr}"));
            }
        }
    }

    /// Stop a launch (its game is over, or it never connected): its process and group gone,
    /// its name free again on `hub`; how it ended.
    pub async fn finish(hub: &Hub, launching: &mut Launching) -> Finished {
        hub.release_launch(&launching.play_name);
        launching.stopping.store(true, Ordering::Relaxed);
        let watch = launching.launched.watch.clone();
        let _ = tokio::task::spawn_blocking(move || watch.stop(Duration::ZERO)).await;
        launching.launched.join();
        let watch = &launching.launched.watch;
        let _ = std::fs::remove_file(&watch.log);
        match watch.poll() {
            Some(e) => Finished {
                limit: match e.ending {
                    limits::Ending::Exited(_) => None,
                    ref limit => Some(limit.describe()),
                },
                fault: match e.ending {
                    limits::Ending::Memory { .. } => Some(crate::referee::Fault::MemoryLimit),
                    limits::Ending::Processes { .. } => Some(crate::referee::Fault::ProcessCount),
                    limits::Ending::CpuTime { .. } => Some(crate::referee::Fault::CpuTime),
                    limits::Ending::WallTime { .. } => Some(crate::referee::Fault::WallTime),
                    limits::Ending::Exited(_) => None,
                },
                stderr: e.stderr.clone(),
            },
            None => Finished { limit: None, fault: None, stderr: String::new() },
        }
    }
}

/// A submission launched for one game: its process, until [`Launching::finish`].
pub struct Launching {
    /// The name it holds on the server (reserved for it).
    pub play_name: String,
    launched: Launched,
    stopping: Arc<AtomicBool>,
}

/// How a launch ended: the limit it broke, if one, and the end of its stderr.
#[derive(Clone)]
pub struct Finished {
    pub limit: Option<String>,
    /// The verdict for that limit (`memory limit`, `process count`).
    pub fault: Option<crate::referee::Fault>,
    pub stderr: String,
}

impl Ladder {
    fn subs(&self) -> Result<&Subs, Status> {
        self.subs.as_ref().ok_or_else(|| Status::failed_precondition("this ladder takes no submissions"))
    }

    /// Launch submission `agent` for a game: when it has said Hello, its name on the server.
    pub async fn launch(&self, agent: usize) -> Result<Launching, String> {
        let subs = self.subs.as_ref().ok_or("this ladder takes no submissions")?;
        let sub = self.state().submission.get(&agent).cloned().ok_or("not a submission")?;
        let timeout = Duration::from_millis(subs.config.connect_timeout_ms);
        subs.launch(&self.hub, &subs.folder(sub.id), &sub.command, subs.config.limits, timeout).await
    }

    /// Stop a launch ([`Subs::finish`]).
    pub async fn finish(&self, launching: &mut Launching) -> Finished {
        Subs::finish(&self.hub, launching).await
    }

    /// A launch of submission `agent` failed to start: counted, and past [`FAILED_STARTS`] in a
    /// row, the submission is refused with why.
    pub fn failed_start(&self, agent: usize, why: &str) {
        let refuse = {
            let mut s = self.state();
            let Some(sub) = s.submission.get_mut(&agent) else { return };
            sub.failed_starts += 1;
            (sub.failed_starts >= FAILED_STARTS && sub.state == State::Active).then(|| {
                sub.state = State::Refused;
                sub.id
            })
        };
        if let Some(id) = refuse {
            let verdict = format!("{FAILED_STARTS} starts in a row failed; the last: {why}");
            if let Err(e) = self.store().set_submission(id, State::Refused.name(), &verdict) {
                tracing::error!("ladder: {e}");
            }
        }
    }

    /// Is agent `agent` a submission that plays now?
    pub fn active_submission(&self, agent: usize) -> bool {
        self.state().submission.get(&agent).is_some_and(|s| s.state == State::Active)
    }

    /// The name `name` and its key: the owner it proves (the key holder), or why not.
    fn author(&self, name: &str, key: &str) -> Result<ClientId, Status> {
        names::check(name).map_err(|e| Status::invalid_argument(format!("`{name}` is not a name: {e}")))?;
        match self.hub.owner_of(name, key, &ClientId::Unknown) {
            id @ ClientId::Name(_) => Ok(id),
            _ => Err(Status::permission_denied(format!(
                "submissions are made with the name's key: `{name}` has none on this ladder, or this is not it (ask \
                 the operator for one)"
            ))),
        }
    }

    /// Upload a version of an agent: stored, validated, its state told.
    pub async fn submit(&self, req: v1::SubmitRequest) -> Result<v1::Submission, Status> {
        let subs = self.subs()?;
        let owner = self.author(&req.name, &req.key)?;
        names::check_version(&req.version)
            .map_err(|e| Status::invalid_argument(format!("`{}` is not a version: {e}", req.version)))?;
        let agent_name = format!("{}@{}", req.name, req.version);
        if self.agent_index(&agent_name).is_some() {
            return Err(Status::already_exists(format!(
                "`{agent_name}` is on this ladder already (a version is submitted once: give a new one)"
            )));
        }
        let storing = subs.storing.lock().await;
        let base = names::fold(&req.name);
        let live = {
            let s = self.state();
            s.submission
                .iter()
                .filter(|(a, sub)| {
                    matches!(sub.state, State::Active | State::Validating)
                        && names::fold(names::base(&s.names[**a])) == base
                })
                .count()
        };
        if live >= subs.config.versions_per_name as usize {
            return Err(Status::resource_exhausted(format!(
                "`{}` has {live} versions validating or playing, this ladder's most (versions_per_name): retire one",
                req.name
            )));
        }
        // Unpacked apart, then stored and moved to its place: nothing of a refused archive stays.
        let incoming = subs.files.join(format!("incoming-{}", secret()?));
        let limits = subs.config.archive;
        let archive = req.archive;
        let bytes = archive.len() as u64;
        let unpacked = {
            let incoming = incoming.clone();
            tokio::task::spawn_blocking(move || submissions::unpack(&archive, &incoming, &limits))
                .await
                .map_err(|e| Status::internal(e.to_string()))?
        };
        let manifest = unpacked.map_err(|e| Status::invalid_argument(format!("the archive is refused: {e}")))?;
        let stored = (|| -> Result<(usize, u64, u64), String> {
            let mut store = self.store();
            let agent = store.agent_of(&agent_name, false, Some(&owner.stored()))?;
            let (id, submitted_ms) = store.add_submission(agent, &manifest.command, bytes)?;
            Ok((agent, id, submitted_ms))
        })();
        let (agent, id, submitted_ms) = match stored {
            Ok(x) => x,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&incoming);
                return Err(Status::internal(e));
            }
        };
        let place = subs.files.join(id.to_string());
        if let Err(e) = std::fs::rename(&incoming, &place) {
            let _ = std::fs::remove_dir_all(&incoming);
            let _ = self.store().set_submission(id, State::Refused.name(), "could not be stored");
            return Err(Status::internal(format!("cannot keep the submission: {e}")));
        }
        {
            let mut s = self.state();
            s.add(agent, &agent_name);
            s.own(agent, &owner.stored(), None);
            s.submission.insert(
                agent,
                Sub {
                    id,
                    command: manifest.command.clone(),
                    state: State::Validating,
                    failed_starts: 0,
                    bytes,
                    submitted_ms,
                },
            );
        }
        drop(storing);
        tracing::info!(agent = %agent_name, "ladder: submitted; validating");
        let _turn = subs.validations.acquire().await.map_err(|e| Status::internal(e.to_string()))?;
        let (state, verdict, stderr) = match self.validate(agent).await {
            Ok(stderr) => (State::Active, String::new(), stderr),
            Err((verdict, stderr)) => (State::Refused, verdict, stderr),
        };
        let kept = (|| -> Result<(), String> {
            let mut store = self.store();
            store.keep_log(id, None, stderr.as_bytes())?;
            store.set_submission(id, state.name(), &verdict)
        })();
        kept.map_err(Status::internal)?;
        if let Some(sub) = self.state().submission.get_mut(&agent) {
            sub.state = state;
        }
        tracing::info!(agent = %agent_name, state = state.name(), "ladder: validated");
        if state == State::Active {
            self.wake.notify_one();
        }
        self.described(agent).map_err(Status::internal)
    }

    /// Play submission `agent`'s validation game: the end of its stderr if it played it to its
    /// end without a fault, else the verdict and that.
    async fn validate(&self, agent: usize) -> Result<String, (String, String)> {
        let entry = &self.entries[0];
        let mut launching = self.launch(agent).await.map_err(|e| (format!("it did not start: {e}"), String::new()))?;
        let (opponent_name, opponent_bot) = {
            let s = self.state();
            s.anchors
                .iter()
                .enumerate()
                .find_map(|(a, bot)| bot.clone().map(|b| (s.names[a].clone(), b)))
                .unwrap_or_else(|| ("random".to_string(), "random".to_string()))
        };
        let agent_name = self.name(agent).unwrap_or_default();
        let seats: Vec<(v1::seat_spec::Player, String)> = (0..entry.shape.seats)
            .map(|k| match k == 0 || entry.shape.cooperative {
                true => (v1::seat_spec::Player::Play(launching.play_name.clone()), agent_name.clone()),
                false => (v1::seat_spec::Player::Bot(opponent_bot.clone()), opponent_name.clone()),
            })
            .collect();
        let mine: Vec<usize> = seats
            .iter()
            .enumerate()
            .filter(|(_, (p, _))| matches!(p, v1::seat_spec::Player::Play(_)))
            .map(|(k, _)| k)
            .collect();
        let (specs, names): (Vec<v1::SeatSpec>, Vec<String>) =
            seats.into_iter().map(|(p, n)| (v1::SeatSpec { player: Some(p) }, n)).unzip();
        let seed = crate::server::hub::secret_seed().map_err(|e| (e.message().to_string(), String::new()))?;
        let move_time = Some(Duration::from_millis(self.config.move_time_ms));
        let table = self.hub.create_hosted(
            &crate::server::ClientId::Host,
            &entry.game,
            &entry.preset,
            entry.spec.clone(),
            seed,
            &specs,
            &names,
            move_time,
            self.config.bank_clock(),
            None,
        );
        let table = match table {
            Ok(t) => t,
            Err(e) => {
                self.finish(&mut launching).await;
                return Err((format!("its validation game could not start: {}", e.message()), String::new()));
            }
        };
        table.wait_over().await;
        let finished = self.finish(&mut launching).await;
        let record = table.record().map_err(|e| (e.message().to_string(), finished.stderr.clone()))?;
        let fault = record.verdicts.iter().find(|v| mine.contains(&v.seat));
        match (fault, record.outcome.aborted) {
            (None, false) => Ok(finished.stderr),
            (_, true) => Err(("the ladder stopped during its validation game".into(), finished.stderr)),
            (Some(v), false) => {
                // A limit broken is why its connection was lost.
                let kind = match (v.kind, finished.fault) {
                    (crate::referee::Fault::Disconnected, Some(fault)) => fault,
                    (kind, _) => kind,
                };
                let limit = finished.limit.map(|l| format!(": its process {l}")).unwrap_or_default();
                Err((format!("{} at move {}{limit} ({})", kind.name(), v.at_move, v.detail), finished.stderr))
            }
        }
    }

    /// Submission `agent` as the wire tells it.
    fn described(&self, agent: usize) -> Result<v1::Submission, String> {
        let name = self.name(agent).ok_or("no such agent")?;
        let id = self.state().submission.get(&agent).map(|s| s.id).ok_or("not a submission")?;
        let stored = self.with_store(|s| s.submission(id))?.ok_or("not stored")?;
        let (logs, stderr) = self.with_store(|s| Ok::<_, String>((s.logged_games(id)?, s.log(id, None)?)))?;
        Ok(wire(&name, &stored, logs, stderr.unwrap_or_default()))
    }

    /// A name's versions, newest last.
    pub fn list_submissions(&self, req: &v1::SubmissionsRequest) -> Result<v1::SubmissionsResponse, Status> {
        self.subs()?;
        self.author(&req.name, &req.key)?;
        let base = names::fold(&req.name);
        let agents: Vec<usize> = {
            let s = self.state();
            let mut a: Vec<(u64, usize)> = s
                .submission
                .iter()
                .filter(|(a, _)| names::fold(names::base(&s.names[**a])) == base)
                .map(|(a, sub)| (sub.id, *a))
                .collect();
            a.sort_unstable();
            a.into_iter().map(|(_, a)| a).collect()
        };
        let submissions =
            agents.into_iter().map(|a| self.described(a)).collect::<Result<_, _>>().map_err(Status::internal)?;
        Ok(v1::SubmissionsResponse { submissions })
    }

    /// The submission `name@version`, proved by the name's key.
    fn submission_of(&self, name: &str, version: &str, key: &str) -> Result<(usize, u64), Status> {
        self.subs()?;
        self.author(name, key)?;
        let agent_name = format!("{name}@{version}");
        let agent = self.agent_index(&agent_name);
        let s = self.state();
        agent
            .and_then(|a| s.submission.get(&a).map(|sub| (a, sub.id)))
            .ok_or_else(|| Status::not_found(format!("`{agent_name}` is no submission of this ladder")))
    }

    /// Retire a version: it takes no new game.
    pub fn retire(&self, req: &v1::SubmissionRequest) -> Result<v1::Submission, Status> {
        let (agent, id) = self.submission_of(&req.name, &req.version, &req.key)?;
        let before = {
            let mut s = self.state();
            let sub = s.submission.get_mut(&agent).expect("found");
            std::mem::replace(&mut sub.state, State::Retired)
        };
        let verdict = match before {
            State::Refused => "refused, then retired by its author",
            _ => "retired by its author",
        };
        self.store().set_submission(id, State::Retired.name(), verdict).map_err(Status::internal)?;
        self.described(agent).map_err(Status::internal)
    }

    /// The end of a version's stderr in one of its games (0: its validation game).
    pub fn submission_log(&self, req: &v1::SubmissionLogRequest) -> Result<v1::SubmissionLogResponse, Status> {
        let (_, id) = self.submission_of(&req.name, &req.version, &req.key)?;
        let game = (req.game_id != 0).then_some(req.game_id);
        let log = self.with_store(|s| s.log(id, game)).map_err(Status::internal)?;
        let stderr = log.ok_or_else(|| {
            Status::not_found(format!(
                "no stderr kept for game {} of `{}@{}` (the newest {} games' are kept)",
                req.game_id,
                req.name,
                req.version,
                store::LOGS_KEPT
            ))
        })?;
        Ok(v1::SubmissionLogResponse { stderr })
    }

    /// Read the stored submissions at open: those validating when the ladder stopped are
    /// refused (submit them again).
    pub(super) fn load_submissions(&self) -> Result<(), String> {
        let stored = self.with_store(|s| s.submissions())?;
        for sub in stored {
            let mut state = State::parse(&sub.state);
            if state == State::Validating {
                state = State::Refused;
                self.store().set_submission(
                    sub.id,
                    state.name(),
                    "the ladder stopped during its validation: submit it again",
                )?;
            }
            self.state().submission.insert(
                sub.agent,
                Sub {
                    id: sub.id,
                    command: sub.command,
                    state,
                    failed_starts: 0,
                    bytes: sub.bytes,
                    submitted_ms: sub.submitted_ms,
                },
            );
        }
        Ok(())
    }
}

fn wire(name: &str, s: &StoredSubmission, logged_games: Vec<u64>, stderr: Vec<u8>) -> v1::Submission {
    let (base, version) = name.split_once('@').unwrap_or((name, ""));
    v1::Submission {
        name: base.to_string(),
        version: version.to_string(),
        state: s.state.clone(),
        verdict: s.verdict.clone(),
        stderr,
        command: s.command.clone(),
        bytes: s.bytes,
        submitted_ms: s.submitted_ms,
        logged_games,
    }
}
