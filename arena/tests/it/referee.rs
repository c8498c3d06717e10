//! One referee: the same misbehaving agent (it panics, stalls, never returns, answers an
//! illegal action, disconnects) gets the same verdict in `arena play`'s loop, in a tournament
//! and in a server match; the game goes on past an agent that never returns; `MatchEnded`
//! reaches Play clients in tournaments, and a cooperative outcome carries the team's score.

use crate::matches;
use crate::scratch;
use matches::wait_record;

use arena::referee::{Fault, Policy, Referee, SeatAgent, TimeControl, play_game};
use arena::server::{self, AgentMaker, ServerConfig};
use arena::tournament::run::RunOptions;
use arena::tournament::{self, Tournament, external};
use bots::{Agent, AgentError, SeatView};
use engine::core::{ActionId, AnySpec};
use engine::find_game;
use proto::v1;
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

// Long enough that a busy machine's scheduling never passes for a stall.
const LIMIT: Duration = Duration::from_millis(250);

struct Panics;
impl Agent for Panics {
    fn name(&self) -> &str {
        "panics"
    }
    fn act(&mut self, _: &SeatView) -> Result<ActionId, AgentError> {
        panic!("a test agent that panics")
    }
}

/// Answers, but late.
struct Stalls;
impl Agent for Stalls {
    fn name(&self) -> &str {
        "stalls"
    }
    fn act(&mut self, view: &SeatView) -> Result<ActionId, AgentError> {
        std::thread::sleep(Duration::from_millis(300));
        Ok(view.legal()[0])
    }
}

/// Never answers (it sleeps rather than spins, so the threads left behind cost no CPU).
struct Loops;
impl Agent for Loops {
    fn name(&self) -> &str {
        "loops"
    }
    fn act(&mut self, _: &SeatView) -> Result<ActionId, AgentError> {
        loop {
            std::thread::sleep(Duration::from_secs(3600));
        }
    }
}

struct Illegal;
impl Agent for Illegal {
    fn name(&self) -> &str {
        "illegal"
    }
    fn act(&mut self, view: &SeatView) -> Result<ActionId, AgentError> {
        Ok((0..).find(|a| !view.legal().contains(a)).unwrap())
    }
}

const MISBEHAVING: [(&str, Fault); 4] =
    [("panics", Fault::Crash), ("stalls", Fault::Timeout), ("loops", Fault::Timeout), ("illegal", Fault::Illegal)];

fn misbehaving(name: &str) -> Option<Box<dyn Agent>> {
    Some(match name {
        "panics" => Box::new(Panics),
        "stalls" => Box::new(Stalls),
        "loops" => Box::new(Loops),
        "illegal" => Box::new(Illegal),
        _ => return None,
    })
}

fn expedition() -> Box<dyn AnySpec> {
    (find_game("expedition").unwrap().spec)(Some("no-dice"), &[], &|_| Err("no files".into())).unwrap()
}

/// The verdict kinds against `seat`, in `arena play`'s loop.
fn in_play(name: &str, seat: usize) -> BTreeSet<Fault> {
    let spec = expedition();
    let agents = (0..2)
        .map(|s| {
            let a =
                if s == seat { misbehaving(name).unwrap() } else { bots::agent("random", spec.as_ref(), 1).unwrap() };
            SeatAgent::new(a, TimeControl::per_move(Some(LIMIT)))
        })
        .collect();
    let played = play_game(spec.new_game(4), agents, Referee::new(Some(LIMIT), Policy::Forfeit, 4), |_, _, _| {});
    assert_eq!(played.outcome.forfeited_by, Some(seat), "{name}: {:?}", played.verdicts);
    // The first misbehaviour ends the game: the agent was asked once (an agent that never
    // returns costs its game one limit), and no move followed the verdict.
    let [v] = played.verdicts.as_slice() else { panic!("{name}: one verdict: {:?}", played.verdicts) };
    assert_eq!((v.count, v.at_move), (1, played.actions.len()), "{name}: {v:?}");
    played.verdicts.iter().map(|v| v.kind).collect()
}

/// The verdict kinds of every game of a small tournament with `name` in it.
fn in_tournament(name: &'static str) -> BTreeSet<Fault> {
    let text = format!(
        "name: t\ngames_per_pairing: 1\nmove_time_ms: 250\nparticipants:\n  - {{ name: good, bot: random }}\n  - {{ name: {name}, bot: random }}\ngames:\n  - {{ game: expedition, preset: no-dice }}\n"
    );
    let t = Tournament::load("t.yaml", &text, &|_| Err("no files".into())).unwrap();
    let factory = |p: usize, spec: &dyn AnySpec, seed: u64| -> Result<Box<dyn Agent>, String> {
        if p == 1 { Ok(misbehaving(name).unwrap()) } else { bots::agent("random", spec, seed) }
    };
    let dir = scratch::scratch("referee", name);
    let opts = RunOptions::quiet(1, Some(LIMIT));
    let run = tournament::start(&t, &dir, None, &factory, &opts).unwrap();
    assert_eq!(run.stats.games, t.jobs.len(), "every game was played");
    let records = tournament::log::read_log(&dir).unwrap().records;
    let mut kinds = BTreeSet::new();
    for r in &records {
        assert_eq!(r.verdicts.len(), 1, "{:?}", r.verdicts);
        let v = &r.verdicts[0];
        assert_eq!(r.players[v.seat], name, "only the misbehaving agent is judged");
        assert_eq!((v.count, v.at_move), (1, r.game.actions.len()), "the first misbehaviour ends the game: {v:?}");
        assert_eq!(r.outcome.forfeited_by, Some(v.seat));
        kinds.insert(v.kind);
    }
    kinds
}

fn seat_of(spec: &str) -> v1::SeatSpec {
    v1::SeatSpec { player: Some(v1::seat_spec::Player::Bot(spec.into())) }
}

/// The verdict kinds of a server match with `name` run by the server at seat 0.
async fn in_server(
    m: &mut v1::matches_client::MatchesClient<tonic::transport::Channel>,
    name: &str,
) -> BTreeSet<Fault> {
    let req = v1::CreateMatchRequest {
        game: "expedition".into(),
        preset: "no-dice".into(),
        seed: Some(4),
        seats: vec![seat_of(name), seat_of("random")],
        move_time_ms: LIMIT.as_millis() as u32,
        ..Default::default()
    };
    let id = m.create_match(req).await.unwrap().into_inner().match_id;
    let o = wait_record(m, &id, Duration::from_secs(60)).await.outcome.unwrap();
    assert_eq!(o.forfeited_by, Some(0), "{name}: {o:?}");
    o.verdicts.iter().map(|v| Fault::parse(&v.kind).unwrap()).collect()
}

#[test]
fn the_same_misbehaviour_gets_the_same_verdict_everywhere() {
    let _quiet = arena::referee::QuietPanics::install();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let maker = AgentMaker(Arc::new(|name: &str, _: &dyn AnySpec, _| misbehaving(name).map(Ok)));
    // One client runs every match here, and the looping agent keeps a thinking slot for good:
    // the client is given them all (its share would otherwise be used up by it).
    let config = ServerConfig { agents: Some(maker), shares: arena::server::Shares::WHOLE, ..ServerConfig::default() };
    let running = rt.block_on(server::start("127.0.0.1:0".parse().unwrap(), config)).unwrap();
    let mut m = rt.block_on(async { arena::client::matches(arena::client::connect(&running.url()).await.unwrap()) });
    for (name, fault) in MISBEHAVING {
        let want = BTreeSet::from([fault]);
        assert_eq!(in_play(name, 0), want, "{name} in play, seat 0");
        assert_eq!(in_play(name, 1), want, "{name} in play, seat 1");
        assert_eq!(in_tournament(name), want, "{name} in a tournament");
        assert_eq!(rt.block_on(in_server(&mut m, name)), want, "{name} in a server match");
    }
    rt.block_on(running.stop()).unwrap();
    // The thread the looping agent was left on never ends: do not wait for it.
    rt.shutdown_background();
}

/// A raw Play client: answers the first legal action of every request, or (`quit`) drops its
/// stream at the first one. Returns the MatchEnded messages it heard.
async fn raw_client(url: String, name: String, quit: bool) -> Vec<v1::MatchEnded> {
    let channel = arena::client::connect(&url).await.unwrap();
    let mut client = v1::play_client::PlayClient::new(channel);
    let (tx, rx) = tokio::sync::mpsc::channel(64);
    let hello = v1::Hello { name, ..Default::default() };
    tx.send(v1::BotMessage { message: Some(v1::bot_message::Message::Hello(hello)) }).await.unwrap();
    let mut inbound = client.play(tokio_stream::wrappers::ReceiverStream::new(rx)).await.unwrap().into_inner();
    let mut ended = Vec::new();
    while let Ok(Some(msg)) = inbound.message().await {
        match msg.message {
            Some(v1::server_message::Message::Request(r)) if quit => {
                drop(r);
                return ended;
            }
            Some(v1::server_message::Message::Request(r)) => {
                let d = v1::Decision { request_id: r.request_id, action: r.legal[0].id };
                let _ = tx.send(v1::BotMessage { message: Some(v1::bot_message::Message::Decision(d)) }).await;
            }
            Some(v1::server_message::Message::Ended(e)) => ended.push(e),
            _ => {}
        }
    }
    ended
}

/// Run a tournament with one external participant `name` played by a raw client.
fn tournament_with_client(
    name: &str,
    quit: bool,
    games: &str,
) -> (Vec<arena::record::MatchRecord>, Vec<v1::MatchEnded>) {
    let text = format!(
        "name: t\ngames_per_pairing: 2\nmove_time_ms: 2000\nparticipants:\n  - {{ name: good, bot: random }}\n  - {{ name: {name}, connect: true }}\ngames:\n{games}"
    );
    let mut t = Tournament::load("t.yaml", &text, &|_| Err("no files".into())).unwrap();
    t.seal_for_new_run(None).unwrap();
    let client = Arc::new(Mutex::new(None::<std::thread::JoinHandle<Vec<v1::MatchEnded>>>));
    let (c, n) = (client.clone(), name.to_string());
    let say = move |line: String| {
        if let Some(url) = line.split("connect to ").nth(1) {
            let (url, n) = (url.trim().to_string(), n.clone());
            *c.lock().unwrap() = Some(std::thread::spawn(move || {
                tokio::runtime::Runtime::new().unwrap().block_on(raw_client(url, n, quit))
            }));
        }
    };
    let dir = scratch::scratch("referee", name);
    let opts = RunOptions::quiet(1, Some(Duration::from_secs(2)));
    external::with_agents(&t, &dir, &say, |factory| tournament::start(&t, &dir, None, factory, &opts)).unwrap();
    let ended = client.lock().unwrap().take().unwrap().join().unwrap();
    (tournament::log::read_log(&dir).unwrap().records, ended)
}

#[test]
fn a_client_that_disconnects_is_disconnected_in_a_tournament_and_on_a_server() {
    let (records, _) = tournament_with_client("quitter", true, "  - { game: expedition, preset: no-dice }\n");
    let kinds: BTreeSet<Fault> = records.iter().flat_map(|r| r.verdicts.iter().map(|v| v.kind)).collect();
    assert_eq!(kinds, BTreeSet::from([Fault::Disconnected]));
    assert!(records.iter().all(|r| r.verdicts.len() == 1 && r.players[r.verdicts[0].seat] == "quitter"));
    // One wording, naming the agent, in a tournament and on a server.
    let worded = "quitter: the Play client disconnected";
    assert!(records.iter().all(|r| r.verdicts[0].detail == worded), "{:?}", records[0].verdicts);
    // On a server: the same client, at a Play seat.
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let running = server::start("127.0.0.1:0".parse().unwrap(), ServerConfig::default()).await.unwrap();
        let url = running.url();
        let quitter = tokio::spawn(raw_client(url.clone(), "quitter".into(), true));
        assert!(running.hub.wait_for_session("quitter", Duration::from_secs(10)).await.is_some());
        let mut m = arena::client::matches(arena::client::connect(&url).await.unwrap());
        let req = v1::CreateMatchRequest {
            game: "expedition".into(),
            seed: Some(2),
            seats: vec![
                v1::SeatSpec { player: Some(v1::seat_spec::Player::Play("quitter".into())) },
                seat_of("random"),
            ],
            ..Default::default()
        };
        // The quitter may be seat 1's opponent to move second: either way its seat is judged.
        let id = m.create_match(req).await.unwrap().into_inner().match_id;
        let o = wait_record(&mut m, &id, Duration::from_secs(60)).await.outcome.unwrap();
        quitter.await.unwrap();
        let kinds: Vec<&str> = o.verdicts.iter().map(|v| v.kind.as_str()).collect();
        assert_eq!(kinds, vec!["disconnected"], "{o:?}");
        assert_eq!(o.verdicts[0].detail, worded, "{o:?}");
        assert_eq!(o.forfeited_by, Some(0));
        running.stop().await.unwrap();
    });
}

#[test]
fn match_ended_reaches_play_clients_in_tournaments_with_the_team_score() {
    let games = "  - { game: expedition, preset: no-dice }\n  - { game: journey, preset: classic }\n";
    let (records, ended) = tournament_with_client("listener", false, games);
    let mine = records.iter().filter(|r| r.players.iter().any(|p| p == "listener")).count();
    assert!(mine > 0);
    // One MatchEnded per seat it held, at the end of every game.
    let seats: usize = records.iter().map(|r| r.players.iter().filter(|p| p.as_str() == "listener").count()).sum();
    assert_eq!(ended.len(), seats, "a MatchEnded for every seat of every game");
    let journey: Vec<&v1::MatchEnded> =
        ended.iter().filter(|e| e.outcome.as_ref().is_some_and(|o| o.team_score.is_some())).collect();
    assert!(!journey.is_empty(), "the cooperative games carry the team's score");
    for e in journey {
        let o = e.outcome.as_ref().unwrap();
        assert_eq!(o.team_score, o.scores.first().copied());
        assert_eq!(o.achieved.len(), o.scores.len(), "what each seat achieved: {o:?}");
    }
}
