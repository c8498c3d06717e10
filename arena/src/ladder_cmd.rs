//! `arena ladder`: run a standing ladder, read one's standings, or submit an agent to one and
//! follow its versions.

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
    /// Upload an agent: its folder (with `agent.yaml`, `command: python3 agent.py`) packed
    /// and sent; the ladder plays a validation game with it, then rates it as NAME@VERSION.
    Submit {
        /// The ladder, e.g. `http://127.0.0.1:50051`.
        url: String,
        /// The agent's folder.
        dir: PathBuf,
        #[command(flatten)]
        who: Author,
        /// The version (1 to 32 of `A-Z a-z 0-9 . _ -`), new for each upload.
        #[arg(long)]
        version: String,
    },
    /// List a name's submitted versions: their state, verdicts and logged games.
    Submissions {
        url: String,
        #[command(flatten)]
        who: Author,
    },
    /// Retire a version: it takes no new game, its results stay.
    Retire {
        url: String,
        #[command(flatten)]
        who: Author,
        #[arg(long)]
        version: String,
    },
    /// Print the end of a version's stderr in one of its games (by default its validation's).
    Log {
        url: String,
        #[command(flatten)]
        who: Author,
        #[arg(long)]
        version: String,
        /// A game it played (its id on the ladder).
        #[arg(long, value_name = "ID", default_value_t = 0)]
        game: u64,
    },
}

/// Who submits: a name and its key.
#[derive(Args)]
pub struct Author {
    /// The agent's name (the ladder's operator gave it a key).
    #[arg(long)]
    name: String,
    /// The name's key (default: the environment's ARENA_KEY, which other users of this
    /// machine cannot read).
    #[arg(long)]
    key: Option<String>,
}

impl Author {
    fn key(&self) -> String {
        self.key.clone().or_else(|| std::env::var("ARENA_KEY").ok()).unwrap_or_default()
    }
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
        Some(LadderCommand::Submit { url, dir, who, version }) => {
            let archive = arena::ladder::submissions::pack(&dir)?;
            let size = archive.len();
            let req = v1::SubmitRequest { name: who.name.clone(), version, key: who.key(), archive };
            let s = call(&url, |mut c| async move { c.submit(req).await })?;
            outln!("sent {} ({size} bytes packed)", dir.display());
            show_submission(&s);
            match s.state.as_str() {
                "refused" => Err(format!("`{}@{}` is refused (above)", s.name, s.version)),
                _ => Ok(()),
            }
        }
        Some(LadderCommand::Submissions { url, who }) => {
            let req = v1::SubmissionsRequest { name: who.name.clone(), key: who.key() };
            let list = call(&url, |mut c| async move { c.list_submissions(req).await })?;
            if list.submissions.is_empty() {
                outln!("`{}` has no submission on this ladder", who.name);
            }
            for s in &list.submissions {
                show_submission(s);
            }
            Ok(())
        }
        Some(LadderCommand::Retire { url, who, version }) => {
            let req = v1::SubmissionRequest { name: who.name.clone(), version, key: who.key() };
            let s = call(&url, |mut c| async move { c.retire_submission(req).await })?;
            show_submission(&s);
            Ok(())
        }
        Some(LadderCommand::Log { url, who, version, game }) => {
            let req = v1::SubmissionLogRequest { name: who.name.clone(), version, key: who.key(), game_id: game };
            let log = call(&url, |mut c| async move { c.submission_log(req).await })?;
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            let end = if log.stderr.ends_with(b"\n") || log.stderr.is_empty() { &b""[..] } else { &b"\n"[..] };
            out.write_all(&log.stderr)
                .and_then(|()| out.write_all(end))
                .map_err(|e| format!("cannot write to stdout: {e}"))
        }
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
    // A ladder that takes submissions listens on a Unix socket too, in a private folder: the
    // way in of their sandboxes (which have no network).
    let socket_dir = match &config.submissions {
        Some(_) => Some(
            tempfile::Builder::new()
                .prefix("arena-socket-")
                .tempdir()
                .map_err(|e| format!("cannot make a folder for the ladder's Unix socket: {e}"))?,
        ),
        None => None,
    };
    let archive_bytes = config.submissions.as_ref().map(|s| s.archive.archive_bytes);
    let server_config = ServerConfig {
        only_keyed_names: config.admission == Admission::Keyed,
        unix_socket: socket_dir.as_ref().map(|d| d.path().join("play.sock")),
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
    let server_config_max = server_config.max_message_bytes;
    let served = rt.block_on(async {
        let stop = server::stop_signal();
        let mut opened: Option<Result<std::sync::Arc<Ladder>, String>> = None;
        let file = args.file.clone();
        let running = server::start_with(args.server.addr, server_config, |hub| {
            let made = Ladder::open(config, file.as_deref(), &text, hub, &data);
            // An upload is one message: as large as an archive may be, and no larger.
            let max = archive_bytes.map_or(server_config_max, |b| (b as usize + (64 << 10)).max(server_config_max));
            let service = made.as_ref().ok().map(|l| {
                let ladder =
                    v1::ladder_server::LadderServer::new(LadderService::new(l.clone())).max_decoding_message_size(max);
                // A record is one message: as large as the server takes any.
                let work = v1::work_server::WorkServer::new(arena::ladder::work::WorkService { ladder: l.clone() })
                    .max_decoding_message_size(server_config_max);
                (ladder, work)
            });
            opened = Some(made);
            move |routes: tonic::service::Routes| match service {
                Some((ladder, work)) => routes.add_service(ladder).add_service(work),
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
    drop(socket_dir);
    // A refit or an agent still thinking on a blocking thread is not waited for long.
    rt.shutdown_timeout(std::time::Duration::from_secs(1));
    served
}

/// One call of the Ladder service at `url`, its answer or the server's words.
fn call<T, F, Fut>(url: &str, f: F) -> Result<T, String>
where
    F: FnOnce(v1::ladder_client::LadderClient<tonic::transport::Channel>) -> Fut,
    Fut: std::future::Future<Output = Result<tonic::Response<T>, tonic::Status>>,
{
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start tokio: {e}"))?;
    rt.block_on(async {
        let channel = arena::client::connect(url).await?;
        // An archive is a large message: as large as a ladder takes.
        let client = v1::ladder_client::LadderClient::new(channel).max_encoding_message_size(1 << 30);
        f(client).await.map(|r| r.into_inner()).map_err(|e| format!("{url}: {}", e.message()))
    })
}

fn show_submission(s: &v1::Submission) {
    outln!("{}@{}: {}  (`{}`, {} bytes)", s.name, s.version, s.state, s.command, s.bytes);
    if !s.verdict.is_empty() {
        outln!("  verdict: {}", s.verdict);
    }
    if !s.logged_games.is_empty() {
        let shown: Vec<String> = s.logged_games.iter().take(10).map(u64::to_string).collect();
        outln!("  stderr kept for games {}{}", shown.join(", "), if s.logged_games.len() > 10 { ", …" } else { "" });
    }
    if s.state == "refused" && !s.stderr.is_empty() {
        outln!("  the end of its stderr in its validation game:");
        for line in String::from_utf8_lossy(&s.stderr).lines().rev().take(20).collect::<Vec<_>>().into_iter().rev() {
            outln!("    {line}");
        }
    }
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
            .standings(v1::StandingsRequest { offset, limit, search: String::new() })
            .await
            .map(|r| r.into_inner())
            .map_err(|e| format!("{url}: {}", e.message()))
    })?;
    outln!("ladder `{}`: {} games, {} rated, {} in play", s.ladder, s.games, s.rated_games, s.in_play);
    let line = |rank: String, r: &v1::RatingRow| {
        let mark = if r.person { " (person)" } else { mark(r.anchor, r.connected) };
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
