//! `arena`: list the games, play series of games with built-in agents, run tournaments and
//! report them, replay records, and benchmark the engine.

/// Print to stdout; a closed pipe (`arena play --trace | head`) ends the program quietly.
macro_rules! out {
    ($($t:tt)*) => { $crate::write_out(format_args!($($t)*)) };
}
macro_rules! outln {
    () => { $crate::write_out(format_args!("\n")) };
    ($($t:tt)*) => { $crate::write_out(format_args!("{}\n", format_args!($($t)*))) };
}

mod bench;
mod compare_cmd;
mod games;
mod hostbench;
mod ladder_cmd;
mod ladderbench;
mod net_cmd;
mod netbench;
mod play;
mod sandboxbench;
mod setup;
mod tournament_cmd;
mod webbench;
mod worker_cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "arena", version, about = "Tabletop Arena: pit game-playing agents against each other")]
struct Cli {
    /// Log more (repeat for more detail); RUST_LOG-style filtering is not needed here.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the games, their presets and every parameter with its value in each preset.
    Games(games::GamesArgs),
    /// Play a series of games with built-in agents and print a summary.
    Play(play::PlayArgs),
    /// Replay recorded games (from `play --records FILE`) and check they replay.
    Replay(play::ReplayArgs),
    /// Benchmark random play and state cloning for every game, preset and seat count.
    Bench(bench::BenchArgs),
    /// Run a round-robin tournament (the default one without a file) and write its report.
    Tournament(tournament_cmd::TournamentArgs),
    /// Rebuild a tournament's report from its log (or merge the logs of its shards).
    Report(tournament_cmd::ReportArgs),
    /// Benchmark the wire: remote against in-process decisions, round trips against an echo.
    BenchWire(netbench::BenchWireArgs),
    /// Benchmark the server's memory over many matches (finished matches evicted).
    BenchMemory(netbench::BenchMemoryArgs),
    /// Benchmark what one hostile client costs honest ones: decision round trips and
    /// success, with and without a client hammering every pool at its share.
    BenchHostile(hostbench::BenchHostileArgs),
    /// Is agent A stronger than agent B? Seat-swapped deal pairs until a sequential test
    /// (SPRT) decides, or a cap.
    Compare(compare_cmd::CompareArgs),
    /// The sequential test's error rates, by simulation.
    BenchSprt(compare_cmd::BenchSprtArgs),
    /// Run the gRPC game server.
    Serve(net_cmd::ServeArgs),
    /// Play seats of a server's matches with a built-in agent, over the Play stream.
    Bot(net_cmd::BotArgs),
    /// Run a standing ladder that Play clients join (`arena ladder FILE --data DIR`), or print
    /// one's standings (`arena ladder standings URL`).
    Ladder(ladder_cmd::LadderArgs),
    /// Play a ladder's games of anchors and submissions on this machine (the ladder's file has
    /// a `workers:` section): pulled, played, their moves shown live, their records reported.
    Worker(worker_cmd::WorkerArgs),
    /// Benchmark a ladder: decisions a second with many games in flight, a refit's time, a
    /// restart over many stored games.
    BenchLadder(ladderbench::BenchLadderArgs),
    /// Benchmark the web face: a move's delay from the referee to pages watching its match.
    BenchWeb(webbench::BenchWebArgs),
    /// Benchmark a launched agent's sandbox: a start, and a move through its relay, each
    /// against the same unconfined.
    BenchSandbox(sandboxbench::BenchSandboxArgs),
    /// (Run by the arena in an agent's sandbox: the agent's command, with the arena's server
    /// relayed from the sandbox's own loopback to its Unix socket.)
    #[command(hide = true)]
    SandboxRelay(arena::relay::RelayArgs),
}

fn write_out(args: std::fmt::Arguments) {
    use std::io::Write;
    if let Err(e) = std::io::stdout().lock().write_fmt(args) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: cannot write to stdout: {e}");
        std::process::exit(2);
    }
}

fn main() -> ExitCode {
    // SAFETY: the program's first act, before any thread starts: nothing else reads the
    // environment meanwhile.
    unsafe {
        arena::sandbox::scrub_environment();
        arena::tournament::take_deal_secret_env();
    }
    let cli = Cli::parse();

    // A server logs what it does by default; the other commands only what goes wrong.
    let base = u8::from(matches!(
        cli.command,
        Command::Serve(_) | Command::Worker(_) | Command::Ladder(ladder_cmd::LadderArgs { command: None, .. })
    ));
    let level = match cli.verbose + base {
        0 => tracing::Level::WARN,
        1 => tracing::Level::INFO,
        _ => tracing::Level::DEBUG,
    };
    tracing_subscriber::fmt().with_max_level(level).with_writer(std::io::stderr).init();
    let result = match cli.command {
        Command::Games(a) => games::run(a),
        Command::Play(a) => play::run(a),
        Command::Replay(a) => play::replay(a),
        Command::Bench(a) => bench::run(a),
        Command::Tournament(a) => tournament_cmd::run(a),
        Command::Report(a) => tournament_cmd::report(a),
        Command::BenchWire(a) => netbench::run(a),
        Command::BenchMemory(a) => netbench::memory(a),
        Command::BenchHostile(a) => hostbench::run(a),
        Command::Compare(a) => compare_cmd::run(a),
        Command::BenchSprt(a) => compare_cmd::bench_sprt(a),
        Command::Serve(a) => net_cmd::serve(a),
        Command::Bot(a) => net_cmd::bot(a),
        Command::Ladder(a) => ladder_cmd::run(a),
        Command::Worker(a) => worker_cmd::run(a),
        Command::BenchLadder(a) => ladderbench::run(a),
        Command::BenchWeb(a) => webbench::run(a),
        Command::BenchSandbox(a) => sandboxbench::run(a),
        // The agent's command: its exit code passed on.
        Command::SandboxRelay(a) => match arena::relay::run(&a) {
            Ok(code) => return ExitCode::from(u8::try_from(code).unwrap_or(1)),
            Err(e) => Err(format!("sandbox-relay: {e}")),
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
