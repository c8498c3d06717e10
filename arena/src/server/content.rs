//! What the server reads for a request: nothing a request names, but the content sets of the
//! one directory its operator opened (`arena serve --content-dir DIR`), by bare name. A set
//! may always be sent inline instead (the parameter's value is the set's YAML mapping), and
//! that needs no file at all. A set is a regular file of that directory itself: never a
//! symbolic link (it is opened without following one), a pipe, a device, a file linked in
//! from elsewhere (more than one hard link) or anything that resolves outside the directory.
//! What a client hears of a set never quotes it.

use std::io::Read;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The largest content file the server reads.
pub const MAX_CONTENT_BYTES: u64 = 1 << 20;
/// Sets listed from the directory at most.
const MAX_LISTED: usize = 256;

/// The loader the server gives the engine for parameters from the wire.
#[derive(Clone, Debug, Default)]
pub struct ContentDir {
    /// The directory, its symbolic links resolved once when the server starts.
    dir: Option<PathBuf>,
}

/// A message for a client, built from what it sent: every quoted stretch (between backticks
/// or double quotes) cut to 48 characters, and the whole to 400, so that no error echoes a
/// request back at length.
pub fn brief(message: &str) -> String {
    const QUOTED: usize = 48;
    const WHOLE: usize = 400;
    let mut out = String::new();
    let mut quote: Option<(char, usize)> = None;
    for c in message.chars() {
        match quote {
            Some((q, _)) if c == q => {
                quote = None;
                out.push(c);
            }
            Some((q, n)) => {
                if n < QUOTED {
                    out.push(c);
                } else if n == QUOTED {
                    out.push('…');
                }
                quote = Some((q, n + 1));
            }
            None => {
                if c == '`' || c == '"' {
                    quote = Some((c, 0));
                }
                out.push(c);
            }
        }
    }
    match out.char_indices().nth(WHOLE) {
        Some((i, _)) => format!("{}…", &out[..i]),
        None => out,
    }
}

/// A name of letters, digits, `_` and `-` (a letter or digit first), at most 64 characters:
/// no path, no extension, nothing to climb out of the directory with.
pub fn is_bare_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

impl ContentDir {
    /// No directory: the server reads no file for any request.
    pub fn none() -> ContentDir {
        ContentDir { dir: None }
    }

    /// The operator's directory of content sets (`NAME.yaml` files).
    pub fn open(dir: &Path) -> Result<ContentDir, String> {
        let meta = std::fs::metadata(dir).map_err(|e| format!("--content-dir {}: {e}", dir.display()))?;
        if !meta.is_dir() {
            return Err(format!("--content-dir {}: not a directory", dir.display()));
        }
        let dir = dir.canonicalize().map_err(|e| format!("--content-dir {}: {e}", dir.display()))?;
        Ok(ContentDir { dir: Some(dir) })
    }

    /// The sets offered: every regular `NAME.yaml` file with a bare name, sorted.
    pub fn names(&self) -> Vec<String> {
        let Some(dir) = &self.dir else { return Vec::new() };
        let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
        let mut names: Vec<String> = entries
            .flatten()
            // The entry's own metadata: a symbolic link is not followed, so not offered.
            .filter(|e| e.metadata().is_ok_and(|m| offered(&m)))
            .filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix(".yaml")).map(str::to_string))
            .filter(|n| is_bare_name(n))
            .take(MAX_LISTED)
            .collect();
        names.sort();
        names
    }

    /// The text of the set `name`; never a path, never anything but a regular file of the
    /// directory itself, never more than [`MAX_CONTENT_BYTES`]. Errors never quote a file, and
    /// why a file of the directory is refused goes to the operator's log only.
    pub fn load(&self, name: &str) -> Result<String, String> {
        let Some(dir) = &self.dir else {
            return Err("this server opens no file for a request: send the set inline (the value is its \
                 YAML mapping: tiles, characters, missions, ...), or `default`"
                .to_string());
        };
        if !is_bare_name(name) {
            return Err("not the name of a set: names are letters, digits, `_` and `-` (no paths); or send \
                 the set inline as YAML"
                .to_string());
        }
        let missing = || {
            let names = self.names();
            let offered = if names.is_empty() { "none".to_string() } else { names.join(", ") };
            format!("this server offers no such content set; it offers: {offered}")
        };
        let path = dir.join(format!("{name}.yaml"));
        let refused = |why: &str| {
            tracing::warn!("content set {}: refused: {why}", path.display());
            missing()
        };
        // Looked at before anything opens it (a pipe is never opened), then opened without
        // following a link and without waiting, and looked at again through what was opened.
        match std::fs::symlink_metadata(&path) {
            Ok(m) if offered(&m) => {}
            Ok(_) => return Err(refused("not a regular file of the directory with one link")),
            Err(_) => return Err(missing()),
        }
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open(&path)
            .map_err(|e| refused(&e.to_string()))?;
        let meta = file.metadata().map_err(|e| refused(&e.to_string()))?;
        if !offered(&meta) {
            return Err(refused("not a regular file of the directory with one link"));
        }
        if meta.len() > MAX_CONTENT_BYTES {
            return Err(format!("over {MAX_CONTENT_BYTES} bytes: the server reads no such set"));
        }
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let opened = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd()));
            if !opened.is_ok_and(|p| p.parent() == Some(dir.as_path())) {
                return Err(refused("it resolves outside the directory"));
            }
        }
        let mut text = String::new();
        file.take(MAX_CONTENT_BYTES + 1).read_to_string(&mut text).map_err(|_| "cannot be read as text".to_string())?;
        if text.len() as u64 > MAX_CONTENT_BYTES {
            return Err(format!("over {MAX_CONTENT_BYTES} bytes: the server reads no such set"));
        }
        Ok(text)
    }
}

/// A file the directory offers: a regular file (a link not followed), linked only there.
fn offered(meta: &std::fs::Metadata) -> bool {
    meta.file_type().is_file() && meta.nlink() == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_names_only() {
        for ok in ["small", "set-2", "My_Set"] {
            assert!(is_bare_name(ok), "{ok}");
        }
        for bad in ["", "../x", "/etc/passwd", "a/b", "x.yaml", ".hidden", "-x", "a b", &"x".repeat(65)] {
            assert!(!is_bare_name(bad), "{bad}");
        }
    }

    #[test]
    fn brief_cuts_what_was_sent() {
        let long = "x".repeat(1000);
        let b = brief(&format!("field `a`: invalid value \"{long}\", expected `{long}`"));
        assert!(b.starts_with("field `a`: invalid value \"xxx"), "{b}");
        assert!(b.chars().count() < 160 && b.matches('…').count() == 2, "{b}");
        assert!(brief(&long).chars().count() == 401);
        assert_eq!(brief("plain `short` words"), "plain `short` words");
    }

    #[test]
    fn without_a_directory_nothing_is_opened() {
        let e = ContentDir::none().load("/etc/passwd").unwrap_err();
        assert!(e.contains("opens no file") && e.contains("inline"), "{e}");
    }
}
