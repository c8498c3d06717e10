//! The gRPC server end to end, over real sockets on ephemeral ports: complete games by token
//! and over Play, every error with its code (and the match unchanged), tokens bound to their
//! seats, views that do not depend on hidden facts, many matches at once, clients that die or
//! stall, remote bots that choose as in process, health and reflection.

use arena::server::{self, Policy, Running, ServerConfig};
use bots::{Agent, Budget, SeatView};
use engine::core::{find_game, game_seed};
use proto::v1;
use proto::v1::matches_client::MatchesClient;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tonic::transport::Channel;
use tonic::{Code, Request};

async fn start(config: ServerConfig) -> (Running, MatchesClient<Channel>) {
    let running = server::start("127.0.0.1:0".parse().unwrap(), config).await.unwrap();
    let channel = arena::client::connect(&running.url()).await.unwrap();
    (running, MatchesClient::new(channel))
}

/// A seat's state without the time left (the clock runs between two calls).
fn untimed(mut s: v1::SeatState) -> v1::SeatState {
    s.time_left_ms = 0;
    s
}

fn create(game: &str, seed: u64) -> v1::CreateMatchRequest {
    v1::CreateMatchRequest { game: game.into(), seed, ..Default::default() }
}

fn play_seats(names: &[&str]) -> Vec<v1::SeatSpec> {
    names.iter().map(|n| v1::SeatSpec { player: Some(v1::seat_spec::Player::Play(n.to_string())) }).collect()
}

/// Play a token match to its end, each seat choosing uniformly among its legal actions.
async fn play_by_tokens(m: &mut MatchesClient<Channel>, created: &v1::CreateMatchResponse, seed: u64) -> v1::SeatState {
    use rand::{RngExt, SeedableRng};
    let mut rng = engine::core::SmallRng::seed_from_u64(seed);
    let token = |seat: u32| created.tokens.iter().find(|t| t.seat == seat).unwrap().token.clone();
    loop {
        let s = m
            .observe(v1::ObserveRequest { match_id: created.match_id.clone(), token: token(0) })
            .await
            .unwrap()
            .into_inner();
        let Some(to_move) = s.to_move else { return s };
        let mine = m
            .observe(v1::ObserveRequest { match_id: created.match_id.clone(), token: token(to_move) })
            .await
            .unwrap()
            .into_inner();
        assert!(!mine.legal.is_empty(), "the seat to move sees its legal actions");
        let a = mine.legal[rng.random_range(0..mine.legal.len())].id;
        m.act(v1::ActRequest {
            match_id: created.match_id.clone(),
            token: token(to_move),
            action: a,
            version: Some(mine.version),
        })
        .await
        .unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn complete_games_of_both_games_by_token() {
    let (running, mut m) = start(ServerConfig::default()).await;
    for (game, params) in [("journey", vec![("travellers", "2")]), ("expedition", vec![("players", "3")])] {
        let mut req = create(game, 11);
        req.params = params.into_iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let created = m.create_match(req).await.unwrap().into_inner();
        assert_eq!(created.tokens.len() as u32, created.seats);
        assert!(created.tokens.iter().all(|t| t.token.len() == 32), "128-bit tokens");
        let end = play_by_tokens(&mut m, &created, 3).await;
        let outcome = end.outcome.expect("an outcome once over");
        assert_eq!(outcome.ranks.len() as u32, created.seats);
        let record =
            m.get_record(v1::GetRecordRequest { match_id: created.match_id.clone() }).await.unwrap().into_inner();
        assert_eq!(record.actions.len() as u64, end.version);
        // The record replays to the same outcome in the engine.
        let entry = find_game(game).unwrap();
        let source = engine::core::ParamSource::Yaml { name: "record".into(), text: record.params_yaml.clone() };
        let spec = (entry.spec)(None, &[source], &arena::load_file).unwrap();
        let mut g = spec.new_game(record.seed);
        for a in &record.actions {
            g.apply(*a).unwrap();
        }
        assert_eq!(g.outcome().unwrap().scores, outcome.scores);
    }
    running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_error_has_its_code_and_changes_nothing() {
    let (running, mut m) = start(ServerConfig::default()).await;
    let mut req = create("expedition", 5);
    req.preset = "no-dice".into();
    let created = m.create_match(req).await.unwrap().into_inner();
    let id = created.match_id.clone();
    let token = |s: u32| created.tokens[s as usize].token.clone();
    let observe = |seat: u32| v1::ObserveRequest { match_id: id.clone(), token: token(seat) };
    let before = m.observe(observe(0)).await.unwrap().into_inner();
    let to_move = before.to_move.unwrap();
    let other = 1 - to_move;
    let mine = m.observe(observe(to_move)).await.unwrap().into_inner();
    let legal: Vec<u32> = mine.legal.iter().map(|l| l.id).collect();
    let illegal = (0..).find(|a| !legal.contains(a)).unwrap();
    let act = |seat: u32, action: u32, version: Option<u64>| v1::ActRequest {
        match_id: id.clone(),
        token: token(seat),
        action,
        version,
    };

    let e = m.act(act(to_move, illegal, None)).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    assert!(e.message().contains("not legal") && e.message().contains(&format!("{legal:?}")), "{}", e.message());

    let e = m.act(act(other, legal[0], None)).await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert!(e.message().contains("not your turn"), "{}", e.message());

    let e = m.act(act(to_move, legal[0], Some(mine.version + 7))).await.unwrap_err();
    assert_eq!(e.code(), Code::Aborted, "{e:?}");
    assert!(e.message().contains("stale"), "{}", e.message());

    let e = m.observe(v1::ObserveRequest { match_id: "nope".into(), token: token(0) }).await.unwrap_err();
    assert_eq!(e.code(), Code::NotFound);
    let e = m.observe(v1::ObserveRequest { match_id: id.clone(), token: "0".repeat(32) }).await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
    let e = m.get_record(v1::GetRecordRequest { match_id: id.clone() }).await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "not over yet");

    let mut bad = create("expedition", 1);
    bad.params.insert("players".into(), "9".into());
    let e = m.create_match(bad).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("players"), "{}", e.message());
    let e = m.create_match(create("chess", 1)).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("chess"), "{}", e.message());

    // None of it changed the match (only the clock moved).
    let after = m.observe(observe(0)).await.unwrap().into_inner();
    assert_eq!(untimed(after), untimed(before));

    // A token of another match opens nothing here.
    let other_match = m.create_match(create("expedition", 6)).await.unwrap().into_inner();
    let e = m
        .observe(v1::ObserveRequest { match_id: id.clone(), token: other_match.tokens[0].token.clone() })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
    // A seat's token sees that seat only, and acts only for it.
    let s1 = m.observe(observe(other)).await.unwrap().into_inner();
    assert_eq!(s1.seat, other);
    assert!(s1.legal.is_empty(), "no legal actions shown to a seat not to move");
    running.stop().await.unwrap();
}

/// Seat 0's view of a new match started from `scenario` (the match id and clock left out).
async fn seat0_view(m: &mut MatchesClient<Channel>, game: &str, preset: &str, scenario: String) -> v1::SeatState {
    let mut req = create(game, 3);
    req.preset = preset.into();
    req.scenario = scenario;
    let created = m.create_match(req).await.unwrap().into_inner();
    let token = created.tokens[0].token.clone();
    let mut s =
        untimed(m.observe(v1::ObserveRequest { match_id: created.match_id, token }).await.unwrap().into_inner());
    s.match_id.clear();
    s
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_sees_the_same_whatever_the_hidden_facts() {
    let (running, mut m) = start(ServerConfig::default()).await;
    // Two expedition positions: seat 0 holds the same card; seat 1's face-down card and the
    // deck's order differ.
    let base = "to_move: 0\nstep: action\nfirst_player: 0\nface_up: [~, ~, ~, ~]\n";
    let a = format!(
        "{base}players:\n  - {{ cards: [Dice card] }}\n  - {{ cards: [The Oasis Bridge] }}\ndeck: [Empires of Fire, Lighthouse of the Falls]\n"
    );
    let b = format!(
        "{base}players:\n  - {{ cards: [Dice card] }}\n  - {{ cards: [Empires of Fire] }}\ndeck: [Lighthouse of the Falls, The Oasis Bridge]\n"
    );
    let x = seat0_view(&mut m, "expedition", "dice", a).await;
    let y = seat0_view(&mut m, "expedition", "dice", b).await;
    assert_eq!(x, y, "seat 0 sees the same in both matches");
    // Journey: two deck orders.
    let mut views = Vec::new();
    for journey in ["[5♥, 9♠, 2♥, K♠]", "[5♥, K♠, 2♥, 9♠]"] {
        let scenario = format!("journey: {journey}\nsupply: [3♦, 4♣, 9♦]\nsatchels: [[2♣]]\n");
        views.push(seat0_view(&mut m, "journey", "classic", scenario).await);
    }
    assert_eq!(views[0], views[1]);
    running.stop().await.unwrap();
}

fn spawn_bot(url: &str, agent: &str, name: &str, seed: u64) -> Child {
    Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["bot", agent, "--server", url, "--name", name, "--seed", &seed.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

async fn wait_connected(running: &Running, name: &str) {
    let hub = running.hub.clone();
    let name = name.to_string();
    let found =
        tokio::task::spawn_blocking(move || hub.wait_for_session(&name, Duration::from_secs(30))).await.unwrap();
    assert!(found.is_some(), "the bot process did not connect");
}

async fn wait_record(m: &mut MatchesClient<Channel>, id: &str) -> v1::MatchRecord {
    let start = Instant::now();
    loop {
        match m.get_record(v1::GetRecordRequest { match_id: id.into() }).await {
            Ok(r) => return r.into_inner(),
            Err(e) if e.code() == Code::FailedPrecondition => {}
            Err(e) => panic!("{e:?}"),
        }
        assert!(start.elapsed() < Duration::from_secs(120), "match {id} did not end");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_matches_at_once_and_a_killed_client_harms_only_its_seats() {
    let config =
        ServerConfig { move_time: Some(Duration::from_secs(5)), policy: Policy::Forfeit, ..ServerConfig::default() };
    let (running, mut m) = start(config).await;
    let url = running.url();
    let mut steady = spawn_bot(&url, "random", "steady", 1);
    let mut doomed = spawn_bot(&url, "random", "doomed", 2);
    wait_connected(&running, "steady").await;
    wait_connected(&running, "doomed").await;
    // 200 matches at once, over Play: steady against itself.
    let mut ids = Vec::new();
    for k in 0..200 {
        let mut req = create(if k % 2 == 0 { "expedition" } else { "journey" }, k);
        if k % 2 == 1 {
            req.params.insert("travellers".into(), "2".into());
        }
        req.seats = play_seats(&["steady", "steady"]);
        ids.push(m.create_match(req).await.unwrap().into_inner().match_id);
    }
    // Matches with the doomed client at seat 1, long enough to kill it mid-game.
    let mut doomed_ids = Vec::new();
    for k in 0..4 {
        let mut req = create("expedition", 1000 + k);
        req.seats = play_seats(&["steady", "doomed"]);
        req.move_time_ms = 2000;
        doomed_ids.push(m.create_match(req).await.unwrap().into_inner().match_id);
    }
    doomed.kill().unwrap();
    doomed.wait().unwrap();
    for id in &ids {
        let r = wait_record(&mut m, id).await;
        let o = r.outcome.unwrap();
        assert!(o.verdicts.is_empty(), "an untouched match: {:?}", o.verdicts);
    }
    for id in &doomed_ids {
        let r = wait_record(&mut m, id).await;
        let o = r.outcome.unwrap();
        // Either it ended before the kill, or the doomed seat lost by its verdict.
        if let Some(v) = o.verdicts.first() {
            assert_eq!(v.seat, 1);
            assert!(v.kind == "disconnected" || v.kind == "timeout", "{v:?}");
            assert_eq!(v.policy, "forfeit");
            assert_eq!(o.ranks, vec![0, 1]);
        }
    }
    steady.kill().unwrap();
    steady.wait().unwrap();
    running.stop().await.unwrap();
}

/// A Play client that says Hello and then never answers.
async fn silent_client(url: &str, name: &str) -> tokio::sync::mpsc::Sender<v1::BotMessage> {
    let channel = arena::client::connect(url).await.unwrap();
    let mut client = v1::play_client::PlayClient::new(channel);
    let (tx, rx) = tokio::sync::mpsc::channel(16);
    tx.send(v1::BotMessage {
        message: Some(v1::bot_message::Message::Hello(v1::Hello { name: name.into(), games: vec![] })),
    })
    .await
    .unwrap();
    let mut inbound =
        client.play(Request::new(tokio_stream::wrappers::ReceiverStream::new(rx))).await.unwrap().into_inner();
    tokio::spawn(async move { while let Ok(Some(_)) = inbound.message().await {} });
    tx
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_client_gets_the_limits_policy() {
    let (running, mut m) = start(ServerConfig::default()).await;
    let url = running.url();
    let _keep = silent_client(&url, "silent").await;
    wait_connected(&running, "silent").await;
    // Forfeit: the match ends at once, the stalled seat last.
    let mut req = create("expedition", 4);
    req.seats = vec![v1::SeatSpec { player: Some(v1::seat_spec::Player::Bot("random".into())) }];
    req.seats.extend(play_seats(&["silent"]));
    req.move_time_ms = 150;
    req.set_on_timeout(v1::TimeoutPolicy::Forfeit);
    let id = m.create_match(req).await.unwrap().into_inner().match_id;
    let o = wait_record(&mut m, &id).await.outcome.unwrap();
    assert_eq!(o.verdicts.len(), 1);
    assert_eq!(
        (o.verdicts[0].seat, o.verdicts[0].kind.as_str(), o.verdicts[0].policy.as_str()),
        (1, "timeout", "forfeit")
    );
    assert_eq!(o.ranks, vec![0, 1]);
    // Random move: the match goes on to its end, every move of the stalled seat recorded.
    let mut req = create("journey", 4);
    req.preset = "classic".into();
    req.seats = play_seats(&["silent"]);
    req.move_time_ms = 20;
    req.set_on_timeout(v1::TimeoutPolicy::RandomMove);
    let id = m.create_match(req).await.unwrap().into_inner().match_id;
    let r = wait_record(&mut m, &id).await;
    let o = r.outcome.unwrap();
    assert_eq!(o.verdicts.len(), r.actions.len(), "every move was played for it");
    assert!(o.verdicts.iter().all(|v| v.kind == "timeout" && v.policy == "random move"));
    running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_bot_chooses_as_the_same_bot_in_process() {
    let (running, mut m) =
        start(ServerConfig { move_time: Some(Duration::from_secs(60)), ..ServerConfig::default() }).await;
    let url = running.url();
    let agent = "mcts:iterations=60";
    let mut bot = spawn_bot(&url, agent, "twin", 9);
    wait_connected(&running, "twin").await;
    for (game, preset) in [("expedition", "no-dice"), ("journey", "martian")] {
        let mut req = create(game, 21);
        req.preset = preset.into();
        let seats = if game == "expedition" { 2 } else { 1 };
        req.seats = play_seats(&vec!["twin"; seats]);
        let id = m.create_match(req).await.unwrap().into_inner().match_id;
        let record = wait_record(&mut m, &id).await;
        assert!(record.outcome.unwrap().verdicts.is_empty());
        // The same agent, in process, seeded the same, on the same game.
        let entry = find_game(game).unwrap();
        let source = engine::core::ParamSource::Yaml { name: "record".into(), text: record.params_yaml.clone() };
        let spec = (entry.spec)(None, &[source], &arena::load_file).unwrap();
        let mut g = spec.new_game(record.seed);
        let mut agents: Vec<Box<dyn Agent>> =
            (0..g.seats()).map(|s| bots::agent(agent, spec.as_ref(), game_seed(9, s as u64)).unwrap()).collect();
        let mut legal = Vec::new();
        for (i, &remote) in record.actions.iter().enumerate() {
            let seat = g.to_move().unwrap();
            legal.clear();
            g.legal_actions(&mut legal);
            let view = SeatView::local(g.as_ref(), seat, &legal, Budget { per_move: Some(Duration::from_secs(60)) });
            let local = agents[seat.index()].act(&view).unwrap();
            assert_eq!(local, remote, "{game}: decision {i} differs");
            g.apply(local).unwrap();
        }
        assert!(g.is_terminal());
    }
    bot.kill().unwrap();
    bot.wait().unwrap();
    running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spectators_see_public_events_to_the_end() {
    let (running, mut m) = start(ServerConfig::default()).await;
    let mut req = create("expedition", 8);
    req.seats = vec![
        v1::SeatSpec { player: Some(v1::seat_spec::Player::Bot("random".into())) },
        v1::SeatSpec { player: Some(v1::seat_spec::Player::Bot("greedy".into())) },
    ];
    let id = m.create_match(req).await.unwrap().into_inner().match_id;
    let mut events = m.spectate(v1::SpectateRequest { match_id: id.clone() }).await.unwrap().into_inner();
    let mut moves = 0;
    let mut ended = false;
    let mut first = true;
    while let Some(e) = events.message().await.unwrap() {
        match e.event.unwrap() {
            v1::match_event::Event::Started(s) => {
                assert!(first);
                assert_eq!(s.game, "expedition");
            }
            v1::match_event::Event::Moved(mv) => {
                moves += 1;
                assert_eq!(e.version, moves);
                assert!(!mv.label.is_empty());
            }
            v1::match_event::Event::Ended(end) => {
                ended = true;
                assert_eq!(end.outcome.unwrap().ranks.len(), 2);
            }
        }
        first = false;
    }
    assert!(ended);
    let record = wait_record(&mut m, &id).await;
    assert_eq!(record.actions.len() as u64, moves);
    running.stop().await.unwrap();
}

#[test]
fn the_served_binary_answers_health_reflection_and_stops_on_sigterm() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["serve", "--addr", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    std::io::BufRead::read_line(&mut out, &mut line).unwrap();
    let addr = line.trim().rsplit(' ').next().unwrap().to_string();
    let url = format!("http://{addr}");
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let channel = arena::client::connect(&url).await.unwrap();
        let mut health = tonic_health::pb::health_client::HealthClient::new(channel.clone());
        let h = health
            .check(tonic_health::pb::HealthCheckRequest { service: "tabletop.arena.v1.Matches".into() })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(h.status(), tonic_health::pb::health_check_response::ServingStatus::Serving);
        use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
        use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
        use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;
        let mut reflection = ServerReflectionClient::new(channel.clone());
        let req = tonic_reflection::pb::v1::ServerReflectionRequest {
            host: String::new(),
            message_request: Some(MessageRequest::ListServices(String::new())),
        };
        let mut stream = reflection.server_reflection_info(tokio_stream::iter(vec![req])).await.unwrap().into_inner();
        let resp = stream.message().await.unwrap().unwrap();
        let Some(MessageResponse::ListServicesResponse(list)) = resp.message_response else { panic!("{resp:?}") };
        let names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
        for s in [
            "tabletop.arena.v1.Matches",
            "tabletop.arena.v1.Play",
            "tabletop.arena.v1.Catalogue",
            "grpc.health.v1.Health",
        ] {
            assert!(names.iter().any(|n| n == s), "{s} missing from {names:?}");
        }
        let games = v1::catalogue_client::CatalogueClient::new(channel)
            .list_games(v1::ListGamesRequest {})
            .await
            .unwrap()
            .into_inner();
        let journey = games.games.iter().find(|g| g.name == "journey").unwrap();
        assert!(journey.cooperative && journey.presets.len() == 3);
        let limit = journey.params.iter().find(|p| p.name == "satchel_limit").unwrap();
        assert_eq!(limit.default_value, "6");
    });
    // A graceful stop on SIGTERM.
    Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    assert!(rest.contains("stopped"), "{rest}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limits_keep_one_client_from_exhausting_the_server() {
    let config = ServerConfig { max_matches: 2, max_message_bytes: 64 * 1024, ..ServerConfig::default() };
    let (running, mut m) = start(config).await;
    let a = m.create_match(create("journey", 1)).await.unwrap().into_inner();
    m.create_match(create("journey", 2)).await.unwrap();
    let e = m.create_match(create("journey", 3)).await.unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "{e:?}");
    assert!(e.message().contains("2 matches"), "{}", e.message());
    // A message over the size limit is refused, and the match is untouched.
    let before =
        m.observe(v1::ObserveRequest { match_id: a.match_id.clone(), token: a.tokens[0].token.clone() }).await.unwrap();
    let huge = v1::ActRequest { match_id: a.match_id.clone(), token: "x".repeat(200 * 1024), action: 0, version: None };
    let e = m.act(huge).await.unwrap_err();
    assert_eq!(e.code(), Code::OutOfRange, "{e:?}");
    let after =
        m.observe(v1::ObserveRequest { match_id: a.match_id.clone(), token: a.tokens[0].token.clone() }).await.unwrap();
    assert_eq!(untimed(before.into_inner()), untimed(after.into_inner()));
    running.stop().await.unwrap();
}
