//! Keeping what the arena holds from the programs it launches (a tournament's `command:`
//! participants), on both sides of the launch:
//!
//! - the arena's own process: no secret in its initial environment block, the one
//!   `/proc/PID/environ` shows ([`scrub_environment`]), and once it holds one no other process
//!   of its user may read its memory, environment or open files ([`hold_secret`]);
//! - the launched program ([`Sandbox`]): under bubblewrap (`bwrap`), in a read-only view of the
//!   system with the folders that hold secrets hidden (the run's folder, every file and folder
//!   of `/etc` that only its owner or group may read, such as `/etc/shadow`, and the host's
//!   services' sockets in `/run`), its own PID namespace (the arena is not among the processes
//!   it sees, nor its parent), no capability, a fresh minimal environment, a private writable
//!   temporary folder, the folders it is given to write, and no network: a namespace of its own
//!   with only a loopback of its own, on which `arena sandbox-relay` (`crate::relay`, the
//!   sandbox's first process, the program's parent) carries connections to the arena's Unix
//!   socket, bound into the sandbox: the program connects to `http://127.0.0.1:50051`, its
//!   own, and reaches the arena's server and nothing else.
//!
//! What it may use (CPU, memory, processes) is limited apart, by a cgroup of its own
//! (`crate::limits`), with or without this sandbox.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Is this variable of the arena's environment a secret a launched program must not see? The
/// deal secret (`ARENA_DEAL_SECRET`), any key, token, password or credential, by its name.
pub fn is_secret(name: &str) -> bool {
    let n = name.to_ascii_uppercase();
    ["KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH"].iter().any(|w| n.contains(w))
}

/// Move every secret variable (by [`is_secret`]; a name that is not UTF-8 counts as one) out of
/// the environment block the process started with: its value's bytes there are overwritten, and
/// the variable set again, so that the process still reads it (`std::env::var`) from a copy
/// that `/proc/PID/environ` does not show. (Removing a variable alone leaves its bytes where
/// `/proc` reads them.)
///
/// # Safety
///
/// No other thread may run: it changes the environment, and writes where `getenv` points.
pub unsafe fn scrub_environment() {
    use std::os::unix::ffi::OsStrExt;
    for (name, value) in std::env::vars_os() {
        if !name.to_str().is_none_or(is_secret) {
            continue;
        }
        let Ok(c_name) = std::ffi::CString::new(name.as_bytes()) else { continue };
        // SAFETY: `getenv` gives the value's bytes where the environment keeps them (in the
        // initial block, for a variable the process started with), NUL-terminated; they are
        // overwritten in place, their length unchanged, while no other thread reads them.
        unsafe {
            let value_at = libc::getenv(c_name.as_ptr());
            if !value_at.is_null() {
                std::ptr::write_bytes(value_at, b'x', libc::strlen(value_at));
            }
            std::env::set_var(&name, &value);
        }
    }
}

/// This process holds a secret from now on: no other process of its user may read its memory,
/// environment, command line's memory, or open files (`prctl(PR_SET_DUMPABLE, 0)`: its
/// `/proc/PID/` files become root's, ptrace is refused, and it dumps no core). Only a process
/// with `CAP_SYS_PTRACE` (root's, outside a sandbox) still may. Idempotent.
pub fn hold_secret() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl with integer arguments, changing no memory.
        let done = unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) };
        if done != 0 {
            tracing::warn!(
                "cannot make the arena non-dumpable (prctl: {}): processes of its user may read its memory",
                std::io::Error::last_os_error()
            );
        }
    }
}

/// The program bubblewrap is run as.
pub const BWRAP: &str = "bwrap";

/// A sandbox for a launched program, made by bubblewrap: see the module's documentation. Build
/// it, [`check`](Sandbox::check) it once (the host may lack bubblewrap, or refuse it the
/// namespaces it needs), then [`wrap`](Sandbox::wrap) the program's words in it.
#[derive(Clone, Debug, Default)]
pub struct Sandbox {
    hidden: Vec<PathBuf>,
    writable: Vec<PathBuf>,
    /// The arena's Unix socket, the one way out of its network namespace, and the relay
    /// program (the arena's binary) that carries connections to it.
    arena_socket: Option<(PathBuf, PathBuf)>,
    /// Its environment, besides the few variables every sandbox has ([`Sandbox::arguments`]).
    env: Vec<(String, String)>,
    /// The agent's own files (a submission's), shown read-only at [`SANDBOX_AGENT_DIR`], its
    /// working directory.
    agent_folder: Option<PathBuf>,
}

/// The temporary folder inside a sandbox (`TMPDIR`, and its `HOME`): bubblewrap's fresh `/dev`
/// is a private, writable tmpfs, and so is its `shm` folder. The host's `/tmp` stays visible,
/// read-only.
pub const SANDBOX_TMPDIR: &str = "/dev/shm";

/// Where a sandbox finds the arena's Unix socket's folder (in a `/run` of its own).
pub const SANDBOX_ARENA_DIR: &str = "/run/arena";

/// Where a sandbox without a network finds the arena's binary (its relay; bound read-only,
/// wherever the host keeps it, a hidden folder included). A submission may run it too:
/// `command: /run/bin/arena bot greedy --server $ARENA_SERVER --name $ARENA_NAME`.
pub const SANDBOX_ARENA_BIN: &str = "/run/bin/arena";

/// Where a sandbox shows the agent's own files ([`Sandbox::agent_folder`]), and runs it.
pub const SANDBOX_AGENT_DIR: &str = "/run/agent";

/// Where a sandbox without a network reaches the arena's server: its relay's address, on its
/// own loopback.
pub const SANDBOX_ARENA_LISTEN: &str = "127.0.0.1:50051";

/// The variables of the arena's environment a sandbox keeps (all others are dropped; `HOME`
/// and `TMPDIR` are its own).
pub const KEPT_VARIABLES: [&str; 5] = ["PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ"];

/// The files and folders of `/etc` only their owner or group may read (`/etc/shadow`, private
/// keys, `/etc/munge/munge.key`…): a program running as the arena's user (root, perhaps) could
/// read them, so a sandbox hides them. At most a few thousand entries are looked at.
fn unreadable_in_etc() -> (Vec<PathBuf>, Vec<PathBuf>) {
    // Looked at once a minute at most (a ladder launches a sandbox for each game): a file made
    // private after that is hidden from the sandboxes launched a minute later.
    type Found = (Vec<PathBuf>, Vec<PathBuf>);
    static LAST: std::sync::Mutex<Option<(std::time::Instant, Found)>> = std::sync::Mutex::new(None);
    let mut last = LAST.lock().unwrap_or_else(|p| p.into_inner());
    match &*last {
        Some((at, found)) if at.elapsed() < std::time::Duration::from_secs(60) => found.clone(),
        _ => {
            let found = scan_etc();
            *last = Some((std::time::Instant::now(), found.clone()));
            found
        }
    }
}

fn scan_etc() -> (Vec<PathBuf>, Vec<PathBuf>) {
    use std::os::unix::fs::PermissionsExt;
    let (mut files, mut folders) = (Vec::new(), Vec::new());
    let mut todo = vec![PathBuf::from("/etc")];
    let mut seen = 0;
    while let Some(dir) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            seen += 1;
            if seen > 20_000 {
                return (files, folders);
            }
            // Not following links: a link's target is looked at where it is, if in /etc.
            let Ok(meta) = entry.path().symlink_metadata() else { continue };
            let others_read = meta.permissions().mode() & 0o004 != 0;
            if meta.is_dir() {
                if others_read {
                    todo.push(entry.path());
                } else {
                    folders.push(entry.path());
                }
            } else if meta.is_file() && !others_read {
                files.push(entry.path());
            }
        }
    }
    (files, folders)
}

impl Sandbox {
    pub fn new() -> Sandbox {
        Sandbox::default()
    }

    /// Hide this folder (and all it holds) from the program: it sees an empty, read-only one.
    pub fn hide(mut self, dir: impl Into<PathBuf>) -> Sandbox {
        self.hidden.push(dir.into());
        self
    }

    /// Let the program write in this folder (the rest of the system is read-only for it).
    pub fn writable(mut self, dir: impl Into<PathBuf>) -> Sandbox {
        self.writable.push(dir.into());
        self
    }

    /// No network: it reaches only the arena's server, by its Unix socket `socket` (bound,
    /// read-only, in [`SANDBOX_ARENA_DIR`]; its folder should hold nothing else), through the
    /// relay `arena` (the arena's binary: `arena sandbox-relay`). The address to give the
    /// program is [`Sandbox::arena_url`].
    pub fn arena_only(mut self, socket: impl Into<PathBuf>, arena: impl Into<PathBuf>) -> Sandbox {
        self.arena_socket = Some((socket.into(), arena.into()));
        self
    }

    /// The address of the arena's server inside the sandbox (its relay's), if it has no
    /// network.
    pub fn arena_url(&self) -> Option<String> {
        self.arena_socket.as_ref().map(|_| format!("http://{SANDBOX_ARENA_LISTEN}"))
    }

    /// The program's words, after the relay's if it has no network.
    fn program(&self, words: &[String]) -> Result<Vec<OsString>, String> {
        let Some((socket, _)) = &self.arena_socket else {
            return Ok(words.iter().map(OsString::from).collect());
        };
        let name = socket.file_name().ok_or_else(|| format!("the arena's socket {} has no name", socket.display()))?;
        let mut inside = PathBuf::from(SANDBOX_ARENA_DIR);
        inside.push(name);
        let mut all: Vec<OsString> = vec![
            SANDBOX_ARENA_BIN.into(),
            "sandbox-relay".into(),
            "--socket".into(),
            inside.into_os_string(),
            "--listen".into(),
            SANDBOX_ARENA_LISTEN.into(),
            "--".into(),
        ];
        all.extend(words.iter().map(OsString::from));
        Ok(all)
    }

    /// Show the folder `dir` (the agent's own files, wherever the host keeps them: in a folder
    /// the sandbox hides, perhaps) read-only at [`SANDBOX_AGENT_DIR`], and run the program
    /// there.
    pub fn agent_folder(mut self, dir: impl Into<PathBuf>) -> Sandbox {
        self.agent_folder = Some(dir.into());
        self
    }

    /// Set this variable in its environment.
    pub fn env(mut self, name: impl Into<String>, value: impl Into<String>) -> Sandbox {
        self.env.push((name.into(), value.into()));
        self
    }

    /// Are its folders there, and is none to write in hidden? (What [`Sandbox::check`] asks of
    /// the host aside, the mistakes a caller can make.)
    pub fn check_folders(&self) -> Result<(), String> {
        self.folders().map(|_| ())
    }

    /// The folders, as the program's mounts name them: absolute, without links (a folder
    /// reached through a link is hidden where it is), each existing.
    fn folders(&self) -> Result<(Vec<PathBuf>, Vec<PathBuf>), String> {
        let real = |dir: &Path, what: &str| {
            std::fs::canonicalize(dir).map_err(|e| format!("the folder {what} {}: {e}", dir.display()))
        };
        let mut hidden: Vec<PathBuf> = self.hidden.iter().map(|d| real(d, "to hide")).collect::<Result<_, _>>()?;
        // A folder inside another hidden one is hidden with it (and could not be mounted on
        // in the other's empty, read-only stand-in).
        let all = hidden.clone();
        hidden.retain(|h| !all.iter().any(|o| o != h && h.starts_with(o)));
        hidden.dedup();
        let writable: Vec<PathBuf> = self.writable.iter().map(|d| real(d, "to write in")).collect::<Result<_, _>>()?;
        // A folder to write in inside a hidden one would be hidden; one around a hidden folder
        // would let the program move it away from where its launcher looks for it (and put
        // another in its place).
        for w in &writable {
            if let Some(h) = hidden.iter().find(|h| w.starts_with(h)) {
                return Err(format!(
                    "the folder to write in {} is inside {}, which the sandbox hides",
                    w.display(),
                    h.display()
                ));
            }
            if let Some(h) = hidden.iter().find(|h| h.starts_with(w)) {
                return Err(format!(
                    "the folder to write in {} holds {}, which the sandbox hides (and must stay where it is)",
                    w.display(),
                    h.display()
                ));
            }
        }
        Ok((hidden, writable))
    }

    /// bubblewrap's arguments, before the program's words. The mounts in order: the system
    /// read-only, a fresh `/dev` and `/proc`, the writable folders, then the hidden ones (and
    /// `/etc`'s unreadable entries, a `/run` of its own with the arena's socket in it); its
    /// environment: only the [`KEPT_VARIABLES`] of the arena's, its own `HOME` and `TMPDIR`,
    /// and those it was given.
    fn arguments(&self) -> Result<Vec<OsString>, String> {
        let (hidden, writable) = self.folders()?;
        let mut args: Vec<OsString> =
            ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"].map(OsString::from).into();
        for dir in &writable {
            args.extend([OsStr::new("--bind"), dir.as_os_str(), dir.as_os_str()].map(OsString::from));
        }
        let hide = |args: &mut Vec<OsString>, dir: &Path| {
            args.extend(
                [OsStr::new("--tmpfs"), dir.as_os_str(), OsStr::new("--remount-ro"), dir.as_os_str()]
                    .map(OsString::from),
            );
        };
        for dir in &hidden {
            hide(&mut args, dir);
        }
        let (files, folders) = unreadable_in_etc();
        for folder in &folders {
            hide(&mut args, folder);
        }
        for file in &files {
            args.extend([OsStr::new("--ro-bind"), OsStr::new("/dev/null"), file.as_os_str()].map(OsString::from));
        }
        // A /run of its own: the host's services listen in /run (D-Bus, Docker, databases),
        // and none of them is reachable; the arena's socket and the agent's files are.
        let own_run = self.arena_socket.is_some() || self.agent_folder.is_some();
        if own_run {
            args.extend(["--tmpfs", "/run"].map(OsString::from));
        }
        if let Some((socket, arena)) = &self.arena_socket {
            let folder = socket.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            let folder = std::fs::canonicalize(folder)
                .map_err(|e| format!("the folder of the arena's socket {}: {e}", socket.display()))?;
            let arena = std::fs::canonicalize(arena)
                .map_err(|e| format!("the arena's binary, the sandbox's relay, {}: {e}", arena.display()))?;
            // Read-only: the socket cannot be moved or replaced; the relay is the arena's own
            // binary, wherever it is (a folder the sandbox hides included).
            args.extend(
                [
                    OsStr::new("--unshare-net"),
                    OsStr::new("--ro-bind"),
                    folder.as_os_str(),
                    OsStr::new(SANDBOX_ARENA_DIR),
                    OsStr::new("--ro-bind"),
                    arena.as_os_str(),
                    OsStr::new(SANDBOX_ARENA_BIN),
                ]
                .map(OsString::from),
            );
        }
        if let Some(dir) = &self.agent_folder {
            let dir = std::fs::canonicalize(dir).map_err(|e| format!("the agent's folder {}: {e}", dir.display()))?;
            args.extend(
                [
                    OsStr::new("--ro-bind"),
                    dir.as_os_str(),
                    OsStr::new(SANDBOX_AGENT_DIR),
                    OsStr::new("--chdir"),
                    OsStr::new(SANDBOX_AGENT_DIR),
                ]
                .map(OsString::from),
            );
        }
        if own_run {
            args.extend(["--remount-ro", "/run"].map(OsString::from));
        }
        args.push("--clearenv".into());
        let kept = KEPT_VARIABLES.iter().filter_map(|v| std::env::var_os(v).map(|value| (OsString::from(v), value)));
        let own =
            [("HOME", SANDBOX_TMPDIR), ("TMPDIR", SANDBOX_TMPDIR)].map(|(n, v)| (OsString::from(n), OsString::from(v)));
        let given = self.env.iter().map(|(n, v)| (OsString::from(n), OsString::from(v)));
        for (name, value) in kept.chain(own).chain(given) {
            args.extend([OsString::from("--setenv"), name, value]);
        }
        args.extend(
            [
                // Its own processes only (the arena is none of them), no System V IPC or
                // hostname shared.
                "--unshare-pid",
                "--unshare-ipc",
                "--unshare-uts",
                "--unshare-cgroup-try",
                // Gone when its launcher goes (the thread that launched it, for the kernel: the
                // arena launches from the thread that runs the tournament); no terminal to push
                // input into; no capability, even when the arena runs as root.
                "--die-with-parent",
                "--new-session",
                "--cap-drop",
                "ALL",
                "--",
            ]
            .map(OsString::from),
        );
        Ok(args)
    }

    /// `words` (a program and its arguments; `prefix`'s words before it all, e.g. the operator's
    /// `sudo -u agent`) as a command that runs it in this sandbox: `PREFIX… bwrap ARGS… --
    /// WORDS…`. bubblewrap is named by its path (found on `PATH` now), so that a prefix that
    /// changes `PATH` (sudo) runs the same one.
    pub fn wrap(&self, prefix: &[String], words: &[String]) -> Result<Command, String> {
        let bwrap = bwrap_path()?;
        let mut all: Vec<OsString> = prefix.iter().map(OsString::from).collect();
        all.push(bwrap.into_os_string());
        all.extend(self.arguments()?);
        all.extend(self.program(words)?);
        let mut command = Command::new(&all[0]);
        command.args(&all[1..]);
        Ok(command)
    }

    /// Can this host make the sandbox? bubblewrap must be installed, and allowed the namespaces
    /// it makes (unprivileged user namespaces, unless the arena runs as root): `true` is run in
    /// it, after `prefix` as the program will be. The error names what is missing.
    pub fn check(&self, prefix: &[String]) -> Result<(), String> {
        let mut command = self.wrap(prefix, &["true".to_string()])?;
        let shown = {
            let mut words = prefix.to_vec();
            words.push(command_program(&command, prefix.len()));
            format!("`{} … true`", words.join(" "))
        };
        let ran = command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).output();
        let out = ran.map_err(|e| format!("cannot run {shown}: {e}"))?;
        if out.status.success() {
            return Ok(());
        }
        let said = String::from_utf8_lossy(&out.stderr);
        let said = said.trim();
        let refused = ["namespace", "uid map", "Operation not permitted"].iter().any(|w| said.contains(w));
        let hint = if refused {
            " (bubblewrap needs user namespaces, and this kernel or its policy refuses them to this user: \
             see `sysctl kernel.unprivileged_userns_clone`, `user.max_user_namespaces`, and on Ubuntu \
             `kernel.apparmor_restrict_unprivileged_userns`)"
        } else {
            ""
        };
        Err(format!("bubblewrap cannot make the sandbox here: {shown} failed ({}): {said}{hint}", out.status))
    }
}

/// The word at `at` of a command (its program at 0): bubblewrap's path after a prefix.
fn command_program(command: &Command, at: usize) -> String {
    let word = if at == 0 { Some(command.get_program()) } else { command.get_args().nth(at - 1) };
    word.map(|w| w.to_string_lossy().into_owned()).unwrap_or_default()
}

/// bubblewrap's path: the first `bwrap` on `PATH`.
pub fn bwrap_path() -> Result<PathBuf, String> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).map(|dir| dir.join(BWRAP)).find(|p| is_executable(p)).ok_or_else(|| {
        "bubblewrap (`bwrap`) is not on PATH: install it (Debian, Ubuntu: `apt-get install bubblewrap`; \
             Fedora: `dnf install bubblewrap`; Arch: `pacman -S bubblewrap`)"
            .to_string()
    })
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &Sandbox) -> Vec<String> {
        s.arguments().unwrap().iter().map(|a| a.to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn secrets_are_named_by_their_names() {
        for name in ["ARENA_DEAL_SECRET", "ARENA_KEY", "lab_api_token", "DB_PASSWORD", "GH_AUTH"] {
            assert!(is_secret(name), "{name}");
        }
        for name in ["PATH", "HOME", "ARENA_SERVER", "ARENA_NAME", "TMPDIR"] {
            assert!(!is_secret(name), "{name}");
        }
    }

    #[test]
    fn the_mounts_hide_last_and_every_folder_is_real() {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path().to_path_buf();
        let (run, logs) = (root.join("run"), root.join("logs"));
        std::fs::create_dir_all(&run).unwrap();
        std::fs::create_dir_all(&logs).unwrap();
        let real_root = std::fs::canonicalize(&root).unwrap();
        let s = Sandbox::new().hide(&run).writable(root.join("logs/../logs"));
        let w = words(&s);
        let at = |flag: &str, dir: &Path| {
            w.windows(2).position(|p| p[0] == flag && p[1] == dir.to_string_lossy()).unwrap_or_else(|| panic!("{w:?}"))
        };
        assert!(at("--bind", &real_root.join("logs")) < at("--tmpfs", &real_root.join("run")));
        assert_eq!(w[at("--tmpfs", &real_root.join("run")) + 2], "--remount-ro");
        assert_eq!(&w[..3], ["--ro-bind", "/", "/"]);
        assert_eq!(w.last().map(String::as_str), Some("--"));
        for flag in ["--unshare-pid", "--die-with-parent", "--new-session", "--cap-drop"] {
            assert!(w.iter().any(|a| a == flag), "{flag}: {w:?}");
        }
        assert!(!w.iter().any(|a| a.starts_with("--unshare-net") || a == "--unshare-all"), "the network is kept");
        // A writable folder the sandbox would hide, one that holds a hidden folder, and a folder
        // that is not there: named.
        let e = Sandbox::new().hide(&root).writable(&logs).arguments().unwrap_err();
        assert!(e.contains("is inside") && e.contains(&*real_root.to_string_lossy()), "{e}");
        let e = Sandbox::new().hide(&run).writable(&root).arguments().unwrap_err();
        assert!(e.contains("holds") && e.contains(&*real_root.join("run").to_string_lossy()), "{e}");
        let e = Sandbox::new().writable(root.join("nowhere")).arguments().unwrap_err();
        assert!(e.contains("the folder to write in") && e.contains("nowhere"), "{e}");
    }

    #[test]
    fn without_a_network_the_program_runs_under_the_relay_with_the_arena_s_socket_alone() {
        let temp = tempfile::tempdir().unwrap();
        let socket = temp.path().join("play.sock");
        let s = Sandbox::new().arena_only(&socket, "/bin/sh").env("OMP_NUM_THREADS", "1");
        let w = words(&s);
        let real = std::fs::canonicalize(temp.path()).unwrap().to_string_lossy().into_owned();
        let at = |seq: &[&str]| w.windows(seq.len()).position(|p| p.iter().zip(seq).all(|(a, b)| a == b));
        assert!(at(&["--unshare-net"]).is_some(), "{w:?}");
        // A /run of its own, the arena's socket's folder bound in it read-only, then /run made
        // read-only too.
        let run = at(&["--tmpfs", "/run"]).expect("a /run of its own");
        let bound = at(&["--ro-bind", &real, SANDBOX_ARENA_DIR]).expect("the socket's folder");
        assert!(run < bound && bound < at(&["--remount-ro", "/run"]).unwrap(), "{w:?}");
        // The relay, the arena's binary, bound where the program's words name it.
        let relay = std::fs::canonicalize("/bin/sh").unwrap().to_string_lossy().into_owned();
        assert!(at(&["--ro-bind", &relay, SANDBOX_ARENA_BIN]).is_some(), "{w:?}");
        // A fresh environment: the arena's own variables are not passed on (but PATH), its own
        // HOME and TMPDIR, and what it was given.
        let clear = at(&["--clearenv"]).expect("a fresh environment");
        assert!(clear < at(&["--setenv", "OMP_NUM_THREADS", "1"]).unwrap());
        assert!(
            at(&["--setenv", "HOME", SANDBOX_TMPDIR]).is_some()
                && at(&["--setenv", "TMPDIR", SANDBOX_TMPDIR]).is_some()
        );
        if std::env::var_os("PATH").is_some() {
            assert!(w.windows(2).any(|p| p[0] == "--setenv" && p[1] == "PATH"), "{w:?}");
        }
        assert_eq!(s.arena_url().as_deref(), Some("http://127.0.0.1:50051"));
        // The program's words come after the relay's.
        let mut command = s.wrap(&[], &["python3".into(), "agent.py".into()]).unwrap();
        let all: Vec<String> = command.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
        let end = all.iter().position(|a| a == "--").unwrap();
        let socket_inside = format!("{SANDBOX_ARENA_DIR}/play.sock");
        assert_eq!(
            &all[end + 1..],
            [
                SANDBOX_ARENA_BIN,
                "sandbox-relay",
                "--socket",
                &socket_inside,
                "--listen",
                SANDBOX_ARENA_LISTEN,
                "--",
                "python3",
                "agent.py"
            ]
        );
        let _ = command.stdin(Stdio::null());
        // Without it, no relay and the host's network.
        let plain = Sandbox::new();
        assert_eq!(plain.program(&["x".into()]).unwrap(), [OsString::from("x")]);
        assert!(plain.arena_url().is_none());
    }

    #[test]
    fn what_only_its_owner_may_read_in_etc_is_hidden() {
        use std::os::unix::fs::PermissionsExt;
        let w = words(&Sandbox::new());
        let (files, folders) = unreadable_in_etc();
        for f in &files {
            let meta = std::fs::symlink_metadata(f).unwrap();
            assert_eq!(meta.permissions().mode() & 0o004, 0, "{}", f.display());
            let f = f.to_string_lossy();
            assert!(w.windows(3).any(|p| p[0] == "--ro-bind" && p[1] == "/dev/null" && p[2] == f), "{f}: {w:?}");
        }
        for d in &folders {
            let d = d.to_string_lossy();
            assert!(w.windows(2).any(|p| p[0] == "--tmpfs" && p[1] == d), "{d}: {w:?}");
        }
        // Debian's and most systems' shadow file is one of them.
        if let Ok(meta) = std::fs::metadata("/etc/shadow") {
            let hidden = files.iter().any(|f| f == Path::new("/etc/shadow"));
            assert_eq!(hidden, meta.permissions().mode() & 0o004 == 0);
        }
    }
}
