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
use crate::record::{MatchRecord, TournamentGame};
use crate::referee::{Policy, QuietPanics, Referee, SeatAgent, play_game};
use bots::Agent;
use engine::core::{AnySpec, game_seed};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Builds the agent of a participant for one game: (participant, game, seed).
pub type AgentFactory<'a> = dyn Fn(usize, &dyn AnySpec, u64) -> Result<Box<dyn Agent>, String> + Sync + 'a;

pub struct RunOptions {
    pub workers: usize,
    /// The per-move limit, if any.
    pub move_time: Option<Duration>,
    /// Show a progress bar (on a terminal).
    pub progress: bool,
}

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct RunStats {
    pub games: usize,
    pub wall: Duration,
    /// Time spent inside games (agents and engine), summed over the workers.
    pub playing: Duration,
    pub workers: usize,
    pub verdicts: usize,
}

impl RunStats {
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
    move_time: Option<Duration>,
) -> Result<MatchRecord, String> {
    let start = Instant::now();
    let spec = game.spec.as_ref();
    let mut agents = Vec::with_capacity(job.seats.len());
    for (seat, &p) in job.seats.iter().enumerate() {
        let seed = game_seed(job.seed, 1 + seat as u64 + 16 * p as u64);
        let agent = factory(p, spec, seed).map_err(|e| format!("{}: {e}", names[p]))?;
        agents.push(SeatAgent::new(agent, move_time));
    }
    // A verdict forfeits the game: the seat at fault loses it.
    let referee = Referee::new(move_time, Policy::Forfeit, job.seed);
    let played = play_game(spec.new_game(job.seed), agents, referee, |_, _, _| {});
    let metrics = match played.outcome.forfeited_by {
        None => played.game.metrics().into_iter().map(|m| (m.name.to_string(), m.value)).collect(),
        Some(_) => Default::default(),
    };
    let mut record = spec.record(job.seed, None);
    record.actions = played.actions;
    Ok(MatchRecord {
        game: record,
        players: job.seats.iter().map(|&p| names[p].clone()).collect(),
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
) -> Result<RunStats, String> {
    let _quiet = QuietPanics::install();
    let cooperative: Vec<bool> = games.iter().map(|g| g.cooperative).collect();
    let bar = ProgressBar::new(jobs.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games, {per_sec}, eta {eta} — leader: {msg}")
            .map_err(|e| e.to_string())?,
    );
    if !opts.progress {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    let workers = opts.workers.clamp(1, jobs.len().max(1));
    let next = AtomicUsize::new(0);
    let start = Instant::now();
    let mut stats = RunStats { workers, ..RunStats::default() };
    let (tx, rx) = mpsc::channel::<Result<MatchRecord, String>>();
    let result = std::thread::scope(|scope| -> Result<(), String> {
        for _ in 0..workers {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(job) = jobs.get(i) else { break };
                    let record = play_job(job, &games[job.group], names, factory, opts.move_time);
                    let failed = record.is_err();
                    if tx.send(record).is_err() || failed {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for record in rx {
            let record = match record {
                Ok(r) => r,
                Err(e) => {
                    // Stop handing out games; those in flight finish and are dropped.
                    next.store(usize::MAX / 2, Ordering::Relaxed);
                    return Err(e);
                }
            };
            log.append(&record)?;
            stats.games += 1;
            stats.playing += Duration::from_secs_f64(record.place().play_ms / 1e3);
            stats.verdicts += record.verdicts.len();
            done.push(record);
            if stats.games % 8 == 1 || stats.games == jobs.len() {
                let shares = score_shares(&rated_games(done, &cooperative), names.len());
                let leader = (0..names.len())
                    .filter(|&p| shares[p].1 > 0.0)
                    .max_by(|&a, &b| (shares[a].0 / shares[a].1).total_cmp(&(shares[b].0 / shares[b].1)));
                if let Some(p) = leader {
                    bar.set_message(format!("{} ({:.0}%)", names[p], 100.0 * shares[p].0 / shares[p].1));
                }
            }
            bar.inc(1);
        }
        Ok(())
    });
    bar.finish_and_clear();
    stats.wall = start.elapsed();
    result.map(|()| stats)
}
