//! `arena serve` and `arena bot`: the gRPC game server, and a built-in agent as its client.

use arena::referee::limit_ms;
use arena::server::{self, KeyRequired, Policy, ServerConfig, Shares};
use bots::BotLimits;
use clap::Args;
use engine::core::yaml::YamlLimits;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub server: ServerFlags,
}

/// The server's flags: `arena serve`'s, and `arena ladder`'s (a ladder is the same server).
#[derive(Args)]
pub struct ServerFlags {
    /// The address to listen on (port 0: any free port; the one chosen is printed).
    #[arg(long, default_value = "127.0.0.1:50051")]
    pub addr: SocketAddr,
    /// Also serve the web face on this address (port 0: any free port): the matches in play,
    /// live, and a table a person can sit at.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<SocketAddr>,
    #[command(flatten)]
    pub web: WebFlags,
    /// Matches in play at once; more are refused.
    #[arg(long, default_value_t = 1000)]
    pub max_matches: usize,
    /// The per-move limit in milliseconds when a match names none (0: no limit).
    #[arg(long, default_value_t = 30_000)]
    pub move_time_ms: u64,
    /// The longest per-move limit a match may ask for, in milliseconds (a longer one is refused).
    #[arg(long, default_value_t = 60_000)]
    pub max_move_time_ms: u64,
    /// A match in which no seat acts for this many seconds ends, the seat to move losing
    /// (0: never). Must be longer than --max-move-time-ms.
    #[arg(long, default_value_t = 300)]
    pub idle_secs: u64,
    /// What happens to a seat that does not move in time, disconnects or answers garbage,
    /// when a match names no policy: `forfeit` (it loses, the match ends) or `random-move` (a
    /// random legal action is played for it; `random` is taken too).
    #[arg(long, default_value = "forfeit", value_parser = Policy::parser())]
    pub on_timeout: String,
    /// The largest message accepted, in bytes.
    #[arg(long, default_value_t = 1 << 20)]
    pub max_message_bytes: usize,
    /// Finished matches are kept (GetRecord, Spectate) for this many seconds…
    #[arg(long, default_value_t = 600)]
    pub keep_finished_secs: u64,
    /// …and at most this many of them (the oldest go first).
    #[arg(long, default_value_t = 1000)]
    pub keep_finished: usize,
    /// The most MCTS iterations a server-run agent may be asked for.
    #[arg(long, default_value_t = BotLimits::default().iterations)]
    pub max_bot_iterations: u32,
    /// The most greedy samples a server-run agent may be asked for.
    #[arg(long, default_value_t = BotLimits::default().samples)]
    pub max_bot_samples: u32,
    /// The most search threads a server-run agent may be asked for.
    #[arg(long, default_value_t = BotLimits::default().threads)]
    pub max_bot_threads: u32,
    /// The most thinking time (MCTS `ms`) a server-run agent may be asked for, in milliseconds.
    #[arg(long, default_value_t = BotLimits::default().time.as_millis() as u64)]
    pub max_bot_ms: u64,
    /// Server-run agents thinking at once (default: one per core); more wait for a slot.
    #[arg(long)]
    pub bot_slots: Option<usize>,
    /// Play streams at once (besides those of names with a key, which are always let in).
    #[arg(long, default_value_t = 256)]
    pub max_play_streams: usize,
    /// Spectator and Watch streams at once.
    #[arg(long, default_value_t = 1024)]
    pub max_spectators: usize,
    /// TCP connections open at once (each carries any number of calls).
    #[arg(long, default_value_t = 4096)]
    pub max_connections: usize,
    /// Calls being read and built at once (CreateMatch, DescribeGame); more are refused.
    #[arg(long, default_value_t = 64)]
    pub max_calls: usize,
    /// What one client (a key's holder, or an address: IPv4, or an IPv6 network, see
    /// --ipv6-prefix) may hold of the matches in play.
    #[arg(long, default_value_t = Shares::default().matches)]
    pub matches_per_client: usize,
    /// …of the Play streams.
    #[arg(long, default_value_t = Shares::default().play_streams)]
    pub play_streams_per_client: usize,
    /// …of the spectator and Watch streams.
    #[arg(long, default_value_t = Shares::default().spectators)]
    pub spectators_per_client: usize,
    /// …of the calls being read.
    #[arg(long, default_value_t = Shares::default().calls)]
    pub calls_per_client: usize,
    /// Calls being read one client may start a second (five times as many in a burst).
    #[arg(long, default_value_t = Shares::default().calls_per_second)]
    pub calls_per_client_per_second: f64,
    /// …of the server-run agents' thinking slots (default: half of them, at least one).
    #[arg(long)]
    pub bot_slots_per_client: Option<usize>,
    /// …of the TCP connections, by address (a key is told only in a call): one past it is
    /// closed as it arrives.
    #[arg(long, default_value_t = Shares::default().connections)]
    pub connections_per_address: usize,
    /// The YAML of one request (its parameters and scenario together) may describe at most
    /// this many nodes, an alias counting as every node it names…
    #[arg(long, default_value_t = server::hub::WIRE_YAML.nodes)]
    pub max_yaml_nodes: u64,
    /// …this many bytes of scalar text (aliases counted the same way)…
    #[arg(long, default_value_t = server::hub::WIRE_YAML.bytes)]
    pub max_yaml_bytes: u64,
    /// …nested at most this deep.
    #[arg(long, default_value_t = server::hub::WIRE_YAML.depth)]
    pub max_yaml_depth: u32,
    /// The clients' keys: a file of `CLIENT=KEY` lines (keys of 16 characters or more). A
    /// client sends its key as the `x-arena-key` metadata of each call, and is then that
    /// client wherever it connects from; a client without a key is its address.
    #[arg(long, value_name = "FILE")]
    pub client_keys: Option<PathBuf>,
    /// Which calls need a client key: `never`, `create` (CreateMatch) or `always` (every
    /// call but health and reflection).
    #[arg(long, default_value = "never", value_parser = ["never", "create", "always"])]
    pub require_key: String,
    /// Reserve a Play name for the holder of its key: `NAME=KEY` (repeatable). The command
    /// line is visible to other users of this machine: prefer --bot-keys FILE.
    #[arg(long, value_name = "NAME=KEY")]
    pub bot_key: Vec<String>,
    /// A file of `NAME=KEY` lines (blank lines and `#` comments skipped).
    #[arg(long, value_name = "FILE")]
    pub bot_keys: Option<PathBuf>,
    /// Offer the content sets of this directory (`NAME.yaml` files) by name. Without it, a
    /// request's content set must come inline: the server opens no file a request names.
    #[arg(long, value_name = "DIR")]
    pub content_dir: Option<PathBuf>,
    /// Append the record of every finished match to this file (one JSON object per line).
    #[arg(long, value_name = "FILE")]
    pub records: Option<PathBuf>,
    /// Clients without a key are told apart by address: an IPv4 address, or the IPv6 network
    /// of this prefix length (a home or an office is handed a /56 or a /48; every address in
    /// it is one client).
    #[arg(long, default_value_t = server::shares::DEFAULT_V6_PREFIX, value_parser = clap::value_parser!(u8).range(16..=128))]
    pub ipv6_prefix: u8,
}

/// How the web face (`--http`) bounds its clients: `arena serve`'s, `arena ladder`'s and
/// `arena tournament`'s.
#[derive(Args, Clone)]
pub struct WebFlags {
    /// A name the web face answers to (the host of its address, without a port; repeatable),
    /// besides localhost and IP addresses: a request sent to any other name is refused, so that
    /// a page of another site cannot reach the face through a name that resolves to it (DNS
    /// rebinding). `*`: any name (behind a proxy that checks them).
    #[arg(long = "http-host", value_name = "NAME")]
    pub http_host: Vec<String>,
    /// Browser connections at once (the last eighth kept for clients holding fewer than a
    /// quarter of a share: a new client gets in while the others are at their shares).
    #[arg(long, default_value_t = arena::web::Config::default().connections)]
    pub http_connections: usize,
    /// …and what one client (a key's holder, or an address: IPv4, or an IPv6 network, see
    /// --ipv6-prefix) may hold of them (a browser opens at most 6 to one host).
    #[arg(long, default_value_t = arena::web::Config::default().connections_per_client)]
    pub http_connections_per_client: usize,
    /// Requests to the web face one client may make a second (five seconds' worth at once
    /// after a pause); faster ones are refused (429).
    #[arg(long, default_value_t = arena::web::Config::default().requests_per_second)]
    pub http_requests_per_client_per_second: f64,
    /// What a `/game` page (a whole game, every seat's view at every position: the costliest
    /// page to build) counts as, in requests.
    #[arg(long, default_value_t = arena::web::Config::default().game_page_cost)]
    pub http_game_page_cost: f64,
}

impl WebFlags {
    /// The web face's configuration these flags give.
    pub fn config(&self) -> Result<arena::web::Config, String> {
        arena::web::Config {
            hosts: Vec::new(),
            connections: self.http_connections,
            connections_per_client: self.http_connections_per_client,
            requests_per_second: self.http_requests_per_client_per_second,
            game_page_cost: self.http_game_page_cost,
        }
        .with_hosts(&self.http_host)
        .and_then(|c| c.check().map(|()| c))
    }
}

pub use arena::files::key_lines;

#[derive(Args)]
pub struct BotArgs {
    /// The built-in agent: `random`, `rules`, `greedy`, `mcts:iterations=2000,c=0.7`.
    pub agent: String,
    /// The server, e.g. `http://127.0.0.1:50051`.
    #[arg(long)]
    pub server: String,
    /// The name matches and tournaments know this client by (default: the agent's text).
    #[arg(long)]
    pub name: Option<String>,
    /// Each seat's agent is seeded from this and its seat number.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The games it plays, comma-separated (default: all).
    #[arg(long, value_delimiter = ',')]
    pub games: Vec<String>,
    /// The key of its name, if the server's operator reserved the name (default: the
    /// environment's ARENA_KEY, which other users of this machine cannot read).
    #[arg(long)]
    pub key: Option<String>,
    /// The client key the operator gave (sent as `x-arena-key`; default: the environment's
    /// ARENA_CLIENT_KEY).
    #[arg(long)]
    pub client_key: Option<String>,
    /// Its version: it plays as `NAME@VERSION`, which a ladder rates apart.
    #[arg(long = "agent-version", value_name = "VERSION", default_value = "")]
    pub agent_version: String,
    /// On a ladder: the games it takes at once (0: the ladder's default).
    #[arg(long, default_value_t = 0)]
    pub max_games: u32,
    /// Leave once this many of its games have ended: no new games, those in play played
    /// out, then it exits (its name free).
    #[arg(long, value_name = "N")]
    pub leave_after: Option<u64>,
    /// On a ladder, also take seats in matches others create (a person's challenge on the web
    /// face, a CreateMatch naming it); without it, it plays the ladder's pairings alone.
    #[arg(long)]
    pub accept_challenges: bool,
    /// Connect from this local address (a machine with several; a server without a client key
    /// tells clients apart by address).
    #[arg(long, value_name = "IP")]
    pub source: Option<std::net::IpAddr>,
    /// Run in a sandbox of the arena's own, as it runs the agents it launches: bubblewrap (the
    /// system read-only, its own processes, no capability, a fresh environment; the network
    /// kept, to reach the server) in a cgroup with the default limits (one core, 1 GiB, 64
    /// processes). A host that lacks either says which.
    #[arg(long)]
    pub sandbox: bool,
}

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| format!("cannot start tokio: {e}"))
}

impl ServerFlags {
    /// The server's configuration these flags give.
    pub fn config(&self) -> Result<ServerConfig, String> {
        let args = self;
        let bot_slots = args.bot_slots.unwrap_or(ServerConfig::default().bot_slots);
        Ok(ServerConfig {
            max_matches: args.max_matches,
            max_message_bytes: args.max_message_bytes,
            move_time: limit_ms(args.move_time_ms),
            max_move_time: Duration::from_millis(args.max_move_time_ms),
            idle: limit_ms(args.idle_secs.saturating_mul(1000)),
            policy: Policy::parse(&args.on_timeout).unwrap_or(Policy::Forfeit),
            keep_finished_for: Duration::from_secs(args.keep_finished_secs),
            keep_finished: args.keep_finished,
            bot_limits: BotLimits {
                iterations: args.max_bot_iterations,
                samples: args.max_bot_samples,
                threads: args.max_bot_threads,
                time: Duration::from_millis(args.max_bot_ms),
            },
            bot_slots,
            max_sessions: args.max_play_streams,
            max_spectators: args.max_spectators,
            max_connections: args.max_connections,
            max_calls: args.max_calls,
            shares: Shares {
                matches: args.matches_per_client,
                play_streams: args.play_streams_per_client,
                spectators: args.spectators_per_client,
                calls: args.calls_per_client,
                calls_per_second: args.calls_per_client_per_second,
                bot_slots: args.bot_slots_per_client.unwrap_or((bot_slots / 2).max(1)),
                connections: args.connections_per_address,
            },
            yaml: YamlLimits { nodes: args.max_yaml_nodes, bytes: args.max_yaml_bytes, depth: args.max_yaml_depth },
            client_keys: key_lines("--client-key", &[], args.client_keys.as_ref())?,
            require_key: args.require_key.parse::<KeyRequired>()?,
            bot_keys: key_lines("--bot-key", &args.bot_key, args.bot_keys.as_ref())?,
            content_dir: args.content_dir.clone(),
            records: args.records.clone(),
            ipv6_prefix: args.ipv6_prefix,
            ..ServerConfig::default()
        })
    }
}

pub fn serve(args: ServeArgs) -> Result<(), String> {
    let args = args.server;
    let config = args.config()?;
    let web = args.web.config()?;
    let rt = runtime()?;
    let served = rt.block_on(async {
        let stop = server::stop_signal();
        let running = server::start(args.addr, config).await?;
        outln!("serving tabletop.arena.v1 on {}", running.addr);
        if let Some(http) = args.http {
            let web = arena::web::start(http, arena::web::of_hub(running.hub.clone()), web).await?;
            outln!("the web face: {}", web.url());
        }
        stop.await;
        tracing::info!("stopping: finishing the calls in flight");
        running.stop().await?;
        outln!("stopped");
        Ok(())
    });
    // An agent still thinking on a blocking thread is not waited for long.
    rt.shutdown_timeout(Duration::from_secs(5));
    served
}

pub fn bot(args: BotArgs) -> Result<(), String> {
    bots::BotSpec::parse(&args.agent)?;
    if args.sandbox {
        return sandboxed_bot();
    }
    let who = arena::client::Identity {
        name: args.name.clone().unwrap_or_else(|| args.agent.clone()),
        key: args.key.clone().or_else(|| std::env::var("ARENA_KEY").ok()).unwrap_or_default(),
        games: args.games.clone(),
        client_key: args.client_key.clone().or_else(|| std::env::var("ARENA_CLIENT_KEY").ok()).unwrap_or_default(),
        version: args.agent_version.clone(),
        max_games: args.max_games,
        leave_after: args.leave_after.unwrap_or(0),
        observation: None,
        accept_challenges: args.accept_challenges,
        source: args.source,
    };
    runtime()?.block_on(async {
        let stats = arena::client::run_bot(&args.server, &args.agent, who, args.seed, None).await?;
        outln!("{} decisions, {} seats played to the end", stats.decisions, stats.matches_ended);
        Ok(())
    })
}

/// `arena bot … --sandbox`: this same command, without the flag, in a sandbox and a cgroup of
/// its own; its exit status passed on, and a limit it broke named.
fn sandboxed_bot() -> Result<(), String> {
    let arena = std::env::current_exe().map_err(|e| format!("cannot find the arena's binary: {e}"))?;
    let mut words = vec![arena.to_string_lossy().into_owned()];
    words.extend(std::env::args().skip(1).filter(|a| a != "--sandbox"));
    // Its keys from the environment, if it has them there (the sandbox's environment is fresh).
    let sandbox = ["ARENA_KEY", "ARENA_CLIENT_KEY"]
        .into_iter()
        .filter_map(|v| std::env::var(v).ok().map(|value| (v, value)))
        .fold(arena::sandbox::Sandbox::new(), |s, (v, value)| s.env(v, value));
    sandbox.check(&[])?;
    let host = arena::limits::Host::find().map_err(|e| {
        format!(
            "{e}. `--sandbox` runs the agent with limits in a cgroup of its own: run as root or in a delegated cgroup"
        )
    })?;
    let group = host.group("bot", &arena::limits::Limits::default())?;
    let mut command = sandbox.wrap(&[], &words)?;
    group.join_on_spawn(&mut command);
    let status = command.status().map_err(|e| format!("cannot run the sandbox: {e}"))?;
    let ending = group.ending(status);
    group.kill_all();
    match ending {
        arena::limits::Ending::Exited(_) if status.success() => Ok(()),
        arena::limits::Ending::Exited(_) => Err(format!("the sandboxed bot ended: {status}")),
        limit => Err(format!("the sandboxed bot {}", limit.describe())),
    }
}
