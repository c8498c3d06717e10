//! External participants: agents in any language that play over the Play stream. When a
//! tournament has any, it runs its own gRPC server for them, launches those it has a command
//! for (with `ARENA_SERVER` and `ARENA_NAME` in their environment, and none of the arena's
//! secrets; in a [`Sandbox`] that hides the run's directory and has no network, reaching the
//! server by its Unix socket, unless the file says `isolation: none`; under their `sandbox`
//! command if they have one), waits until every one has said
//! Hello, and seats them through [`RemoteAgent`]s — for the runner they are agents like any
//! other: a timeout, a disconnection, an illegal answer or a resignation is that game's
//! verdict, and so is silence past the tournament's idle limit (`idle_ms`) on a decision no
//! per-move limit or clock bounds (verdict `idle`: a stalled client never stalls the run).
//! A launched command that exits before it connects fails the start at once, with its exit
//! status and the end of what it wrote on stderr (passed on to the arena's stderr as it comes).
//!
//! Each launched command runs in a cgroup of its own with the tournament's `limits` (CPU,
//! memory, processes: see [`crate::limits`]; none with `limits: none`), joined before it runs
//! anything. A command whose process ends during the run is watched: what is left of it is
//! killed, the last [`STDERR_TAIL`] bytes of its stderr are kept in the run's directory
//! (`stderr/NAME.log`), and each of its games from then on ends with a verdict that says why —
//! `memory limit`, `process count`, or `disconnected` naming its exit status — while the
//! tournament goes on.

use super::Tournament;
use super::config::{Isolation, Participant};
use super::run::AgentFactory;
use crate::limits::{self, Cgroup, Ending};
use crate::sandbox::{self, Sandbox};
use crate::server::session::{RemoteAgent, Session};
use crate::server::{self, Running, ServerConfig};
use bots::{Agent, AgentError, SeatView};
use engine::core::{ActionId, AnySpec, Outcome, Seat};
use std::collections::{HashMap, VecDeque};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// The server and processes of a tournament's external participants.
pub struct Externals {
    runtime: tokio::runtime::Runtime,
    server: Option<Running>,
    /// The private folder of the server's Unix socket, for the sandboxed commands (removed
    /// after the server has stopped).
    socket_dir: Option<tempfile::TempDir>,
    children: Vec<Launched>,
    sessions: HashMap<usize, Arc<Session>>,
    /// The launched participants' processes, by participant.
    watches: HashMap<usize, Arc<Watch>>,
    /// Set when the tournament stops: the watching threads end.
    stopping: Arc<AtomicBool>,
    next_match: AtomicU64,
    /// The tournament's idle limit.
    idle: Option<Duration>,
}

impl Externals {
    /// Start the server, launch the commands, wait for every external participant (None when
    /// the tournament has none). `dir` is the run's directory (made if it is not there yet):
    /// the launched commands' sandboxes hide it.
    pub fn start(t: &Tournament, dir: &Path, say: &dyn Fn(String)) -> Result<Option<Externals>, String> {
        let external: Vec<usize> =
            (0..t.config.participants.len()).filter(|&p| t.config.participants[p].is_external()).collect();
        if external.is_empty() {
            return Ok(None);
        }
        // Every launch is ready (its sandbox checked, its cgroup made) before the server starts.
        let launched_any = external.iter().any(|&p| t.config.participants[p].command.is_some());
        let host = match t.config.limits {
            Some(limits) if launched_any => Some((limits::Host::find().map_err(|e| no_limits(&e, dir))?, limits)),
            _ => None,
        };
        // Sandboxed commands have no network: they reach the server by a Unix socket, in a
        // folder of its own that only the arena's user may enter.
        let socket_dir = match launched_any && t.config.isolation == Isolation::Bwrap {
            true => Some(
                tempfile::Builder::new()
                    .prefix("arena-socket-")
                    .tempdir()
                    .map_err(|e| format!("cannot make a folder for the server's Unix socket: {e}"))?,
            ),
            false => None,
        };
        let socket = socket_dir.as_ref().map(|d| d.path().join("play.sock"));
        let mut launches = Vec::new();
        for &p in &external {
            let part = &t.config.participants[p];
            if let Some(command) = &part.command {
                let launch = Launch::new(part, command, t.config.isolation, dir, socket.as_deref())
                    .map_err(|e| format!("participant `{}`: {e}", part.name))?;
                let group = match &host {
                    Some((host, limits)) => Some(
                        host.group(&part.name, limits)
                            .map_err(|e| no_limits(&format!("participant `{}`: {e}", part.name), dir))?,
                    ),
                    None => None,
                };
                launches.push((p, launch, group));
            }
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start tokio: {e}"))?;
        let addr = t.config.listen.parse().map_err(|e| format!("listen: {e}"))?;
        // Only the operator's own programs connect (from this host, as one client).
        let config = ServerConfig {
            move_time: None,
            shares: server::Shares::WHOLE,
            unix_socket: socket,
            ..ServerConfig::default()
        };
        let running = runtime.block_on(server::start(addr, config))?;
        // A participant's Welcome tells the tournament: its name, its games as Hello.games names
        // them (`expedition:no-dice`), its per-move limit.
        running.hub.set_house(server::hub::House {
            ladder: String::new(),
            tournament: t.config.name.clone(),
            games: super::config::GameSpec::hello_names(&t.config.games),
            move_time_ms: t.config.move_time_ms.min(u64::from(u32::MAX)) as u32,
        });
        let url = running.url();
        let mut ext = Externals {
            runtime,
            server: Some(running),
            socket_dir,
            children: Vec::new(),
            sessions: HashMap::new(),
            watches: HashMap::new(),
            stopping: Arc::new(AtomicBool::new(false)),
            next_match: AtomicU64::new(1),
            idle: crate::referee::limit_ms(t.config.idle_ms),
        };
        for (p, launch, group) in launches {
            let launched = launch.spawn(&url, group, dir, ext.stopping.clone())?;
            ext.watches.insert(p, launched.watch.clone());
            ext.children.push(launched);
        }
        for &p in &external {
            let part = &t.config.participants[p];
            if part.command.is_none() {
                say(format!("waiting for the Play client `{}` to connect to {url}", part.name));
            }
        }
        let hub = ext.server.as_ref().expect("running").hub.clone();
        let timeout = Duration::from_secs(t.config.connect_timeout_s);
        let deadline = std::time::Instant::now() + timeout;
        for &p in &external {
            let name = &t.config.participants[p].name;
            // In short waits, watching the launched commands meanwhile: one that exits before it
            // connects will never connect.
            let session = loop {
                let left = deadline.saturating_duration_since(std::time::Instant::now());
                if let Some(s) = ext.runtime.block_on(hub.wait_for_session(name, left.min(Duration::from_millis(50)))) {
                    break Ok(s);
                }
                if let Some(e) = ext.children.iter_mut().find_map(|c| c.exited_unconnected(&hub, &url)) {
                    break Err(e);
                }
                if left.is_zero() {
                    break Err(format!("participant `{name}` did not connect to {url} within {} s", timeout.as_secs()));
                }
            };
            match session {
                Ok(s) => {
                    ext.sessions.insert(p, s);
                }
                Err(e) => {
                    ext.stop();
                    return Err(e);
                }
            }
        }
        Ok(Some(ext))
    }

    /// The agents: built-in ones from their specs, external ones through their sessions.
    pub fn factory<'a>(
        ext: Option<&'a Externals>,
        specs: &'a [Option<String>],
    ) -> impl Fn(usize, &dyn AnySpec, u64) -> Result<Box<dyn Agent>, String> + Sync + 'a {
        move |p, spec, seed| match (&specs[p], ext) {
            (Some(s), _) => bots::agent(s, spec, seed),
            (None, Some(ext)) => {
                let session = ext.sessions.get(&p).ok_or_else(|| format!("participant {p} is not connected"))?;
                let hub = &ext.server.as_ref().expect("running").hub;
                let match_id = format!("tournament-{}", ext.next_match.fetch_add(1, Ordering::Relaxed));
                let handle = ext.runtime.handle().clone();
                let agent = RemoteAgent::new(session.clone(), match_id, spec, hub.next_request.clone(), handle)?;
                let agent = Box::new(agent.with_idle(ext.idle));
                match ext.watches.get(&p) {
                    Some(watch) => Ok(Box::new(Seated { agent, watch: watch.clone() })),
                    None => Ok(agent),
                }
            }
            (None, None) => Err(format!("participant {p} plays over the Play stream, and no server is running")),
        }
    }

    /// Stop the server (the clients' streams end) and wait for the launched processes.
    pub fn stop(&mut self) {
        if let Some(s) = self.server.take() {
            let _ = self.runtime.block_on(s.stop());
        }
        drop(self.socket_dir.take());
        self.stopping.store(true, Ordering::Relaxed);
        for launched in &mut self.children {
            if let Some(w) = launched.watcher.take() {
                let _ = w.join();
            }
            launched.watch.stop();
        }
        self.children.clear();
        self.watches.clear();
    }
}

impl Drop for Externals {
    fn drop(&mut self) {
        self.stop();
    }
}

/// How much of a launched command's stderr is kept, to tell why it ended (the last 4 KiB).
const STDERR_TAIL: usize = 4096;

/// The error for a host where the launched participants' cgroups cannot be made: what is
/// missing, and how to opt out.
fn no_limits(e: &str, dir: &Path) -> String {
    format!(
        "{e}. Launched participants run with limits (CPU, memory, processes) in a cgroup of their own; \
         run as root or in a delegated cgroup v2 group, or to launch them without limits (see \
         docs/tournaments.md), set `limits: none` in the tournament file (or `--set limits=none`; to resume \
         this run so, in {})",
        dir.join(super::log::CONFIG_FILE).display()
    )
}

/// A launched participant: its process, watched by a thread of its own until it ends.
struct Launched {
    watch: Arc<Watch>,
    watcher: Option<std::thread::JoinHandle<()>>,
}

impl Launched {
    /// The error to fail with if it exited without having connected (its name not held).
    fn exited_unconnected(&mut self, hub: &server::Hub, url: &str) -> Option<String> {
        let ended = self.watch.poll()?;
        if hub.session(&self.watch.name).is_some() {
            return None;
        }
        let said = match ended.stderr.is_empty() {
            true => "it wrote nothing on stderr".to_string(),
            false => format!("the end of its stderr:\n{}", ended.stderr),
        };
        let why = match &ended.ending {
            Ending::Exited(_) => String::new(),
            limit => format!(", it {}", limit.describe()),
        };
        Some(format!(
            "participant `{}` exited ({}){why} before it connected to {url}; {said}",
            self.watch.name, ended.status
        ))
    }
}

/// A launched participant's process as the tournament watches it: its group, the end of its
/// stderr, and once it has ended, how.
struct Watch {
    name: String,
    child: Mutex<Child>,
    /// Its cgroup (none with `limits: none`); removed when the tournament stops.
    group: Mutex<Option<Cgroup>>,
    tail: Arc<Mutex<VecDeque<u8>>>,
    reader: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// Where the end of its stderr is kept once it has ended (`DIR/stderr/NAME.log`).
    log: PathBuf,
    ended: OnceLock<Ended>,
    /// Until when seats whose client is gone wait for its process to end (set by the first).
    wait_until: OnceLock<std::time::Instant>,
}

/// How a launched participant's process ended.
struct Ended {
    status: ExitStatus,
    ending: Ending,
    /// The CPU time its group used, where the host tells it.
    cpu: Option<Duration>,
    /// The end of its stderr, as text.
    stderr: String,
}

impl Watch {
    /// How it ended, if it has: the first time it is seen ended, what is left in its group is
    /// killed, why it ended is read from the group, and the end of its stderr is kept in the
    /// log file.
    fn poll(&self) -> Option<&Ended> {
        if let Some(e) = self.ended.get() {
            return Some(e);
        }
        let mut child = self.child.lock().unwrap_or_else(|p| p.into_inner());
        let status = child.try_wait().ok().flatten()?;
        if let Some(e) = self.ended.get() {
            return Some(e);
        }
        let group = self.group.lock().unwrap_or_else(|p| p.into_inner());
        let ending = group.as_ref().map_or_else(|| Ending::Exited(status.to_string()), |g| g.ending(status));
        let cpu = group.as_ref().and_then(Cgroup::cpu_used);
        if let Some(g) = group.as_ref() {
            g.kill_all();
        }
        drop(group);
        // Its stderr ends with it (unless something it started outside a group holds it: then
        // not for long).
        if let Some(r) = self.reader.lock().unwrap_or_else(|p| p.into_inner()).take() {
            for _ in 0..50 {
                if r.is_finished() {
                    let _ = r.join();
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        let tail: Vec<u8> = self.tail.lock().unwrap_or_else(|p| p.into_inner()).iter().copied().collect();
        let kept =
            self.log.parent().map_or(Ok(()), std::fs::create_dir_all).and_then(|()| std::fs::write(&self.log, &tail));
        if let Err(e) = kept {
            tracing::warn!("cannot keep the end of `{}`'s stderr in {}: {e}", self.name, self.log.display());
        }
        let stderr = String::from_utf8_lossy(&tail).trim().to_string();
        drop(child);
        Some(self.ended.get_or_init(|| Ended { status, ending, cpu, stderr }))
    }

    /// The error for a seat of it whose client is gone: the limit its process broke, or
    /// its exit status, with where its stderr is kept. None while it runs: a killed process's
    /// connection may close before its end is seen, so seats wait for it up to two seconds
    /// after the first one asked (and no longer once those have passed).
    fn gone(&self) -> Option<AgentError> {
        let until = *self.wait_until.get_or_init(|| std::time::Instant::now() + Duration::from_secs(2));
        let mut ended = self.poll();
        while ended.is_none() && std::time::Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
            ended = self.poll();
        }
        let e = ended?;
        let mut detail = format!("{}: {}", self.name, e.ending.describe());
        if let Some(cpu) = e.cpu {
            detail += &format!(" after {:.1} s of CPU time", cpu.as_secs_f64());
        }
        if e.stderr.is_empty() {
            detail += "; it wrote nothing on stderr";
        } else {
            detail += &format!("; the end of its stderr is kept in {}", self.log.display());
        }
        Some(match e.ending {
            Ending::Memory { .. } => AgentError::MemoryLimit(detail),
            Ending::Processes { .. } => AgentError::ProcessCount(detail),
            Ending::Exited(_) => AgentError::Disconnected(detail),
        })
    }

    /// The tournament is over: a process whose client's stream ended should exit; one that
    /// does not within a second is stopped. Its group is then removed.
    fn stop(&self) {
        for _ in 0..50 {
            if self.poll().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        if self.poll().is_none() {
            tracing::warn!("participant `{}` did not exit with the tournament: stopping it", self.name);
            let mut child = self.child.lock().unwrap_or_else(|p| p.into_inner());
            let _ = child.kill();
            let _ = child.wait();
            drop(child);
            self.poll();
        }
        drop(self.group.lock().unwrap_or_else(|p| p.into_inner()).take());
    }
}

/// A launched participant's seat: its remote agent, whose disconnection is told as why its
/// process ended, once it has.
struct Seated {
    agent: Box<dyn Agent>,
    watch: Arc<Watch>,
}

impl Agent for Seated {
    fn name(&self) -> &str {
        self.agent.name()
    }

    fn act(&mut self, view: &SeatView) -> Result<ActionId, AgentError> {
        match self.agent.act(view) {
            Err(AgentError::Disconnected(m)) => Err(self.watch.gone().unwrap_or(AgentError::Disconnected(m))),
            answer => answer,
        }
    }

    fn game_over(&mut self, seat: Seat, outcome: &Outcome) {
        self.agent.game_over(seat, outcome)
    }

    fn ended(&mut self, seat: Seat, outcome: &Outcome, account: &dyn std::any::Any) {
        self.agent.ended(seat, outcome, account)
    }

    fn answers_in_time(&self) -> bool {
        self.agent.answers_in_time()
    }
}

/// A participant's command, ready to launch: its words (`sh -c COMMAND`, in its sandbox, after
/// the operator's `sandbox` words if it has some).
struct Launch {
    name: String,
    command: String,
    prefix: Vec<String>,
    sandbox: Option<Sandbox>,
    env: Vec<(String, String)>,
}

impl Launch {
    /// Its sandbox (with `isolation: bwrap`) hides the run's directory `dir` (made now), lets
    /// it write in its `writable` folders and reach the server by `socket` alone; checked
    /// here, so that a host that cannot make it says so before anything starts.
    fn new(
        part: &Participant,
        command: &str,
        isolation: Isolation,
        dir: &Path,
        socket: Option<&Path>,
    ) -> Result<Launch, String> {
        let prefix = match &part.sandbox {
            Some(s) => {
                shlex::split(s).filter(|w| !w.is_empty()).ok_or_else(|| format!("sandbox `{s}` is not a command"))?
            }
            None => Vec::new(),
        };
        let sandbox = match isolation {
            Isolation::Unconfined => None,
            Isolation::Bwrap => {
                let mut sandbox = part.writable.iter().fold(Sandbox::new(), |s, w| s.writable(w));
                if let Some(socket) = socket {
                    let arena = std::env::current_exe()
                        .map_err(|e| format!("cannot find the arena's binary, the sandbox's relay: {e}"))?;
                    sandbox = sandbox.arena_only(socket, arena);
                }
                sandbox.check_folders()?;
                sandbox.check(&prefix).map_err(|e| {
                    format!(
                        "{e}. Launched participants run in a sandbox so that they cannot read the deal secret; \
                         to launch them unconfined instead (they can then read it: see docs/tournaments.md), \
                         set `isolation: none` in the tournament file (or `--set isolation=none`; to resume \
                         this run so, in {})",
                        dir.join(super::log::CONFIG_FILE).display()
                    )
                })?;
                std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
                let sandbox = sandbox.hide(dir);
                sandbox.check_folders()?;
                Some(sandbox)
            }
        };
        let env = part.env.iter().map(|(n, v)| (n.clone(), v.clone())).collect();
        Ok(Launch { name: part.name.clone(), command: command.to_string(), prefix, sandbox, env })
    }

    /// Start it in its cgroup `group` (if it has one), its environment its sandbox's (or,
    /// unconfined, the arena's without a secret), plus where to connect (`url` unconfined, the
    /// server's Unix socket in its sandbox), its name and its own variables; its stderr passed
    /// on to the arena's, the end
    /// of it kept (in `dir`'s `stderr/NAME.log` once it has ended); watched by a thread until
    /// it ends or `stopping` is set.
    fn spawn(
        self,
        url: &str,
        group: Option<Cgroup>,
        dir: &Path,
        stopping: Arc<AtomicBool>,
    ) -> Result<Launched, String> {
        let words = ["sh".to_string(), "-c".to_string(), self.command.clone()];
        let mut cmd = match &self.sandbox {
            Some(sandbox) => {
                let inside = sandbox.arena_url().unwrap_or_else(|| url.to_string());
                let sandbox = [("ARENA_SERVER", inside.as_str()), ("ARENA_NAME", self.name.as_str())]
                    .into_iter()
                    .chain(self.env.iter().map(|(n, v)| (n.as_str(), v.as_str())))
                    .fold(sandbox.clone(), |s, (n, v)| s.env(n, v));
                sandbox.wrap(&self.prefix, &words).map_err(|e| format!("participant `{}`: {e}", self.name))?
            }
            None => {
                let all: Vec<&String> = self.prefix.iter().chain(&words).collect();
                let mut cmd = Command::new(all[0]);
                cmd.args(&all[1..]);
                cmd.envs(self.env.iter().map(|(n, v)| (n, v)));
                cmd
            }
        };
        for (var, _) in std::env::vars_os() {
            if var.to_str().is_none_or(sandbox::is_secret) {
                cmd.env_remove(&var);
            }
        }
        if let Some(g) = &group {
            g.join_on_spawn(&mut cmd);
        }
        let mut child = cmd
            .env("ARENA_SERVER", url)
            .env("ARENA_NAME", &self.name)
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("participant `{}`: cannot run `{}`: {e}", self.name, self.command))?;
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let reader = child.stderr.take().map(|mut stderr| {
            let tail = tail.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = stderr.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    let _ = std::io::stderr().write_all(&buf[..n]);
                    let mut t = tail.lock().unwrap_or_else(|p| p.into_inner());
                    t.extend(&buf[..n]);
                    let extra = t.len().saturating_sub(STDERR_TAIL);
                    t.drain(..extra);
                }
            })
        });
        let watch = Arc::new(Watch {
            log: dir.join("stderr").join(format!("{}.log", self.name)),
            name: self.name,
            child: Mutex::new(child),
            group: Mutex::new(group),
            tail,
            reader: Mutex::new(reader),
            ended: OnceLock::new(),
            wait_until: OnceLock::new(),
        });
        let watched = watch.clone();
        let watcher = std::thread::spawn(move || {
            while !stopping.load(Ordering::Relaxed) && watched.poll().is_none() {
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        Ok(Launched { watch, watcher: Some(watcher) })
    }
}

/// Run `work` with the tournament's agents: a server for its external participants if it has
/// any (stopped afterwards), the commands launched in sandboxes that hide `dir`, the run's
/// directory.
pub fn with_agents<R>(
    t: &Tournament,
    dir: &Path,
    say: &dyn Fn(String),
    work: impl FnOnce(&AgentFactory) -> Result<R, String>,
) -> Result<R, String> {
    let specs = t.builtin_agents();
    let mut ext = Externals::start(t, dir, say)?;
    let factory = Externals::factory(ext.as_ref(), &specs);
    let result = work(&factory);
    drop(factory);
    if let Some(e) = ext.as_mut() {
        e.stop();
    }
    result
}
