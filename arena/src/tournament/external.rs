//! External participants: agents in any language that play over the Play stream. When a
//! tournament has any, it runs its own gRPC server for them, launches those it has a command
//! for (with `ARENA_SERVER` and `ARENA_NAME` in their environment, and none of the arena's
//! secrets; in a [`Sandbox`] that hides the run's directory unless the file says `isolation:
//! none`; under their `sandbox` command if they have one), waits until every one has said
//! Hello, and seats them through [`RemoteAgent`]s — for the runner they are agents like any
//! other: a timeout, a disconnection, an illegal answer or a resignation is that game's
//! verdict, and so is silence past the tournament's idle limit (`idle_ms`) on a decision no
//! per-move limit or clock bounds (verdict `idle`: a stalled client never stalls the run).
//! A launched command that exits before it connects fails the start at once, with its exit
//! status and the end of what it wrote on stderr (passed on to the arena's stderr as it comes).

use super::Tournament;
use super::config::{Isolation, Participant};
use super::run::AgentFactory;
use crate::sandbox::{self, Sandbox};
use crate::server::session::{RemoteAgent, Session};
use crate::server::{self, Running, ServerConfig};
use bots::Agent;
use engine::core::AnySpec;
use std::collections::{HashMap, VecDeque};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The server and processes of a tournament's external participants.
pub struct Externals {
    runtime: tokio::runtime::Runtime,
    server: Option<Running>,
    children: Vec<Launched>,
    sessions: HashMap<usize, Arc<Session>>,
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
        // Every launch is ready (its sandbox checked) before the server starts.
        let mut launches = Vec::new();
        for &p in &external {
            let part = &t.config.participants[p];
            if let Some(command) = &part.command {
                let launch = Launch::new(part, command, t.config.isolation, dir)
                    .map_err(|e| format!("participant `{}`: {e}", part.name))?;
                launches.push(launch);
            }
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start tokio: {e}"))?;
        let addr = t.config.listen.parse().map_err(|e| format!("listen: {e}"))?;
        // Only the operator's own programs connect (from this host, as one client).
        let config = ServerConfig { move_time: None, shares: server::Shares::WHOLE, ..ServerConfig::default() };
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
            children: Vec::new(),
            sessions: HashMap::new(),
            next_match: AtomicU64::new(1),
            idle: crate::referee::limit_ms(t.config.idle_ms),
        };
        for launch in &launches {
            let launched = launch.spawn(&url)?;
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
                Ok(Box::new(agent.with_idle(ext.idle)))
            }
            (None, None) => Err(format!("participant {p} plays over the Play stream, and no server is running")),
        }
    }

    /// Stop the server (the clients' streams end) and wait for the launched processes.
    pub fn stop(&mut self) {
        if let Some(s) = self.server.take() {
            let _ = self.runtime.block_on(s.stop());
        }
        for Launched { name, child, .. } in &mut self.children {
            // A client whose stream ended should exit; one that does not is stopped.
            for _ in 0..50 {
                if let Ok(Some(_)) = child.try_wait() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            if let Ok(None) = child.try_wait() {
                tracing::warn!("participant `{name}` did not exit with the tournament: stopping it");
                let _ = child.kill();
                let _ = child.wait();
            }
        }
        self.children.clear();
    }
}

impl Drop for Externals {
    fn drop(&mut self) {
        self.stop();
    }
}

/// How much of a launched command's stderr is kept, to tell why it ended.
const STDERR_TAIL: usize = 2000;

/// A launched participant: its process, and the end of its stderr.
struct Launched {
    name: String,
    child: Child,
    tail: Arc<Mutex<VecDeque<u8>>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Launched {
    /// The error to fail with if it exited without having connected (its name not held).
    fn exited_unconnected(&mut self, hub: &server::Hub, url: &str) -> Option<String> {
        let status = self.child.try_wait().ok().flatten()?;
        if hub.session(&self.name).is_some() {
            return None;
        }
        // Its stderr ends with it (unless something it started holds it: then not for long).
        if let Some(r) = self.reader.take() {
            for _ in 0..50 {
                if r.is_finished() {
                    let _ = r.join();
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        let tail = self.tail.lock().unwrap_or_else(|p| p.into_inner());
        let text = String::from_utf8_lossy(&tail.iter().copied().collect::<Vec<u8>>()).trim().to_string();
        let said = match text.is_empty() {
            true => "it wrote nothing on stderr".to_string(),
            false => format!("the end of its stderr:\n{text}"),
        };
        Some(format!("participant `{}` exited ({status}) before it connected to {url}; {said}", self.name))
    }
}
/// A participant's command, ready to launch: its words (`sh -c COMMAND`, in its sandbox, after
/// the operator's `sandbox` words if it has some).
struct Launch {
    name: String,
    command: String,
    prefix: Vec<String>,
    sandbox: Option<Sandbox>,
}

impl Launch {
    /// Its sandbox (with `isolation: bwrap`) hides the run's directory `dir` (made now) and
    /// lets it write in its `writable` folders; checked here, so that a host that cannot make it
    /// says so before anything starts.
    fn new(part: &Participant, command: &str, isolation: Isolation, dir: &Path) -> Result<Launch, String> {
        let prefix = match &part.sandbox {
            Some(s) => {
                shlex::split(s).filter(|w| !w.is_empty()).ok_or_else(|| format!("sandbox `{s}` is not a command"))?
            }
            None => Vec::new(),
        };
        let sandbox = match isolation {
            Isolation::Unconfined => None,
            Isolation::Bwrap => {
                let sandbox = part.writable.iter().fold(Sandbox::new(), |s, w| s.writable(w));
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
        Ok(Launch { name: part.name.clone(), command: command.to_string(), prefix, sandbox })
    }

    /// Start it, its environment the arena's without a secret, plus where to connect and its
    /// name; its stderr passed on to the arena's, the end of it kept.
    fn spawn(&self, url: &str) -> Result<Launched, String> {
        let words = ["sh".to_string(), "-c".to_string(), self.command.clone()];
        let mut cmd = match &self.sandbox {
            Some(sandbox) => {
                sandbox.wrap(&self.prefix, &words).map_err(|e| format!("participant `{}`: {e}", self.name))?
            }
            None => {
                let all: Vec<&String> = self.prefix.iter().chain(&words).collect();
                let mut cmd = Command::new(all[0]);
                cmd.args(&all[1..]);
                cmd
            }
        };
        for (var, _) in std::env::vars_os() {
            if var.to_str().is_none_or(sandbox::is_secret) {
                cmd.env_remove(&var);
            }
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
        Ok(Launched { name: self.name.clone(), child, tail, reader })
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
