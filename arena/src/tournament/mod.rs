//! `arena tournament`: fair round-robins of agents over games, run in parallel, logged game
//! by game so that a stopped run resumes where it stopped, sharded across machines if need
//! be, and reported as ratings with intervals, tables and charts.
//!
//! - [`config`]: the tournament file (and the embedded default);
//! - [`external`]: participants that play over the Play stream;
//! - [`schedule`]: every game, a pure function of the file;
//! - [`run`]: the worker pool, verdicts, progress;
//! - [`log`]: the directory and its append-only log;
//! - [`rate`]: from games to pairwise results, then `reports` for ratings and charts.

pub mod config;
pub mod external;
pub mod live;
pub mod log;
pub mod rate;
pub mod run;
pub mod schedule;
pub mod stopping;
pub mod variants;

use crate::record::MatchRecord;
use crate::referee::Fault;
use config::{ResolvedGame, TournamentConfig};
use log::RunInfo;
use run::{AgentFactory, RunOptions, RunStats};
use schedule::{Job, Shard};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A tournament ready to run: its file, its games resolved, its whole schedule.
pub struct Tournament {
    pub config: TournamentConfig,
    /// The file's text, kept as given (comments included) in the directory.
    pub text: String,
    pub games: Vec<ResolvedGame>,
    pub jobs: Vec<Job>,
    /// The secret the deals are drawn from besides the file's seed (tournaments with external
    /// participants: see [`Tournament::seal_deals`]).
    pub deal_secret: Option<String>,
    /// The command line's overrides of the file's fields (kept in the run directory).
    pub overrides: Vec<String>,
}

/// The environment variable that gives shards of one tournament their common deal secret.
pub const DEAL_SECRET_ENV: &str = "ARENA_DEAL_SECRET";

/// `ARENA_DEAL_SECRET` as the program found it, once [`take_deal_secret_env`] took it.
static DEAL_SECRET_TAKEN: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();

/// Take `ARENA_DEAL_SECRET` out of the environment (the binary's first act, after
/// [`crate::sandbox::scrub_environment`]): read once and kept for
/// [`Tournament::seal_for_new_run`], it is in no environment a process the arena starts
/// inherits, and the process that holds it is no longer readable by others
/// ([`crate::sandbox::hold_secret`]).
///
/// # Safety
///
/// No other thread may run: it changes the environment.
pub unsafe fn take_deal_secret_env() {
    let value = std::env::var_os(DEAL_SECRET_ENV).map(|v| v.to_string_lossy().into_owned());
    // SAFETY: the caller runs alone.
    unsafe { std::env::remove_var(DEAL_SECRET_ENV) };
    if value.is_some() {
        crate::sandbox::hold_secret();
    }
    let _ = DEAL_SECRET_TAKEN.set(value);
}

/// The deal secret the operator gave: as taken from the environment, or (a program that did
/// not take it: the library's users) as the environment has it.
fn deal_secret_env() -> Option<String> {
    match DEAL_SECRET_TAKEN.get() {
        Some(taken) => taken.clone(),
        None => std::env::var(DEAL_SECRET_ENV).ok(),
    }
}

impl Tournament {
    /// Parse and resolve a tournament file (`source` names it in errors). Its deals follow
    /// from the file alone until [`Tournament::seal_deals`].
    pub fn load(source: &str, text: &str, load: &dyn Fn(&str) -> Result<String, String>) -> Result<Tournament, String> {
        Self::load_with(source, text, &[], load)
    }

    /// [`Tournament::load`] with the command line's `KEY=VALUE` overrides of the file's fields.
    pub fn load_with(
        source: &str,
        text: &str,
        overrides: &[String],
        load: &dyn Fn(&str) -> Result<String, String>,
    ) -> Result<Tournament, String> {
        let config = TournamentConfig::read(source, text, overrides)?;
        let games = config.resolve_games(load)?;
        let jobs = schedule::schedule(&Self::plan(&config, config.seed), &games);
        Ok(Tournament { config, text: text.to_string(), games, jobs, deal_secret: None, overrides: overrides.to_vec() })
    }

    fn plan(c: &TournamentConfig, master: u64) -> schedule::Plan {
        schedule::Plan {
            master,
            deals: c.games_per_pairing,
            participants: c.participants.len(),
            gauntlet: c.gauntlet_indices(),
            seats: c.seats,
        }
    }

    /// Does any participant play over the wire (and so must not know the deals)?
    pub fn has_external(&self) -> bool {
        self.config.participants.iter().any(|p| p.is_external())
    }

    /// Deal from the file's seed and `secret` together: whoever has only the file cannot
    /// know a deal. The schedule is the same but for its seeds. The process holds a secret
    /// from now on: see [`crate::sandbox::hold_secret`].
    pub fn seal_deals(&mut self, secret: &str) -> Result<(), String> {
        let hex = secret.trim();
        if hex.len() < 32 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err("a deal secret is 32 or more hexadecimal digits (e.g. `openssl rand -hex 16`)".into());
        }
        crate::sandbox::hold_secret();
        let mut master = self.config.seed;
        for chunk in hex.as_bytes().chunks(16) {
            let word = u64::from_str_radix(std::str::from_utf8(chunk).expect("ascii"), 16).expect("hex digits");
            master = engine::core::game_seed(master, word);
        }
        self.jobs = schedule::schedule(&Self::plan(&self.config, master), &self.games);
        self.deal_secret = Some(hex.to_string());
        Ok(())
    }

    /// Seal the deals of a new run that has external participants: with the secret shards
    /// share (`ARENA_DEAL_SECRET`), or one drawn now from the operating system. A tournament
    /// of built-in agents only stays a pure function of its file.
    pub fn seal_for_new_run(&mut self, shard: Option<Shard>) -> Result<(), String> {
        if !self.has_external() {
            return Ok(());
        }
        let secret = match deal_secret_env() {
            Some(s) => s,
            None if shard.is_some() => {
                return Err(format!(
                    "a shard of a tournament with external participants: set {DEAL_SECRET_ENV} to one secret \
                     for every shard (e.g. `openssl rand -hex 16`), so that they deal the same games"
                ));
            }
            None => crate::server::hub::secret().map_err(|e| e.message().to_string())?,
        };
        self.seal_deals(&secret)
    }

    pub fn names(&self) -> Vec<String> {
        self.config.participants.iter().map(|p| p.name.clone()).collect()
    }

    fn run_info(&self, shard: Option<Shard>) -> RunInfo {
        RunInfo {
            shard,
            overrides: self.overrides.clone(),
            schedule_games: self.jobs.len() as u64,
            schedule_hash: log::schedule_hash(&self.jobs),
        }
    }

    /// The built-in agent of each participant (None: an external one).
    pub fn builtin_agents(&self) -> Vec<Option<String>> {
        self.config.participants.iter().map(|p| p.bot.clone()).collect()
    }
}

/// What `start` and `resume` report back.
pub struct RunSummary {
    pub stats: RunStats,
    /// Games of this directory's share of the schedule, and how many were logged before.
    pub scheduled: usize,
    pub already_done: usize,
    /// The report directory and the overall ratings, when the run covered the whole schedule.
    pub report: Option<(PathBuf, reports::ratings::RatingList)>,
}

/// Start a tournament in `dir` (a new or empty directory).
pub fn start(
    t: &Tournament,
    dir: &Path,
    shard: Option<Shard>,
    factory: &AgentFactory,
    opts: &RunOptions,
) -> Result<RunSummary, String> {
    if shard.is_some() && stopping::Stopping::of(t)?.is_some() {
        return Err("a stopping rule (sprt, until_error_elo) decides from every game: it cannot run in shards".into());
    }
    if t.has_external() && t.deal_secret.is_none() {
        return Err("a tournament with external participants deals from a secret: seal its deals first \
                    (Tournament::seal_for_new_run)"
            .into());
    }
    if dir.join(log::LOG_FILE).exists() || dir.join(log::SECRET_FILE).exists() {
        return Err(format!(
            "{} already holds a tournament: resume it with `arena tournament --resume {}`, or choose another --out",
            dir.display(),
            dir.display()
        ));
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    if let Some(secret) = &t.deal_secret {
        log::write_deal_secret(dir, secret)?;
    }
    let config_path = dir.join(log::CONFIG_FILE);
    std::fs::write(&config_path, &t.text).map_err(|e| format!("cannot write {}: {e}", config_path.display()))?;
    // The deals files as played, so that the run resumes and reports without them.
    for (i, g) in t.games.iter().enumerate() {
        if let Some(deals) = &g.deals {
            let path = dir.join(format!("deals-{i}.yaml"));
            let items: Vec<serde_yaml::Value> = deals
                .iter()
                .map(|d| {
                    let mut m = serde_yaml::Mapping::new();
                    if let Some(seed) = d.seed {
                        m.insert("seed".into(), seed.into());
                    }
                    if let Some(sc) = &d.scenario {
                        m.insert("scenario".into(), serde_yaml::from_str(sc).unwrap_or_default());
                    }
                    serde_yaml::Value::Mapping(m)
                })
                .collect();
            let text = serde_yaml::to_string(&items).map_err(|e| e.to_string())?;
            std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
    }
    log::write_run_info(dir, &t.run_info(shard))?;
    run_remaining(t, dir, shard, factory, opts)
}

/// Read the tournament a directory was started with.
pub fn load_dir(dir: &Path, load: &dyn Fn(&str) -> Result<String, String>) -> Result<(Tournament, RunInfo), String> {
    let path = dir.join(log::CONFIG_FILE);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("{} is not a tournament directory: cannot read {}: {e}", dir.display(), path.display()))?;
    let info = log::read_run_info(dir)?;
    // Deals files are read from the copies the run kept.
    let config = TournamentConfig::read(&path.display().to_string(), &text, &info.overrides)?;
    let kept = |name: &str| -> Result<String, String> {
        match (0..config.games.len()).position(|i| config.deals_path(i).as_deref() == Some(name)) {
            Some(i) => {
                let copy = dir.join(format!("deals-{i}.yaml"));
                std::fs::read_to_string(&copy).map_err(|e| format!("cannot read {}: {e}", copy.display()))
            }
            None => load(name),
        }
    };
    let mut t = Tournament::load_with(&path.display().to_string(), &text, &info.overrides, &kept)?;
    match log::read_deal_secret(dir)? {
        Some(secret) => t.seal_deals(&secret)?,
        None if t.has_external() => {
            return Err(format!(
                "{}: {} is missing: the deals of a tournament with external participants follow from it",
                dir.display(),
                log::SECRET_FILE
            ));
        }
        None => {}
    }
    if info != t.run_info(info.shard) {
        return Err(format!(
            "{}: the schedule of {} differs from the one its log was written for",
            dir.display(),
            log::CONFIG_FILE
        ));
    }
    Ok((t, info))
}

/// Finish a stopped tournament, read from `dir` by [`load_dir`]: play only the games its log
/// lacks, with the agents of `factory` (see [`external::with_agents`]).
pub fn resume(
    t: &Tournament,
    info: &RunInfo,
    dir: &Path,
    factory: &AgentFactory,
    opts: &RunOptions,
) -> Result<RunSummary, String> {
    run_remaining(t, dir, info.shard, factory, opts)
}

fn run_remaining(
    t: &Tournament,
    dir: &Path,
    shard: Option<Shard>,
    factory: &AgentFactory,
    opts: &RunOptions,
) -> Result<RunSummary, String> {
    let read = log::read_log(dir)?;
    if read.truncated {
        log::drop_truncated_line(dir)?;
    }
    let mut done: Vec<MatchRecord> = read.records;
    let logged: std::collections::BTreeSet<u64> = done.iter().map(|r| r.place().job).collect();
    let mine: Vec<Job> = t.jobs.iter().filter(|j| shard.is_none_or(|s| s.holds(j))).cloned().collect();
    let todo: Vec<Job> = mine.iter().filter(|j| !logged.contains(&j.id)).cloned().collect();
    let mut writer = log::LogWriter::open(dir)?;
    let already_done = mine.len() - todo.len();
    let mut progress = run::RunProgress::new(todo.len(), opts.progress)?;
    let stats = match stopping::Stopping::of(t)? {
        None => run::run_jobs(&todo, &t.games, &t.names(), factory, opts, &mut writer, &mut done, &mut progress)?,
        Some(rule) => {
            // Deal by deal, each after what the deals before it decided.
            let mut stats = run::RunStats::default();
            let last = todo.iter().map(|j| j.deal).max();
            let mut precision = stopping::Precision::default();
            for deal in 0..=last.unwrap_or(0) {
                // A deal with no games is no check: it changes no interval.
                if deal > 0 && done.iter().any(|r| r.place().deal == deal - 1) {
                    rule.settle(t, &done, deal - 1, &mut precision);
                }
                let mut decided = rule.tests(t, &done, deal);
                decided.precision.clone_from(&precision);
                let of_deal: Vec<&Job> = todo.iter().filter(|j| j.deal == deal).collect();
                let jobs: Vec<Job> =
                    of_deal.iter().filter(|j| stopping::Stopping::needed(t, &decided, j)).map(|&j| j.clone()).collect();
                progress.skip(of_deal.len() - jobs.len());
                if jobs.is_empty() {
                    continue;
                }
                let s =
                    run::run_jobs(&jobs, &t.games, &t.names(), factory, opts, &mut writer, &mut done, &mut progress)?;
                stats.add(&s);
            }
            stats
        }
    };
    drop(progress);
    let report = match shard {
        None => {
            // A run that ends has played its whole schedule; it is reported as it is.
            let (path, list, _) =
                write_report(&[dir.to_path_buf()], &dir.join("report"), &|_| Err("no files".into()), true)?;
            Some((path, list))
        }
        Some(_) => None,
    };
    Ok(RunSummary { stats, scheduled: mine.len(), already_done, report })
}

/// The records of several directories (shards of one tournament, or one whole run), merged:
/// each game once, with notes naming duplicates and games missing from the schedule. Games
/// missing or logged twice are an error naming the directories and shards at fault, unless
/// `allow_incomplete` (then they are only noted). Games a stopping rule made unnecessary are
/// not missing.
pub fn merge_logs(
    dirs: &[PathBuf],
    load: &dyn Fn(&str) -> Result<String, String>,
    allow_incomplete: bool,
) -> Result<(Tournament, Vec<MatchRecord>, Vec<String>), String> {
    let first = dirs.first().ok_or("name at least one tournament directory")?;
    let (t, info) = load_dir(first, load)?;
    let mut notes = Vec::new();
    // Each game once, with the directory it was first read from.
    let mut by_job: BTreeMap<u64, (usize, MatchRecord)> = BTreeMap::new();
    // Games read again: (the directory that had it first, the one that had it again) → count.
    let mut twice: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    let mut duplicates = Vec::new();
    let mut shards = Vec::new();
    for (d, dir) in dirs.iter().enumerate() {
        let other = log::read_run_info(dir)?;
        if other.schedule_hash != info.schedule_hash {
            return Err(format!(
                "{} was run from another tournament file than {} (its schedule differs)",
                dir.display(),
                first.display()
            ));
        }
        let count = |i: &RunInfo| i.shard.map_or(1, |s| s.count);
        if count(&other) != count(&info) {
            return Err(format!(
                "{} plays {} but {} plays {}: the directories of one merge come from one split (the same shard count)",
                dir.display(),
                Shard::name(other.shard),
                first.display(),
                Shard::name(info.shard)
            ));
        }
        shards.push(other.shard);
        let read = log::read_log(dir)?;
        if read.truncated {
            notes.push(format!("{}: a last line cut short (a run killed mid-write) was left out", dir.display()));
        }
        for r in read.records {
            let job = r.place().job;
            if job >= info.schedule_games {
                return Err(format!("{}: game {job} is not in the schedule", dir.display()));
            }
            match by_job.get(&job) {
                Some((had, _)) => {
                    *twice.entry((*had, d)).or_default() += 1;
                    duplicates.push(job);
                }
                None => {
                    by_job.insert(job, (d, r));
                }
            }
        }
    }
    let list = |ids: &[u64]| {
        let shown: Vec<String> = ids.iter().take(12).map(|i| i.to_string()).collect();
        format!("{}{}", shown.join(", "), if ids.len() > 12 { ", …" } else { "" })
    };
    if !duplicates.is_empty() {
        duplicates.sort_unstable();
        notes.push(format!("{} games logged twice (the first kept): {}", duplicates.len(), list(&duplicates)));
    }
    let records: Vec<MatchRecord> = by_job.values().map(|(_, r)| r.clone()).collect();
    let rule = stopping::Stopping::of(&t)?;
    let mut missing: Vec<u64> = t.jobs.iter().map(|j| j.id).filter(|id| !by_job.contains_key(id)).collect();
    if let Some(rule) = &rule {
        // Games a stopping rule made unnecessary are not missing.
        let last = t.jobs.iter().map(|j| j.deal).max().unwrap_or(0);
        let decided = rule.decide(&t, &records, last + 1);
        let unneeded = |id: &u64| !stopping::Stopping::needed(&t, &decided, &t.jobs[*id as usize]);
        let skipped = missing.iter().filter(|id| unneeded(id)).count();
        missing.retain(|id| !unneeded(id));
        notes.extend(rule.notes(&t, &decided));
        if skipped > 0 {
            notes.push(format!("{skipped} scheduled games were not needed: a stopping rule had decided"));
        }
    }
    if !missing.is_empty() {
        notes.push(format!("{} of {} games missing: {}", missing.len(), t.jobs.len(), list(&missing)));
    }
    if !allow_incomplete && (!missing.is_empty() || !duplicates.is_empty()) {
        return Err(incomplete(&t, dirs, &shards, &missing, &twice));
    }
    Ok((t, records, notes))
}

/// Why a merge is refused: how many games are missing and logged twice, and where, directory
/// by directory (and the shards no directory was given for).
fn incomplete(
    t: &Tournament,
    dirs: &[PathBuf],
    shards: &[Option<Shard>],
    missing: &[u64],
    twice: &BTreeMap<(usize, usize), usize>,
) -> String {
    let holds = |shard: Option<Shard>, id: u64| shard.is_none_or(|s| s.holds(&t.jobs[id as usize]));
    let mut lines = Vec::new();
    // Missing games, by the first directory given for their shard...
    let mut given = std::collections::BTreeSet::new();
    for (dir, &shard) in dirs.iter().zip(shards) {
        if !given.insert(shard.map(|s| s.index)) {
            continue;
        }
        let lacks = missing.iter().filter(|&&id| holds(shard, id)).count();
        if lacks > 0 {
            let of = t.jobs.iter().filter(|j| holds(shard, j.id)).count();
            lines.push(format!("{} ({}): {lacks} of its {of} games missing", dir.display(), Shard::name(shard)));
        }
    }
    // ... or by their shard, when no directory was given for it.
    if let Some(count) = shards.first().copied().flatten().map(|s| s.count) {
        for index in (0..count).filter(|k| !given.contains(&Some(*k))) {
            let shard = Shard { index, count };
            let lacks = missing.iter().filter(|&&id| holds(Some(shard), id)).count();
            if lacks > 0 {
                lines.push(format!("shard {index}/{count}: no directory given ({lacks} games missing)"));
            }
        }
    }
    for (&(a, b), n) in twice {
        lines.push(if a == b {
            format!("{} logs {n} games twice", dirs[a].display())
        } else if dirs[a] == dirs[b] {
            format!("{} is given twice ({n} games logged twice)", dirs[a].display())
        } else {
            format!("{} and {} both log {n} games", dirs[a].display(), dirs[b].display())
        });
    }
    const SHOWN: usize = 20;
    let more = lines.len().saturating_sub(SHOWN);
    lines.truncate(SHOWN);
    if more > 0 {
        lines.push(format!("… and {more} more"));
    }
    let mut what = Vec::new();
    if !missing.is_empty() {
        what.push(format!("{} of {} games missing", missing.len(), t.jobs.len()));
    }
    let duplicated: usize = twice.values().sum();
    if duplicated > 0 {
        what.push(format!("{duplicated} games logged twice"));
    }
    format!(
        "the merge is incomplete: {}\n  {}\nnothing was written: run what is missing (with the same shard count) \
         and merge again, or pass --allow-incomplete for a report of the games there are",
        what.join(", "),
        lines.join("\n  ")
    )
}

/// Rebuild the report of the tournament in `dirs` (one run, or its shards) into `out`.
/// Games missing or logged twice are an error unless `allow_incomplete` (see [`merge_logs`]).
pub fn write_report(
    dirs: &[PathBuf],
    out: &Path,
    load: &dyn Fn(&str) -> Result<String, String>,
    allow_incomplete: bool,
) -> Result<(PathBuf, reports::ratings::RatingList, Vec<String>), String> {
    let (t, records, mut notes) = merge_logs(dirs, load, allow_incomplete)?;
    let names = t.names();
    for kind in Fault::ALL {
        let mut who: BTreeMap<&str, usize> = BTreeMap::new();
        for r in &records {
            for v in r.verdicts.iter().filter(|v| v.kind == kind) {
                *who.entry(&r.players[v.seat]).or_default() += 1;
            }
        }
        if !who.is_empty() {
            let parts: Vec<String> = who.iter().map(|(p, n)| format!("{p} {n}")).collect();
            notes.push(format!("games lost by verdict `{}`: {}", kind.name(), parts.join(", ")));
        }
    }
    notes.push(format!("{} games played of {} scheduled", records.len(), t.jobs.len()));

    let games = rate::rated_games(&records, &t.games);
    let (ties, compared) = rate::cooperative_ties(&games, &t.games);
    if compared > 0 {
        // Each cooperative game's own order, once.
        let mut orders: Vec<&str> = Vec::new();
        for g in t.games.iter().filter(|g| g.cooperative) {
            if !orders.contains(&g.spec.play_order()) {
                orders.push(g.spec.play_order());
            }
        }
        notes.push(format!(
            "cooperative plays of one deal compared by {}: {ties} of {compared} comparisons were ties ({:.0}%)",
            orders.join("; "),
            100.0 * ties as f64 / compared as f64
        ));
    }
    let anchor = t.config.anchor.as_ref().and_then(|a| names.iter().position(|n| n == a));
    let to_watch = games_to_watch(&t, &records, &rate::score_shares(&games, names.len()), out)?;
    let pairs = side_by_side(&t);
    let variants = pairs
        .iter()
        .map(|(l, r, caption)| {
            let labels = (t.games[*l].label.as_str(), t.games[*r].label.as_str());
            variants::compare(&records, &names, (*l, *r), labels, caption)
        })
        .collect();
    let input = reports::report::ReportInput {
        title: format!("Tournament: {}", t.config.name),
        participants: names,
        groups: t.games.iter().map(|g| g.label.clone()).collect(),
        games,
        options: reports::ratings::RatingOptions { anchor, bootstrap: t.config.bootstrap, seed: t.config.seed },
        side_by_side: pairs,
        notes: notes.clone(),
        run_notes: thinking_time(&t, &records, load).into_iter().collect(),
        to_watch,
        variants,
    };
    let written = reports::report::write_report(out, &input)?;
    Ok((out.to_path_buf(), written.overall, notes))
}

/// Each participant's time per decision (those its own process timed): the median, the
/// slowest, and the slowest beside the participant's limit, so that an agent's overrun is
/// read off the report. The mover of each decision comes from replaying the record.
fn thinking_time(
    t: &Tournament,
    records: &[MatchRecord],
    load: &dyn Fn(&str) -> Result<String, String>,
) -> Option<String> {
    let names = t.names();
    let mut times: Vec<Vec<f32>> = vec![Vec::new(); names.len()];
    for r in records.iter().filter(|r| !r.move_ms.is_empty()) {
        let mut movers = Vec::with_capacity(r.move_ms.len());
        let replayed = r.replay(load, |g| movers.extend(g.to_move()));
        if replayed.is_err() {
            continue;
        }
        for (seat, &ms) in movers.iter().zip(&r.move_ms) {
            if let Some(&p) = r.place().seats.get(seat.index()) {
                times[p].push(ms);
            }
        }
    }
    // The limit that binds: the arena's per move, or a built-in agent's own `ms=`.
    let limits: Vec<Option<std::time::Duration>> = t
        .config
        .time_controls()
        .iter()
        .zip(t.builtin_agents())
        .map(|(tc, spec)| {
            let own = spec.and_then(|s| bots::BotSpec::parse(&s).ok()).and_then(|s| s.time());
            match (tc.per_move, own) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            }
        })
        .collect();
    let parts: Vec<String> = times
        .iter_mut()
        .zip(&names)
        .zip(&limits)
        .filter(|((v, _), _)| !v.is_empty())
        .map(|((v, name), limit)| {
            v.sort_by(f32::total_cmp);
            let (median, slowest) = (v[v.len() / 2], v[v.len() - 1]);
            let over = match limit {
                Some(l) if slowest > l.as_secs_f32() * 1e3 => {
                    format!(", {:.1} ms over its {} ms limit", slowest - l.as_secs_f32() * 1e3, l.as_millis())
                }
                Some(l) => format!(" (limit {} ms)", l.as_millis()),
                None => String::new(),
            };
            format!("{name} median {median:.2} ms, slowest {slowest:.1} ms{over} ({} decisions)", v.len())
        })
        .collect();
    (!parts.is_empty()).then(|| format!("time per decision: {}", parts.join("; ")))
}

/// For every pairing of every game entry (every participant, in a cooperative one): its
/// longest and shortest game and an upset (a win of the participant with the smaller share of
/// points overall; in a cooperative entry, its best play instead), each written as a page to
/// step through into `out/games/`. Returns the links, by pairing.
fn games_to_watch(
    t: &Tournament,
    records: &[MatchRecord],
    shares: &[(f64, f64)],
    out: &Path,
) -> Result<Vec<reports::report::Watch>, String> {
    let strength = |p: usize| shares.get(p).map_or(0.0, |(won, of)| if *of > 0.0 { won / of } else { 0.0 });
    let mut pairings: BTreeMap<(usize, Vec<usize>), Vec<&MatchRecord>> = BTreeMap::new();
    for r in records {
        let place = r.place();
        let mut who = place.seats.clone();
        who.sort_unstable();
        who.dedup();
        pairings.entry((place.group, who)).or_default().push(r);
    }
    let dir = out.join("games");
    let mut watch = Vec::new();
    for ((group, who), games) in pairings {
        let cooperative = t.games.get(group).is_some_and(|g| g.cooperative);
        let length = |r: &&&MatchRecord| (r.game.actions.len(), r.place().job);
        let mut picks: Vec<(&str, &MatchRecord)> = Vec::new();
        if let Some(r) = games.iter().max_by_key(length) {
            picks.push(("longest", r));
        }
        if let Some(r) = games.iter().min_by_key(length) {
            picks.push(("shortest", r));
        }
        let special = if cooperative {
            games.iter().max_by_key(|r| (r.outcome.result.scores.first().copied(), r.place().job)).map(|r| ("best", *r))
        } else {
            // A game won outright by the seat whose participant is the weaker overall.
            games
                .iter()
                .find(|r| {
                    let seats = &r.place().seats;
                    let ranks = &r.outcome.result.ranks;
                    let winners: Vec<usize> = (0..seats.len()).filter(|&s| ranks[s] == 0).collect();
                    winners.len() == 1
                        && seats.iter().any(|&p| p != seats[winners[0]] && strength(p) > strength(seats[winners[0]]))
                })
                .map(|r| ("an upset", *r))
        };
        picks.extend(special);
        let mut links = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for (what, r) in picks {
            let job = r.place().job;
            let file = format!("game-{job}.html");
            if seen.insert(job) {
                std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
                let title = format!("{}: {} (game {job})", r.place().label, r.players.join(" vs "));
                let view = crate::record::game_view(r, &title)?;
                let path = dir.join(&file);
                std::fs::write(&path, reports::viewer::viewer_html(&view))
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            }
            links.push((format!("{what} ({} moves)", r.game.actions.len()), format!("games/{file}")));
        }
        let names: Vec<&str> = who.iter().map(|&p| t.config.participants[p].name.as_str()).collect();
        let label = t.games.get(group).map_or("?", |g| g.label.as_str());
        watch.push(reports::report::Watch { heading: format!("{label} — {}", names.join(" vs ")), links });
    }
    Ok(watch)
}

/// Game entries to chart side by side: the same game and table with and without dice.
fn side_by_side(t: &Tournament) -> Vec<(usize, usize, String)> {
    let dice = |g: &ResolvedGame| g.spec.params_yaml().get("dice").and_then(|v| v.as_bool());
    let mut pairs = Vec::new();
    for (i, a) in t.games.iter().enumerate() {
        for (j, b) in t.games.iter().enumerate() {
            if a.spec.game() == b.spec.game() && a.seats == b.seats && dice(a) == Some(true) && dice(b) == Some(false) {
                pairs.push((i, j, format!("{}: dice game and no-dice variant", a.spec.game())));
            }
        }
    }
    pairs
}
