//! Keeping what the arena holds from the programs it launches (a tournament's `command:`
//! participants), on both sides of the launch:
//!
//! - the arena's own process: no secret in its initial environment block, the one
//!   `/proc/PID/environ` shows ([`scrub_environment`]), and once it holds one no other process
//!   of its user may read its memory, environment or open files ([`hold_secret`]);
//! - the launched program ([`Sandbox`]): under bubblewrap (`bwrap`), in a read-only view of the
//!   system with the folders that hold secrets hidden, its own PID namespace (the arena is not
//!   among the processes it sees, nor its parent), no capability, a private writable temporary
//!   folder, the folders it is given to write, and the network (it plays over the arena's
//!   server on 127.0.0.1).
//!
//! What it may use (CPU, memory, processes) is limited apart, by a cgroup of its own
//! (`crate::limits`), with or without this sandbox. A later step adds what a stranger's
//! program needs besides (no network but the arena's connection); each is one more argument of
//! the builder.

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
}

/// The temporary folder inside a sandbox (`TMPDIR`): bubblewrap's fresh `/dev` is a private,
/// writable tmpfs, and so is its `shm` folder. The host's `/tmp` stays visible, read-only.
pub const SANDBOX_TMPDIR: &str = "/dev/shm";

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
        let hidden: Vec<PathBuf> = self.hidden.iter().map(|d| real(d, "to hide")).collect::<Result<_, _>>()?;
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
    /// read-only, a fresh `/dev` and `/proc`, the writable folders, then the hidden ones.
    fn arguments(&self) -> Result<Vec<OsString>, String> {
        let (hidden, writable) = self.folders()?;
        let mut args: Vec<OsString> =
            ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"].map(OsString::from).into();
        for dir in &writable {
            args.extend([OsStr::new("--bind"), dir.as_os_str(), dir.as_os_str()].map(OsString::from));
        }
        for dir in &hidden {
            args.extend(
                [OsStr::new("--tmpfs"), dir.as_os_str(), OsStr::new("--remount-ro"), dir.as_os_str()]
                    .map(OsString::from),
            );
        }
        args.extend(
            [
                "--setenv",
                "TMPDIR",
                SANDBOX_TMPDIR,
                // Its own processes only (the arena is none of them), no System V IPC or
                // hostname shared; the network is.
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
        all.extend(words.iter().map(OsString::from));
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
}
