//! `arena tournament` and `arena report`: the command line over [`arena::tournament`].

use crate::setup::load_file;
use arena::tournament::{self, Tournament, config, external, run, schedule::Shard};
use clap::Args;
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(Args)]
pub struct TournamentArgs {
    /// The tournament file (YAML). Without one, the embedded default tournament is played.
    pub file: Option<PathBuf>,
    /// The directory to write the log and the report into.
    #[arg(long, value_name = "DIR", required_unless_present = "resume")]
    pub out: Option<PathBuf>,
    /// Finish the tournament stopped in DIR: only the games its log lacks are played. With
    /// `--shard K/N`, DIR must hold that shard (a check for scripts).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["file", "out", "games_per_pairing", "move_time_ms", "seed", "set"])]
    pub resume: Option<PathBuf>,
    /// Play only shard K of N of the schedule (0 ≤ K < N): games whose id is K modulo N.
    /// Merge the shards' directories with `arena report DIR...`.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Worker threads (default: the file's `concurrency`, or one per CPU: see --cpus).
    #[arg(long, visible_alias = "workers")]
    pub concurrency: Option<usize>,
    /// The CPUs this run may use (e.g. those a scheduler granted): one worker each, unless
    /// the file or --concurrency sets the workers (default: the CPUs this process may run on).
    /// Not kept for --resume.
    #[arg(long, value_name = "N")]
    pub cpus: Option<std::num::NonZeroUsize>,
    /// Deals per pairing, instead of the file's `games_per_pairing`.
    #[arg(long)]
    pub games_per_pairing: Option<u32>,
    /// The per-move limit in milliseconds (0: none), instead of the file's `move_time_ms`.
    #[arg(long)]
    pub move_time_ms: Option<u64>,
    /// The master seed, instead of the file's `seed`.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Set any field of the file: `--set bootstrap=200`, `--set participants[1].bot=mcts`,
    /// `--set gauntlet=mine` (repeatable; the value is read as YAML). Kept for `--resume`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Serve a web face on this address (port 0: any free port) while the tournament plays:
    /// its standings as games are rated, to the last game; it stays up after the end until
    /// Ctrl-C.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<std::net::SocketAddr>,
    #[command(flatten)]
    pub web: crate::net_cmd::WebFlags,
}

#[derive(Args)]
pub struct ReportArgs {
    /// Tournament directories: one run, or the shards of one tournament; or a ladder's data
    /// directory (`arena ladder --data DIR`).
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Where to write the report (default: DIR/report of the first directory).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Report even when games are missing or logged twice (they are named in the notes);
    /// without it, such a merge is an error naming the directories and shards at fault.
    #[arg(long)]
    pub allow_incomplete: bool,
}

fn options(t: &Tournament, args: &TournamentArgs) -> run::RunOptions {
    let progress = match (args.quiet, std::io::stderr().is_terminal()) {
        (true, _) => run::Progress::Silent,
        (false, true) => run::Progress::Bar,
        (false, false) => run::Progress::Lines,
    };
    run::RunOptions {
        workers: args.concurrency.unwrap_or_else(|| t.config.workers(args.cpus.map(|n| n.get()))),
        time: t.config.time_controls(),
        progress,
        live: None,
        showcase: None,
    }
}

/// A tournament's web face: a hub that shows the run's games as they are played (and bounds
/// the browsers as any server does), the standings as the run tells them.
struct Face {
    runtime: tokio::runtime::Runtime,
    hub: std::sync::Arc<arena::server::Hub>,
    live: run::Live,
    showcase: std::sync::Arc<dyn run::Showcase>,
}

impl Face {
    fn start(
        addr: std::net::SocketAddr,
        web: &crate::net_cmd::WebFlags,
        t: &Tournament,
        scheduled: usize,
    ) -> Result<Face, String> {
        let config = web.config()?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start tokio: {e}"))?;
        let (feed, live) = tournament::live::standings(tournament::live::Tournament::of(t, scheduled as u64))?;
        let hub = runtime.block_on(async {
            let hub = arena::server::Hub::new(arena::server::ServerConfig::default())?;
            let face = arena::web::Face {
                services: arena::server::service::Services { hub: hub.clone() },
                standings: Some(arena::web::Standings::Tournament(feed)),
            };
            let web = arena::web::start(addr, face, config).await?;
            outln!("the web face: {}", web.url());
            Ok::<_, String>(hub)
        })?;
        let showcase = std::sync::Arc::new(tournament::live::Shown::on(hub.clone(), t.has_external()));
        Ok(Face { runtime, hub, live, showcase })
    }

    /// The run is over: keep the standings up until Ctrl-C or SIGTERM.
    fn linger(self) {
        let stop = {
            let _inside = self.runtime.enter();
            arena::server::stop_signal()
        };
        outln!("the tournament is over: its web face stays up until Ctrl-C");
        self.runtime.block_on(stop);
        self.hub.stop();
        self.runtime.shutdown_timeout(std::time::Duration::from_secs(2));
    }
}

/// The command line's overrides of the file, as `KEY=VALUE`.
fn overrides(args: &TournamentArgs) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(n) = args.games_per_pairing {
        out.push(format!("games_per_pairing={n}"));
    }
    if let Some(n) = args.concurrency {
        out.push(format!("concurrency={n}"));
    }
    if let Some(n) = args.move_time_ms {
        out.push(format!("move_time_ms={n}"));
    }
    if let Some(n) = args.seed {
        out.push(format!("seed={n}"));
    }
    out.extend(args.set.iter().cloned());
    out
}

fn summary(outcome: &tournament::RunSummary) {
    let s = &outcome.stats;
    outln!(
        "played {} games ({} were logged before, {} in this share of the schedule) in {:.1} s with {} workers: {:.1} games/s; {:.1}% of the workers' time outside games",
        s.games,
        outcome.already_done,
        outcome.scheduled,
        s.wall.as_secs_f64(),
        s.workers,
        s.games as f64 / s.wall.as_secs_f64().max(1e-9),
        100.0 * s.overhead()
    );
    if let Some(line) = s.verdict_line() {
        outln!("{line}; see the report");
    }
}

pub fn run(args: TournamentArgs) -> Result<(), String> {
    let say = |line: String| eprintln!("{line}");
    if let Some(dir) = &args.resume {
        let (t, info) = tournament::load_dir(dir, &load_file)?;
        if let Some(asked) = args.shard.as_deref().map(Shard::parse).transpose()?
            && info.shard != Some(asked)
        {
            return Err(format!(
                "{} holds {}, not {}: one results folder serves one split of a tournament \
                 (the same shard count for every task); use another folder for another split",
                dir.display(),
                Shard::name(info.shard),
                Shard::name(Some(asked))
            ));
        }
        let mut opts = options(&t, &args);
        let face = args.http.map(|addr| Face::start(addr, &args.web, &t, scheduled(&t, info.shard))).transpose()?;
        opts.live = face.as_ref().map(|f| f.live.clone());
        opts.showcase = face.as_ref().map(|f| f.showcase.clone());
        let outcome =
            external::with_agents(&t, dir, &say, |factory| tournament::resume(&t, &info, dir, factory, &opts))?;
        summary(&outcome);
        print_report(&outcome);
        drop(opts);
        if let Some(face) = face {
            face.linger();
        }
        return Ok(());
    }
    let (source, text) = match &args.file {
        Some(p) => (p.display().to_string(), load_file(&p.display().to_string())?),
        None => ("the default tournament".to_string(), config::DEFAULT.to_string()),
    };
    let mut t = Tournament::load_with(&source, &text, &overrides(&args), &load_file)?;
    let shard = args.shard.as_deref().map(Shard::parse).transpose()?;
    // Deals a participant across the wire cannot know from the file.
    t.seal_for_new_run(shard)?;
    let out = args.out.clone().ok_or("--out DIR is needed")?;
    let mut opts = options(&t, &args);
    let face = args.http.map(|addr| Face::start(addr, &args.web, &t, scheduled(&t, shard))).transpose()?;
    opts.live = face.as_ref().map(|f| f.live.clone());
    opts.showcase = face.as_ref().map(|f| f.showcase.clone());
    let outcome = external::with_agents(&t, &out, &say, |factory| tournament::start(&t, &out, shard, factory, &opts))?;
    summary(&outcome);
    if shard.is_some() {
        outln!("shard written to {}; merge the shards with `arena report DIR...`", out.display());
    }
    print_report(&outcome);
    drop(opts);
    if let Some(face) = face {
        face.linger();
    }
    Ok(())
}

/// The games of `shard`'s share of the schedule (all of it without one).
fn scheduled(t: &Tournament, shard: Option<Shard>) -> usize {
    t.jobs.iter().filter(|j| shard.is_none_or(|s| s.holds(j))).count()
}

fn print_report(outcome: &tournament::RunSummary) {
    if let Some((report, list)) = &outcome.report {
        out!("{}", compact_standings(list));
        outln!("the method, every list and the notes: {}", report.join("standings.md").display());
        outln!("report: {}", report.join("index.html").display());
    }
}

/// The overall list in a few lines: rank, name, Elo with its 95% interval (not symmetric, so
/// both ends), games, score, and the likelihood of superiority over the next one down.
pub fn compact_standings(list: &reports::ratings::RatingList) -> String {
    use reports::stats::signed;
    let mut t =
        format!("{:>4}  {:<22} {:>20} {:>7} {:>7} {:>6}\n", "rank", "name", "Elo [95%]", "results", "score", "LOS");
    for e in &list.entries {
        let elo = match e.interval {
            Some((lo, hi)) => format!("{} [{}, {}]", signed(e.rating, 0), signed(lo, 0), signed(hi, 0)),
            None => signed(e.rating, 0),
        };
        let bound = if e.bound.is_some() { "*" } else { " " };
        let los = e.los_next.map_or(String::new(), |l| format!("{:.1}%", 100.0 * l));
        t += &format!(
            "{:>4}  {:<22} {:>19}{bound} {:>7} {:>6.1}% {:>6}\n",
            e.rank,
            e.name,
            elo,
            e.games,
            100.0 * e.score,
            los
        );
    }
    if list.entries.iter().any(|e| e.bound.is_some()) {
        t += "* only a bound: a perfect score against part of the pool (see the report)\n";
    }
    t
}

pub fn report(args: ReportArgs) -> Result<(), String> {
    let out = args.out.clone().unwrap_or_else(|| args.dirs[0].join("report"));
    let ladder = arena::ladder::store::Store::in_dir(&args.dirs[0]).filter(|_| args.dirs.len() == 1);
    let (dir, list, notes) = match ladder {
        Some(data) => {
            let (list, notes) = arena::ladder::write_report(&data, &out, 1000)?;
            (out.clone(), list, notes)
        }
        None => tournament::write_report(&args.dirs, &out, &load_file, args.allow_incomplete)?,
    };
    out!("{}", compact_standings(&list));
    for n in &notes {
        outln!("note: {n}");
    }
    outln!("the method, every list and the notes: {}", dir.join("standings.md").display());
    outln!("report: {}", dir.join("index.html").display());
    Ok(())
}
