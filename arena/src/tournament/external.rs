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
use crate::launch::{Launch, Launched, STDERR_TAIL, Watch};
use crate::limits;
use crate::sandbox::Sandbox;
use crate::server::session::{RemoteAgent, Session};
use crate::server::{self, Running, ServerConfig};
use bots::{Agent, AgentError, SeatView};
use engine::core::{ActionId, AnySpec, Outcome, Seat};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
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
                let launch = launch_of(part, command, t.config.isolation, dir, socket.as_deref())
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
            let log = dir.join("stderr").join(format!("{}.log", launch.name));
            let launched =
                launch.spawn(&url, group, &log, ext.stopping.clone()).map_err(|e| format!("participant {e}"))?;
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
                    break Err(format!("participant {e}"));
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
            launched.join();
            launched.watch.stop(Duration::from_secs(1));
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

/// Its sandbox (with `isolation: bwrap`) hides the run's directory `dir` (made now), lets
/// it write in its `writable` folders and reach the server by `socket` alone; checked
/// here, so that a host that cannot make it says so before anything starts.
fn launch_of(
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
    Ok(Launch {
        name: part.name.clone(),
        command: command.to_string(),
        prefix,
        sandbox,
        env,
        cwd: None,
        echo_stderr: true,
        kept: STDERR_TAIL,
    })
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
