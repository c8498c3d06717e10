//! `arena bench-ladder`: the ladder's figures, on this machine.
//!
//! - Throughput: a ladder (expedition no-dice, 2 players, no anchors) in this process, and
//!   Play clients (a built-in agent, random by default, over real sockets on 127.0.0.1) that together
//!   keep `clients × games_each / 2` games in flight: decisions a second, counted by the
//!   server, over `--seconds` after a warm-up, with the games finished and stored.
//! - A refit (every stored result, with bootstrap intervals, the overall list and the entry's)
//!   of a ladder of 1,000 and of 10,000 agents (`--refit-agents`), each with 20 rated results
//!   (`--results-per-agent`; made up: [`arena::ladder::synthetic`]), from nothing and from the
//!   last refit; the wait for a refit is at most `refit_ms` on top.
//! - Restart: the largest of those stores opened as a restarting ladder opens it: the store
//!   read and the last refit served, before it listens (the next refit in the background).
//! - With `--workers 1,2`, instead: a ladder process whose games of anchors are played by that
//!   many `arena worker` processes (each `--worker-slots` games at once), the counts run in
//!   turn, `--repeats` times: games a second, and the ladder's own CPU time per game and per
//!   decision it relayed (read from /proc), medians with their range.

use arena::ladder::Ladder;
use arena::ladder::config::LadderConfig;
use arena::server::{self, ServerConfig};
use clap::Args;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

#[derive(Args)]
pub struct BenchLadderArgs {
    /// Seconds of play measured (after two seconds of warm-up).
    #[arg(long, default_value_t = 10.0)]
    pub seconds: f64,
    /// Play clients, each a random agent over its own Play stream.
    #[arg(long, default_value_t = 8)]
    pub clients: usize,
    /// Games each client takes at once (Hello.max_games): games in flight are
    /// clients × games_each / 2.
    #[arg(long, default_value_t = 16)]
    pub games_each: u32,
    /// The refit's figures: a ladder of this many agents (comma-separated sizes), each with
    /// `--results-per-agent` rated results; the restart's over the largest.
    #[arg(long, value_delimiter = ',', default_value = "1000,10000")]
    pub refit_agents: Vec<usize>,
    #[arg(long, default_value_t = 20)]
    pub results_per_agent: usize,
    /// The built-in agent each client plays: `random` asks for no observation, the others
    /// read the typed observation (`rules` is the cheapest of them).
    #[arg(long, default_value = "random")]
    pub agent: String,
    /// Bootstrap resamples of each refit.
    #[arg(long, default_value_t = 200)]
    pub bootstrap: u32,
    /// Measure a ladder whose games are played by this many worker processes instead (each
    /// count in turn, comma-separated: `1,2`).
    #[arg(long, value_delimiter = ',')]
    pub workers: Vec<usize>,
    /// Games each worker plays at once.
    #[arg(long, default_value_t = 2)]
    pub worker_slots: u32,
    /// The anchors the workers' games are between (built-in agents, comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "random,rules,greedy")]
    pub anchors: Vec<String>,
    /// Rounds of the worker counts, in turn.
    #[arg(long, default_value_t = 3)]
    pub repeats: usize,
}

fn ladder_text(bootstrap: u32, cap: u32) -> String {
    format!(
        "name: bench\ngames:\n  - {{ game: expedition, preset: no-dice, params: {{ players: 2 }} }}\nmove_time_ms: \
         10000\nmax_games: 1\nmax_games_cap: {cap}\nbootstrap: {bootstrap}\nrefit_ms: 1000\nprovisional_games: 0\n"
    )
}

pub fn run(args: BenchLadderArgs) -> Result<(), String> {
    if !args.workers.is_empty() {
        return workers(&args);
    }
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| e.to_string())?;
    let scratch = std::env::temp_dir().join(format!("arena-bench-ladder-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let result = rt.block_on(measure(&args, &scratch));
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

async fn measure(args: &BenchLadderArgs, scratch: &std::path::Path) -> Result<(), String> {
    let text = ladder_text(args.bootstrap, args.games_each.max(1));
    let config = LadderConfig::parse("bench", &text)?;
    let data = scratch.join("played");
    let running = server::start("127.0.0.1:0".parse().expect("an address"), ServerConfig::default()).await?;
    let ladder = Ladder::open(config.clone(), None, &text, running.hub.clone(), &data)?;
    ladder.start();
    let url = running.url();
    let mut stops = Vec::new();
    for k in 0..args.clients {
        let (stop, stopped) = tokio::sync::oneshot::channel();
        stops.push(stop);
        // Each client from an address of its own: one client's agents never meet.
        let who = arena::client::Identity {
            name: format!("random-{k}"),
            max_games: args.games_each,
            source: Some(std::net::IpAddr::from([127, 0, 1, 1 + k as u8])),
            ..Default::default()
        };
        let (url, agent) = (url.clone(), args.agent.clone());
        tokio::spawn(async move { arena::client::run_bot(&url, &agent, who, k as u64, Some(stopped)).await });
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (d0, g0, t0) =
        (running.hub.next_request.load(Ordering::Relaxed), ladder.standings.borrow().games, Instant::now());
    let mut in_flight = Vec::new();
    while t0.elapsed().as_secs_f64() < args.seconds {
        tokio::time::sleep(Duration::from_millis(250)).await;
        in_flight.push(ladder.in_play());
    }
    let elapsed = t0.elapsed().as_secs_f64();
    let decisions = running.hub.next_request.load(Ordering::Relaxed) - d0;
    for s in stops {
        let _ = s.send(());
    }
    let stored = ladder.with_store(|s| s.games())?;
    let played = stored - g0;
    in_flight.sort_unstable();
    outln!(
        "throughput: {:.0} decisions/s, {:.0} games/s ({} {} clients, median {} games in flight, {:.1} s; {} decisions, {} \
         games stored)",
        decisions as f64 / elapsed,
        played as f64 / elapsed,
        args.clients,
        args.agent,
        in_flight.get(in_flight.len() / 2).copied().unwrap_or(0),
        elapsed,
        decisions,
        played
    );
    running.stop().await?;

    if played == 0 {
        return Err("no game was played in the time measured".into());
    }

    // What a refit costs as agents grow, and a restart over the largest store.
    let mut largest = None;
    for &agents in &args.refit_agents {
        let results = agents * args.results_per_agent;
        let dir = scratch.join(format!("refit-{agents}"));
        let start = Instant::now();
        arena::ladder::synthetic::fill(&config, &text, &dir, agents, results, 1)?;
        let filled = start.elapsed().as_secs_f64();
        let running = server::start("127.0.0.1:0".parse().expect("an address"), ServerConfig::default()).await?;
        let ladder = Ladder::open(config.clone(), None, &text, running.hub.clone(), &dir)?;
        let refit = |ladder: std::sync::Arc<Ladder>| async move {
            tokio::task::spawn_blocking(move || {
                let start = Instant::now();
                ladder.refit_now().map(|_| start.elapsed().as_secs_f64())
            })
            .await
            .map_err(|e| e.to_string())?
        };
        let cold = refit(ladder.clone()).await?;
        let warm = refit(ladder.clone()).await?;
        outln!(
            "refit: {agents} agents, {results} rated results, {} resamples on {} threads: {:.2} s from nothing, \
             {:.2} s from the last refit (the store written in {filled:.1} s)",
            args.bootstrap,
            config.refit_threads(),
            cold,
            warm
        );
        running.stop().await?;
        largest = Some((dir, agents, results));
    }

    // A restart over the largest: the store read, the last refit served, before listening.
    if let Some((dir, agents, results)) = largest {
        let running = server::start("127.0.0.1:0".parse().expect("an address"), ServerConfig::default()).await?;
        let start = Instant::now();
        let reopened = Ladder::open(config, None, &text, running.hub.clone(), &dir)?;
        let took = start.elapsed().as_secs_f64();
        let s = reopened.standings.borrow().clone();
        outln!(
            "restart: {agents} agents, {results} rated results: opened and serving the last refit ({} rated, {} ranked) \
             in {took:.2} s; the next refit runs in the background",
            s.rated_games,
            s.lists[0].1.entries.len(),
        );
        running.stop().await?;
    }
    Ok(())
}

/// A process's CPU time so far (user and system), from /proc.
fn cpu_seconds(pid: u32) -> Result<f64, String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).map_err(|e| format!("/proc/{pid}/stat: {e}"))?;
    // The fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).ok_or("a malformed /proc stat")?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok()).ok_or("a malformed /proc stat");
    // SAFETY: sysconf only reads a configuration value.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    Ok((ticks(11)? + ticks(12)?) / hz)
}

/// A child process killed when dropped.
struct Child(std::process::Child);
impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One measurement: a ladder process and `n` workers, `seconds` of play after a warm-up.
/// Games a second, and the ladder's CPU seconds per game and per decision.
fn measure_workers(args: &BenchLadderArgs, dir: &std::path::Path, n: usize) -> Result<(f64, f64, f64), String> {
    use std::io::BufRead;
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let keys: String = (0..n).map(|k| format!("w{k}=bench-worker-key-{k:08}\n")).collect();
    std::fs::write(dir.join("workers.txt"), keys).map_err(|e| e.to_string())?;
    let anchors: String = args.anchors.iter().map(|a| format!("  - {{ name: {a}, bot: \"{a}\" }}\n")).collect();
    let text = format!(
        "name: bench\ngames:\n  - {{ game: expedition, preset: no-dice, params: {{ players: 2 }} }}\nanchors:\n{anchors}\
         anchor_interval: 0\nanchor_games: 64\nprovisional_games: 0\nbootstrap: {}\nrefit_ms: 1000\n\
         workers: {{ keys: workers.txt, slots: 64 }}\n",
        args.bootstrap
    );
    let file = dir.join("ladder.yaml");
    std::fs::write(&file, text).map_err(|e| e.to_string())?;
    let data = dir.join("data");
    let mut ladder = Child(
        std::process::Command::new(&exe)
            .args(["ladder", &file.display().to_string(), "--data", &data.display().to_string()])
            .args(["--addr", "127.0.0.1:0"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start the ladder: {e}"))?,
    );
    let mut line = String::new();
    let out = ladder.0.stdout.take().ok_or("no stdout")?;
    std::io::BufReader::new(out).read_line(&mut line).map_err(|e| e.to_string())?;
    let addr = line.trim().rsplit(' ').next().ok_or("the ladder did not say where it serves")?;
    let url = format!("http://{addr}");
    let _workers: Vec<Child> = (0..n)
        .map(|k| {
            std::process::Command::new(&exe)
                .args(["worker", "--ladder", &url, "--name", &format!("w{k}"), "--no-sandbox"])
                .args([
                    "--slots",
                    &args.worker_slots.to_string(),
                    "--data",
                    &dir.join(format!("w{k}")).display().to_string(),
                ])
                .env("ARENA_WORKER_KEY", format!("bench-worker-key-{k:08}"))
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .map(Child)
                .map_err(|e| format!("cannot start a worker: {e}"))
        })
        .collect::<Result<_, _>>()?;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
    let games = || {
        rt.block_on(async {
            let channel = arena::client::connect(&url).await?;
            let mut c = proto::v1::ladder_client::LadderClient::new(channel);
            c.standings(proto::v1::StandingsRequest { offset: 0, limit: 1, search: String::new() })
                .await
                .map(|r| r.into_inner().games)
                .map_err(|e| e.message().to_string())
        })
    };
    std::thread::sleep(Duration::from_secs(2));
    let pid = ladder.0.id();
    let (g0, c0, t0) = (games()?, cpu_seconds(pid)?, Instant::now());
    std::thread::sleep(Duration::from_secs_f64(args.seconds));
    let (g1, c1, elapsed) = (games()?, cpu_seconds(pid)?, t0.elapsed().as_secs_f64());
    drop(_workers);
    drop(ladder);
    let played = g1.saturating_sub(g0);
    if played == 0 {
        return Err(format!("no game was played by {n} workers in the time measured"));
    }
    // Decisions a game, from the games stored.
    let store = arena::ladder::store::Store::open(&data)?;
    let all = store.all_games()?;
    let decisions = all.iter().map(|g| g.record.game.actions.len()).sum::<usize>() as f64 / all.len().max(1) as f64;
    let cpu = (c1 - c0) / played as f64;
    Ok((played as f64 / elapsed, cpu, cpu / decisions))
}

fn workers(args: &BenchLadderArgs) -> Result<(), String> {
    let scratch = std::env::temp_dir().join(format!("arena-bench-workers-{}", std::process::id()));
    let mut runs: Vec<Vec<(f64, f64, f64)>> = vec![Vec::new(); args.workers.len()];
    let mut result = Ok(());
    'rounds: for round in 0..args.repeats {
        for (i, &n) in args.workers.iter().enumerate() {
            match measure_workers(args, &scratch.join(format!("r{round}-w{n}")), n) {
                Ok(m) => runs[i].push(m),
                Err(e) => {
                    result = Err(e);
                    break 'rounds;
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    result?;
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        (v[v.len() / 2], v[0], v[v.len() - 1])
    };
    for (i, &n) in args.workers.iter().enumerate() {
        let (g, g_lo, g_hi) = median(runs[i].iter().map(|r| r.0).collect());
        let (c, c_lo, c_hi) = median(runs[i].iter().map(|r| r.1 * 1e3).collect());
        let (d, d_lo, d_hi) = median(runs[i].iter().map(|r| r.2 * 1e6).collect());
        outln!(
            "workers: {n} × {} slots ({}): {g:.0} games/s ({g_lo:.0}–{g_hi:.0}); the ladder's CPU {c:.2} ms a game \
             ({c_lo:.2}–{c_hi:.2}), {d:.1} µs a decision relayed ({d_lo:.1}–{d_hi:.1}); median of {} runs, {} s each",
            args.worker_slots,
            args.anchors.join(", "),
            args.repeats,
            args.seconds
        );
    }
    Ok(())
}
