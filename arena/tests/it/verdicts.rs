//! Verdicts, one wording and complete everywhere: a stalled external client in a tournament
//! with no move limit loses its game with `idle` and the run goes on; a tournament's Play
//! client hears every MatchEnded with its verdicts and `forfeited_by`; a timeout's detail
//! names the limit that applied, the same in `arena play`'s loop, a tournament and a server
//! match; a Play client resigns a seat it plays (on a server and in a tournament) and cannot
//! resign anyone else's; the summary counts verdicts by their kind; one spelling per policy.
//!
//! Real gRPC over 127.0.0.1 on ephemeral ports, the binary as a real process where the
//! command line is what is checked.

use crate::matches;
use crate::scratch;
use crate::served;
use matches::wait_record;

use arena::record::MatchRecord;
use arena::referee::{Fault, Policy, Referee, SeatAgent, TimeControl, Verdict, play_game};
use arena::server::{self, ServerConfig};
use arena::tournament::run::{RunOptions, RunStats};
use arena::tournament::{self, Tournament, external};
use bots::{Agent, AgentError, SeatView};
use engine::core::{ActionId, AnySpec};
use proto::v1;
use proto::v1::bot_message::Message as Send;
use proto::v1::server_message::Message as Heard;
use std::process::Command;
use std::time::{Duration, Instant};

fn no_files(_: &str) -> Result<String, String> {
    Err("no files".into())
}

/// A Play client driven step by step by the test.
struct Bot {
    tx: tokio::sync::mpsc::Sender<v1::BotMessage>,
    inbound: tonic::Streaming<v1::ServerMessage>,
}

impl Bot {
    /// Say Hello as `name`, and hear Welcome.
    async fn connect(url: &str, name: &str) -> Bot {
        let channel = arena::client::connect(url).await.unwrap();
        let mut client = v1::play_client::PlayClient::new(channel);
        let (tx, rx) = tokio::sync::mpsc::channel(64);
        let hello = v1::Hello { name: name.into(), ..Default::default() };
        tx.send(v1::BotMessage { message: Some(Send::Hello(hello)) }).await.unwrap();
        let inbound = client.play(tokio_stream::wrappers::ReceiverStream::new(rx)).await.unwrap().into_inner();
        let mut bot = Bot { tx, inbound };
        assert!(matches!(bot.next().await, Some(Heard::Welcome(_))), "{name}: Welcome first");
        bot
    }

    async fn send(&self, message: Send) {
        self.tx.send(v1::BotMessage { message: Some(message) }).await.unwrap();
    }

    async fn resign(&self, match_id: &str, seat: u32) {
        self.send(Send::Resign(v1::Resign { match_id: match_id.into(), seat })).await;
    }

    /// The next message (None once the stream is over).
    async fn next(&mut self) -> Option<Heard> {
        self.inbound.message().await.ok().flatten().and_then(|m| m.message)
    }

    /// Hear messages until the stream ends, answering none: every MatchEnded heard.
    async fn stall(mut self) -> Vec<v1::MatchEnded> {
        let mut ended = Vec::new();
        while let Some(m) = self.next().await {
            if let Heard::Ended(e) = m {
                ended.push(e);
            }
        }
        ended
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

/// The one verdict of a record, checked to be `name`'s and to have ended the game.
fn the_verdict<'a>(r: &'a MatchRecord, name: &str) -> &'a Verdict {
    assert_eq!(r.verdicts.len(), 1, "{:?}", r.verdicts);
    let v = &r.verdicts[0];
    assert_eq!(r.players[v.seat], name, "only {name} is judged: {r:?}");
    assert_eq!(r.outcome.forfeited_by, Some(v.seat));
    v
}

/// A MatchEnded checked to carry the one verdict and `forfeited_by` of its own seat.
fn check_ended(e: &v1::MatchEnded, kind: &str) -> String {
    let o = e.outcome.as_ref().expect("an outcome");
    assert_eq!(o.forfeited_by, Some(e.seat), "forfeited_by the client's seat: {e:?}");
    assert_eq!(o.verdicts.len(), 1, "{e:?}");
    let v = &o.verdicts[0];
    assert_eq!((v.seat, v.kind.as_str(), v.policy.as_str()), (e.seat, kind, "forfeit"), "{e:?}");
    v.detail.clone()
}

// ----- a stalled client, and the summary: the binary as a real process ------------------------

#[test]
fn a_stalled_external_client_loses_with_idle_and_the_tournament_finishes() {
    // No move limit at all: only the idle limit stands between a silent client and a hang.
    let text = "name: stall\nseed: 1\ngames_per_pairing: 2\nconcurrency: 1\nbootstrap: 10\nidle_ms: 500\nparticipants:\n  - { name: random, bot: random }\n  - { name: staller, connect: true }\ngames:\n  - { game: expedition, preset: no-dice, params: { players: 2 } }\n";
    let file = scratch::scratch("verdicts", "stall.yaml");
    std::fs::write(&file, text).unwrap();
    let out = scratch::scratch("verdicts", "stall-out");
    let (mut child, url, mut err) = served::tournament_awaiting_visitors(&file, &out);
    // Whatever else it says is read and dropped, so it never blocks on a full pipe.
    std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
    let staller =
        std::thread::spawn(move || runtime().block_on(async { Bot::connect(&url, "staller").await.stall().await }));
    // The run ends by itself; a hang is cut short here (the test then fails).
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(300) {
            let _ = child.kill();
            panic!("the tournament hung on a stalled client");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut stdout = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut stdout).unwrap();
    assert!(child.wait().unwrap().success(), "{stdout}");
    let records = tournament::log::read_log(&out).unwrap().records;
    assert_eq!(records.len(), 4, "every game played: {stdout}");
    for r in &records {
        let v = the_verdict(r, "staller");
        assert_eq!(v.kind, Fault::Idle, "{v:?}");
        assert_eq!(v.detail, "no seat acted within the 500 ms idle limit");
    }
    // The summary counts the verdicts by their kind; the standings name the kind.
    assert!(stdout.contains("4 games ended by a verdict: idle 4; see the report"), "{stdout}");
    let standings = std::fs::read_to_string(out.join("report/standings.md")).unwrap();
    assert!(standings.contains("games lost by verdict \\`idle\\`: staller 4"), "{standings}");
    // The stalled client heard every game's end, with the verdict and who forfeited.
    let ended = staller.join().unwrap();
    assert_eq!(ended.len(), 4, "{ended:?}");
    for e in &ended {
        assert_eq!(check_ended(e, "idle"), "no seat acted within the 500 ms idle limit");
    }
}

#[test]
fn the_summary_counts_verdicts_by_their_kind() {
    let mut stats = RunStats::default();
    assert_eq!(stats.verdict_line(), None);
    let mut other = RunStats::default();
    other.verdicts.insert(Fault::Disconnected, 10);
    stats.add(&other);
    assert_eq!(stats.verdict_line().unwrap(), "10 games ended by a verdict: disconnected 10");
    other.verdicts = [(Fault::Timeout, 1)].into();
    stats.add(&other);
    assert_eq!(stats.verdict_line().unwrap(), "11 games ended by a verdict: timeout 1, disconnected 10");
}

// ----- the limit in every timeout detail ---------------------------------------------------------

const LIMIT: Duration = Duration::from_millis(300);

/// Answers, but long after the limit.
struct Late;
impl Agent for Late {
    fn name(&self) -> &str {
        "late"
    }
    fn act(&mut self, view: &SeatView) -> Result<ActionId, AgentError> {
        std::thread::sleep(Duration::from_millis(500));
        Ok(view.legal()[0])
    }
}

fn expedition() -> Box<dyn AnySpec> {
    (engine::find_game("expedition").unwrap().spec)(Some("no-dice"), &[], &no_files).unwrap()
}

/// A tournament run by the library on a thread of its own, with one external participant
/// `name` that a client of the test plays: the URL to connect to, and the thread (its records).
fn tournament_on_a_thread(text: String, name: &str) -> (String, std::thread::JoinHandle<Vec<MatchRecord>>) {
    let (url_tx, url_rx) = std::sync::mpsc::channel();
    let dir_name = name.to_string();
    let thread = std::thread::spawn(move || {
        let mut t = Tournament::load("t.yaml", &text, &no_files).unwrap();
        t.seal_for_new_run(None).unwrap();
        let say = move |line: String| {
            if let Some(url) = line.split("connect to ").nth(1) {
                let _ = url_tx.send(url.trim().to_string());
            }
        };
        let dir = scratch::scratch("verdicts", &dir_name);
        let opts = RunOptions { time: t.config.time_controls(), ..RunOptions::quiet(1, None) };
        external::with_agents(&t, &dir, &say, |factory| tournament::start(&t, &dir, None, factory, &opts)).unwrap();
        tournament::log::read_log(&dir).unwrap().records
    });
    (url_rx.recv_timeout(Duration::from_secs(60)).expect("the tournament's server"), thread)
}

#[test]
fn a_timeout_names_its_limit_in_play_in_a_tournament_and_on_a_server() {
    let want = "no action within the 300 ms per-move limit";
    // `arena play`'s loop, with an agent of this process: late, or cut off (a busy machine).
    let spec = expedition();
    let agents = vec![
        SeatAgent::new(Box::new(Late), TimeControl::per_move(Some(LIMIT))),
        SeatAgent::new(bots::agent("random", spec.as_ref(), 1).unwrap(), TimeControl::per_move(Some(LIMIT))),
    ];
    let played = play_game(spec.new_game(4), agents, Referee::new(Some(LIMIT), Policy::Forfeit, 4), |_, _, _| {});
    let v = &played.verdicts[0];
    assert_eq!((v.kind, played.outcome.forfeited_by), (Fault::Timeout, Some(0)));
    assert!(
        v.detail.starts_with("answered after ") && v.detail.ends_with(", past the 300 ms per-move limit")
            || v.detail == format!("{want}: cut off and left behind"),
        "{}",
        v.detail
    );

    // A tournament: an external client that never answers, a 300 ms limit in the file.
    let text = "name: t\nseed: 2\ngames_per_pairing: 1\nmove_time_ms: 300\nbootstrap: 10\nparticipants:\n  - { name: good, bot: random }\n  - { name: silent, connect: true }\ngames:\n  - { game: expedition, preset: no-dice }\n".to_string();
    let (url, thread) = tournament_on_a_thread(text, "silent");
    let rt = runtime();
    let silent = rt.spawn(async move { Bot::connect(&url, "silent").await.stall().await });
    let records = thread.join().unwrap();
    assert_eq!(records.len(), 2);
    for r in &records {
        let v = the_verdict(r, "silent");
        assert_eq!((v.kind, v.detail.as_str()), (Fault::Timeout, want), "in the tournament's record");
    }
    let ended = rt.block_on(silent).unwrap();
    assert_eq!(ended.len(), 2, "{ended:?}");
    for e in &ended {
        assert_eq!(check_ended(e, "timeout"), want, "in the tournament's MatchEnded");
    }

    // A server match: the same client at a Play seat, the same limit asked for.
    rt.block_on(async {
        let running = server::start("127.0.0.1:0".parse().unwrap(), ServerConfig::default()).await.unwrap();
        let silent = Bot::connect(&running.url(), "silent").await;
        let mut m = arena::client::matches(arena::client::connect(&running.url()).await.unwrap());
        let req = v1::CreateMatchRequest {
            game: "expedition".into(),
            preset: "no-dice".into(),
            seed: Some(3),
            seats: vec![play_seat("silent"), bot_seat("random")],
            move_time_ms: 300,
            ..Default::default()
        };
        let id = m.create_match(req).await.unwrap().into_inner().match_id;
        let o = wait_record(&mut m, &id, Duration::from_secs(60)).await.outcome.unwrap();
        assert_eq!(o.forfeited_by, Some(0));
        let kinds: Vec<(&str, &str)> = o.verdicts.iter().map(|v| (v.kind.as_str(), v.detail.as_str())).collect();
        assert_eq!(kinds, vec![("timeout", want)], "in the server's record");
        running.stop().await.unwrap();
        let ended = silent.stall().await;
        assert_eq!(check_ended(&ended[0], "timeout"), want, "in the server's MatchEnded");
    });
}

// ----- Resign on the Play stream -----------------------------------------------------------------

fn play_seat(name: &str) -> v1::SeatSpec {
    v1::SeatSpec { player: Some(v1::seat_spec::Player::Play(name.into())) }
}

fn bot_seat(spec: &str) -> v1::SeatSpec {
    v1::SeatSpec { player: Some(v1::seat_spec::Player::Bot(spec.into())) }
}

/// The next StreamError a client hears (requests and the like skipped).
async fn next_error(bot: &mut Bot) -> v1::StreamError {
    loop {
        match bot.next().await {
            Some(Heard::Error(e)) => return e,
            Some(_) => {}
            None => panic!("the stream ended"),
        }
    }
}

/// The next MatchEnded a client hears.
async fn next_ended(bot: &mut Bot) -> v1::MatchEnded {
    loop {
        match bot.next().await {
            Some(Heard::Ended(e)) => return e,
            Some(_) => {}
            None => panic!("the stream ended"),
        }
    }
}

#[test]
fn a_play_client_resigns_its_own_seat_on_a_server_and_no_one_else_s() {
    runtime().block_on(async {
        let running = server::start("127.0.0.1:0".parse().unwrap(), ServerConfig::default()).await.unwrap();
        let url = running.url();
        let mut holder = Bot::connect(&url, "holder").await;
        let mut meddler = Bot::connect(&url, "meddler").await;
        let mut m = arena::client::matches(arena::client::connect(&url).await.unwrap());
        let req = v1::CreateMatchRequest {
            game: "expedition".into(),
            preset: "no-dice".into(),
            seed: Some(5),
            seats: vec![play_seat("holder"), v1::SeatSpec { player: Some(v1::seat_spec::Player::Token(true)) }],
            move_time_ms: 60_000,
            ..Default::default()
        };
        let created = m.create_match(req).await.unwrap().into_inner();
        let id = created.match_id.clone();
        let token = created.tokens[0].token.clone();
        let observe = || v1::ObserveRequest { match_id: id.clone(), token: token.clone(), ..Default::default() };
        let before = m.observe(observe()).await.unwrap().into_inner();
        // Another stream's seat, a token seat, a seat past the table, a match that is not there.
        for (match_id, seat) in [(id.as_str(), 0), (id.as_str(), 1), (id.as_str(), 7), ("no-such-match", 0)] {
            meddler.resign(match_id, seat).await;
            let e = next_error(&mut meddler).await;
            assert_eq!(e.code, "not_your_seat", "{match_id} seat {seat}: {e:?}");
        }
        let after = m.observe(observe()).await.unwrap().into_inner();
        assert_eq!(after.outcome, None, "nothing changed: {after:?}");
        assert_eq!(after.version, before.version);
        // Its own seat, at any time.
        holder.resign(&id, 0).await;
        let o = wait_record(&mut m, &id, Duration::from_secs(60)).await.outcome.unwrap();
        let verdicts: Vec<(u32, &str, &str)> =
            o.verdicts.iter().map(|v| (v.seat, v.kind.as_str(), v.policy.as_str())).collect();
        assert_eq!(verdicts, vec![(0, "resigned", "forfeit")]);
        assert_eq!((o.forfeited_by, o.ranks.clone()), (Some(0), vec![1, 0]));
        assert!(o.verdicts[0].detail.starts_with("seat 0 resigned at move "), "{}", o.verdicts[0].detail);
        let ended = next_ended(&mut holder).await;
        assert_eq!((ended.match_id.as_str(), ended.seat), (id.as_str(), 0));
        check_ended(&ended, "resigned");
        // A seat of a match that is over is no one's to resign.
        holder.resign(&id, 0).await;
        assert_eq!(next_error(&mut holder).await.code, "not_your_seat");
        running.stop().await.unwrap();
    });
}

#[test]
fn a_play_client_resigns_its_own_seat_in_a_tournament_and_no_one_else_s() {
    // No move limit, a long idle limit: nothing but the client ends its games.
    let text = "name: t\nseed: 3\ngames_per_pairing: 1\nidle_ms: 60000\nbootstrap: 10\nparticipants:\n  - { name: good, bot: random }\n  - { name: holder, connect: true }\ngames:\n  - { game: expedition, preset: no-dice }\n".to_string();
    let (url, thread) = tournament_on_a_thread(text, "holder");
    let rt = runtime();
    let ended = rt.block_on(async {
        let mut holder = Bot::connect(&url, "holder").await;
        // Any stream may connect to the tournament's server; none may touch another's seats.
        let mut meddler = Bot::connect(&url, "meddler").await;
        let mut ended = Vec::new();
        let mut games = 0;
        while let Some(m) = holder.next().await {
            match m {
                Heard::Request(r) if games == 0 => {
                    // The first game: the meddler tries the seat being asked, then its owner
                    // resigns it in answer.
                    for seat in [r.seat, 1 - r.seat] {
                        meddler.resign(&r.match_id, seat).await;
                        assert_eq!(next_error(&mut meddler).await.code, "not_your_seat");
                    }
                    holder.resign(&r.match_id, r.seat).await;
                    games = 1;
                }
                Heard::Request(r) if games == 1 => {
                    // The second: it answers, then resigns while not asked (its next request
                    // is answered with the resignation).
                    let d = v1::Decision { request_id: r.request_id, action: r.legal[0].id };
                    holder.send(Send::Decision(d)).await;
                    holder.resign(&r.match_id, r.seat).await;
                    games = 2;
                }
                Heard::Request(r) => {
                    let d = v1::Decision { request_id: r.request_id, action: r.legal[0].id };
                    holder.send(Send::Decision(d)).await;
                }
                Heard::Ended(e) => ended.push(e),
                _ => {}
            }
        }
        ended
    });
    let records = thread.join().unwrap();
    assert_eq!(records.len(), 2);
    for r in &records {
        let v = the_verdict(r, "holder");
        assert_eq!(v.kind, Fault::Resigned, "{v:?}");
        assert_eq!(v.detail, format!("seat {} resigned at move {}", v.seat, v.at_move));
    }
    assert_eq!(ended.len(), 2, "{ended:?}");
    for e in &ended {
        check_ended(e, "resigned");
    }
}

// ----- one spelling per policy -------------------------------------------------------------------

#[test]
fn one_spelling_per_policy_and_old_records_still_load() {
    assert_eq!(Policy::RandomMove.name(), "random-move");
    assert_eq!(serde_json::to_string(&Policy::RandomMove).unwrap(), "\"random-move\"");
    for old in ["\"random move\"", "\"random\"", "\"random-move\""] {
        assert_eq!(serde_json::from_str::<Policy>(old).unwrap(), Policy::RandomMove, "{old}");
    }
    for name in Policy::ALL.map(Policy::name) {
        assert_eq!(Policy::parse(name).map(Policy::name), Some(name));
    }
    // The command line takes the one spelling (and the older `random`).
    for flag in ["random-move", "random"] {
        let out = Command::new(env!("CARGO_BIN_EXE_arena"))
            .args(["play", "expedition", "--games", "1", "--on-timeout", flag, "--move-time-ms", "60000"])
            .output()
            .unwrap();
        assert!(out.status.success(), "--on-timeout {flag}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["play", "expedition", "--games", "1", "--on-timeout", "random move"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("random-move"), "the error names the spellings");
}

// ----- An overage bank, told in each request ------------------------------------------------------

/// A tournament with a per-move limit and an overage bank: each request tells the Play client
/// the time it may take in all and how much of it is its bank; a move past the per-move limit
/// draws on the bank (the next request tells less), and nobody is judged late for it.
#[test]
fn a_client_is_told_its_bank_and_a_slow_move_draws_on_it() {
    let text = "name: t\nseed: 5\ngames_per_pairing: 1\nconcurrency: 1\nmove_time_ms: 200\nbank: { base_ms: 5000 }\nbootstrap: 10\nparticipants:\n  - { name: good, bot: random }\n  - { name: banker, connect: true }\ngames:\n  - { game: expedition, preset: no-dice, params: { players: 2 } }\n".to_string();
    let (url, thread) = tournament_on_a_thread(text, "banker");
    let rt = runtime();
    // Per match: each request's (time_left_ms, bank_left_ms).
    let told = rt.block_on(async {
        let mut banker = Bot::connect(&url, "banker").await;
        let mut told: std::collections::HashMap<String, Vec<(u32, u32)>> = Default::default();
        while let Some(m) = banker.next().await {
            if let Heard::Request(r) = m {
                let seen = told.entry(r.match_id.clone()).or_default();
                seen.push((r.time_left_ms, r.bank_left_ms));
                // The first decision of each match takes 400 ms: 200 past the limit.
                if seen.len() == 1 {
                    tokio::time::sleep(Duration::from_millis(400)).await;
                }
                banker.send(Send::Decision(v1::Decision { request_id: r.request_id, action: r.legal[0].id })).await;
            }
        }
        told
    });
    let records = thread.join().unwrap();
    assert_eq!(records.len(), 2);
    for r in &records {
        assert!(r.verdicts.is_empty() && r.outcome.forfeited_by.is_none(), "no one was late: {:?}", r.verdicts);
    }
    assert_eq!(told.len(), 2, "{told:?}");
    for seen in told.values() {
        assert!(seen.len() >= 2, "{seen:?}");
        // At first: the 200 ms limit and the whole bank.
        assert_eq!(seen[0], (5200, 5000));
        // After 400 ms: at least 200 of the bank spent; the limit's 200 told beside it.
        let (time, bank) = seen[1];
        assert!(bank <= 4800 && time == bank + 200, "{seen:?}");
        // No move after it was slow: the bank stays as it was.
        assert!(seen[2..].iter().all(|&(_, b)| b == bank), "{seen:?}");
    }
}

/// A match of the server with an overage bank (`bank_ms`): a Play client is told its bank in
/// each request, a slow move draws on it instead of timing out, a token seat's state tells it,
/// and a bank the server cannot give is refused by field.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_match_has_an_overage_bank_when_asked() {
    let running = server::start("127.0.0.1:0".parse().unwrap(), ServerConfig::default()).await.unwrap();
    let url = running.url();
    let mut m = v1::matches_client::MatchesClient::new(arena::client::connect(&url).await.unwrap());
    let mut banker = Bot::connect(&url, "banker").await;
    let seats = ["banker", ""].map(|n| v1::SeatSpec {
        player: Some(match n {
            "" => v1::seat_spec::Player::Token(true),
            n => v1::seat_spec::Player::Play(n.to_string()),
        }),
    });
    let req = v1::CreateMatchRequest {
        game: "expedition".into(),
        preset: "no-dice".into(),
        seed: Some(4),
        seats: seats.to_vec(),
        move_time_ms: 200,
        bank_ms: 3000,
        bank_increment_ms: 10,
        ..Default::default()
    };
    let created = m.create_match(req.clone()).await.unwrap().into_inner();
    let token = created.tokens[0].token.clone();
    // The token seat's state tells its bank.
    let state = m
        .observe(v1::ObserveRequest { match_id: created.match_id.clone(), token: token.clone(), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(state.bank_left_ms, Some(3000));
    // The client's first decision takes 500 ms: 300 past the limit, drawn from the bank. The
    // token seat moves at once when it is its turn.
    let mut told = Vec::new();
    let start = Instant::now();
    while told.len() < 2 {
        assert!(start.elapsed() < Duration::from_secs(30), "two decisions: {told:?}");
        let observe =
            v1::ObserveRequest { match_id: created.match_id.clone(), token: token.clone(), ..Default::default() };
        let s = m.observe(observe).await.unwrap().into_inner();
        assert!(s.outcome.is_none(), "the match goes on: {s:?}");
        if s.to_move == Some(1) {
            let act = v1::ActRequest {
                match_id: created.match_id.clone(),
                token: token.clone(),
                action: s.legal[0].id,
                version: Some(s.version),
            };
            m.act(act).await.unwrap();
            continue;
        }
        let Ok(Some(Heard::Request(r))) = tokio::time::timeout(Duration::from_millis(100), banker.next()).await else {
            continue;
        };
        told.push((r.time_left_ms, r.bank_left_ms));
        if told.len() == 1 {
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        banker.send(Send::Decision(v1::Decision { request_id: r.request_id, action: r.legal[0].id })).await;
    }
    assert_eq!(told[0], (3200, 3000), "{told:?}");
    let (time, bank) = told[1];
    assert!((1500..=2710).contains(&bank) && time == bank + 200, "{told:?}");
    // Nobody was late.
    let state = m
        .observe(v1::ObserveRequest { match_id: created.match_id.clone(), token, ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    assert!(state.outcome.as_ref().is_none_or(|o| o.verdicts.is_empty()), "{state:?}");
    // Banks the server cannot give, by field.
    for (bank_ms, increment, field) in
        [(0, 5, "bank_increment_ms"), (700_000, 0, "bank_ms"), (1000, 70_000, "bank_increment_ms")]
    {
        let e = m
            .create_match(v1::CreateMatchRequest { bank_ms, bank_increment_ms: increment, ..req.clone() })
            .await
            .unwrap_err();
        assert!(e.code() == tonic::Code::InvalidArgument && e.message().starts_with(field), "{e:?}");
    }
    running.stop().await.unwrap();
}
