//! Running games on a pool of worker threads (the engine stays synchronous: one game per
//! worker at a time), logging each as it finishes, with a progress bar.
//!
//! Every agent is asked through a [`SeatView`] with the per-move limit as its budget. An agent
//! that panics or reports an error (crash), takes longer than the limit (timeout) or chooses
//! an action that is not legal (illegal) loses that game: it stops there, the verdict is
//! logged, and the tournament goes on. In-process agents cannot be stopped mid-move, so a
//! timeout is judged when the move returns; agents across the wire are stopped by the server.

use super::config::ResolvedGame;
use super::log::{GameRecord, LogWriter, Verdict, VerdictKind};
use super::rate::{rated_games, score_shares};
use super::schedule::Job;
use bots::{Agent, Budget, SeatView};
use engine::core::{AnySpec, game_seed};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
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

thread_local! {
    static PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

type PanicHook = Box<dyn Fn(&std::panic::PanicHookInfo<'_>) + Sync + Send + 'static>;

/// While alive, panics are recorded (for the crash verdict) instead of printed.
struct QuietPanics(Option<PanicHook>);

impl QuietPanics {
    fn install() -> QuietPanics {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(|info| {
            let msg = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
            PANIC.with(|p| *p.borrow_mut() = Some(format!("panicked: {msg}{at}")));
        }));
        QuietPanics(Some(previous))
    }
}

impl Drop for QuietPanics {
    fn drop(&mut self) {
        if let Some(previous) = self.0.take() {
            std::panic::set_hook(previous);
        }
    }
}

/// Play one scheduled game to its end (or to a verdict).
pub fn play_job(
    job: &Job,
    game: &ResolvedGame,
    names: &[String],
    factory: &AgentFactory,
    move_time: Option<Duration>,
) -> Result<GameRecord, String> {
    let start = Instant::now();
    let spec = game.spec.as_ref();
    let mut g = spec.new_game(job.seed);
    let mut agents = Vec::with_capacity(job.seats.len());
    for (seat, &p) in job.seats.iter().enumerate() {
        let seed = game_seed(job.seed, 1 + seat as u64 + 16 * p as u64);
        agents.push(factory(p, spec, seed).map_err(|e| format!("{}: {e}", names[p]))?);
    }
    let budget = Budget { per_move: move_time };
    let (mut moves, mut move_ms, mut verdicts) = (Vec::new(), Vec::new(), Vec::new());
    let mut legal = Vec::new();
    while let Some(seat) = g.to_move() {
        legal.clear();
        g.legal_actions(&mut legal);
        let view = SeatView::local(g.as_ref(), seat, &legal, budget);
        let agent = &mut agents[seat.index()];
        let t = Instant::now();
        let chosen = catch_unwind(AssertUnwindSafe(|| agent.act(&view)));
        let took = t.elapsed();
        move_ms.push(took.as_secs_f32() * 1e3);
        let verdict = |kind, detail: String| Verdict {
            seat: seat.index(),
            participant: names[job.seats[seat.index()]].clone(),
            kind,
            at_move: moves.len(),
            detail,
        };
        if let Some(limit) = move_time
            && took > limit
        {
            let detail = format!("took {} ms, the limit is {} ms", took.as_millis(), limit.as_millis());
            verdicts.push(verdict(VerdictKind::Timeout, detail));
            break;
        }
        let action = match chosen {
            Err(_) => {
                let msg = PANIC.with(|p| p.borrow_mut().take()).unwrap_or_else(|| "panicked".into());
                verdicts.push(verdict(VerdictKind::Crash, msg));
                break;
            }
            Ok(Err(e)) => {
                verdicts.push(verdict(VerdictKind::Crash, e.to_string()));
                break;
            }
            Ok(Ok(a)) => a,
        };
        if let Err(e) = g.apply(action) {
            verdicts.push(verdict(VerdictKind::Illegal, format!("{e}; legal: {legal:?}")));
            break;
        }
        moves.push(action);
    }
    let n = job.seats.len();
    let (scores, ranks, metrics) = match (verdicts.first(), g.outcome()) {
        // The seat with a verdict loses: last, the others tie for first.
        (Some(v), _) => {
            let ranks = (0..n).map(|s| if s == v.seat { (n - 1) as u8 } else { 0 }).collect();
            (vec![0; n], ranks, Default::default())
        }
        (None, Some(o)) => {
            let metrics = g.metrics().into_iter().map(|m| (m.name.to_string(), m.value)).collect();
            (o.scores, o.ranks, metrics)
        }
        (None, None) => return Err(format!("game {} ended without an outcome", job.id)),
    };
    let params = serde_json::to_value(spec.params_yaml()).map_err(|e| e.to_string())?;
    Ok(GameRecord {
        job: job.id,
        group: job.group,
        label: game.label.clone(),
        game: spec.game().to_string(),
        params,
        deal: job.deal,
        seed: job.seed,
        seats: job.seats.clone(),
        participants: job.seats.iter().map(|&p| names[p].clone()).collect(),
        scores,
        ranks,
        metrics,
        moves,
        move_ms,
        verdicts,
        play_ms: start.elapsed().as_secs_f64() * 1e3,
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
    done: &mut Vec<GameRecord>,
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
    let (tx, rx) = mpsc::channel::<Result<GameRecord, String>>();
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
            stats.playing += Duration::from_secs_f64(record.play_ms / 1e3);
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
