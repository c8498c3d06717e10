//! The tournament directory: the file it was started from, and an append-only log of
//! finished games, one JSON object per line, flushed game by game. Killing the arena loses
//! only the games in flight; a last line cut short by a kill mid-write is detected and
//! dropped.
//!
//! ```text
//! DIR/tournament.yaml   the tournament file as played (the schedule follows from it)
//! DIR/run.json          the shard this directory plays, and the schedule's size and hash
//! DIR/games.jsonl       one line per finished game (a [`MatchRecord`]: it replays)
//! DIR/deal-secret       with external participants: the secret the deals are drawn from
//!                       (readable by its owner only; the launched participants' sandboxes
//!                       hide the whole directory)
//! DIR/report/           ratings, charts, standings (rebuilt by `arena report DIR`)
//! ```

use super::schedule::{Job, Shard};
use crate::record::{self, MatchRecord, Records};
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

pub const CONFIG_FILE: &str = "tournament.yaml";
pub const RUN_FILE: &str = "run.json";
pub const LOG_FILE: &str = "games.jsonl";
pub const SECRET_FILE: &str = "deal-secret";

/// What a directory plays: the shard (if any), and the schedule it was made for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    pub shard: Option<Shard>,
    /// The command line's overrides of the file's fields (`KEY=VALUE`), applied again on resume.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overrides: Vec<String>,
    /// Games in the whole schedule, and a hash of it: logs of different schedules never mix.
    pub schedule_games: u64,
    pub schedule_hash: String,
}

/// FNV-1a over the schedule's JSON: the same tournament file gives the same hash.
pub fn schedule_hash(jobs: &[Job]) -> String {
    let text = serde_json::to_string(jobs).unwrap_or_default();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

fn io(path: &Path, what: &str, e: std::io::Error) -> String {
    format!("cannot {what} {}: {e}", path.display())
}

/// Read `DIR/games.jsonl` (see [`record::read`]): every line a game of the tournament.
pub fn read_log(dir: &Path) -> Result<Records, String> {
    let path = dir.join(LOG_FILE);
    let log = record::read(&path)?;
    if let Some(r) = log.records.iter().find(|r| r.tournament.is_none()) {
        return Err(format!(
            "{}: a record with no tournament place ({}): not this tournament's log",
            path.display(),
            r.game.game
        ));
    }
    Ok(log)
}

/// Rewrite the log without a cut-short last line (before appending to it again).
pub fn drop_truncated_line(dir: &Path) -> Result<(), String> {
    let path = dir.join(LOG_FILE);
    let text = std::fs::read_to_string(&path).map_err(|e| io(&path, "read", e))?;
    let keep = match text.rfind('\n') {
        Some(i) => &text[..=i],
        None => "",
    };
    std::fs::write(&path, keep).map_err(|e| io(&path, "rewrite", e))
}

/// Appends records to the log, one line each, flushed and synced to disk per game.
pub struct LogWriter {
    file: File,
    path: PathBuf,
}

impl LogWriter {
    pub fn open(dir: &Path) -> Result<LogWriter, String> {
        let path = dir.join(LOG_FILE);
        let file = OpenOptions::new().create(true).append(true).open(&path).map_err(|e| io(&path, "open", e))?;
        Ok(LogWriter { file, path })
    }

    pub fn append(&mut self, record: &MatchRecord) -> Result<(), String> {
        let line = record.to_line()?;
        self.file.write_all(line.as_bytes()).map_err(|e| io(&self.path, "write", e))?;
        self.file.flush().map_err(|e| io(&self.path, "write", e))?;
        self.file.sync_data().map_err(|e| io(&self.path, "sync", e))
    }
}

pub fn write_run_info(dir: &Path, info: &RunInfo) -> Result<(), String> {
    let path = dir.join(RUN_FILE);
    let text = serde_json::to_string_pretty(info).map_err(|e| e.to_string())?;
    std::fs::write(&path, text).map_err(|e| io(&path, "write", e))
}

pub fn read_run_info(dir: &Path) -> Result<RunInfo, String> {
    let path = dir.join(RUN_FILE);
    let text = std::fs::read_to_string(&path).map_err(|e| io(&path, "read", e))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Keep the deal secret in the directory, readable by its owner only.
pub fn write_deal_secret(dir: &Path, secret: &str) -> Result<(), String> {
    let path = dir.join(SECRET_FILE);
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(&path).map_err(|e| io(&path, "create", e))?;
    file.write_all(format!("{secret}\n").as_bytes()).map_err(|e| io(&path, "write", e))?;
    file.sync_all().map_err(|e| io(&path, "sync", e))
}

/// The deal secret of a directory, if it has one.
pub fn read_deal_secret(dir: &Path) -> Result<Option<String>, String> {
    let path = dir.join(SECRET_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(Some(text.trim().to_string())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io(&path, "read", e)),
    }
}
