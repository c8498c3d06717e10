//! `arena ladder`: run a standing ladder, or read one's standings.

use crate::net_cmd::{ServerFlags, key_lines};
use arena::ladder::Ladder;
use arena::ladder::config::{self, Admission, LadderConfig};
use arena::ladder::service::LadderService;
use arena::server::{self, ServerConfig};
use clap::{Args, Subcommand};
use proto::v1;
use std::path::PathBuf;

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct LadderArgs {
    #[command(subcommand)]
    pub command: Option<LadderCommand>,
    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Subcommand)]
pub enum LadderCommand {
    /// Print a ladder's standings (overall and per game entry, with 95% intervals): a page of
    /// each list's ranked agents, then its provisional ones.
    Standings {
        /// The ladder, e.g. `http://127.0.0.1:50051`.
        url: String,
        /// From this rank on (1: the first).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
        from: u32,
        /// At most this many rows of each list (the ladder gives at most 500).
        #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=500))]
        rows: u32,
    },
}

#[derive(Args)]
pub struct RunArgs {
    /// The ladder file (default: the embedded default ladder).
    pub file: Option<PathBuf>,
    /// The ladder's memory (its SQLite database): created if missing, resumed if not.
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// On Ctrl-C or SIGTERM, the games in play get this many seconds to end (no new one
    /// starts); those still in play then are aborted: stored, rated for nobody. The process
    /// exits within this and 5 s more.
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    pub grace: u64,
    /// The server's flags, as `arena serve` takes them (`--addr`, where Play clients and
    /// readers connect; `--http`, the web face: the standings as they change, the games in
    /// play, live, and a table a person can sit at; the limits, shares and keys).
    #[command(flatten)]
    pub server: ServerFlags,
}

pub fn run(args: LadderArgs) -> Result<(), String> {
    match args.command {
        Some(LadderCommand::Standings { url, from, rows }) => standings(&url, from - 1, rows),
        None => serve(args.run),
    }
}

fn serve(args: RunArgs) -> Result<(), String> {
    let data = args.data.clone().ok_or("--data DIR: where the ladder keeps its games (created if missing)")?;
    let text = match &args.file {
        Some(f) => arena::files::load_file(&f.display().to_string())?,
        None => config::DEFAULT.to_string(),
    };
    let source = args.file.as_ref().map_or("the default ladder".to_string(), |f| f.display().to_string());
    let config = LadderConfig::parse(&source, &text)?;
    let mut server_config = args.server.config()?;
    let web_config = args.server.web.config()?;
    let mut bot_keys = std::mem::take(&mut server_config.bot_keys);
    if let Some(path) = config.keys_path(args.file.as_deref()) {
        for (name, key) in key_lines("keys", &[], Some(&path))? {
            if bot_keys.insert(name.clone(), key).is_some() {
                return Err(format!("`{name}` has a key in {} and on the command line", path.display()));
            }
        }
    }
    // The anchors' names are the ladder's: a key nobody is told keeps them.
    for a in &config.anchors {
        bot_keys.insert(a.name.clone(), server::hub::secret().map_err(|e| e.message().to_string())?);
    }
    let server_config = ServerConfig {
        only_keyed_names: config.admission == Admission::Keyed,
        bot_keys,
        // The ladder's clients play its pairings, unless they accept challenges.
        challenges_need_consent: true,
        ..server_config
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start tokio: {e}"))?;
    let grace = std::time::Duration::from_secs(args.grace);
    let served = rt.block_on(async {
        let stop = server::stop_signal();
        let mut opened: Option<Result<std::sync::Arc<Ladder>, String>> = None;
        let file = args.file.clone();
        let running = server::start_with(args.server.addr, server_config, |hub| {
            let made = Ladder::open(config, file.as_deref(), &text, hub, &data);
            let service =
                made.as_ref().ok().map(|l| v1::ladder_server::LadderServer::new(LadderService::new(l.clone())));
            opened = Some(made);
            move |routes: tonic::service::Routes| match service {
                Some(s) => routes.add_service(s),
                None => routes,
            }
        })
        .await?;
        let ladder = match opened.expect("the ladder was opened") {
            Ok(l) => l,
            Err(e) => {
                let _ = running.stop().await;
                return Err(e);
            }
        };
        let games = ladder.standings.borrow().games;
        outln!(
            "ladder `{}` ({games} games stored in {}) serving on {}",
            ladder.config.name,
            data.display(),
            running.addr
        );
        ladder.start();
        if let Some(http) = args.server.http {
            let face = arena::web::Face {
                services: arena::server::service::Services { hub: running.hub.clone() },
                standings: Some(arena::web::Standings::Ladder(LadderService::new(ladder.clone()))),
            };
            let web = arena::web::start(http, face, web_config).await?;
            outln!("the web face: {}", web.url());
        }
        stop.await;
        tracing::info!("stopping: no new pairing; the games in play have {} s to end", grace.as_secs());
        ladder.stop(grace).await;
        tracing::info!("stopping: finishing the calls in flight");
        running.stop().await?;
        outln!("stopped");
        Ok(())
    });
    // A refit or an agent still thinking on a blocking thread is not waited for long.
    rt.shutdown_timeout(std::time::Duration::from_secs(1));
    served
}

fn standings(url: &str, offset: u32, limit: u32) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start tokio: {e}"))?;
    let s = rt.block_on(async {
        let channel = arena::client::connect(url).await?;
        let mut client = v1::ladder_client::LadderClient::new(channel);
        client
            .standings(v1::StandingsRequest { offset, limit })
            .await
            .map(|r| r.into_inner())
            .map_err(|e| format!("{url}: {}", e.message()))
    })?;
    outln!("ladder `{}`: {} games, {} rated, {} in play", s.ladder, s.games, s.rated_games, s.in_play);
    let line = |rank: String, r: &v1::RatingRow| {
        let mark = mark(r.anchor, r.connected);
        let bound = if r.bound.is_empty() { String::new() } else { format!("  [{}]", r.bound) };
        let rested = if r.rested.is_empty() { String::new() } else { format!("  rested: {}", r.rested) };
        outln!(
            "{rank:>4}  {:<32} {:>+7.1}  ({:>+6.0} to {:>+6.0})  {:>7}  {:>6.3}{bound}{rested}",
            format!("{}{mark}", r.agent),
            r.rating,
            r.lower,
            r.upper,
            r.results,
            r.score
        );
    };
    for list in &s.lists {
        outln!();
        outln!("{}", list.label);
        outln!("{:>4}  {:<32} {:>7}  {:>17}  {:>7}  {:>6}", "rank", "agent", "Elo", "95% interval", "results", "score");
        for r in &list.rows {
            line(r.rank.to_string(), r);
        }
        let shown = list.offset as usize + list.rows.len();
        if list.offset > 0 || shown < list.total as usize {
            outln!("      ranks {} to {shown} of {}", list.offset + 1, list.total);
        }
        if !list.provisional.is_empty() {
            outln!(
                "      provisional ({} in all; ranked after {} results against established agents):",
                list.provisional_total,
                s.provisional_games
            );
            for r in &list.provisional {
                line(format!("{}/{}", r.qualifying, s.provisional_games), r);
            }
        }
        for u in &list.unrated {
            let mark = mark(u.anchor, u.connected);
            outln!("{:>4}  {:<32} not rated yet: {}", "-", format!("{}{mark}", u.agent), u.reason);
        }
    }
    Ok(())
}

/// What the standings say after an agent's name: an anchor, connected, or nothing (away).
fn mark(anchor: bool, connected: bool) -> &'static str {
    match (anchor, connected) {
        (true, _) => " (anchor)",
        (false, true) => " (connected)",
        _ => "",
    }
}
