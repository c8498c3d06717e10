//! `arena bench-sandbox`: what a launched agent's sandbox costs, on this machine, by the same
//! loops with and without it, interleaved (a pair of runs at a time, so that a drift of the
//! machine's speed moves both sides alike).
//!
//! - **A start**: `true` launched in the sandbox a launched agent gets (bubblewrap, the
//!   relay, no network but a Unix socket), against `sh -c true` launched plainly, each waited
//!   for: the cost of a tournament participant's start, and of each game of a ladder's
//!   submission.
//! - **A decision**: `arena bot random` launched as a Play client of a server in this process,
//!   once in the sandbox (through its relay to the server's Unix socket) and once plainly
//!   (TCP on 127.0.0.1); matches of it against a built-in random agent (expedition no-dice),
//!   each round a match of each: a match's time over its moves (the launched agent's are
//!   about half of them; the other seat's are the same on both sides).
//!
//! Medians with the min and max of each side, and the median of the pairwise ratios.

use arena::launch::{Launch, STDERR_TAIL};
use arena::sandbox::Sandbox;
use arena::server::{self, ServerConfig};
use clap::Args;
use proto::v1;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

#[derive(Args)]
pub struct BenchSandboxArgs {
    /// Starts measured on each side.
    #[arg(long, default_value_t = 30)]
    pub starts: usize,
    /// Rounds of matches (one a side each).
    #[arg(long, default_value_t = 15)]
    pub rounds: usize,
}

pub fn run(args: BenchSandboxArgs) -> Result<(), String> {
    let arena = std::env::current_exe().map_err(|e| format!("cannot find the arena's binary: {e}"))?;
    let dir = tempfile::Builder::new().prefix("arena-bench-sandbox-").tempdir().map_err(|e| e.to_string())?;
    let socket = dir.path().join("play.sock");
    let sandbox = Sandbox::new().arena_only(&socket, &arena);
    sandbox.check(&[])?;
    outln!(
        "a start: `true` in a launched agent's sandbox, against `sh -c true` ({} of each, interleaved)",
        args.starts
    );
    let mut pairs = Vec::new();
    for _ in 0..args.starts.max(1) {
        let boxed = time(|| sandbox.wrap(&[], &["true".into()]).map(|mut c| c.status()))?;
        let plain = time(|| Ok(std::process::Command::new("sh").args(["-c", "true"]).status()))?;
        pairs.push((boxed, plain));
    }
    report("start", &pairs, "ms", 1e3);

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let pairs = rt.block_on(decisions(&args, &arena, &socket, dir.path()))?;
    outln!();
    outln!(
        "a move: matches of `arena bot random` in its sandbox (through its relay) against unconfined (TCP), {} each",
        args.rounds
    );
    report("move", &pairs, "µs", 1e6);
    Ok(())
}

/// How long `f`'s command took, start to end; it must succeed.
fn time(f: impl FnOnce() -> Result<std::io::Result<std::process::ExitStatus>, String>) -> Result<Duration, String> {
    let start = Instant::now();
    let status = f()?.map_err(|e| format!("cannot launch: {e}"))?;
    let took = start.elapsed();
    if !status.success() {
        return Err(format!("the command failed: {status}"));
    }
    Ok(took)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn report(what: &str, pairs: &[(Duration, Duration)], unit: &str, scale: f64) {
    let side = |f: fn(&(Duration, Duration)) -> Duration| {
        let v: Vec<f64> = pairs.iter().map(|p| f(p).as_secs_f64() * scale).collect();
        let (lo, hi) = v.iter().fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
        (median(v), lo, hi)
    };
    let (bm, bl, bh) = side(|p| p.0);
    let (pm, pl, ph) = side(|p| p.1);
    let ratio = median(pairs.iter().map(|p| p.0.as_secs_f64() / p.1.as_secs_f64().max(1e-9)).collect());
    outln!("  sandboxed    {bm:>10.1} {unit} a {what} (median; {bl:.1} to {bh:.1})");
    outln!("  unconfined   {pm:>10.1} {unit} a {what} (median; {pl:.1} to {ph:.1})");
    outln!("  ratio        {ratio:>10.2}x (median of the pairs' ratios)");
}

/// Per round, a match's time per move, the launched client sandboxed and unconfined.
async fn decisions(
    args: &BenchSandboxArgs,
    arena: &std::path::Path,
    socket: &std::path::Path,
    dir: &std::path::Path,
) -> Result<Vec<(Duration, Duration)>, String> {
    let config = ServerConfig {
        move_time: None,
        shares: server::Shares::WHOLE,
        unix_socket: Some(socket.to_path_buf()),
        ..ServerConfig::default()
    };
    let running = server::start("127.0.0.1:0".parse().map_err(|e| format!("{e}"))?, config).await?;
    let stopping = Arc::new(AtomicBool::new(false));
    let mut launched = Vec::new();
    for (name, sandbox) in [("boxed", Some(Sandbox::new().arena_only(socket, arena))), ("plain", None)] {
        let words = format!("exec {} bot random --server $ARENA_SERVER --name $ARENA_NAME", arena.display());
        let launch = Launch {
            name: name.into(),
            command: words,
            prefix: Vec::new(),
            sandbox,
            env: Vec::new(),
            cwd: None,
            echo_stderr: true,
            kept: STDERR_TAIL,
        };
        let log = dir.join(format!("{name}.log"));
        launched.push(launch.spawn(&running.url(), None, &log, stopping.clone())?);
        running
            .hub
            .wait_for_session(name, Duration::from_secs(20))
            .await
            .ok_or_else(|| format!("`{name}` did not connect"))?;
    }
    let game = engine::find_game("expedition").map_err(|e| e.to_string())?;
    let spec: Arc<dyn engine::core::AnySpec> =
        (game.spec)(Some("no-dice"), &[], &arena::files::refuse_files).map_err(|e| e.to_string())?.into();
    let mut pairs = Vec::new();
    for round in 0..args.rounds.max(1) {
        let one = |name: &'static str| {
            let hub = running.hub.clone();
            let spec = spec.clone();
            async move {
                let seats = [v1::seat_spec::Player::Play(name.into()), v1::seat_spec::Player::Bot("random".into())]
                    .map(|p| v1::SeatSpec { player: Some(p) });
                let names = [name.to_string(), "random".to_string()];
                let start = Instant::now();
                let table = hub
                    .create_hosted(
                        &arena::server::ClientId::Host,
                        "expedition",
                        "no-dice",
                        spec,
                        1000 + round as u64,
                        &seats,
                        &names,
                        None,
                        None,
                        None,
                    )
                    .map_err(|e| e.message().to_string())?;
                table.wait_over().await;
                let took = start.elapsed();
                let record = table.record().map_err(|e| e.message().to_string())?;
                Ok::<_, String>(took / record.game.actions.len().max(1) as u32)
            }
        };
        let boxed = one("boxed").await?;
        let plain = one("plain").await?;
        pairs.push((boxed, plain));
    }
    running.stop().await?;
    stopping.store(true, std::sync::atomic::Ordering::Relaxed);
    for mut l in launched {
        l.join();
        l.watch.stop(Duration::from_secs(1));
    }
    Ok(pairs)
}
