//! Limits on what a launched program may use — CPU, memory, processes — enforced by the
//! kernel through a cgroup of its own, and why it ended, read from that group afterwards.
//!
//! [`Limits`] says how much: `cpus` cores' worth of CPU time (a quota: the group is throttled,
//! never killed, for using more), `memory` bytes (swap included, where the host accounts it
//! apart: past it the kernel's OOM killer ends a process of the group), `pids` processes and
//! threads at once (past it, `fork` fails). [`Host::find`] finds where this process may make
//! groups, once; [`Host::group`] makes one per launched process, with its limits written;
//! [`Cgroup::join_on_spawn`] makes the process join it before it runs anything (so whatever it
//! starts, a sandbox and all under it, is inside); [`Cgroup::ending`] reads why it ended;
//! dropping the group kills what is left in it and removes it.
//!
//! Which cgroup version: v2 when this process's own group is on a cgroup2 mount and the group
//! the agents' groups go in offers the `cpu`, `memory` and `pids` controllers; else v1, one
//! group in each of the `cpu`, `memory` and `pids` hierarchies (and `cpuacct`, for the CPU
//! time used, where it is mounted apart), under this process's own group of each. In v2 a
//! group that holds processes cannot give controllers to groups below it (the "no internal
//! processes" rule), and this process's own group holds at least this process: so the agents'
//! groups are made beside it, under its parent (or under the root, which the rule spares, when
//! it is at the root), and a controller that parent offers but does not give its children yet
//! is enabled there (`cgroup.subtree_control`).

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::time::Duration;

/// What a launched program may use.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Cores' worth of CPU time per wall second (a quota of `cpus` × the period).
    pub cpus: f64,
    /// Bytes of memory (and of memory and swap together, where the host accounts swap apart).
    pub memory: u64,
    /// Processes and threads at once.
    pub pids: u32,
    /// CPU time in all, in seconds (none: no such limit): past it, the group is killed. A
    /// tournament's launched participant has it for the whole run; a ladder's submission for
    /// each game.
    pub cpu_seconds: Option<f64>,
    /// Wall time in all, in seconds (none: no such limit), from its start: past it, the group
    /// is killed. As `cpu_seconds`: a participant's for the run, a submission's for each game.
    pub wall_seconds: Option<f64>,
}

impl Default for Limits {
    /// One core, 1 GiB, 64 processes, no CPU-time limit.
    fn default() -> Limits {
        Limits { cpus: 1.0, memory: 1 << 30, pids: 64, cpu_seconds: None, wall_seconds: None }
    }
}

/// The CFS period the CPU quota is a share of, in microseconds (the kernel's default).
const PERIOD_US: u64 = 100_000;

impl Limits {
    /// Are these limits ones a group can have? A mistake names the field (`cpus`, `memory`,
    /// `pids`) and what is allowed.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        if !self.cpus.is_finite() || self.cpus < 0.01 {
            return Err(("cpus", format!("`{}`: a number of cores of at least 0.01 (`1`, `0.5`, `2`)", self.cpus)));
        }
        if self.memory < 1 << 20 {
            return Err(("memory", format!("{} bytes: at least 1 MiB (`512MiB`, `1GiB`)", self.memory)));
        }
        if self.pids == 0 {
            return Err(("pids", "0: at least 1 process".to_string()));
        }
        if let Some(t) = self.cpu_seconds
            && !(t.is_finite() && t > 0.0)
        {
            return Err(("cpu_seconds", format!("`{t}`: a number of seconds above 0 (`60`, `0.5`)")));
        }
        if let Some(t) = self.wall_seconds
            && !(t.is_finite() && t > 0.0)
        {
            return Err(("wall_seconds", format!("`{t}`: a number of seconds above 0 (`600`, `2.5`)")));
        }
        Ok(())
    }

    /// The CPU quota per [`PERIOD_US`], in microseconds.
    fn quota_us(&self) -> u64 {
        ((self.cpus * PERIOD_US as f64).round() as u64).max(1000)
    }
}

/// A size in bytes, as a file writes it: a whole number of bytes (`1073741824`), or of KiB,
/// MiB, GiB or TiB (`512MiB`, `1GiB`; a space before the unit is allowed).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let shift = match unit.trim() {
        "" | "B" => 0,
        "KiB" => 10,
        "MiB" => 20,
        "GiB" => 30,
        "TiB" => 40,
        _ => u32::MAX,
    };
    let refused = || format!("`{text}` is not a size: write bytes (`1073741824`) or KiB, MiB, GiB (`512MiB`, `1GiB`)");
    let n: u64 = number.parse().map_err(|_| refused())?;
    if shift == u32::MAX {
        return Err(refused());
    }
    n.checked_mul(1 << shift).ok_or_else(|| format!("`{text}` is too large a size"))
}

/// A size as people read it: `1 GiB`, `512 MiB`, `1500 bytes`.
pub fn show_size(bytes: u64) -> String {
    for (shift, unit) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if bytes >= 1 << shift && bytes.is_multiple_of(1 << shift) {
            return format!("{} {unit}", bytes >> shift);
        }
    }
    format!("{bytes} bytes")
}

/// Which limit a program broke, or how it ended otherwise: what a game's verdict says of a
/// launched participant whose process is gone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The kernel's OOM killer ended a process of its group: it used its whole memory limit.
    Memory { limit: u64 },
    /// It tried to have more processes than its limit (a `fork` failed).
    Processes { limit: u32 },
    /// It used its whole CPU time (the group was killed for it).
    CpuTime { millis: u64 },
    /// It ran past its wall time (the group was killed for it).
    WallTime { millis: u64 },
    /// It exited (`exit status: 3`) or a signal ended it (`signal: 9 (SIGKILL)`), no limit
    /// broken.
    Exited(String),
}

impl Ending {
    /// What happened, in words: `used more than 1 GiB of memory (the limit)`, `reached its
    /// limit of 64 processes`, `its process ended (exit status: 3)`.
    pub fn describe(&self) -> String {
        match self {
            Ending::Memory { limit } => format!("used more than {} of memory (the limit)", show_size(*limit)),
            Ending::Processes { limit } => format!("reached its limit of {limit} processes"),
            Ending::CpuTime { millis } => format!("used its {} s of CPU time (the limit)", *millis as f64 / 1000.0),
            Ending::WallTime { millis } => {
                format!("ran past its {} s of wall time (the limit)", *millis as f64 / 1000.0)
            }
            Ending::Exited(status) => format!("its process ended ({status})"),
        }
    }
}

/// Where this process may make groups: the cgroup version and the folders.
#[derive(Clone, Debug, PartialEq)]
pub enum Host {
    /// cgroup v2: agents' groups are made in this folder.
    V2 { parent: PathBuf },
    /// cgroup v1: agents' groups are made in each of these folders (this process's own group
    /// of each hierarchy); `cpuacct` is where the CPU time used is read, when it is mounted
    /// apart from `cpu` (otherwise `cpu` holds it).
    V1 { cpu: PathBuf, memory: PathBuf, pids: PathBuf, cpuacct: Option<PathBuf> },
}

/// The controllers the limits need.
const CONTROLLERS: [&str; 3] = ["cpu", "memory", "pids"];

impl Host {
    /// Where this process may make groups, from `/proc/self/cgroup` and
    /// `/proc/self/mountinfo`; an error names what the host lacks.
    pub fn find() -> Result<Host, String> {
        let read = |p: &str| std::fs::read_to_string(p).map_err(|e| format!("cannot read {p}: {e}"));
        Host::from_tables(&read("/proc/self/cgroup")?, &read("/proc/self/mountinfo")?, &|p| p.exists())
    }

    /// [`Host::find`] from the two tables' texts; `exists` tells which files are there.
    fn from_tables(cgroups: &str, mountinfo: &str, exists: &dyn Fn(&Path) -> bool) -> Result<Host, String> {
        let mounts = Mount::all(mountinfo);
        // v2: the line `0::/path`, on a cgroup2 mount.
        let mut v2_said = None;
        if let Some(path) = cgroups.lines().find_map(|l| l.strip_prefix("0::"))
            && let Some(m) = mounts.iter().find(|m| m.fstype == "cgroup2")
            && let Some(own) = m.folder_of(path)
        {
            let at_root = path.trim_end_matches('/').is_empty();
            let parent = if at_root { own.clone() } else { own.parent().unwrap_or(&own).to_path_buf() };
            match v2_enable(&parent) {
                Ok(()) => return Ok(Host::V2 { parent }),
                Err(e) => v2_said = Some(e),
            }
        }
        // v1: each controller's hierarchy, this process's group in it.
        let v1 = |controller: &str| -> Option<PathBuf> {
            let path = cgroups.lines().find_map(|l| {
                let mut parts = l.splitn(3, ':');
                let (_, names, path) = (parts.next()?, parts.next()?, parts.next()?);
                names.split(',').any(|n| n == controller).then_some(path)
            })?;
            let m = mounts.iter().find(|m| m.fstype == "cgroup" && m.options.split(',').any(|o| o == controller))?;
            m.folder_of(path)
        };
        let found: Vec<Option<PathBuf>> = CONTROLLERS.iter().map(|c| v1(c)).collect();
        let missing: Vec<&str> = CONTROLLERS.iter().zip(&found).filter(|(_, f)| f.is_none()).map(|(c, _)| *c).collect();
        if let [Some(cpu), Some(memory), Some(pids)] = &found[..] {
            let cpuacct = v1("cpuacct").filter(|a| a != cpu && exists(&a.join("cpuacct.usage")));
            return Ok(Host::V1 { cpu: cpu.clone(), memory: memory.clone(), pids: pids.clone(), cpuacct });
        }
        Err(format!(
            "this host cannot limit a launched participant: {}no cgroup v1 hierarchy has the controller(s) {} mounted",
            v2_said.map(|s| s + ", and ").unwrap_or_default(),
            missing.join(", ")
        ))
    }

    /// Make a group for one launched process, `name` in its folder's (`arena-PID-N-NAME`, N
    /// counting this process's groups), with `limits` written. An error names the file that
    /// could not be made or written.
    pub fn group(&self, name: &str, limits: &Limits) -> Result<Cgroup, String> {
        static MADE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let name = name.replace(|c: char| !c.is_ascii_alphanumeric() && c != '-' && c != '_', "_");
        let leaf = format!("arena-{}-{n}-{name}", std::process::id());
        let mut group = Cgroup { v2: matches!(self, Host::V2 { .. }), dirs: Vec::new(), usage: None, limits: *limits };
        let make = |parent: &Path, group: &mut Cgroup| -> Result<PathBuf, String> {
            let dir = parent.join(&leaf);
            if !group.dirs.contains(&dir) {
                match std::fs::create_dir(&dir) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                    Err(e) => return Err(format!("cannot make the cgroup {}: {e}", dir.display())),
                }
                group.dirs.push(dir.clone());
            }
            Ok(dir)
        };
        match self {
            Host::V2 { parent } => {
                let dir = make(parent, &mut group)?;
                let quota = format!("{} {PERIOD_US}", limits.quota_us());
                write(&dir, "cpu.max", &quota)?;
                write(&dir, "memory.max", &limits.memory.to_string())?;
                if dir.join("memory.swap.max").exists() {
                    write(&dir, "memory.swap.max", "0")?;
                }
                // The OOM killer ends the whole group, not one of its processes.
                if dir.join("memory.oom.group").exists() {
                    write(&dir, "memory.oom.group", "1")?;
                }
                write(&dir, "pids.max", &limits.pids.to_string())?;
                group.usage = Some(dir);
            }
            Host::V1 { cpu, memory, pids, cpuacct } => {
                let dir = make(cpu, &mut group)?;
                write(&dir, "cpu.cfs_period_us", &PERIOD_US.to_string())?;
                write(&dir, "cpu.cfs_quota_us", &limits.quota_us().to_string())?;
                group.usage = Some(dir);
                if let Some(acct) = cpuacct {
                    group.usage = Some(make(acct, &mut group)?);
                }
                let dir = make(memory, &mut group)?;
                write(&dir, "memory.limit_in_bytes", &limits.memory.to_string())?;
                // Memory and swap together (after memory alone: it may not be below it).
                if dir.join("memory.memsw.limit_in_bytes").exists() {
                    write(&dir, "memory.memsw.limit_in_bytes", &limits.memory.to_string())?;
                }
                let dir = make(pids, &mut group)?;
                write(&dir, "pids.max", &limits.pids.to_string())?;
            }
        }
        Ok(group)
    }
}

/// Make sure the cgroup v2 group `parent` gives its children the `cpu`, `memory` and `pids`
/// controllers: those it offers (`cgroup.controllers`) but does not give yet
/// (`cgroup.subtree_control`) are enabled. An error names what it lacks.
fn v2_enable(parent: &Path) -> Result<(), String> {
    let words = |file: &str| std::fs::read_to_string(parent.join(file)).unwrap_or_default();
    let (offered, given) = (words("cgroup.controllers"), words("cgroup.subtree_control"));
    let has = |text: &str, c: &str| text.split_whitespace().any(|o| o == c);
    let missing: Vec<&str> = CONTROLLERS.into_iter().filter(|c| !has(&offered, c)).collect();
    if !missing.is_empty() {
        return Err(format!(
            "the cgroup v2 group {} does not offer the controller(s) {} (a delegated group must)",
            parent.display(),
            missing.join(", ")
        ));
    }
    let file = parent.join("cgroup.subtree_control");
    for c in CONTROLLERS.into_iter().filter(|c| !has(&given, c)) {
        std::fs::write(&file, format!("+{c}")).map_err(|e| {
            let why = match e.raw_os_error() {
                // A v2 group that holds processes cannot give controllers to groups below it.
                Some(libc::EBUSY) => " (it holds processes, as a container's root group may)",
                _ => "",
            };
            format!("cannot enable the controller `{c}` in {}: {e}{why}", file.display())
        })?;
    }
    Ok(())
}

/// Write `value` in a group's file; an error names it.
fn write(dir: &Path, file: &str, value: &str) -> Result<(), String> {
    let path = dir.join(file);
    std::fs::write(&path, value).map_err(|e| format!("cannot write `{value}` to {}: {e}", path.display()))
}

/// A mount of `/proc/self/mountinfo`: its root in its filesystem, where it is, its type, its
/// filesystem's options (a cgroup v1 hierarchy's controllers).
struct Mount {
    root: String,
    point: PathBuf,
    fstype: String,
    options: String,
}

impl Mount {
    /// The cgroup mounts (fields: id parent dev root point options [optional…] - type source
    /// super-options).
    fn all(mountinfo: &str) -> Vec<Mount> {
        mountinfo
            .lines()
            .filter_map(|l| {
                let (head, tail) = l.split_once(" - ")?;
                let head: Vec<&str> = head.split(' ').collect();
                let tail: Vec<&str> = tail.split(' ').collect();
                let (root, point) = (head.get(3)?, head.get(4)?);
                let (fstype, options) = (tail.first()?, tail.get(2).unwrap_or(&""));
                fstype.starts_with("cgroup").then(|| Mount {
                    root: unescape(root),
                    point: PathBuf::from(unescape(point)),
                    fstype: fstype.to_string(),
                    options: options.to_string(),
                })
            })
            .collect()
    }

    /// The folder of the group `path` (as `/proc/self/cgroup` gives it) under this mount, if
    /// it is there.
    fn folder_of(&self, path: &str) -> Option<PathBuf> {
        let root = self.root.trim_end_matches('/');
        let rest = if root.is_empty() { path } else { path.strip_prefix(root)? };
        let rest = rest.trim_matches('/');
        Some(if rest.is_empty() { self.point.clone() } else { self.point.join(rest) })
    }
}

/// A mountinfo field with its octal escapes (`\040` for a space) undone.
fn unescape(field: &str) -> String {
    let mut out = Vec::new();
    let b = field.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && let Some(n) = b.get(i + 1..i + 4).and_then(|o| u8::from_str_radix(std::str::from_utf8(o).ok()?, 8).ok())
        {
            out.push(n);
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// One launched process's group (one folder in v2, one per hierarchy in v1), made by
/// [`Host::group`]. Dropped, it kills what is left in it and is removed.
#[derive(Debug)]
pub struct Cgroup {
    v2: bool,
    dirs: Vec<PathBuf>,
    /// The folder whose files tell the CPU time used.
    usage: Option<PathBuf>,
    limits: Limits,
}

impl Cgroup {
    /// The group's folders (one in v2, one per hierarchy in v1).
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// Its limits.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The process `cmd` starts joins this group before it runs anything: the child, once
    /// forked, writes `0` (itself) to each folder's `cgroup.procs`, and fails to start if it
    /// cannot.
    pub fn join_on_spawn(&self, cmd: &mut std::process::Command) {
        use std::os::unix::process::CommandExt;
        let procs: Vec<CString> = self
            .dirs
            .iter()
            .map(|d| CString::new(d.join("cgroup.procs").as_os_str().as_bytes()).expect("no NUL in a cgroup's path"))
            .collect();
        // SAFETY: the hook runs in the forked child before `exec`, where only async-signal-safe
        // calls are allowed: it calls `open`, `write` and `close` on paths made before the
        // fork, allocates nothing, takes no lock; its error is an `io::Error` of the OS code
        // (no allocation either).
        unsafe {
            cmd.pre_exec(move || {
                for path in &procs {
                    let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                    if fd < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    let written = libc::write(fd, b"0".as_ptr().cast(), 1);
                    let error = std::io::Error::last_os_error();
                    libc::close(fd);
                    if written != 1 {
                        return Err(error);
                    }
                }
                Ok(())
            });
        }
    }

    /// The CPU time its processes have used so far (v2 `cpu.stat` `usage_usec`, v1
    /// `cpuacct.usage`), if the host tells it.
    pub fn cpu_used(&self) -> Option<Duration> {
        cpu_used(self.usage.as_deref()?, self.v2)
    }

    /// Why the group's process ended with `status`: a limit it broke, read from the group's
    /// files (see [`ending`]), or its exit status.
    pub fn ending(&self, status: ExitStatus) -> Ending {
        if let Some(seconds) = self.limits.cpu_seconds
            && self.over_cpu_time()
        {
            return Ending::CpuTime { millis: (seconds * 1000.0).round() as u64 };
        }
        ending(&self.dirs, self.v2, &self.limits, status)
    }

    /// Has the group used its CPU time (`cpu_seconds`), if it has such a limit?
    pub fn over_cpu_time(&self) -> bool {
        self.limits.cpu_seconds.is_some_and(|t| self.cpu_used().is_some_and(|used| used.as_secs_f64() >= t))
    }

    /// Kill every process left in the group (v2 `cgroup.kill` where the kernel has it, else
    /// SIGKILL to each in `cgroup.procs`, until none is left or two seconds pass).
    pub fn kill_all(&self) {
        if self.v2
            && let Some(dir) = self.dirs.first()
            && std::fs::write(dir.join("cgroup.kill"), "1").is_ok()
        {
            return;
        }
        let deadline = std::time::Instant::now() + Duration::from_secs(2);
        while std::time::Instant::now() < deadline {
            let pids: Vec<i32> = self
                .dirs
                .iter()
                .filter_map(|d| std::fs::read_to_string(d.join("cgroup.procs")).ok())
                .flat_map(|t| t.lines().filter_map(|l| l.trim().parse().ok()).collect::<Vec<i32>>())
                .collect();
            if pids.is_empty() {
                return;
            }
            for pid in pids {
                // SAFETY: kill with integers; the pid is one in the group (never 0 or -1:
                // the kernel lists real processes).
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        self.kill_all();
        for dir in &self.dirs {
            // A killed process leaves its group a moment after it is gone.
            for _ in 0..100 {
                match std::fs::remove_dir(dir) {
                    Err(e) if e.kind() == std::io::ErrorKind::ResourceBusy || e.raw_os_error() == Some(libc::EBUSY) => {
                        std::thread::sleep(Duration::from_millis(10))
                    }
                    _ => break,
                }
            }
        }
    }
}

/// A number after `key ` on a line of a flat-keyed file's text (`oom_kill 1`).
fn keyed(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| l.strip_prefix(key)?.strip_prefix(' ')?.trim().parse().ok())
}

/// The CPU time used by the group in `dir`: v2 `cpu.stat`'s `usage_usec`, v1 `cpuacct.usage`
/// (nanoseconds).
fn cpu_used(dir: &Path, v2: bool) -> Option<Duration> {
    if v2 {
        let text = std::fs::read_to_string(dir.join("cpu.stat")).ok()?;
        keyed(&text, "usage_usec").map(Duration::from_micros)
    } else {
        let text = std::fs::read_to_string(dir.join("cpuacct.usage")).ok()?;
        text.trim().parse().ok().map(Duration::from_nanos)
    }
}

/// Why the process of the group in `dirs` ended with `status`, from the group's files:
///
/// - memory: v2 `memory.events` `oom_kill` above 0; v1 `memory.oom_control` `oom_kill` above
///   0 where the kernel counts it, else `memory.failcnt` above 0 and the process killed by
///   SIGKILL;
/// - processes: `pids.events` `max` above 0 (v1 and v2);
/// - else its exit status or signal.
///
/// The CPU quota only throttles: it ends nothing.
pub fn ending(dirs: &[PathBuf], v2: bool, limits: &Limits, status: ExitStatus) -> Ending {
    use std::os::unix::process::ExitStatusExt;
    let read = |file: &str| dirs.iter().find_map(|d| std::fs::read_to_string(d.join(file)).ok());
    let oom = if v2 {
        read("memory.events").and_then(|t| keyed(&t, "oom_kill")).is_some_and(|n| n > 0)
    } else {
        match read("memory.oom_control").and_then(|t| keyed(&t, "oom_kill")) {
            Some(n) => n > 0,
            None => {
                let failed = read("memory.failcnt").and_then(|t| t.trim().parse::<u64>().ok()).is_some_and(|n| n > 0);
                failed && status.signal() == Some(libc::SIGKILL)
            }
        }
    };
    if oom {
        return Ending::Memory { limit: limits.memory };
    }
    if read("pids.events").and_then(|t| keyed(&t, "max")).is_some_and(|n| n > 0) {
        return Ending::Processes { limit: limits.pids };
    }
    Ending::Exited(status.to_string())
}

/// The `limits:` field of a file, as serde reads and writes it: `none` (no limits), or a
/// mapping of `cpus` (a number), `memory` (bytes, or a size: `512MiB`), `pids`,
/// `cpu_seconds` and `wall_seconds`, each defaulting to [`Limits::default`]'s. (Use with `#[serde(with = "crate::limits::setting")]`
/// on an `Option<Limits>`; check the values with [`Limits::check`].)
pub mod setting {
    use super::{Limits, parse_size};
    use serde::de::{self, MapAccess, Visitor};
    use serde::ser::SerializeMap;
    use serde::{Deserializer, Serializer};
    use std::fmt;

    const FIELDS: &[&str] = &["cpus", "memory", "pids", "cpu_seconds", "wall_seconds"];
    const EXPECTED: &str = "`none`, or limits: `{cpus: 1, memory: 1GiB, pids: 64, cpu_seconds: 60, wall_seconds: 600}`";

    pub fn serialize<S: Serializer>(limits: &Option<Limits>, s: S) -> Result<S::Ok, S::Error> {
        match limits {
            None => s.serialize_str("none"),
            Some(l) => {
                let mut map = s.serialize_map(None)?;
                map.serialize_entry("cpus", &l.cpus)?;
                map.serialize_entry("memory", &l.memory)?;
                map.serialize_entry("pids", &l.pids)?;
                if let Some(t) = l.cpu_seconds {
                    map.serialize_entry("cpu_seconds", &t)?;
                }
                if let Some(t) = l.wall_seconds {
                    map.serialize_entry("wall_seconds", &t)?;
                }
                map.end()
            }
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Limits>, D::Error> {
        d.deserialize_any(Setting)
    }

    struct Setting;

    impl<'de> Visitor<'de> for Setting {
        type Value = Option<Limits>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(EXPECTED)
        }
        fn visit_str<E: de::Error>(self, text: &str) -> Result<Option<Limits>, E> {
            match text {
                "none" => Ok(None),
                _ => Err(E::custom(format!("`{text}`: write {EXPECTED}"))),
            }
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<Limits>, A::Error> {
            let mut limits = Limits::default();
            while let Some(key) = map.next_key::<String>()? {
                match key.as_str() {
                    "cpus" => limits.cpus = map.next_value()?,
                    "memory" => limits.memory = map.next_value::<Size>()?.0,
                    "pids" => limits.pids = map.next_value()?,
                    "cpu_seconds" => limits.cpu_seconds = Some(map.next_value()?),
                    "wall_seconds" => limits.wall_seconds = Some(map.next_value()?),
                    _ => return Err(de::Error::unknown_field(&key, FIELDS)),
                }
            }
            Ok(Some(limits))
        }
    }

    /// A size: bytes, or a number of KiB, MiB, GiB, TiB ([`parse_size`]).
    struct Size(u64);

    impl<'de> serde::Deserialize<'de> for Size {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Size, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Size;
                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    f.write_str("a size: bytes (`1073741824`) or KiB, MiB, GiB (`512MiB`, `1GiB`)")
                }
                fn visit_u64<E: de::Error>(self, n: u64) -> Result<Size, E> {
                    Ok(Size(n))
                }
                fn visit_str<E: de::Error>(self, text: &str) -> Result<Size, E> {
                    parse_size(text).map(Size).map_err(E::custom)
                }
            }
            d.deserialize_any(V)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;

    #[test]
    fn sizes_are_bytes_or_binary_units() {
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("512 MiB"), Ok(512 << 20));
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        for bad in ["1GB", "1.5GiB", "lots", "", "-1", "GiB"] {
            let e = parse_size(bad).unwrap_err();
            assert!(e.contains("is not a size") && e.contains("`512MiB`"), "{bad}: {e}");
        }
        assert!(parse_size("99999999999TiB").unwrap_err().contains("too large"));
        assert_eq!(show_size(1 << 30), "1 GiB");
        assert_eq!(show_size(1536 << 20), "1536 MiB");
        assert_eq!(show_size(1000), "1000 bytes");
    }

    #[test]
    fn limits_are_checked_by_field() {
        assert_eq!(Limits::default().check(), Ok(()));
        assert_eq!(Limits { cpus: 0.0, ..Limits::default() }.check().unwrap_err().0, "cpus");
        assert_eq!(Limits { cpus: f64::NAN, ..Limits::default() }.check().unwrap_err().0, "cpus");
        assert_eq!(Limits { memory: 1000, ..Limits::default() }.check().unwrap_err().0, "memory");
        assert_eq!(Limits { pids: 0, ..Limits::default() }.check().unwrap_err().0, "pids");
        assert_eq!(Limits { cpus: 0.5, ..Limits::default() }.quota_us(), 50_000);
        assert_eq!(Limits { cpus: 2.0, ..Limits::default() }.quota_us(), 200_000);
    }

    const MOUNTS: &str = "\
30 25 0:26 / /sys/fs/cgroup rw - tmpfs tmpfs rw,mode=755
31 30 0:27 / /sys/fs/cgroup/cpu rw,relatime shared:9 - cgroup cgroup rw,cpu
32 30 0:28 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
33 30 0:29 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
34 30 0:30 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
35 30 0:31 / /nonexistent/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
";

    #[test]
    fn v1_is_found_where_v2_offers_no_controller() {
        let cgroups = "8:pids:/\n4:memory:/jobs/a1\n2:cpuacct:/\n1:cpu:/\n0::/\n";
        let host = Host::from_tables(cgroups, MOUNTS, &|_| true).unwrap();
        assert_eq!(
            host,
            Host::V1 {
                cpu: "/sys/fs/cgroup/cpu".into(),
                memory: "/sys/fs/cgroup/memory/jobs/a1".into(),
                pids: "/sys/fs/cgroup/pids".into(),
                cpuacct: Some("/sys/fs/cgroup/cpuacct".into()),
            }
        );
        // No pids hierarchy: the error names it.
        let e = Host::from_tables("4:memory:/\n1:cpu:/\n0::/\n", MOUNTS, &|_| true).unwrap_err();
        assert!(e.contains("controller(s) pids mounted"), "{e}");
        assert!(e.contains("/nonexistent/cgroup/unified does not offer the controller(s)"), "{e}");
    }

    #[test]
    fn v2_groups_are_made_beside_this_process_s_own() {
        let root = tempfile::tempdir().unwrap();
        let own = root.path().join("user.slice/app.scope");
        std::fs::create_dir_all(&own).unwrap();
        std::fs::write(root.path().join("user.slice/cgroup.controllers"), "cpuset cpu io memory pids\n").unwrap();
        std::fs::write(root.path().join("user.slice/cgroup.subtree_control"), "cpu memory pids\n").unwrap();
        let mounts = format!("35 30 0:31 / {} rw,relatime - cgroup2 cgroup2 rw\n", root.path().display());
        let host = Host::from_tables("0::/user.slice/app.scope\n", &mounts, &|_| true).unwrap();
        assert_eq!(host, Host::V2 { parent: root.path().join("user.slice") });
        // At the root, under the root; a controller it offers but does not give yet is enabled.
        std::fs::write(root.path().join("cgroup.controllers"), "cpu memory pids\n").unwrap();
        std::fs::write(root.path().join("cgroup.subtree_control"), "memory pids\n").unwrap();
        assert_eq!(Host::from_tables("0::/\n", &mounts, &|_| true).unwrap(), Host::V2 { parent: root.path().into() });
        assert_eq!(std::fs::read_to_string(root.path().join("cgroup.subtree_control")).unwrap(), "+cpu");
        // One that lacks a controller, with no v1 hierarchy either: the error names both.
        std::fs::write(root.path().join("cgroup.controllers"), "cpu pids\n").unwrap();
        let e = Host::from_tables("0::/\n", &mounts, &|_| true).unwrap_err();
        assert!(e.contains("does not offer the controller(s) memory") && e.contains("no cgroup v1 hierarchy"), "{e}");
    }

    /// A group's files, as the kernel would show them, in a temporary folder.
    fn fake(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        dir
    }

    fn status_code(code: i32) -> ExitStatus {
        ExitStatus::from_raw(code << 8)
    }

    fn killed() -> ExitStatus {
        ExitStatus::from_raw(libc::SIGKILL)
    }

    #[test]
    fn endings_are_read_from_v2_files() {
        let limits = Limits::default();
        let end = |files: &[(&str, &str)], status| {
            let d = fake(files);
            ending(&[d.path().to_path_buf()], true, &limits, status)
        };
        let events = "low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\noom_group_kill 1\n";
        assert_eq!(
            end(&[("memory.events", events), ("pids.events", "max 0\n")], killed()),
            Ending::Memory { limit: 1 << 30 }
        );
        let calm = "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n";
        assert_eq!(
            end(&[("memory.events", calm), ("pids.events", "max 3\n")], status_code(2)),
            Ending::Processes { limit: 64 }
        );
        let exited = end(&[("memory.events", calm), ("pids.events", "max 0\n")], status_code(3));
        assert_eq!(exited, Ending::Exited("exit status: 3".into()));
        assert_eq!(exited.describe(), "its process ended (exit status: 3)");
        assert_eq!(Ending::Memory { limit: 1 << 30 }.describe(), "used more than 1 GiB of memory (the limit)");
        assert_eq!(Ending::Processes { limit: 64 }.describe(), "reached its limit of 64 processes");
        let d = fake(&[("cpu.stat", "usage_usec 2500000\nuser_usec 2000000\n")]);
        assert_eq!(cpu_used(d.path(), true), Some(Duration::from_millis(2500)));
    }

    #[test]
    fn endings_are_read_from_v1_files() {
        let limits = Limits { memory: 512 << 20, pids: 10, ..Limits::default() };
        let (cpu, memory, pids) = (fake(&[]), fake(&[]), fake(&[]));
        let dirs = || vec![cpu.path().to_path_buf(), memory.path().to_path_buf(), pids.path().to_path_buf()];
        let set =
            |dir: &tempfile::TempDir, file: &str, text: &str| std::fs::write(dir.path().join(file), text).unwrap();
        set(&pids, "pids.events", "max 0\n");
        set(&memory, "memory.failcnt", "0\n");
        set(&memory, "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n");
        assert_eq!(ending(&dirs(), false, &limits, killed()), Ending::Exited("signal: 9 (SIGKILL)".into()));
        set(&pids, "pids.events", "max 7\n");
        assert_eq!(ending(&dirs(), false, &limits, status_code(2)), Ending::Processes { limit: 10 });
        set(&memory, "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n");
        assert_eq!(ending(&dirs(), false, &limits, status_code(0)), Ending::Memory { limit: 512 << 20 });
        // A kernel without the oom_kill count: failures to charge, and a SIGKILL.
        set(&memory, "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\n");
        set(&memory, "memory.failcnt", "42\n");
        set(&pids, "pids.events", "max 0\n");
        assert_eq!(ending(&dirs(), false, &limits, killed()), Ending::Memory { limit: 512 << 20 });
        assert_eq!(ending(&dirs(), false, &limits, status_code(1)), Ending::Exited("exit status: 1".into()));
        set(&cpu, "cpuacct.usage", "1500000000\n");
        assert_eq!(cpu_used(cpu.path(), false), Some(Duration::from_millis(1500)));
    }

    #[test]
    fn limits_are_written_in_the_group_s_files() {
        let limits = Limits { cpus: 0.5, memory: 256 << 20, pids: 20, ..Limits::default() };
        let root = tempfile::tempdir().unwrap();
        let read = |dir: &Path, file: &str| std::fs::read_to_string(dir.join(file)).unwrap();
        let v2 = Host::V2 { parent: root.path().into() }.group("a b", &limits).unwrap();
        let [dir] = v2.dirs() else { panic!("one folder in v2: {:?}", v2.dirs()) };
        let leaf = dir.file_name().unwrap().to_str().unwrap();
        assert!(leaf.starts_with(&format!("arena-{}-", std::process::id())) && leaf.ends_with("-a_b"), "{leaf}");
        assert_eq!(read(dir, "cpu.max"), "50000 100000");
        assert_eq!(read(dir, "memory.max"), (256u64 << 20).to_string());
        assert_eq!(read(dir, "pids.max"), "20");
        let (cpu, memory, pids) = (root.path().join("cpu"), root.path().join("memory"), root.path().join("pids"));
        for d in [&cpu, &memory, &pids] {
            std::fs::create_dir(d).unwrap();
        }
        let host = Host::V1 { cpu: cpu.clone(), memory: memory.clone(), pids: pids.clone(), cpuacct: None };
        let v1 = host.group("b", &limits).unwrap();
        let leaf = v1.dirs()[0].file_name().unwrap().to_owned();
        assert_eq!(v1.dirs(), [cpu.join(&leaf), memory.join(&leaf), pids.join(&leaf)]);
        assert!(leaf.to_str().unwrap().ends_with("-b"));
        assert_eq!(read(&cpu.join(&leaf), "cpu.cfs_quota_us"), "50000");
        assert_eq!(read(&cpu.join(&leaf), "cpu.cfs_period_us"), "100000");
        assert_eq!(read(&memory.join(&leaf), "memory.limit_in_bytes"), (256u64 << 20).to_string());
        // Swap is limited with memory only where the host accounts it apart (it has the file).
        assert!(!memory.join(&leaf).join("memory.memsw.limit_in_bytes").exists());
        assert_eq!(read(&pids.join(&leaf), "pids.max"), "20");
        // A folder it cannot make is named.
        let e = Host::V2 { parent: root.path().join("none/such") }.group("c", &limits).unwrap_err();
        assert!(e.starts_with("cannot make the cgroup ") && e.contains("none/such"), "{e}");
    }

    #[test]
    fn mountinfo_escapes_are_undone() {
        assert_eq!(unescape("/a\\040b"), "/a b");
        assert_eq!(unescape("/plain"), "/plain");
    }
}
