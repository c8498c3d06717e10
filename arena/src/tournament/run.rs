//! Running games on a pool of worker threads (the engine stays synchronous: one game per
//! worker at a time), logging each as it finishes, with a progress bar.
//!
//! Every game is played by [`play_game`] under the [`Referee`]: an agent that panics or
//! reports an error (crash), runs past the per-move limit (timeout: one that never answers is
//! cut off and left behind) or chooses an action that is not legal (illegal) loses that game,
//! the verdict is logged, and the tournament goes on.

use super::config::ResolvedGame;
use super::log::LogWriter;
use super::rate::{rated_games, score_shares};
use super::schedule::Job;
use crate::pool::{Flow, Order};
use crate::record::{MatchRecord, TournamentGame};
use crate::referee::{Fault, MatchOutcome, Policy, QuietPanics, Referee, SeatAgent, TimeControl, Verdict, play_game};
use bots::Agent;
use engine::core::{ActionId, AnyGame, AnySpec, Seat, game_seed};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use reports::ratings::RatedGame;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Builds the agent of a participant for one game: (participant, game, seed).
pub type AgentFactory<'a> = dyn Fn(usize, &dyn AnySpec, u64) -> Result<Box<dyn Agent>, String> + Sync + 'a;

pub struct RunOptions {
    pub workers: usize,
    /// Each participant's time control (by its place in the file; the last stands for the
    /// rest, none for an empty list).
    pub time: Vec<TimeControl>,
    pub progress: Progress,
    /// Told the rated results so far and the games played, at most every second and at the
    /// end of a run (a web face's live standings).
    pub live: Option<Live>,
    /// Where each game is shown as it is played (a web face's matches in play).
    pub showcase: Option<std::sync::Arc<dyn Showcase>>,
}

/// Where a run shows its games as they are played, move by move (a web face's matches in
/// play, [`super::live::Shown`]). Showing never changes a game: it is told what the referee
/// already ruled.
pub trait Showcase: Send + Sync {
    /// These games are about to be played (each deal's games counted: a deal is over once
    /// they all are).
    fn scheduled(&self, jobs: &[Job]);
    /// A game starts from `start`, `players` at its seats.
    fn begin(&self, job: &Job, game: &ResolvedGame, players: &[String], start: &dyn AnyGame) -> Box<dyn ShownGame>;
}

/// One game being shown ([`Showcase::begin`]).
pub trait ShownGame {
    /// `seat` played `action` (before it is applied).
    fn moved(&mut self, seat: Seat, action: ActionId);
    /// The game is over, as the referee ruled.
    fn ended(self: Box<Self>, outcome: &MatchOutcome, verdicts: &[Verdict]);
}

/// What [`RunOptions::live`] is told: the rated results so far, the games played.
pub type Live = std::sync::Arc<dyn Fn(Vec<RatedGame>, usize) + Send + Sync>;

/// How often [`RunOptions::live`] is told at most.
const LIVE_EVERY: Duration = Duration::from_secs(1);

impl RunOptions {
    /// The same per-move limit for everyone, no progress shown.
    pub fn quiet(workers: usize, move_time: Option<Duration>) -> RunOptions {
        RunOptions {
            workers,
            time: vec![TimeControl::per_move(move_time)],
            progress: Progress::Silent,
            live: None,
            showcase: None,
        }
    }

    fn control(&self, participant: usize) -> TimeControl {
        self.time.get(participant).or(self.time.last()).copied().unwrap_or_default()
    }
}

/// How a run shows its progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// A progress bar (on a terminal).
    Bar,
    /// A line every few seconds (output not on a terminal).
    Lines,
    Silent,
}

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct RunStats {
    pub games: usize,
    pub wall: Duration,
    /// Time spent inside games (agents and engine), summed over the workers.
    pub playing: Duration,
    pub workers: usize,
    /// Games that ended by a verdict, by the verdict's kind.
    pub verdicts: BTreeMap<Fault, usize>,
}

impl RunStats {
    /// Count the game's verdict, if one ended it.
    pub fn count(&mut self, record: &MatchRecord) {
        let ended_by = record.outcome.forfeited_by.and_then(|seat| {
            record.verdicts.iter().find(|v| v.seat == seat && v.policy == Policy::Forfeit).map(|v| v.kind)
        });
        if let Some(kind) = ended_by {
            *self.verdicts.entry(kind).or_default() += 1;
        }
    }

    /// Add another run's counts to these (the games, the time, the verdicts).
    pub fn add(&mut self, other: &RunStats) {
        self.games += other.games;
        self.wall += other.wall;
        self.playing += other.playing;
        self.workers = other.workers;
        for (&kind, &n) in &other.verdicts {
            *self.verdicts.entry(kind).or_default() += n;
        }
    }

    /// The games that ended by a verdict, counted by kind: `10 games ended by a verdict:
    /// disconnected 10` (None when no game did).
    pub fn verdict_line(&self) -> Option<String> {
        let games: usize = self.verdicts.values().sum();
        let kinds: Vec<String> = self.verdicts.iter().map(|(k, n)| format!("{} {n}", k.name())).collect();
        let s = if games == 1 { "" } else { "s" };
        (games > 0).then(|| format!("{games} game{s} ended by a verdict: {}", kinds.join(", ")))
    }

    /// The share of the workers' time not spent inside games: scheduling, logging, waiting.
    pub fn overhead(&self) -> f64 {
        let capacity = self.wall.as_secs_f64() * self.workers as f64;
        if capacity <= 0.0 { 0.0 } else { (1.0 - self.playing.as_secs_f64() / capacity).max(0.0) }
    }
}

/// Play one scheduled game to its end (or to a verdict), judged by the referee.
pub fn play_job(
    job: &Job,
    game: &ResolvedGame,
    names: &[String],
    factory: &AgentFactory,
    opts: &RunOptions,
) -> Result<MatchRecord, String> {
    let start = Instant::now();
    let spec = game.spec.as_ref();
    let mut agents = Vec::with_capacity(job.seats.len());
    let controls: Vec<TimeControl> = job.seats.iter().map(|&p| opts.control(p)).collect();
    for (seat, &p) in job.seats.iter().enumerate() {
        let seed = game_seed(job.seed, 1 + seat as u64 + 16 * p as u64);
        let agent = factory(p, spec, seed).map_err(|e| format!("{}: {e}", names[p]))?;
        agents.push(SeatAgent::new(agent, controls[seat]));
    }
    let start_position = match &job.scenario {
        Some(yaml) => spec.scenario(job.seed, yaml).map_err(|e| format!("game {}: {e}", job.id))?,
        None => spec.new_game(job.seed),
    };
    // A verdict forfeits the game: the seat at fault loses it.
    let referee = Referee::with_controls(controls, Policy::Forfeit, job.seed);
    let players: Vec<String> = job.seats.iter().map(|&p| names[p].clone()).collect();
    let mut shown = opts.showcase.as_ref().map(|s| s.begin(job, game, &players, start_position.as_ref()));
    let played = play_game(start_position, agents, referee, |_, seat, action| {
        if let Some(s) = shown.as_mut() {
            s.moved(seat, action);
        }
    });
    if let Some(s) = shown {
        s.ended(&played.outcome, &played.verdicts);
    }
    let metrics = match played.outcome.forfeited_by {
        None => played.game.metrics().into_iter().map(|m| (m.name.to_string(), m.value)).collect(),
        Some(_) => Default::default(),
    };
    let mut record = spec.record(job.seed, job.scenario.as_deref());
    record.actions = played.actions;
    Ok(MatchRecord {
        game: record,
        players,
        outcome: played.outcome,
        verdicts: played.verdicts,
        metrics,
        move_ms: played.move_ms,
        match_id: None,
        tournament: Some(TournamentGame {
            job: job.id,
            group: job.group,
            label: game.label.clone(),
            deal: job.deal,
            seats: job.seats.clone(),
            play_ms: start.elapsed().as_secs_f64() * 1e3,
        }),
    })
}

/// The progress of a whole run, shown as a bar on a terminal or a line every few seconds
/// elsewhere, across every batch of games a run plays (a stopping rule plays deal by deal).
pub struct RunProgress {
    bar: ProgressBar,
    mode: Progress,
    /// Games of the run played and still to play (fewer as a stopping rule skips some).
    played: usize,
    total: usize,
    started: Instant,
    last_line: Instant,
}

impl RunProgress {
    /// A run of at most `total` games.
    pub fn new(total: usize, mode: Progress) -> Result<RunProgress, String> {
        let bar = ProgressBar::new(total as u64);
        bar.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} games, {per_sec}, eta {eta} — leader: {msg}")
                .map_err(|e| e.to_string())?,
        );
        if mode != Progress::Bar {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        let now = Instant::now();
        Ok(RunProgress { bar, mode, played: 0, total, started: now, last_line: now })
    }

    /// `n` games of the run will not be played after all.
    pub fn skip(&mut self, n: usize) {
        self.total = self.total.saturating_sub(n).max(self.played);
        self.bar.set_length(self.total as u64);
    }

    fn played_one(&mut self, leader: Option<String>) {
        self.played += 1;
        if let Some(l) = &leader {
            self.bar.set_message(l.clone());
        }
        if self.mode == Progress::Lines && self.last_line.elapsed() >= Duration::from_secs(5) {
            // Output that is not a terminal gets a line every few seconds instead.
            let rate = self.played as f64 / self.started.elapsed().as_secs_f64().max(1e-9);
            let eta = self.total.saturating_sub(self.played) as f64 / rate.max(1e-9);
            eprintln!(
                "{}/{} games, {rate:.1} games/s, eta {eta:.0} s — leader: {}",
                self.played,
                self.total,
                leader.unwrap_or_else(|| "none yet".into())
            );
            self.last_line = Instant::now();
        }
        self.bar.inc(1);
    }

    /// Is a line or a new leader due (so that the leader is worth computing)?
    fn due(&self) -> bool {
        self.played.is_multiple_of(8)
            || self.played + 1 == self.total
            || (self.mode == Progress::Lines && self.last_line.elapsed() >= Duration::from_secs(5))
    }
}

impl Drop for RunProgress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// Play `jobs` on `opts.workers` threads, appending each finished game to `log` as it comes
/// (`done` holds the records already logged, for the leader shown).
#[allow(clippy::too_many_arguments)]
pub fn run_jobs(
    jobs: &[Job],
    games: &[ResolvedGame],
    names: &[String],
    factory: &AgentFactory,
    opts: &RunOptions,
    log: &mut LogWriter,
    done: &mut Vec<MatchRecord>,
    progress: &mut RunProgress,
) -> Result<RunStats, String> {
    let _quiet = QuietPanics::install();
    let workers = opts.workers.clamp(1, jobs.len().max(1));
    let start = Instant::now();
    let mut stats = RunStats { workers, ..RunStats::default() };
    let mut told = Instant::now();
    if let Some(s) = &opts.showcase {
        s.scheduled(jobs);
    }
    let play = |i: u64| {
        let job = &jobs[i as usize];
        play_job(job, &games[job.group], names, factory, opts)
    };
    // Records are logged as they are done; a failure stops handing out games (those in
    // flight finish and are dropped).
    let result = crate::pool::run(workers, jobs.len() as u64, Order::Arrival, play, |_, record| {
        log.append(&record)?;
        stats.games += 1;
        stats.playing += Duration::from_secs_f64(record.place().play_ms / 1e3);
        stats.count(&record);
        done.push(record);
        let leader = progress.due().then(|| {
            let shares = score_shares(&rated_games(done, games), names.len());
            (0..names.len())
                .filter(|&p| shares[p].1 > 0.0)
                .max_by(|&a, &b| (shares[a].0 / shares[a].1).total_cmp(&(shares[b].0 / shares[b].1)))
                .map(|p| format!("{} ({:.0}%)", names[p], 100.0 * shares[p].0 / shares[p].1))
        });
        progress.played_one(leader.flatten());
        if let Some(live) = &opts.live
            && told.elapsed() >= LIVE_EVERY
        {
            live(rated_games(done, games), done.len());
            told = Instant::now();
        }
        Ok(Flow::Continue)
    });
    if let Some(live) = &opts.live {
        live(rated_games(done, games), done.len());
    }
    stats.wall = start.elapsed();
    result.map(|()| stats)
}
