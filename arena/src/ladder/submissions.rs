//! A ladder's submissions: agents uploaded as an archive rather than kept connected. An
//! archive is a gzipped tar of the agent's folder, with a manifest at its top, `agent.yaml`:
//!
//! ```yaml
//! command: python3 agent.py     # run in the agent's folder, as `sh -c COMMAND`
//! ```
//!
//! Every byte of it is a stranger's: [`unpack`] takes plain files and folders only (no link,
//! device or pipe), under relative paths without `..`, within [`ArchiveLimits`] (bytes as
//! sent, bytes and entries once expanded, depth), and refuses the whole archive, naming the
//! entry and the limit, at the first one past them: nothing of a refused archive is kept.

use serde::Deserialize;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// The manifest's name, at the archive's top.
pub const MANIFEST: &str = "agent.yaml";

/// What an archive may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArchiveLimits {
    /// The archive as sent (gzipped).
    pub archive_bytes: u64,
    /// Its files' bytes once expanded, in all.
    pub unpacked_bytes: u64,
    /// Its files and folders.
    pub entries: u32,
    /// Folders inside folders.
    pub depth: u32,
}

impl Default for ArchiveLimits {
    fn default() -> Self {
        ArchiveLimits { archive_bytes: 8 << 20, unpacked_bytes: 64 << 20, entries: 2000, depth: 16 }
    }
}

/// The manifest: how the agent is started.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Run in the agent's folder as `sh -c COMMAND`.
    pub command: String,
}

/// The longest command a manifest may give.
pub const MAX_COMMAND: usize = 1000;

impl Manifest {
    pub fn parse(text: &str) -> Result<Manifest, String> {
        let m: Manifest = crate::tournament::config::read_fields(MANIFEST, text, |_: &Manifest| Ok(()))
            .map_err(|e| format!("{e} (a manifest says `command: python3 agent.py`, say)"))?;
        let command = m.command.trim();
        if command.is_empty() {
            return Err(format!("{MANIFEST}: `command` is empty: name how the agent starts"));
        }
        if command.len() > MAX_COMMAND || command.contains(['\0', '\n', '\r']) {
            return Err(format!("{MANIFEST}: `command` is one line of at most {MAX_COMMAND} bytes"));
        }
        Ok(Manifest { command: command.to_string() })
    }
}

/// Unpack `archive` into the folder `into` (made now; it must not exist), within `limits`;
/// its manifest. On an error, `into` is removed with what was unpacked.
pub fn unpack(archive: &[u8], into: &Path, limits: &ArchiveLimits) -> Result<Manifest, String> {
    if archive.len() as u64 > limits.archive_bytes {
        return Err(format!(
            "the archive is {} bytes, past this ladder's {} (archive_bytes)",
            archive.len(),
            limits.archive_bytes
        ));
    }
    std::fs::create_dir(into).map_err(|e| format!("cannot make {}: {e}", into.display()))?;
    let unpacked = unpack_into(archive, into, limits);
    if unpacked.is_err() {
        let _ = std::fs::remove_dir_all(into);
    }
    unpacked
}

fn unpack_into(archive: &[u8], into: &Path, limits: &ArchiveLimits) -> Result<Manifest, String> {
    // The expanded stream is read through a bound: a gzip bomb stops at the limit (the tar's
    // headers and padding counted, beside the files' bytes).
    let expanded =
        flate2::read::GzDecoder::new(archive).take(limits.unpacked_bytes + (u64::from(limits.entries) + 2) * 1024);
    let mut tar = tar::Archive::new(expanded);
    let (mut bytes, mut entries) = (0u64, 0u32);
    let mut manifest = None;
    for entry in tar.entries().map_err(|e| format!("not a gzipped tar archive: {e}"))? {
        let mut entry = entry.map_err(|e| format!("not a gzipped tar archive (or cut short): {e}"))?;
        let path = entry.path().map_err(|e| format!("an entry's path does not read: {e}"))?.into_owned();
        let shown = path.display().to_string();
        entries += 1;
        if entries > limits.entries {
            return Err(format!("more than {} entries (entries)", limits.entries));
        }
        let relative = relative_path(&path).ok_or_else(|| {
            format!("`{shown}`: an entry's path is relative, without `..` (the archive is the agent's folder)")
        })?;
        if relative.as_os_str().is_empty() {
            continue;
        }
        if relative.components().count() as u32 > limits.depth {
            return Err(format!("`{shown}`: deeper than {} folders (depth)", limits.depth));
        }
        let target = into.join(&relative);
        let kind = entry.header().entry_type();
        if kind.is_dir() {
            std::fs::create_dir_all(&target).map_err(|e| format!("`{shown}`: {e}"))?;
            continue;
        }
        if !kind.is_file() {
            return Err(format!(
                "`{shown}`: only files and folders are taken (not a link, device or pipe: copy what a link names)"
            ));
        }
        let size = entry.header().size().map_err(|e| format!("`{shown}`: {e}"))?;
        bytes = bytes.saturating_add(size);
        if bytes > limits.unpacked_bytes {
            return Err(format!(
                "`{shown}`: the files come to more than {} bytes (unpacked_bytes)",
                limits.unpacked_bytes
            ));
        }
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("`{shown}`: {e}"))?;
        }
        if target.exists() {
            return Err(format!("`{shown}`: twice in the archive"));
        }
        let executable = entry.header().mode().is_ok_and(|m| m & 0o111 != 0);
        let mut file = std::fs::File::create(&target).map_err(|e| format!("`{shown}`: {e}"))?;
        let copied = std::io::copy(&mut (&mut entry).take(size), &mut file).map_err(|e| format!("`{shown}`: {e}"))?;
        if copied != size {
            return Err(format!("`{shown}`: cut short ({copied} of {size} bytes)"));
        }
        use std::os::unix::fs::PermissionsExt;
        let mode = if executable { 0o755 } else { 0o644 };
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(mode))
            .map_err(|e| format!("`{shown}`: {e}"))?;
        if relative == Path::new(MANIFEST) {
            let text = std::fs::read_to_string(&target).map_err(|e| format!("{MANIFEST}: {e}"))?;
            manifest = Some(Manifest::parse(&text)?);
        }
    }
    manifest.ok_or_else(|| format!("no {MANIFEST} at the archive's top: it names the agent's `command`"))
}

/// `path` as a plain relative path (`./` dropped), or None if it climbs, is absolute or names a
/// root or prefix.
fn relative_path(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

/// The folder `dir` as an archive to submit: its files and folders (links followed to what
/// they name), gzipped; refused if it has no manifest or the manifest does not read.
pub fn pack(dir: &Path) -> Result<Vec<u8>, String> {
    let text = std::fs::read_to_string(dir.join(MANIFEST)).map_err(|e| {
        format!("{}: {e} (the agent's folder holds its manifest, `command: …`)", dir.join(MANIFEST).display())
    })?;
    Manifest::parse(&text)?;
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut tar = tar::Builder::new(gz);
    tar.follow_symlinks(true);
    tar.mode(tar::HeaderMode::Deterministic);
    tar.append_dir_all(".", dir).map_err(|e| format!("cannot pack {}: {e}", dir.display()))?;
    let gz = tar.into_inner().map_err(|e| format!("cannot pack {}: {e}", dir.display()))?;
    gz.finish().map_err(|e| format!("cannot pack {}: {e}", dir.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A gzipped tar of `(path, kind, bytes)` entries, written header by header (so that it may
    /// hold what `pack` never would).
    fn archive(entries: &[(&str, tar::EntryType, &[u8])]) -> Vec<u8> {
        let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        let mut tar = tar::Builder::new(gz);
        for (path, kind, bytes) in entries {
            let mut h = tar::Header::new_gnu();
            h.set_entry_type(*kind);
            h.set_size(bytes.len() as u64);
            h.set_mode(0o644);
            if *kind == tar::EntryType::Symlink {
                h.set_link_name("/etc/shadow").unwrap();
            }
            // Written raw: the builder's own path checks would refuse `..`.
            let name = path.as_bytes();
            h.as_old_mut().name[..name.len()].copy_from_slice(name);
            h.set_cksum();
            tar.append(&h, *bytes).unwrap();
        }
        tar.into_inner().unwrap().finish().unwrap()
    }

    const MANIFEST_TEXT: &[u8] = b"command: python3 agent.py\n";

    #[test]
    fn a_folder_packs_and_unpacks_to_the_same_files() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().join("agent");
        std::fs::create_dir_all(dir.join("lib")).unwrap();
        std::fs::write(dir.join(MANIFEST), MANIFEST_TEXT).unwrap();
        std::fs::write(dir.join("agent.py"), "print('hi')\n").unwrap();
        std::fs::write(dir.join("lib/weights.bin"), [7u8; 3000]).unwrap();
        let bytes = pack(&dir).unwrap();
        let into = temp.path().join("unpacked");
        let m = unpack(&bytes, &into, &ArchiveLimits::default()).unwrap();
        assert_eq!(m.command, "python3 agent.py");
        assert_eq!(std::fs::read(into.join("lib/weights.bin")).unwrap(), [7u8; 3000]);
        assert_eq!(std::fs::read_to_string(into.join("agent.py")).unwrap(), "print('hi')\n");
        // Packing twice gives the same bytes (no times, owners or modes of the packer's).
        assert_eq!(pack(&dir).unwrap(), bytes);
    }

    #[test]
    fn every_hostile_archive_is_refused_by_name_and_nothing_is_kept() {
        use tar::EntryType::{Directory, Regular, Symlink};
        let temp = tempfile::tempdir().unwrap();
        let small = ArchiveLimits { archive_bytes: 1 << 20, unpacked_bytes: 10_000, entries: 5, depth: 3 };
        let bomb = vec![0u8; 10_001];
        let many: Vec<(String, tar::EntryType, &[u8])> =
            (0..6).map(|i| (format!("f{i}"), Regular, &b"x"[..])).collect();
        let many: Vec<(&str, tar::EntryType, &[u8])> = many.iter().map(|(p, k, b)| (p.as_str(), *k, *b)).collect();
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (
                archive(&[(MANIFEST, Regular, MANIFEST_TEXT), ("../escape", Regular, b"x")]),
                "`../escape`: an entry's path",
            ),
            (
                archive(&[(MANIFEST, Regular, MANIFEST_TEXT), ("/etc/evil", Regular, b"x")]),
                "`/etc/evil`: an entry's path",
            ),
            (archive(&[(MANIFEST, Regular, MANIFEST_TEXT), ("link", Symlink, b"")]), "`link`: only files and folders"),
            (archive(&[(MANIFEST, Regular, MANIFEST_TEXT), ("big", Regular, &bomb)]), "more than 10000 bytes"),
            (archive(&many), "more than 5 entries"),
            (archive(&[(MANIFEST, Regular, MANIFEST_TEXT), ("a/b/c/d", Regular, b"x")]), "deeper than 3"),
            (archive(&[("a", Directory, b""), ("agent.py", Regular, b"x")]), "no agent.yaml"),
            (archive(&[(MANIFEST, Regular, b"command: ''\n")]), "`command` is empty"),
            (archive(&[(MANIFEST, Regular, b"cmd: x\n")]), "agent.yaml"),
            (b"not gzip at all".to_vec(), "not a gzipped tar"),
            (vec![0u8; (1 << 20) + 1], "past this ladder's 1048576 (archive_bytes)"),
        ];
        for (k, (bytes, why)) in cases.iter().enumerate() {
            let into = temp.path().join(format!("case{k}"));
            let e = unpack(bytes, &into, &small).unwrap_err();
            assert!(e.contains(why), "case {k}: {e}");
            assert!(!into.exists(), "case {k}: nothing is kept");
        }
        assert!(!temp.path().join("escape").exists() && !Path::new("/etc/evil").exists());
    }
}
