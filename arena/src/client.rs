//! The Rust client of the arena's gRPC server, and `arena bot`: any built-in agent as a remote
//! client over the Play stream. The agent sees only what the wire gives it — the observation,
//! the legal actions and their labels, the time left — and builds its forward models from the
//! observation and the game's parameters, exactly as it would in process.

use bots::{Agent, BotSpec, Budget, SeatView, WireView};
use engine::core::{AnySpec, ParamSource, Seat, game_seed};
use engine::find_game;
use proto::v1;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tonic::transport::{Channel, Endpoint};

/// A connection to a server: `http://HOST:PORT`, with TCP nodelay, or `unix:PATH`, its Unix
/// socket (as gRPC names one: how an agent in a sandbox without a network reaches the arena).
pub async fn connect(url: &str) -> Result<Channel, String> {
    if let Some(path) = url.strip_prefix("unix:") {
        let path = std::path::PathBuf::from(path.strip_prefix("//").unwrap_or(path));
        // The URI is not used for a connector's connection but as the requests' authority.
        return Endpoint::from_static("http://localhost")
            .connect_timeout(Duration::from_secs(10))
            .connect_with_connector(tower::service_fn(move |_| {
                let path = path.clone();
                async move {
                    Ok::<_, std::io::Error>(hyper_util::rt::TokioIo::new(tokio::net::UnixStream::connect(path).await?))
                }
            }))
            .await
            .map_err(|e| format!("cannot connect to {url}: {e}"));
    }
    Endpoint::from_shared(url.to_string())
        .map_err(|e| format!("bad server address `{url}`: {e}"))?
        .tcp_nodelay(true)
        .connect_timeout(Duration::from_secs(10))
        .connect()
        .await
        .map_err(|e| format!("cannot connect to {url}: {e}"))
}

/// A connection to a server whose TCP connections come from the local address `source`
/// (another client, to a server that tells clients apart by address; any address of
/// 127.0.0.0/8 is this machine's).
pub async fn connect_from(url: &str, source: std::net::IpAddr) -> Result<Channel, String> {
    let server: std::net::SocketAddr = url
        .trim_start_matches("http://")
        .parse()
        .map_err(|e| format!("bad server address `{url}` (HOST:PORT with an IP address): {e}"))?;
    Endpoint::from_shared(url.to_string())
        .map_err(|e| format!("bad server address `{url}`: {e}"))?
        .connect_timeout(Duration::from_secs(10))
        .connect_with_connector(tower::service_fn(move |_| async move {
            let socket = match server {
                std::net::SocketAddr::V4(_) => tokio::net::TcpSocket::new_v4()?,
                std::net::SocketAddr::V6(_) => tokio::net::TcpSocket::new_v6()?,
            };
            socket.bind(std::net::SocketAddr::new(source, 0))?;
            let stream = socket.connect(server).await?;
            stream.set_nodelay(true)?;
            Ok::<_, std::io::Error>(hyper_util::rt::TokioIo::new(stream))
        }))
        .await
        .map_err(|e| format!("cannot connect to {url} from {source}: {e}"))
}

pub fn matches(channel: Channel) -> v1::matches_client::MatchesClient<Channel> {
    v1::matches_client::MatchesClient::new(channel)
}

pub fn catalogue(channel: Channel) -> v1::catalogue_client::CatalogueClient<Channel> {
    v1::catalogue_client::CatalogueClient::new(channel)
}

/// What a bot process did.
#[derive(Clone, Debug, Default)]
pub struct BotStats {
    pub decisions: u64,
    pub matches_ended: u64,
    /// StreamErrors the server sent back.
    pub stream_errors: u64,
}

/// One seat's agent (decisions of different matches run at once, on blocking threads).
type SeatAgent = Arc<Mutex<Box<dyn Agent>>>;

/// A remote bot: an agent per (match, seat), built on its first decision.
struct Bots {
    spec: BotSpec,
    seed: u64,
    specs: Mutex<HashMap<(String, String), Arc<dyn AnySpec>>>,
    agents: Mutex<HashMap<(String, u32), SeatAgent>>,
}

impl Bots {
    fn game_spec(&self, game: &str, params_yaml: &str) -> Result<Arc<dyn AnySpec>, String> {
        let key = (game.to_string(), params_yaml.to_string());
        if let Some(s) = self.specs.lock().expect("specs").get(&key) {
            return Ok(s.clone());
        }
        let entry = find_game(game)?;
        let source =
            ParamSource::Yaml { name: format!("the {game} parameters sent by the server"), text: params_yaml.into() };
        let spec: Arc<dyn AnySpec> =
            // Parameters from a server are self-contained: a name in them opens no file here.
            Arc::from((entry.spec)(None, &[source], &crate::files::refuse_files).map_err(|e| e.to_string())?);
        self.specs.lock().expect("specs").insert(key, spec.clone());
        Ok(spec)
    }

    /// The agent's decision for one request (blocking: it may search for a while).
    fn decide(&self, r: &v1::DecisionRequest) -> Result<u32, String> {
        let spec = self.game_spec(&r.game, &r.params_yaml)?;
        let agent = {
            let mut agents = self.agents.lock().expect("agents");
            match agents.get(&(r.match_id.clone(), r.seat)) {
                Some(a) => a.clone(),
                None => {
                    let a = bots::make_agent(&self.spec, spec.as_ref(), game_seed(self.seed, u64::from(r.seat)))?;
                    let a = Arc::new(Mutex::new(a));
                    agents.insert((r.match_id.clone(), r.seat), a.clone());
                    a
                }
            }
        };
        let ids: Vec<u32> = r.legal.iter().map(|l| l.id).collect();
        if ids.is_empty() {
            return Err("a decision with no legal action".into());
        }
        // The random agent reads no observation (and asks for none).
        let wire = match (&self.spec, &r.observation) {
            (BotSpec::Random, _) => {
                WireView { observation: serde_json::Value::Null, text: String::new(), labels: vec![], tensor: vec![] }
            }
            (_, Some(o)) => {
                let (_, observation, text) = proto::convert::observation_from_proto(o)?;
                WireView {
                    observation,
                    text,
                    labels: r.legal.iter().map(|l| l.label.clone()).collect(),
                    tensor: r.tensor.clone(),
                }
            }
            (_, None) => return Err("a decision request without an observation".into()),
        };
        let budget = Budget {
            per_move: crate::referee::limit_ms(r.time_left_ms.into()),
            bank: crate::referee::limit_ms(r.bank_left_ms.into()),
        };
        let view = SeatView::wire(&wire, Seat(r.seat as u8), &ids, budget);
        let mut agent = agent.lock().expect("agent");
        agent.act(&view).map_err(|e| e.to_string())
    }
}

/// The Decision answering a request (None, logged, when the agent could not decide).
fn answer(bots: &Bots, r: &v1::DecisionRequest) -> Option<v1::BotMessage> {
    match bots.decide(r) {
        Ok(action) => Some(v1::BotMessage {
            message: Some(v1::bot_message::Message::Decision(v1::Decision { request_id: r.request_id, action })),
        }),
        Err(e) => {
            tracing::error!(match_id = %r.match_id, seat = r.seat, "no decision: {e}");
            None
        }
    }
}

/// Who a remote bot is: its name, the name's key (if the server's operator gave it one), the
/// games it plays (empty: all).
#[derive(Clone, Debug, Default)]
pub struct Identity {
    pub name: String,
    /// The name's key, if the operator reserved the name (Hello.key).
    pub key: String,
    pub games: Vec<String>,
    /// The client's key (the `x-arena-key` metadata), if the operator gave it one.
    pub client_key: String,
    /// Its version (Hello.version: the stream then holds `name@version`).
    pub version: String,
    /// On a ladder, the games it takes at once (0: the ladder's default).
    pub max_games: u32,
    /// Ask for the typed observation with every request: None, as the agent needs it (the
    /// random agent reads none); Some(true) even so (bench-wire's round trip, set beside an
    /// echo of a whole request).
    pub observation: Option<bool>,
    /// Leave (the contract's `Leave`) once this many of its games have ended (0: never): no
    /// new games, those in play played out, then the server ends the stream.
    pub leave_after: u64,
    /// On a ladder, also take seats in matches others create (Hello.accept_challenges).
    pub accept_challenges: bool,
    /// Connect from this local address (another client, to a server that tells clients apart
    /// by address; any address of 127.0.0.0/8 is this machine's).
    pub source: Option<std::net::IpAddr>,
}

/// Serve seats with the built-in agent `spec` over the Play stream of the server at `url`,
/// as `who`, until the server closes the stream (or `stop` fires). Each seat's agent is
/// seeded from `seed` and its seat number.
pub async fn run_bot(
    url: &str,
    spec: &str,
    who: Identity,
    seed: u64,
    stop: Option<tokio::sync::oneshot::Receiver<()>>,
) -> Result<BotStats, String> {
    let spec = BotSpec::parse(spec)?;
    let channel = match who.source {
        Some(source) => connect_from(url, source).await?,
        None => connect(url).await?,
    };
    let mut client = v1::play_client::PlayClient::new(channel);
    let (tx, rx) = tokio::sync::mpsc::channel::<v1::BotMessage>(1024);
    let hello = v1::Hello {
        name: who.name,
        games: who.games,
        key: who.key,
        tensors: false,
        version: who.version,
        max_games: who.max_games,
        // The built-in agents read the typed observation, never its text; the random agent
        // reads neither.
        omit_text: true,
        omit_observation: !who.observation.unwrap_or(!matches!(spec, BotSpec::Random)),
        accept_challenges: who.accept_challenges,
    };
    tx.send(v1::BotMessage { message: Some(v1::bot_message::Message::Hello(hello)) })
        .await
        .map_err(|e| e.to_string())?;
    let mut request = tonic::Request::new(tokio_stream::wrappers::ReceiverStream::new(rx));
    if !who.client_key.is_empty() {
        let key = who.client_key.parse().map_err(|_| "the client key is not printable ASCII".to_string())?;
        request.metadata_mut().insert(crate::server::shares::KEY_HEADER, key);
    }
    let mut inbound = client
        .play(request)
        .await
        .map_err(|e| format!("the server refused the Play stream: {}", e.message()))?
        .into_inner();
    let bots = Arc::new(Bots { spec, seed, specs: Mutex::new(HashMap::new()), agents: Mutex::new(HashMap::new()) });
    let mut stats = BotStats::default();
    let mut stop = stop;
    let mut left = false;
    loop {
        let message = match &mut stop {
            Some(s) => tokio::select! {
                m = inbound.message() => m,
                _ = s => return Ok(stats),
            },
            None => inbound.message().await,
        };
        let message = match message {
            Ok(Some(m)) => m,
            Ok(None) => return Ok(stats),
            Err(e) => return Err(format!("the Play stream failed: {}", e.message())),
        };
        match message.message {
            Some(v1::server_message::Message::Request(r)) => {
                stats.decisions += 1;
                if matches!(bots.spec, BotSpec::Random | BotSpec::Rules) {
                    // Cheap agents answer at once, on this task.
                    if let Some(m) = answer(&bots, &r) {
                        let _ = tx.send(m).await;
                    }
                } else {
                    // Searching agents think on a blocking thread, matches side by side.
                    let (bots, tx) = (bots.clone(), tx.clone());
                    tokio::task::spawn_blocking(move || {
                        if let Some(m) = answer(&bots, &r) {
                            let _ = tx.blocking_send(m);
                        }
                    });
                }
            }
            Some(v1::server_message::Message::Ended(e)) => {
                stats.matches_ended += 1;
                bots.agents.lock().expect("agents").remove(&(e.match_id, e.seat));
                if !left && who.leave_after > 0 && stats.matches_ended >= who.leave_after {
                    left = true;
                    let _ =
                        tx.send(v1::BotMessage { message: Some(v1::bot_message::Message::Leave(v1::Leave {})) }).await;
                }
            }
            Some(v1::server_message::Message::Error(e)) => {
                stats.stream_errors += 1;
                tracing::warn!(code = %e.code, "the server: {}", e.message);
            }
            Some(v1::server_message::Message::Welcome(_)) | None => {}
        }
    }
}
