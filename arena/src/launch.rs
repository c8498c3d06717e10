//! Agents the arena launches (a tournament's `command:` participants, a ladder's submissions):
//! a command started in its sandbox and cgroup, its stderr's end kept, watched until it ends,
//! and, once it has, why it ended (the limit it broke, or its exit status).

use crate::limits::{Cgroup, Ending};
use crate::sandbox::{self, Sandbox};
use crate::server;
use bots::AgentError;
use std::collections::VecDeque;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// How much of a launched command's stderr is kept by default, to tell why it ended (the
/// last 4 KiB).
pub const STDERR_TAIL: usize = 4096;

/// A launched agent: its process, watched by a thread of its own until it ends.
pub struct Launched {
    pub watch: Arc<Watch>,
    watcher: Option<std::thread::JoinHandle<()>>,
}

impl Launched {
    /// Wait for the watching thread (after `stopping` was set, or the process ended).
    pub fn join(&mut self) {
        if let Some(w) = self.watcher.take() {
            let _ = w.join();
        }
    }

    /// The error to fail with if it exited without having connected (its name not held).
    pub fn exited_unconnected(&mut self, hub: &server::Hub, url: &str) -> Option<String> {
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
        Some(format!("`{}` exited ({}){why} before it connected to {url}; {said}", self.watch.name, ended.status))
    }
}

/// A launched agent's process as it is watched: its group, the end of its stderr, and once it
/// has ended, how.
pub struct Watch {
    pub name: String,
    child: Mutex<Child>,
    /// Its cgroup (none with `limits: none`); removed when the tournament stops.
    group: Mutex<Option<Cgroup>>,
    tail: Arc<Mutex<VecDeque<u8>>>,
    reader: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// Where the end of its stderr is kept once it has ended.
    pub log: PathBuf,
    ended: OnceLock<Ended>,
    /// Until when seats whose client is gone wait for its process to end (set by the first).
    wait_until: OnceLock<std::time::Instant>,
    /// When it started, and set once it was stopped for running past its wall time.
    started: std::time::Instant,
    past_wall: AtomicBool,
}

/// How a launched agent's process ended.
pub struct Ended {
    pub status: ExitStatus,
    pub ending: Ending,
    /// The CPU time its group used, where the host tells it.
    pub cpu: Option<Duration>,
    /// The end of its stderr, as text.
    pub stderr: String,
}

impl Watch {
    /// How it ended, if it has: the first time it is seen ended, what is left in its group is
    /// killed, why it ended is read from the group, and the end of its stderr is kept in the
    /// log file.
    pub fn poll(&self) -> Option<&Ended> {
        if let Some(e) = self.ended.get() {
            return Some(e);
        }
        let mut child = self.child.lock().unwrap_or_else(|p| p.into_inner());
        let status = child.try_wait().ok().flatten()?;
        if let Some(e) = self.ended.get() {
            return Some(e);
        }
        let group = self.group.lock().unwrap_or_else(|p| p.into_inner());
        let wall = group.as_ref().and_then(|g| g.limits().wall_seconds);
        let ending = match wall {
            Some(t) if self.past_wall.load(Ordering::Acquire) => {
                Ending::WallTime { millis: (t * 1000.0).round() as u64 }
            }
            _ => group.as_ref().map_or_else(|| Ending::Exited(status.to_string()), |g| g.ending(status)),
        };
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
    pub fn gone(&self) -> Option<AgentError> {
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
            Ending::CpuTime { .. } => AgentError::CpuTime(detail),
            Ending::WallTime { .. } => AgentError::WallTime(detail),
            Ending::Exited(_) => AgentError::Disconnected(detail),
        })
    }

    /// Its work is over: a process whose client's stream ended should exit; one that does not
    /// within `grace` is stopped. Its group is then removed.
    pub fn stop(&self, grace: Duration) {
        let until = std::time::Instant::now() + grace;
        while self.poll().is_none() && std::time::Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
        if self.poll().is_none() {
            tracing::debug!("`{}` did not exit when its work was over: stopping it", self.name);
            let mut child = self.child.lock().unwrap_or_else(|p| p.into_inner());
            let _ = child.kill();
            let _ = child.wait();
            drop(child);
            self.poll();
        }
        drop(self.group.lock().unwrap_or_else(|p| p.into_inner()).take());
    }
}

/// An agent's command, ready to launch: its words (`sh -c COMMAND`, in its sandbox, after the
/// operator's `prefix` words if it has some).
pub struct Launch {
    /// The name it says Hello with (`ARENA_NAME`).
    pub name: String,
    pub command: String,
    pub prefix: Vec<String>,
    pub sandbox: Option<Sandbox>,
    /// Variables of its own.
    pub env: Vec<(String, String)>,
    /// Its working directory (the arena's if none).
    pub cwd: Option<PathBuf>,
    /// Pass its stderr on to the arena's as it comes (the operator's own agents), or only keep
    /// its end (strangers').
    pub echo_stderr: bool,
    /// How much of its stderr's end is kept.
    pub kept: usize,
}

impl Launch {
    /// Start it in its cgroup `group` (if it has one), its environment its sandbox's (or,
    /// unconfined, the arena's without a secret), plus where to connect (`url` unconfined, its
    /// relay's address in its sandbox), its name and its own variables; the end of its stderr
    /// kept (in `log` once it has ended); watched by a thread until it ends or `stopping` is
    /// set.
    pub fn spawn(
        self,
        url: &str,
        group: Option<Cgroup>,
        log: &Path,
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
                sandbox.wrap(&self.prefix, &words).map_err(|e| format!("`{}`: {e}", self.name))?
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
        if let Some(dir) = &self.cwd {
            cmd.current_dir(dir);
        }
        let mut child = cmd
            .env("ARENA_SERVER", url)
            .env("ARENA_NAME", &self.name)
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("`{}`: cannot run `{}`: {e}", self.name, self.command))?;
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let (echo, kept) = (self.echo_stderr, self.kept);
        let reader = child.stderr.take().map(|mut stderr| {
            let tail = tail.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = stderr.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    if echo {
                        let _ = std::io::stderr().write_all(&buf[..n]);
                    }
                    let mut t = tail.lock().unwrap_or_else(|p| p.into_inner());
                    t.extend(&buf[..n]);
                    let extra = t.len().saturating_sub(kept);
                    t.drain(..extra);
                }
            })
        });
        let watch = Arc::new(Watch {
            log: log.to_path_buf(),
            name: self.name,
            child: Mutex::new(child),
            group: Mutex::new(group),
            tail,
            reader: Mutex::new(reader),
            ended: OnceLock::new(),
            wait_until: OnceLock::new(),
            started: std::time::Instant::now(),
            past_wall: AtomicBool::new(false),
        });
        let watched = watch.clone();
        let watcher = std::thread::spawn(move || {
            while !stopping.load(Ordering::Relaxed) && watched.poll().is_none() {
                // Past its CPU time or its wall time: stopped (its ending then says why).
                let group = watched.group.lock().unwrap_or_else(|p| p.into_inner());
                if let Some(g) = group.as_ref() {
                    let wall = g.limits().wall_seconds;
                    if wall.is_some_and(|t| watched.started.elapsed().as_secs_f64() >= t) {
                        watched.past_wall.store(true, Ordering::Release);
                        g.kill_all();
                    } else if g.over_cpu_time() {
                        g.kill_all();
                    }
                }
                drop(group);
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        Ok(Launched { watch, watcher: Some(watcher) })
    }
}
