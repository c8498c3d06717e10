//! The ladder file: which games, which built-in agents stay on the ladder as anchors, the
//! per-move limit, who may join.
//!
//! ```yaml
//! name: class-ladder
//! games:                        # game entries, as in a tournament file
//!   - { game: expedition, preset: dice, params: { players: 2 } }
//!   - { game: expedition, preset: no-dice, params: { players: 2 } }
//!   - { game: journey, preset: classic }
//! anchors:                      # built-in agents always on the ladder
//!   - { name: random, bot: random }
//!   - { name: greedy, bot: greedy }
//! move_time_ms: 2000            # the per-move limit
//! bank: { base_ms: 10000, increment_ms: 100 }  # optional: an overage bank beside it
//! admission: open               # `open`: any name; `keyed`: only the names of `keys:`
//! keys: keys.txt                # NAME=KEY lines (a name's key covers its versions, `name@2`)
//! max_games: 4                  # pairings in flight per agent, unless its Hello asks fewer
//! max_games_cap: 16             # the most a Hello may ask
//! anchor_games: 4               # pairings in flight per anchor
//! anchor_interval: 100          # anchors meet each other until their intervals are this narrow (Elo)
//! deals: shared                 # `shared`: a pairing plays one deal in every seat order; `fresh`
//! bootstrap: 200                # resamples for the intervals
//! refit_ms: 2000                # the standings are refit at most this often
//! provisional_games: 10         # results against established agents before a new agent is ranked
//! agents_per_client: 50         # agents one client may have stored (names and versions)
//! new_agents_per_hour: 10       # new agents one client may add in an hour
//! rest_after_timeouts: 3        # games in a row timed out before an agent is rested
//! refit_threads: 1              # threads a refit's bootstrap runs on (default: half the cores)
//! submissions:                  # optional: agents uploaded by `arena ladder submit` (keyed names)
//!   limits: { cpus: 1, memory: 1GiB, pids: 64 }   # each launched game's cgroup, or `none`
//!   archive: { archive_bytes: 8388608, unpacked_bytes: 67108864, entries: 2000, depth: 16 }
//!   versions_per_name: 5        # versions of one name validating or playing at once
//!   games: 1                    # pairings in flight per submission
//!   connect_timeout_ms: 20000   # a launched submission's time to say Hello
//! challenge_move_time_ms: 120000 # a person's per-move limit in a challenge on the web face
//! workers:                      # optional: games of anchors and submissions played by workers
//!   keys: workers.txt           # NAME=KEY lines, one per worker (`arena worker --name --key`)
//!   lease_ms: 30000             # a lease not kept (Progress) this long is voided, its game replayed
//!   slots: 16                   # games one worker may hold at once
//! ```
//!
//! A mistake names the file, the line and the field, as a tournament file's do.

use crate::tournament::config::{GameSpec, read_fields};
use serde::Deserialize;
use std::path::Path;

/// The embedded default ladder (`arena ladder` with no file).
pub const DEFAULT: &str = include_str!("default.yaml");

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Anchor {
    pub name: String,
    pub bot: String,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Admission {
    /// Any Play client joins under any free name.
    #[default]
    Open,
    /// Only the names of `keys:`, each with its key.
    Keyed,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Deals {
    /// A pairing plays one deal in every seat order (as a tournament's pairings do).
    #[default]
    Shared,
    /// Every game a deal of its own.
    Fresh,
}

fn default_name() -> String {
    "ladder".into()
}
fn default_move_time() -> u64 {
    2000
}
fn four() -> u32 {
    4
}
fn sixteen() -> u32 {
    16
}
fn hundred() -> f64 {
    100.0
}
fn default_bootstrap() -> u32 {
    200
}
fn default_refit() -> u64 {
    2000
}
fn ten() -> u32 {
    10
}
fn fifty() -> u32 {
    50
}
fn three() -> u32 {
    3
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LadderConfig {
    #[serde(default = "default_name")]
    pub name: String,
    pub games: Vec<GameSpec>,
    #[serde(default)]
    pub anchors: Vec<Anchor>,
    #[serde(default = "default_move_time")]
    pub move_time_ms: u64,
    #[serde(default)]
    pub admission: Admission,
    #[serde(default)]
    pub keys: Option<String>,
    #[serde(default = "four")]
    pub max_games: u32,
    #[serde(default = "sixteen")]
    pub max_games_cap: u32,
    #[serde(default = "four")]
    pub anchor_games: u32,
    #[serde(default = "hundred")]
    pub anchor_interval: f64,
    #[serde(default)]
    pub deals: Deals,
    #[serde(default = "default_bootstrap")]
    pub bootstrap: u32,
    #[serde(default = "default_refit")]
    pub refit_ms: u64,
    /// Rated results against established agents (anchors, or agents that had these) a new
    /// agent needs before it is ranked; until then it is listed apart, and it meets only
    /// established agents (0: every agent ranked at once).
    #[serde(default = "ten")]
    pub provisional_games: u32,
    /// Agents (names and versions) one client may have stored on the ladder, and may add in
    /// an hour. A name's key holder is outside both: the operator gave it the name.
    #[serde(default = "fifty")]
    pub agents_per_client: u32,
    #[serde(default = "ten")]
    pub new_agents_per_hour: u32,
    /// An agent whose games time out this many times in a row is rested: not matched for a
    /// while (30 s, doubling at each rest up to 15 min), and told why (0: never rested).
    #[serde(default = "three")]
    pub rest_after_timeouts: u32,
    /// Threads a refit's bootstrap runs on (0, the default: half the cores, at least one: the
    /// rest is the games').
    #[serde(default)]
    pub refit_threads: usize,
    /// An overage bank beside the per-move limit, each seat's own in each game: a move may
    /// take its limit and what is left in the bank; `increment_ms` is added after each move.
    #[serde(default)]
    pub bank: Option<crate::tournament::config::ClockSpec>,
    /// Agents uploaded as archives and launched by the ladder, each game in its sandbox (none:
    /// the ladder takes no submissions).
    #[serde(default)]
    pub submissions: Option<SubmissionsConfig>,
    /// Workers that play the games of anchors and submissions (none: the ladder plays them).
    #[serde(default)]
    pub workers: Option<WorkersConfig>,
    /// The per-move limit of a person's challenge on the web face (people think slower).
    #[serde(default = "two_minutes")]
    pub challenge_move_time_ms: u64,
}

fn two_minutes() -> u64 {
    120_000
}

fn thirty_s() -> u64 {
    30_000
}

/// How a ladder hands its games to workers.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkersConfig {
    /// The workers' names and keys (NAME=KEY lines), a path relative to the ladder file.
    pub keys: String,
    /// A lease not kept this long (its worker died, hung or lost the network) is voided and its
    /// game given to another worker.
    #[serde(default = "thirty_s")]
    pub lease_ms: u64,
    /// Leases one worker may hold at once.
    #[serde(default = "sixteen")]
    pub slots: u32,
}

fn one() -> u32 {
    1
}
fn five() -> u32 {
    5
}
fn twenty_s() -> u64 {
    20_000
}
fn default_limits() -> Option<crate::limits::Limits> {
    Some(crate::limits::Limits::default())
}

/// How a ladder takes submissions.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubmissionsConfig {
    /// Each launched game's cgroup (`none`: unlimited, for hosts without cgroups).
    #[serde(default = "default_limits", with = "crate::limits::setting")]
    pub limits: Option<crate::limits::Limits>,
    /// What one archive may hold.
    #[serde(default)]
    pub archive: super::submissions::ArchiveLimits,
    /// Versions of one name validating or playing at once (retire one to submit another).
    #[serde(default = "five")]
    pub versions_per_name: u32,
    /// Pairings in flight per submission.
    #[serde(default = "one")]
    pub games: u32,
    /// How long a launched submission has to say Hello.
    #[serde(default = "twenty_s")]
    pub connect_timeout_ms: u64,
}

impl LadderConfig {
    /// The bank as the referee keeps it.
    pub fn bank_clock(&self) -> Option<crate::referee::Clock> {
        self.bank.map(|b| crate::referee::Clock::from_ms(b.base_ms, b.increment_ms))
    }

    /// Read a ladder file; `source` names it in errors.
    pub fn parse(source: &str, text: &str) -> Result<LadderConfig, String> {
        read_fields(source, text, |c: &LadderConfig| c.check())
    }

    fn check(&self) -> Result<(), (String, String)> {
        let m = |field: &str, what: String| Err((field.to_string(), what));
        if self.games.is_empty() {
            return m("games", "names no game".into());
        }
        if let Some(sub) = &self.submissions {
            if let Some(limits) = &sub.limits {
                limits.check().map_err(|(field, what)| (format!("submissions.limits.{field}"), what))?;
            }
            if sub.games == 0 || sub.versions_per_name == 0 {
                let field = if sub.games == 0 { "games" } else { "versions_per_name" };
                return m(&format!("submissions.{field}"), "must be at least 1".into());
            }
            let a = &sub.archive;
            if a.archive_bytes == 0 || a.unpacked_bytes == 0 || a.entries == 0 || a.depth == 0 {
                return m("submissions.archive", "every bound is at least 1".into());
            }
            if a.archive_bytes > 1 << 30 {
                return m("submissions.archive.archive_bytes", "at most 1 GiB (the archive is one message)".into());
            }
        }
        if let Some(w) = &self.workers {
            if !(1000..=3_600_000).contains(&w.lease_ms) {
                return m("workers.lease_ms", "from 1000 to 3600000 (an hour)".into());
            }
            if !(1..=64).contains(&w.slots) {
                return m("workers.slots", "from 1 to 64".into());
            }
        }
        for (i, a) in self.anchors.iter().enumerate() {
            if let Err(e) = crate::server::names::check(&a.name) {
                return m(&format!("anchors[{i}].name"), format!("`{}` is not a name: {e}", a.name));
            }
            if self.anchors[..i]
                .iter()
                .any(|b| crate::server::names::fold(&b.name) == crate::server::names::fold(&a.name))
            {
                return m(&format!("anchors[{i}].name"), format!("`{}` is named twice (or a name like it)", a.name));
            }
            if let Err(e) = bots::BotSpec::parse(&a.bot) {
                return m(&format!("anchors[{i}].bot"), e);
            }
        }
        if self.admission == Admission::Keyed && self.keys.is_none() {
            return m("keys", "a keyed ladder names its file of keys (`keys: keys.txt`, NAME=KEY lines)".into());
        }
        if self.max_games == 0 || self.max_games > self.max_games_cap {
            return m("max_games", format!("must be 1 to max_games_cap ({})", self.max_games_cap));
        }
        if self.anchor_games == 0 {
            return m("anchor_games", "must be at least 1".into());
        }
        if self.anchor_interval.is_nan() || self.anchor_interval < 0.0 {
            return m("anchor_interval", "is a width in Elo, 0 or more".into());
        }
        if self.move_time_ms == 0 {
            return m("move_time_ms", "a ladder needs a per-move limit (above 0)".into());
        }
        if self.refit_ms == 0 {
            return m("refit_ms", "must be above 0".into());
        }
        if self.provisional_games > 0 && self.anchors.is_empty() {
            return m(
                "provisional_games",
                "new agents establish themselves against anchors, and this ladder has none: name one, or set \
                 `provisional_games: 0`"
                    .into(),
            );
        }
        if self.agents_per_client == 0 || self.new_agents_per_hour == 0 {
            let field = if self.agents_per_client == 0 { "agents_per_client" } else { "new_agents_per_hour" };
            return m(field, "must be at least 1 (a client with no agent cannot play)".into());
        }
        Ok(())
    }

    /// Threads a refit's bootstrap runs on.
    pub fn refit_threads(&self) -> usize {
        match self.refit_threads {
            0 => (std::thread::available_parallelism().map_or(1, |n| n.get()) / 2).max(1),
            n => n,
        }
    }

    /// The file of the workers' keys (`workers.keys`), as [`LadderConfig::keys_path`].
    pub fn worker_keys_path(&self, file: Option<&Path>) -> Option<std::path::PathBuf> {
        let keys = Path::new(&self.workers.as_ref()?.keys);
        Some(match file.and_then(Path::parent) {
            Some(dir) if keys.is_relative() => dir.join(keys),
            _ => keys.to_path_buf(),
        })
    }

    /// The file of keys (`keys:`), a relative path read from the ladder file's folder.
    pub fn keys_path(&self, file: Option<&Path>) -> Option<std::path::PathBuf> {
        let keys = Path::new(self.keys.as_deref()?);
        Some(match file.and_then(Path::parent) {
            Some(dir) if keys.is_relative() => dir.join(keys),
            _ => keys.to_path_buf(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_ladder_reads() {
        let c = LadderConfig::parse("default", DEFAULT).unwrap();
        assert!(!c.games.is_empty() && !c.anchors.is_empty());
    }

    #[test]
    fn a_mistake_names_the_line_and_field() {
        let text = "games:\n  - { game: expedition, preset: no-dice }\nanchors:\n  - { name: r, bot: mtcs }\n";
        let e = LadderConfig::parse("l.yaml", text).unwrap_err();
        assert!(e.starts_with("l.yaml line 4: field `anchors[0].bot`"), "{e}");
        let e = LadderConfig::parse("l.yaml", "games: []\n").unwrap_err();
        assert!(e.contains("field `games`: names no game"), "{e}");
        let e = LadderConfig::parse("l.yaml", "games:\n  - { game: journey }\nadmission: closed\n").unwrap_err();
        assert!(e.starts_with("l.yaml line 3: field `admission`"), "{e}");
        let e = LadderConfig::parse("l.yaml", "games:\n  - { game: journey }\nadmission: keyed\n").unwrap_err();
        assert!(e.contains("field `keys`"), "{e}");
        let e = LadderConfig::parse("l.yaml", "games:\n  - { game: journey }\n").unwrap_err();
        assert!(e.contains("field `provisional_games`") && e.contains("has none"), "{e}");
        let c = LadderConfig::parse("l.yaml", "games:\n  - { game: journey }\nprovisional_games: 0\n").unwrap();
        assert_eq!((c.agents_per_client, c.new_agents_per_hour, c.rest_after_timeouts), (50, 10, 3));
        assert_eq!((c.bank_clock(), c.submissions.is_none()), (None, true));
    }

    #[test]
    fn a_bank_and_submissions_are_read_with_their_defaults_and_refused_by_field() {
        let base = "games:\n  - { game: journey }\nprovisional_games: 0\n";
        let read = |more: &str| LadderConfig::parse("l.yaml", &format!("{base}{more}"));
        let c = read("bank: { base_ms: 5000, increment_ms: 50 }\nsubmissions: {}\n").unwrap();
        let ms = std::time::Duration::from_millis;
        assert_eq!(c.bank_clock(), Some(crate::referee::Clock { base: ms(5000), increment: ms(50) }));
        let s = c.submissions.unwrap();
        assert_eq!((s.games, s.versions_per_name, s.connect_timeout_ms), (1, 5, 20_000));
        assert_eq!((s.limits, s.archive), (Some(crate::limits::Limits::default()), Default::default()));
        let s = read("submissions: { limits: none, archive: { archive_bytes: 1000, unpacked_bytes: 5000, entries: 9, depth: 2 } }\n")
            .unwrap()
            .submissions
            .unwrap();
        assert_eq!((s.limits, s.archive.entries), (None, 9));
        for (more, field) in [
            ("submissions: { games: 0 }\n", "submissions.games"),
            ("submissions: { limits: { pids: 0 } }\n", "submissions.limits.pids"),
            (
                "submissions: { archive: { archive_bytes: 0, unpacked_bytes: 1, entries: 1, depth: 1 } }\n",
                "submissions.archive",
            ),
            ("submissions: { sandbox: none }\n", "submissions"),
            ("bank: { increment_ms: 5 }\n", "bank"),
        ] {
            let e = read(more).unwrap_err();
            assert!(e.contains(&format!("field `{field}`")), "{more}: {e}");
        }
    }
}
