//! The gRPC server end to end, over real sockets on ephemeral ports: complete games by token
//! and over Play, every error with its code (and the match unchanged), tokens bound to their
//! seats, views that do not depend on hidden facts, many matches at once, clients that die or
//! stall, remote bots that choose as in process, health and reflection.

use arena::server::{self, Policy, Running, ServerConfig};
use bots::{Agent, Budget, SeatView};
use engine::core::game_seed;
use engine::find_game;
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

/// A server asked to listen on a Unix socket serves there too (a tournament's, for its
/// sandboxed agents' relays): the same calls, the socket removed when it stops; a socket path
/// that cannot be bound is named.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_serves_on_its_unix_socket_too() {
    let dir = temp_dir("unix");
    let socket = dir.join("play.sock");
    let config = ServerConfig { unix_socket: Some(socket.clone()), ..ServerConfig::default() };
    let running = server::start("127.0.0.1:0".parse().unwrap(), config).await.unwrap();
    assert_eq!(running.unix_url(), Some(format!("unix:{}", socket.display())));
    let channel = arena::client::connect(&running.unix_url().unwrap()).await.unwrap();
    let mut m = MatchesClient::new(channel);
    let created = m.create_match(create("journey", 5)).await.unwrap().into_inner();
    let end = play_by_tokens(&mut m, &created, 2).await;
    assert!(end.outcome.is_some());
    // The same match, seen over TCP.
    let mut tcp = MatchesClient::new(arena::client::connect(&running.url()).await.unwrap());
    let record = tcp.get_record(v1::GetRecordRequest { match_id: created.match_id }).await.unwrap().into_inner();
    assert_eq!(record.actions.len() as u64, end.version);
    // One at a path already taken is refused, by its path.
    let again = ServerConfig { unix_socket: Some(socket.clone()), ..ServerConfig::default() };
    let e = server::start("127.0.0.1:0".parse().unwrap(), again).await.err().unwrap();
    assert!(e.contains("cannot listen on the Unix socket") && e.contains("play.sock"), "{e}");
    running.stop().await.unwrap();
    assert!(!socket.exists(), "the socket is removed when the server stops");
}

/// A seat's state without the time left (the clock runs between two calls).
fn untimed(mut s: v1::SeatState) -> v1::SeatState {
    s.time_left_ms = 0;
    s
}

fn create(game: &str, seed: u64) -> v1::CreateMatchRequest {
    v1::CreateMatchRequest { game: game.into(), seed: Some(seed), ..Default::default() }
}

fn play_seats(names: &[&str]) -> Vec<v1::SeatSpec> {
    names.iter().map(|n| v1::SeatSpec { player: Some(v1::seat_spec::Player::Play(n.to_string())) }).collect()
}

/// A seat played by this test through its token (seat 0), against the built-in agent `bot`.
fn token_against(bot: &str) -> Vec<v1::SeatSpec> {
    vec![
        v1::SeatSpec { player: Some(v1::seat_spec::Player::Token(true)) },
        v1::SeatSpec { player: Some(v1::seat_spec::Player::Bot(bot.into())) },
    ]
}

/// Play a token match to its end, each seat choosing uniformly among its legal actions.
async fn play_by_tokens(m: &mut MatchesClient<Channel>, created: &v1::CreateMatchResponse, seed: u64) -> v1::SeatState {
    use rand::{RngExt, SeedableRng};
    let mut rng = engine::core::SmallRng::seed_from_u64(seed);
    let token = |seat: u32| created.tokens.iter().find(|t| t.seat == seat).unwrap().token.clone();
    loop {
        let s = m
            .observe(v1::ObserveRequest { match_id: created.match_id.clone(), token: token(0), ..Default::default() })
            .await
            .unwrap()
            .into_inner();
        let Some(to_move) = s.to_move else { return s };
        let mine = m
            .observe(v1::ObserveRequest {
                match_id: created.match_id.clone(),
                token: token(to_move),
                ..Default::default()
            })
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
        if game == "journey" {
            // Cooperative: the team's score, and what each seat achieved.
            assert_eq!(outcome.team_score, outcome.scores.first().copied(), "{outcome:?}");
            assert_eq!(outcome.achieved.len(), 2, "{outcome:?}");
        } else {
            assert_eq!(outcome.team_score, None);
        }
        let record =
            m.get_record(v1::GetRecordRequest { match_id: created.match_id.clone() }).await.unwrap().into_inner();
        assert_eq!(record.actions.len() as u64, end.version);
        // The record replays to the same outcome in the engine.
        let entry = find_game(game).unwrap();
        let source = engine::core::ParamSource::Yaml { name: "record".into(), text: record.params_yaml.clone() };
        let spec = (entry.spec)(None, &[source], &arena::files::refuse_files).unwrap();
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
    let observe = |seat: u32| v1::ObserveRequest { match_id: id.clone(), token: token(seat), ..Default::default() };
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

    let e = m
        .observe(v1::ObserveRequest { match_id: "nope".into(), token: token(0), ..Default::default() })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::NotFound);
    let e = m
        .observe(v1::ObserveRequest { match_id: id.clone(), token: "0".repeat(32), ..Default::default() })
        .await
        .unwrap_err();
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
        .observe(v1::ObserveRequest {
            match_id: id.clone(),
            token: other_match.tokens[0].token.clone(),
            ..Default::default()
        })
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
    let mut s = untimed(
        m.observe(v1::ObserveRequest { match_id: created.match_id, token, ..Default::default() })
            .await
            .unwrap()
            .into_inner(),
    );
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
    let found = running.hub.wait_for_session(name, Duration::from_secs(30)).await;
    assert!(found.is_some(), "the bot process did not connect");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_matches_at_once_and_a_killed_client_harms_only_its_seats() {
    // One client creates them all: it is given every pool whole.
    let config = ServerConfig {
        move_time: Some(Duration::from_secs(5)),
        policy: Policy::Forfeit,
        shares: server::Shares::WHOLE,
        ..ServerConfig::default()
    };
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
        let r = wait_record(&mut m, id, Duration::from_secs(120)).await;
        let o = r.outcome.unwrap();
        assert!(o.verdicts.is_empty(), "an untouched match: {:?}", o.verdicts);
    }
    for id in &doomed_ids {
        let r = wait_record(&mut m, id, Duration::from_secs(120)).await;
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
        message: Some(v1::bot_message::Message::Hello(v1::Hello { name: name.into(), ..Default::default() })),
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
    let o = wait_record(&mut m, &id, Duration::from_secs(120)).await.outcome.unwrap();
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
    let r = wait_record(&mut m, &id, Duration::from_secs(120)).await;
    let o = r.outcome.unwrap();
    // One verdict, counting every move played for it.
    assert_eq!(o.verdicts.len(), 1, "{:?}", o.verdicts);
    let v = &o.verdicts[0];
    assert_eq!((v.kind.as_str(), v.policy.as_str(), v.at_move), ("timeout", "random-move", 0));
    assert_eq!(v.count as usize, r.actions.len(), "every move was played for it");
    assert_eq!(o.forfeited_by, None);
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
        let record = wait_record(&mut m, &id, Duration::from_secs(120)).await;
        assert!(record.outcome.unwrap().verdicts.is_empty());
        // The same agent, in process, seeded the same, on the same game.
        let entry = find_game(game).unwrap();
        let source = engine::core::ParamSource::Yaml { name: "record".into(), text: record.params_yaml.clone() };
        let spec = (entry.spec)(None, &[source], &arena::files::refuse_files).unwrap();
        let mut g = spec.new_game(record.seed);
        let mut agents: Vec<Box<dyn Agent>> =
            (0..g.seats()).map(|s| bots::agent(agent, spec.as_ref(), game_seed(9, s as u64)).unwrap()).collect();
        let mut legal = Vec::new();
        for (i, &remote) in record.actions.iter().enumerate() {
            let seat = g.to_move().unwrap();
            legal.clear();
            g.legal_actions(&mut legal);
            let view = SeatView::local(g.as_ref(), seat, &legal, Budget::per_move(Some(Duration::from_secs(60))));
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
    let mut events = m
        .spectate(v1::SpectateRequest { match_id: id.clone(), from_version: 0, with_table: false })
        .await
        .unwrap()
        .into_inner();
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
            v1::match_event::Event::Table(_) => panic!("a table not asked for"),
        }
        first = false;
    }
    assert!(ended);
    let record = wait_record(&mut m, &id, Duration::from_secs(120)).await;
    assert_eq!(record.actions.len() as u64, moves);
    running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spectator_asking_for_the_table_sees_what_every_seat_sees_and_no_more() {
    // A person's seat (played by this test, a move at a time) against a built-in agent: the
    // spectator's tables follow the game, each what a watcher of the replayed record sees.
    let (running, mut m) = start(ServerConfig::default()).await;
    let mut req = create("expedition", 8);
    req.seats = token_against("greedy");
    let created = m.create_match(req).await.unwrap().into_inner();
    let (id, token) = (created.match_id.clone(), created.tokens[0].token.clone());
    let mut events = m
        .spectate(v1::SpectateRequest { match_id: id.clone(), from_version: 0, with_table: true })
        .await
        .unwrap()
        .into_inner();
    let watcher = tokio::spawn(async move {
        let mut seen = Vec::new();
        while let Some(e) = events.message().await.unwrap() {
            seen.push(e);
        }
        seen
    });
    loop {
        let s = m.observe(v1::ObserveRequest { match_id: id.clone(), token: token.clone(), tensors: false }).await;
        let s = s.unwrap().into_inner();
        if s.outcome.is_some() {
            break;
        }
        if s.to_move == Some(0) {
            let action = s.legal[s.version as usize % s.legal.len()].id;
            m.act(v1::ActRequest { match_id: id.clone(), token: token.clone(), action, version: Some(s.version) })
                .await
                .unwrap();
        }
        // Slower than the tables' pace, now and then: some moves get a table each.
        tokio::time::sleep(Duration::from_millis(if s.version % 3 == 0 { 120 } else { 5 })).await;
    }
    let seen = watcher.await.unwrap();
    let record = wait_record(&mut m, &id, Duration::from_secs(60)).await;
    let entry = find_game("expedition").unwrap();
    let source = engine::core::ParamSource::Yaml { name: "record".into(), text: record.params_yaml.clone() };
    let spec = (entry.spec)(None, &[source], &arena::files::refuse_files).unwrap();
    let mut tables = Vec::new();
    for (i, e) in seen.iter().enumerate() {
        if let Some(v1::match_event::Event::Table(t)) = &e.event {
            let mut g = spec.new_game(record.seed);
            for a in &record.actions[..e.version as usize] {
                g.apply(*a).unwrap();
            }
            let (game, view, text) = proto::convert::observation_from_proto(t.observation.as_ref().unwrap()).unwrap();
            assert_eq!(game, "expedition");
            assert_eq!(view, g.public_observation_json(), "the table at version {}", e.version);
            assert_eq!(text, g.public_observation_text());
            assert_eq!(t.to_move, g.to_move().map(|s| u32::from(s.0)));
            if !g.is_terminal() {
                assert!(view["seats"].as_array().unwrap().iter().all(|p| p["cards"].is_null()), "{view}");
            }
            tables.push((i, e.version));
        }
    }
    // In order, more than one, the last of the final position just before the end.
    assert!(tables.len() >= 3, "{tables:?}");
    assert!(tables.windows(2).all(|w| w[0].1 < w[1].1), "{tables:?}");
    let (last_at, last_version) = *tables.last().unwrap();
    assert_eq!(last_version, record.actions.len() as u64);
    assert!(matches!(seen[last_at + 1].event, Some(v1::match_event::Event::Ended(_))));
    assert_eq!(last_at + 2, seen.len());
    running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spectators_share_one_table_made_at_most_every_100_ms_and_get_the_last_at_once() {
    use arena::server::table::{TABLE_EVERY, TableFeed};
    let (running, _) = start(ServerConfig { move_time: None, ..ServerConfig::default() }).await;
    let mut req = create("expedition", 4);
    req.seats = (0..2).map(|_| v1::SeatSpec { player: Some(v1::seat_spec::Player::Token(true)) }).collect();
    let made = running.hub.create(req, &arena::server::ClientId::Host).unwrap();
    let table = running.hub.table(&made.match_id).unwrap();
    let play = |k: usize| {
        let (seat, version, action) = {
            let s = table.lock();
            let mut legal = Vec::new();
            s.game.legal_actions(&mut legal);
            (s.game.to_move().unwrap().index(), s.version, legal[k % legal.len()])
        };
        table.act(seat, action, Some(version)).unwrap();
    };
    let version = |e: &Option<v1::MatchEvent>| e.as_ref().map(|e| e.version);
    let t0 = Instant::now();
    let (mut a, mut b) = (TableFeed::default(), TableFeed::default());
    // The first is sent at once; up to date, nothing to wait for.
    let (sent, wake) = a.next(&table, &mut table.lock(), t0).unwrap();
    assert_eq!((version(&sent), wake), (Some(0), None));
    play(0);
    // Within 100 ms of the last: nothing yet, look again then.
    let (sent, wake) = a.next(&table, &mut table.lock(), t0 + TABLE_EVERY / 10).unwrap();
    assert_eq!((version(&sent), wake), (None, Some(t0 + TABLE_EVERY)));
    let t1 = t0 + TABLE_EVERY;
    let (sent, wake) = a.next(&table, &mut table.lock(), t1).unwrap();
    assert_eq!((version(&sent), wake), (Some(1), None));
    // Another spectator, just after a move: the shared table (made at t1, of version 1) until it
    // is 100 ms old, then the newest.
    play(1);
    let (sent, wake) = b.next(&table, &mut table.lock(), t1 + TABLE_EVERY / 2).unwrap();
    assert_eq!((version(&sent), wake), (Some(1), Some(t1 + TABLE_EVERY / 2 + TABLE_EVERY)));
    let (sent, wake) = a.next(&table, &mut table.lock(), t1 + TABLE_EVERY / 2).unwrap();
    assert_eq!((version(&sent), wake), (None, Some(t1 + TABLE_EVERY)), "not newer than what it has");
    let (sent, _) = a.next(&table, &mut table.lock(), t1 + TABLE_EVERY).unwrap();
    assert_eq!(version(&sent), Some(2));
    // The end: its table at once, however recent the last.
    let t2 = t1 + TABLE_EVERY;
    let mut k = 2;
    while !table.is_over() {
        play(k);
        k += 1;
    }
    let end = table.lock().version;
    assert!(end > 2);
    let (sent, wake) = a.next(&table, &mut table.lock(), t2 + TABLE_EVERY / 10).unwrap();
    assert_eq!((version(&sent), wake), (Some(end), None));
    // A match a seat resigns ends without a move: its table is sent again, at once, no one to
    // move in it.
    let mut req = create("expedition", 5);
    req.seats = (0..2).map(|_| v1::SeatSpec { player: Some(v1::seat_spec::Player::Token(true)) }).collect();
    let made = running.hub.create(req, &arena::server::ClientId::Host).unwrap();
    let resigned = running.hub.table(&made.match_id).unwrap();
    let mut c = TableFeed::default();
    let (sent, _) = c.next(&resigned, &mut resigned.lock(), t0).unwrap();
    let to_move = |e: &Option<v1::MatchEvent>| match e.as_ref().and_then(|e| e.event.as_ref()) {
        Some(v1::match_event::Event::Table(t)) => t.to_move,
        other => panic!("not a table: {other:?}"),
    };
    assert!(version(&sent) == Some(0) && to_move(&sent).is_some());
    resigned.resign(0).unwrap();
    let (sent, wake) = c.next(&resigned, &mut resigned.lock(), t0 + TABLE_EVERY / 10).unwrap();
    assert_eq!((version(&sent), to_move(&sent), wake), (Some(0), None, None));
    let (sent, wake) = c.next(&resigned, &mut resigned.lock(), t0 + TABLE_EVERY).unwrap();
    assert!(sent.is_none() && wake.is_none(), "up to date");
    running.stop().await.unwrap();
}

#[test]
fn the_served_binary_answers_health_reflection_and_stops_on_sigterm() {
    let (mut child, url, mut out) = served::serve(&[]);
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
    let before = m
        .observe(v1::ObserveRequest {
            match_id: a.match_id.clone(),
            token: a.tokens[0].token.clone(),
            ..Default::default()
        })
        .await
        .unwrap();
    let huge = v1::ActRequest { match_id: a.match_id.clone(), token: "x".repeat(200 * 1024), action: 0, version: None };
    let e = m.act(huge).await.unwrap_err();
    assert_eq!(e.code(), Code::OutOfRange, "{e:?}");
    let after = m
        .observe(v1::ObserveRequest {
            match_id: a.match_id.clone(),
            token: a.tokens[0].token.clone(),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(untimed(before.into_inner()), untimed(after.into_inner()));
    running.stop().await.unwrap();
}

// ----- a server a stranger can be let into ----------------------------------------------------

/// A small content set (five tiles), as YAML.
const SMALL_CONTENT: &str = "tiles:\n  - { name: A, kind: artifact, tools: [compass, rope] }\n  - { name: B, kind: artifact, tools: [map, shovel] }\n  - { name: C, kind: place, tools: [compass, map, rope] }\n  - { name: D, kind: place, tools: [rope, map, shovel] }\n  - { name: E, kind: place, tools: [shovel, shovel, compass] }\ncharacters:\n  - { name: Ann, favourite: compass }\n  - { name: Bob, favourite: map }\nmissions:\n  - { name: M1, discoveries: [A, B, C], coins: 3 }\n  - { name: M2, discoveries: [C, D, E], coins: 5 }\ndiscovery_cards:\n  - { name: Clue, tile: E }\ndice_cards: 3\n";

fn small_content() -> String {
    SMALL_CONTENT.to_string()
}

use crate::matches;
use crate::scratch;
use crate::served;
use matches::wait_record;

/// An empty directory of this test's own, removed when it is dropped.
fn temp_dir(name: &str) -> scratch::Scratch {
    let dir = scratch::scratch("server", name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A named pipe: whoever opens it for reading blocks until a writer comes.
fn fifo(path: &std::path::Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(ok.success());
}

/// Nobody holds the pipe open for reading: opening it to write without blocking fails (ENXIO).
fn nobody_opened(path: &std::path::Path) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    let r = std::fs::OpenOptions::new().write(true).custom_flags(0o4000 /* O_NONBLOCK */).open(path);
    matches!(r, Err(e) if e.raw_os_error() == Some(6 /* ENXIO */))
}

fn with_params(game: &str, params: &[(&str, &str)]) -> v1::CreateMatchRequest {
    let mut req = v1::CreateMatchRequest { game: game.into(), ..Default::default() };
    req.params = params.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    req
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_from_the_wire_opens_a_file_of_the_server() {
    let dir = temp_dir("files");
    let marker = format!("MARKER-{}", std::process::id());
    let secret = dir.join("secret.yaml");
    std::fs::write(&secret, format!("{marker}: 1\n")).unwrap();
    let pipe = dir.join("pipe.yaml");
    fifo(&pipe);
    // The operator's content directory: one set, and a pipe that must never be opened.
    let sets = dir.join("sets");
    std::fs::create_dir_all(&sets).unwrap();
    std::fs::write(sets.join("small.yaml"), small_content()).unwrap();
    let inner_pipe = sets.join("trap.yaml");
    fifo(&inner_pipe);

    for content_dir in [None, Some(sets.clone())] {
        let config = ServerConfig { content_dir: content_dir.clone(), ..ServerConfig::default() };
        let (running, mut m) = start(config).await;
        let (secret_s, pipe_s) = (secret.display().to_string(), pipe.display().to_string());
        let relative = format!("../{}", secret.file_name().unwrap().to_str().unwrap());
        let names: Vec<&str> = vec![
            &secret_s,
            &pipe_s,
            "/etc/passwd",
            "/dev/zero",
            &relative,
            "../secret",
            "trap",
            "secret",
            "small.yaml",
        ];
        let mut attempts: Vec<v1::CreateMatchRequest> = Vec::new();
        for name in &names {
            attempts.push(with_params("expedition", &[("content", name)]));
            attempts.push(with_params("expedition", &[("players", name)]));
            let mut r = create("expedition", 1);
            r.scenario = name.to_string();
            attempts.push(r);
            let mut r = create("journey", 1);
            r.preset = name.to_string();
            attempts.push(r);
        }
        for req in attempts {
            let what = format!("{:?} {:?} {:?}", req.params, req.scenario, req.preset);
            let e = tokio::time::timeout(Duration::from_secs(10), m.create_match(req))
                .await
                .expect("refused at once, never blocked on a pipe")
                .unwrap_err();
            assert_eq!(e.code(), Code::InvalidArgument, "{what}: {e:?}");
            let msg = e.message();
            assert!(!msg.contains(&marker) && !msg.contains("root:"), "{what}: the answer quotes a file: {msg}");
            assert!(!msg.contains("No such file") && !msg.contains("os error"), "{what}: tells a path exists: {msg}");
        }
        assert!(nobody_opened(&pipe) && nobody_opened(&inner_pipe), "a pipe was opened");
        assert_eq!(running.hub.held(), 0, "nothing was created");

        // A set named from the operator's directory, and one sent inline, both play; the
        // parameters every seat receives hold the set itself, never a name to open.
        let inline = small_content();
        let mut ok: Vec<&str> = vec![&inline];
        if content_dir.is_some() {
            ok.push("small");
        }
        for content in ok {
            let created =
                m.create_match(with_params("expedition", &[("content", content)])).await.unwrap().into_inner();
            let s = m
                .observe(v1::ObserveRequest {
                    match_id: created.match_id.clone(),
                    token: created.tokens[0].token.clone(),
                    ..Default::default()
                })
                .await
                .unwrap()
                .into_inner();
            let Some(v1::observation::Game::Expedition(o)) = s.observation.unwrap().game else { panic!() };
            assert_eq!(o.hq.len(), 4);
            let mut events = m
                .spectate(v1::SpectateRequest {
                    match_id: created.match_id.clone(),
                    from_version: 0,
                    with_table: false,
                })
                .await
                .unwrap()
                .into_inner();
            let Some(v1::match_event::Event::Started(st)) = events.message().await.unwrap().unwrap().event else {
                panic!()
            };
            assert!(st.params_yaml.contains("Clue") && !st.params_yaml.contains("small"), "{}", st.params_yaml);
            // A client builds the game from them with a loader that opens nothing.
            let source = engine::core::ParamSource::Yaml { name: "wire".into(), text: st.params_yaml.clone() };
            let spec = (find_game("expedition").unwrap().spec)(None, &[source], &arena::files::refuse_files);
            assert!(spec.is_ok(), "{:?}", spec.err());
        }
        // The catalogue tells the sets offered and the bounds.
        let mut catalogue = arena::client::catalogue(arena::client::connect(&running.url()).await.unwrap());
        let games = catalogue.list_games(v1::ListGamesRequest {}).await.unwrap().into_inner();
        let offered: Vec<&str> = if content_dir.is_some() { vec!["small"] } else { vec![] };
        assert_eq!(games.content_sets, offered, "regular NAME.yaml files only");
        assert_eq!(games.limits.unwrap().max_move_time_ms, 60_000);
        running.stop().await.unwrap();
    }
    // The server's own parameters (`arena serve --content-dir`) refuse a file that is not a
    // directory.
    let e = server::start(
        "127.0.0.1:0".parse().unwrap(),
        ServerConfig { content_dir: Some(secret), ..ServerConfig::default() },
    )
    .await
    .err()
    .unwrap();
    assert!(e.contains("not a directory"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_match_without_a_seed_deals_a_game_nobody_knows() {
    let (running, mut m) = start(ServerConfig::default()).await;
    let mut views = Vec::new();
    let mut created = Vec::new();
    for _ in 0..2 {
        let c =
            m.create_match(v1::CreateMatchRequest { game: "expedition".into(), ..Default::default() }).await.unwrap();
        let c = c.into_inner();
        let s = m.observe(v1::ObserveRequest {
            match_id: c.match_id.clone(),
            token: c.tokens[0].token.clone(),
            ..Default::default()
        });
        views.push(s.await.unwrap().into_inner().observation.unwrap().text);
        // In play, the record (and its seed) is refused.
        let e = m.get_record(v1::GetRecordRequest { match_id: c.match_id.clone() }).await.unwrap_err();
        assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
        assert!(e.message().contains("in play"), "{}", e.message());
        created.push(c);
    }
    assert_ne!(views[0], views[1], "two seedless matches deal different games");
    // Once over (cancelled), the record tells the seed: drawn, not 0, not the same twice.
    let mut seeds = Vec::new();
    for c in &created {
        let r = m
            .cancel_match(v1::CancelMatchRequest {
                match_id: c.match_id.clone(),
                creator_token: c.creator_token.clone(),
            })
            .await
            .unwrap()
            .into_inner();
        seeds.push(r.seed);
    }
    assert!(seeds[0] != seeds[1] && !seeds.contains(&0), "{seeds:?}");
    // A seed given is kept: the same deal twice (the contract says who can then read it).
    let a = m.create_match(create("expedition", 42)).await.unwrap().into_inner();
    let b = m.create_match(create("expedition", 42)).await.unwrap().into_inner();
    let view = |c: &v1::CreateMatchResponse| v1::ObserveRequest {
        match_id: c.match_id.clone(),
        token: c.tokens[0].token.clone(),
        ..Default::default()
    };
    let (x, y) = (m.observe(view(&a)).await.unwrap().into_inner(), m.observe(view(&b)).await.unwrap().into_inner());
    assert_eq!(x.observation, y.observation);
    running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_over_the_bounds_are_refused_naming_the_field() {
    let config = ServerConfig {
        max_move_time: Duration::from_secs(2),
        move_time: Some(Duration::from_secs(1)),
        idle: Some(Duration::from_secs(10)),
        bot_limits: bots::BotLimits { iterations: 5000, samples: 8, threads: 1, time: Duration::from_millis(500) },
        ..ServerConfig::default()
    };
    let (running, mut m) = start(config).await;
    let bot = |text: &str| {
        vec![
            v1::SeatSpec { player: Some(v1::seat_spec::Player::Bot(text.into())) },
            v1::SeatSpec { player: Some(v1::seat_spec::Player::Token(true)) },
        ]
    };
    let mut cases: Vec<(v1::CreateMatchRequest, &str)> = Vec::new();
    let mut r = create("expedition", 1);
    r.move_time_ms = u32::MAX;
    cases.push((r, "move_time_ms"));
    for (text, key) in [
        ("mcts:iterations=1000000000", "iterations=1000000000"),
        ("mcts:threads=64", "threads=64"),
        ("mcts:ms=100000", "ms=100000"),
        ("greedy:samples=1000", "samples=1000"),
    ] {
        let mut r = create("expedition", 1);
        r.seats = bot(text);
        cases.push((r, key));
    }
    let mut r = create("expedition", 1);
    r.on_timeout = 9;
    cases.push((r, "on_timeout"));
    let mut r = create("expedition", 1);
    r.params = (0..100).map(|i| (format!("k{i}"), "1".to_string())).collect();
    cases.push((r, "params"));
    let mut r = create("expedition", 1);
    r.seats = bot(&"x".repeat(300));
    cases.push((r, "seats[0].bot"));
    for (req, field) in cases {
        let e = m.create_match(req).await.unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{field}: {e:?}");
        assert!(e.message().contains(field), "{field}: {}", e.message());
    }
    let e = m.create_match({
        let mut r = create("expedition", 1);
        r.move_time_ms = 3000;
        r
    });
    let e = e.await.unwrap_err();
    assert!(e.message().contains("2000 ms"), "the cap is told: {}", e.message());
    assert_eq!((running.hub.active(), running.hub.held()), (0, 0), "nothing was created");
    // Within the caps, all is well.
    let mut r = create("expedition", 1);
    r.seats = bot("mcts:iterations=50");
    r.move_time_ms = 2000;
    m.create_match(r).await.unwrap();
    // A server whose idle limit does not exceed the move cap is refused at start.
    let bad = ServerConfig {
        max_move_time: Duration::from_secs(60),
        idle: Some(Duration::from_secs(30)),
        ..ServerConfig::default()
    };
    assert!(server::start("127.0.0.1:0".parse().unwrap(), bad).await.err().unwrap().contains("idle"));
    running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_match_nobody_plays_ends_at_the_idle_limit() {
    let config = ServerConfig {
        move_time: None,
        max_move_time: Duration::from_millis(100),
        idle: Some(Duration::from_millis(400)),
        ..ServerConfig::default()
    };
    let (running, mut m) = start(config).await;
    // Token seats whose holders never come back (no per-move limit at all).
    let a = m.create_match(create("expedition", 3)).await.unwrap().into_inner();
    // Random moves for a stalled seat keep a match going, but they are not the seats acting.
    let mut r = create("expedition", 4);
    r.move_time_ms = 30;
    r.set_on_timeout(v1::TimeoutPolicy::RandomMove);
    let b = m.create_match(r).await.unwrap().into_inner();
    let ra = wait_record(&mut m, &a.match_id, Duration::from_secs(120)).await;
    let oa = ra.outcome.unwrap();
    assert_eq!(oa.verdicts.len(), 1);
    assert_eq!((oa.verdicts[0].kind.as_str(), oa.verdicts[0].policy.as_str()), ("idle", "forfeit"));
    let loser = oa.verdicts[0].seat as usize;
    assert_eq!(oa.ranks[loser], 1);
    let rb = wait_record(&mut m, &b.match_id, Duration::from_secs(120)).await;
    let ob = rb.outcome.unwrap();
    assert!(!rb.actions.is_empty(), "moves were played for the stalled seats");
    assert_eq!(ob.verdicts.last().unwrap().kind, "idle", "{:?}", ob.verdicts.last());
    assert_eq!(running.hub.active(), 0, "the places are free again");
    running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_resigns_and_the_creator_cancels() {
    let (running, mut m) = start(ServerConfig::default()).await;
    let url = running.url();
    let c = m.create_match(create("expedition", 5)).await.unwrap().into_inner();
    let id = c.match_id.clone();
    let token = |s: usize| c.tokens[s].token.clone();
    // Only a seat's own token resigns it.
    let e = m.resign(v1::ResignRequest { match_id: id.clone(), token: c.creator_token.clone() }).await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
    let s = m.resign(v1::ResignRequest { match_id: id.clone(), token: token(1) }).await.unwrap().into_inner();
    let o = s.outcome.unwrap();
    assert_eq!((o.verdicts[0].seat, o.verdicts[0].kind.as_str()), (1, "resigned"));
    assert_eq!(o.ranks, vec![0, 1]);
    assert!(s.to_move.is_none());
    let e =
        m.act(v1::ActRequest { match_id: id.clone(), token: token(0), action: 0, version: None }).await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    let e = m.resign(v1::ResignRequest { match_id: id.clone(), token: token(0) }).await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    let e = m.cancel_match(v1::CancelMatchRequest { match_id: id.clone(), creator_token: c.creator_token.clone() });
    assert_eq!(e.await.unwrap_err().code(), Code::FailedPrecondition, "over already");

    // Cancel a match whose Play seat is waiting on a silent client: it ends at once, the
    // client hears so, and the result is void.
    let (tx, mut inbound) = play_stream(&url, hello("waiter", "")).await.unwrap();
    let mut r = create("journey", 6);
    r.seats = play_seats(&["waiter"]);
    let c = m.create_match(r).await.unwrap().into_inner();
    next_request(&mut inbound).await;
    for wrong in [String::new(), "0".repeat(32)] {
        let e = m.cancel_match(v1::CancelMatchRequest { match_id: c.match_id.clone(), creator_token: wrong });
        assert_eq!(e.await.unwrap_err().code(), Code::PermissionDenied);
    }
    let r = m
        .cancel_match(v1::CancelMatchRequest { match_id: c.match_id.clone(), creator_token: c.creator_token.clone() })
        .await
        .unwrap()
        .into_inner();
    let o = r.outcome.unwrap();
    assert!(o.cancelled && o.ranks == vec![0] && o.verdicts.is_empty(), "{o:?}");
    let ended = next_of(&mut inbound, |m| matches!(m, v1::server_message::Message::Ended(_))).await;
    let v1::server_message::Message::Ended(e) = ended else { panic!() };
    assert!(e.outcome.unwrap().cancelled);
    drop(tx);
    // Its place is given back as its driver ends (just after the answer, on a busy machine).
    let start = Instant::now();
    while running.hub.active() != 0 {
        assert!(start.elapsed() < Duration::from_secs(10), "the cancelled match's place is given back");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finished_matches_are_evicted_after_their_records_are_written() {
    let dir = temp_dir("evict");
    let records = dir.join("records.jsonl");
    let config = ServerConfig {
        keep_finished_for: Duration::from_millis(300),
        keep_finished: 2,
        records: Some(records.clone()),
        ..ServerConfig::default()
    };
    let (running, mut m) = start(config).await;
    let mut ids = Vec::new();
    for k in 0..4 {
        let c = m.create_match(create("journey", k)).await.unwrap().into_inner();
        m.resign(v1::ResignRequest { match_id: c.match_id.clone(), token: c.tokens[0].token.clone() }).await.unwrap();
        ids.push(c.match_id);
    }
    // Give the drivers a moment to hand the matches over.
    let start_wait = Instant::now();
    while running.hub.active() > 0 {
        assert!(start_wait.elapsed() < Duration::from_secs(10));
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // At most two kept: the two oldest are gone already.
    let e = m.get_record(v1::GetRecordRequest { match_id: ids[0].clone() }).await.unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "{e:?}");
    m.get_record(v1::GetRecordRequest { match_id: ids[3].clone() }).await.unwrap();
    assert!(running.hub.held() <= 2);
    // After the retention time, none; every record was written first.
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert_eq!(running.hub.held(), 0);
    let e = m.get_record(v1::GetRecordRequest { match_id: ids[3].clone() }).await.unwrap_err();
    assert_eq!(e.code(), Code::NotFound);
    let text = std::fs::read_to_string(&records).unwrap();
    for id in &ids {
        assert!(text.contains(id.as_str()), "the record of {id} was written");
    }
    running.stop().await.unwrap();
}

fn hello(name: &str, key: &str) -> v1::Hello {
    v1::Hello { name: name.into(), key: key.into(), ..Default::default() }
}

/// Open a Play stream with `hello`; the server's answer to it.
async fn play_stream(
    url: &str,
    hello: v1::Hello,
) -> Result<(tokio::sync::mpsc::Sender<v1::BotMessage>, tonic::Streaming<v1::ServerMessage>), tonic::Status> {
    let channel = arena::client::connect(url).await.unwrap();
    let mut client = v1::play_client::PlayClient::new(channel);
    let (tx, rx) = tokio::sync::mpsc::channel(16);
    tx.send(v1::BotMessage { message: Some(v1::bot_message::Message::Hello(hello)) }).await.unwrap();
    let mut inbound = client.play(Request::new(tokio_stream::wrappers::ReceiverStream::new(rx))).await?.into_inner();
    match inbound.message().await?.and_then(|m| m.message) {
        Some(v1::server_message::Message::Welcome(_)) => Ok((tx, inbound)),
        other => panic!("expected Welcome, got {other:?}"),
    }
}

/// The next server message that `wanted` accepts (others skipped).
async fn next_of(
    inbound: &mut tonic::Streaming<v1::ServerMessage>,
    wanted: impl Fn(&v1::server_message::Message) -> bool,
) -> v1::server_message::Message {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(20), inbound.message())
            .await
            .expect("a message in time")
            .unwrap()
            .expect("the stream goes on")
            .message
            .unwrap();
        if wanted(&m) {
            return m;
        }
    }
}

/// A Play client that says `hello` sits at both seats of expedition's deal 3: its first
/// request (its stream then closed).
async fn first_request_of_deal_3(url: &str, m: &mut MatchesClient<Channel>, hello: v1::Hello) -> v1::DecisionRequest {
    let name = hello.name.clone();
    let (_tx, mut inbound) = play_stream(url, hello).await.unwrap();
    let mut req = create("expedition", 3);
    req.seats = play_seats(&[&name, &name]);
    m.create_match(req).await.unwrap();
    next_request(&mut inbound).await
}

async fn next_request(inbound: &mut tonic::Streaming<v1::ServerMessage>) -> v1::DecisionRequest {
    match next_of(inbound, |m| matches!(m, v1::server_message::Message::Request(_))).await {
        v1::server_message::Message::Request(r) => r,
        _ => unreachable!(),
    }
}

async fn next_error(inbound: &mut tonic::Streaming<v1::ServerMessage>) -> v1::StreamError {
    match next_of(inbound, |m| matches!(m, v1::server_message::Message::Error(_))).await {
        v1::server_message::Message::Error(e) => e,
        _ => unreachable!(),
    }
}

/// How the server ended a stream (skipping what it sent before).
async fn stream_end(inbound: &mut tonic::Streaming<v1::ServerMessage>) -> tonic::Status {
    let end = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match inbound.message().await {
                Ok(Some(_)) => continue,
                other => return other,
            }
        }
    });
    end.await.expect("the stream ends in time").expect_err("ended with an error status")
}

fn decision(request_id: u64, action: u32) -> v1::BotMessage {
    v1::BotMessage { message: Some(v1::bot_message::Message::Decision(v1::Decision { request_id, action })) }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_belongs_to_its_first_holder_or_to_its_key() {
    let mut keys = std::collections::HashMap::new();
    keys.insert("bob".to_string(), "bobs-secret-key".to_string());
    let (running, mut m) = start(ServerConfig { bot_keys: keys, ..ServerConfig::default() }).await;
    let url = running.url();
    let (_alice, _in) = play_stream(&url, hello("alice", "")).await.unwrap();
    // Another client (another address) is refused the name; a newer stream of the same client
    // takes it over (a restarted agent), and the older stream ends.
    let mut other =
        v1::play_client::PlayClient::new(arena::client::connect_from(&url, [127, 0, 0, 2].into()).await.unwrap());
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    tx.send(v1::BotMessage { message: Some(v1::bot_message::Message::Hello(hello("alice", ""))) }).await.unwrap();
    let e = other.play(tokio_stream::wrappers::ReceiverStream::new(rx)).await.err().unwrap();
    assert_eq!(e.code(), Code::AlreadyExists, "{e:?}");
    assert!(e.message().contains("alice") && e.message().contains("another client's"), "{}", e.message());
    let (_alice2, _in2) = play_stream(&url, hello("alice", "")).await.unwrap();
    let mut first = _in;
    assert_eq!(stream_end(&mut first).await.code(), Code::AlreadyExists);
    // A keyed name: never without its key.
    for key in ["", "wrong-key-of-bob"] {
        let e = play_stream(&url, hello("bob", key)).await.err().unwrap();
        assert_eq!(e.code(), Code::PermissionDenied, "{key}: {e:?}");
    }
    let (bob1, mut in1) = play_stream(&url, hello("bob", "bobs-secret-key")).await.unwrap();
    // The key holder that comes back takes the name over; the older stream ends.
    let (bob2, mut in2) = play_stream(&url, hello("bob", "bobs-secret-key")).await.unwrap();
    assert_eq!(stream_end(&mut in1).await.code(), Code::AlreadyExists);
    drop(bob1);
    // Matches for `bob` go to the key holder's stream.
    let mut r = create("journey", 1);
    r.seats = play_seats(&["bob"]);
    m.create_match(r).await.unwrap();
    next_request(&mut in2).await;
    drop(bob2);
    // Bad Hellos are refused, naming the field.
    for (h, field) in [
        (hello("", ""), "Hello.name"),
        (hello(" padded", ""), "Hello.name"),
        (hello(&"n".repeat(65), ""), "Hello.name"),
        (v1::Hello { name: "g".into(), games: vec!["chess".into()], ..Default::default() }, "Hello.games"),
    ] {
        let e = play_stream(&url, h).await.err().unwrap();
        assert_eq!(e.code(), Code::InvalidArgument);
        assert!(e.message().contains(field), "{}", e.message());
    }
    running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hello_names_a_game_or_one_preset_of_it_and_its_welcome_tells_the_house() {
    let config = ServerConfig { move_time: Some(Duration::from_millis(1500)), ..ServerConfig::default() };
    let (running, mut m) = start(config).await;
    let url = running.url();
    let mut client = v1::play_client::PlayClient::new(arena::client::connect(&url).await.unwrap());
    let (tx, rx) = tokio::sync::mpsc::channel(16);
    let h = v1::Hello { name: "nodice".into(), games: vec!["expedition:no-dice".into()], ..Default::default() };
    tx.send(v1::BotMessage { message: Some(v1::bot_message::Message::Hello(h)) }).await.unwrap();
    let mut inbound = client.play(tokio_stream::wrappers::ReceiverStream::new(rx)).await.unwrap().into_inner();
    let welcome = match inbound.message().await.unwrap().and_then(|m| m.message) {
        Some(v1::server_message::Message::Welcome(w)) => w,
        other => panic!("expected Welcome, got {other:?}"),
    };
    // A plain server: no ladder, every game, its default per-move limit.
    assert!(!welcome.session.is_empty());
    assert_eq!(welcome.ladder, "");
    assert_eq!(welcome.games, ["journey", "expedition"]);
    assert_eq!(welcome.move_time_ms, 1500);
    // Seated under the preset it named; refused under another, the default (dice) included.
    for preset in ["dice", ""] {
        let mut r = create("expedition", 1);
        r.preset = preset.into();
        r.seats = play_seats(&["nodice", "nodice"]);
        let e = m.create_match(r).await.unwrap_err();
        assert_eq!(e.code(), Code::FailedPrecondition, "{preset}: {e:?}");
        assert!(e.message().contains("expedition:dice"), "{}", e.message());
    }
    let mut r = create("expedition", 1);
    r.preset = "no-dice".into();
    r.seats = play_seats(&["nodice", "nodice"]);
    m.create_match(r).await.unwrap();
    next_request(&mut inbound).await;
    let mut r = create("journey", 1);
    r.seats = play_seats(&["nodice"]);
    assert_eq!(m.create_match(r).await.unwrap_err().code(), Code::FailedPrecondition);
    // An unknown preset is refused at Hello, naming the game's presets.
    let bad = v1::Hello { name: "odd".into(), games: vec!["expedition:fast".into()], ..Default::default() };
    let e = play_stream(&url, bad).await.err().unwrap();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("Hello.games") && e.message().contains("dice, no-dice"), "{}", e.message());
    drop(tx);
    running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_malformed_play_message_is_answered_with_an_error() {
    let config = ServerConfig { max_stream_faults: 8, ..ServerConfig::default() };
    let (running, mut m) = start(config).await;
    let url = running.url();
    let (tx, mut inbound) = play_stream(&url, hello("carol", "")).await.unwrap();
    let (other, mut other_in) = play_stream(&url, hello("dave", "")).await.unwrap();

    tx.send(v1::BotMessage { message: Some(v1::bot_message::Message::Hello(hello("mallory", ""))) }).await.unwrap();
    let e = next_error(&mut inbound).await;
    assert_eq!((e.code.as_str(), e.count, e.limit), ("second_hello", 1, 8));
    assert!(running.hub.session("mallory").is_none(), "the stream keeps its first name");
    tx.send(decision(987_654, 0)).await.unwrap();
    let e = next_error(&mut inbound).await;
    assert_eq!((e.code.as_str(), e.request_id, e.count), ("unknown_request", 987_654, 2));
    tx.send(v1::BotMessage { message: None }).await.unwrap();
    assert_eq!(next_error(&mut inbound).await.code, "empty_message");

    // A request of carol's: dave cannot answer it; carol answers once, not twice.
    let mut r = create("journey", 2);
    r.seats = play_seats(&["carol"]);
    r.move_time_ms = 30_000;
    m.create_match(r).await.unwrap();
    let req = next_request(&mut inbound).await;
    other.send(decision(req.request_id, req.legal[0].id)).await.unwrap();
    let e = next_error(&mut other_in).await;
    assert_eq!(e.code, "unknown_request", "another stream's request is not dave's");
    tx.send(decision(req.request_id, req.legal[0].id)).await.unwrap();
    tx.send(decision(req.request_id, req.legal[0].id)).await.unwrap();
    assert_eq!(next_error(&mut inbound).await.code, "duplicate_decision");

    // A decision after its limit passed is late: the policy had applied.
    let mut r = create("journey", 3);
    r.seats = play_seats(&["dave"]);
    r.move_time_ms = 50;
    r.set_on_timeout(v1::TimeoutPolicy::RandomMove);
    m.create_match(r).await.unwrap();
    let late = next_request(&mut other_in).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    other.send(decision(late.request_id, late.legal[0].id)).await.unwrap();
    let e = next_error(&mut other_in).await;
    assert_eq!((e.code.as_str(), e.request_id), ("late_decision", late.request_id));

    // Past the bound, the stream is closed.
    for _ in 0..10 {
        let _ = tx.send(v1::BotMessage { message: None }).await;
    }
    let status = stream_end(&mut inbound).await;
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(status.message().contains("faults"), "{}", status.message());
    running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reflection_v1alpha_and_v1_list_the_arena_and_not_the_bench() {
    let (running, mut m) = start(ServerConfig::default()).await;
    let channel = arena::client::connect(&running.url()).await.unwrap();
    use tonic_reflection::pb::v1alpha::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1alpha::server_reflection_request::MessageRequest;
    use tonic_reflection::pb::v1alpha::server_reflection_response::MessageResponse;
    let mut reflection = ServerReflectionClient::new(channel.clone());
    let req = tonic_reflection::pb::v1alpha::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut stream = reflection.server_reflection_info(tokio_stream::iter(vec![req])).await.unwrap().into_inner();
    let Some(MessageResponse::ListServicesResponse(list)) = stream.message().await.unwrap().unwrap().message_response
    else {
        panic!()
    };
    let names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
    for s in ["tabletop.arena.v1.Matches", "tabletop.arena.v1.Play", "tabletop.arena.v1.Catalogue"] {
        assert!(names.iter().any(|n| n == s), "{s} missing from {names:?}");
    }
    assert!(!names.iter().any(|n| n.contains("bench") || n.contains("Echo")), "{names:?}");
    use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient as V1;
    let req = tonic_reflection::pb::v1::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(tonic_reflection::pb::v1::server_reflection_request::MessageRequest::ListServices(
            String::new(),
        )),
    };
    let mut stream = V1::new(channel).server_reflection_info(tokio_stream::iter(vec![req])).await.unwrap().into_inner();
    let text = format!("{:?}", stream.message().await.unwrap().unwrap());
    assert!(text.contains("tabletop.arena.v1.Matches") && !text.contains("Echo"), "{text}");

    // Spectate from a version: the events from there on, and the end.
    let mut r = create("expedition", 9);
    r.seats = vec![
        v1::SeatSpec { player: Some(v1::seat_spec::Player::Bot("random".into())) },
        v1::SeatSpec { player: Some(v1::seat_spec::Player::Bot("random".into())) },
    ];
    let id = m.create_match(r).await.unwrap().into_inner().match_id;
    let record = wait_record(&mut m, &id, Duration::from_secs(120)).await;
    let mut events = m
        .spectate(v1::SpectateRequest { match_id: id, from_version: 5, with_table: false })
        .await
        .unwrap()
        .into_inner();
    let mut versions = Vec::new();
    while let Some(e) = events.message().await.unwrap() {
        versions.push(e.version);
    }
    let last = record.actions.len() as u64;
    let expected: Vec<u64> = (5..=last).chain([last]).collect();
    assert_eq!(versions, expected, "moves 5.. then the end");
    running.stop().await.unwrap();
}

/// A token seat learns its turn from Watch, without polling: it acts on every state that
/// gives it legal actions, and the stream ends with the outcome.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_seat_plays_a_whole_match_from_its_watch_stream() {
    let (running, mut m) = start(ServerConfig::default()).await;
    let mut req = create("expedition", 12);
    req.seats = token_against("random");
    let c = m.create_match(req).await.unwrap().into_inner();
    let token = c.tokens[0].token.clone();
    let mut states = m
        .watch(v1::ObserveRequest { match_id: c.match_id.clone(), token: token.clone(), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    let (mut acted, mut last) = (0, None);
    while let Some(s) = tokio::time::timeout(Duration::from_secs(30), states.message()).await.unwrap().unwrap() {
        assert_eq!(s.seat, 0, "only its own seat's view");
        if let Some(prev) = last {
            assert!(s.version >= prev, "versions only move forward");
        }
        last = Some(s.version);
        if let Some(l) = s.legal.first() {
            let act = v1::ActRequest {
                match_id: c.match_id.clone(),
                token: token.clone(),
                action: l.id,
                version: Some(s.version),
            };
            m.act(act).await.unwrap();
            acted += 1;
        }
        if s.outcome.is_some() {
            break;
        }
    }
    assert!(acted > 5, "it moved on its own turns: {acted}");
    let record = m.get_record(v1::GetRecordRequest { match_id: c.match_id.clone() }).await.unwrap().into_inner();
    assert_eq!(Some(record.actions.len() as u64), last, "the last state is the end");
    // A wrong token watches nothing.
    let e = m
        .watch(v1::ObserveRequest { match_id: c.match_id, token: "0".repeat(32), ..Default::default() })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
    running.stop().await.unwrap();
}

/// For agents that learn: the catalogue gives a configuration's tensor layout and action
/// range; a seat asks for its tensor and legal mask (by token, or in its Hello).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tensors_and_legal_masks_on_request() {
    let (running, mut m) = start(ServerConfig::default()).await;
    let mut catalogue = arena::client::catalogue(arena::client::connect(&running.url()).await.unwrap());
    let mut params = std::collections::HashMap::new();
    params.insert("travellers".to_string(), "2".to_string());
    let shape = catalogue
        .describe_game(v1::DescribeGameRequest { game: "journey".into(), preset: "martian".into(), params })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(shape.seats, 2);
    assert_eq!(shape.tensor_size, shape.fields.iter().map(|f| f.size).sum::<u32>());
    assert!(
        shape.actions.iter().any(|a| a.name == "forage") && shape.actions.iter().all(|a| a.id < shape.action_count)
    );
    let e = catalogue
        .describe_game(v1::DescribeGameRequest {
            game: "expedition".into(),
            params: [("content".to_string(), "/etc/passwd".to_string())].into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "the same loader as CreateMatch");
    // By token.
    let c = m.create_match(create("journey", 5)).await.unwrap().into_inner();
    let s = m
        .observe(v1::ObserveRequest { match_id: c.match_id.clone(), token: c.tokens[0].token.clone(), tensors: true })
        .await
        .unwrap()
        .into_inner();
    let shape1 = catalogue
        .describe_game(v1::DescribeGameRequest { game: "journey".into(), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(s.tensor.len() as u32, shape1.tensor_size);
    // Each field's range, as the engine's layout declares it; the tensor's numbers within them.
    let no_files = |name: &str| -> Result<String, String> { Err(format!("{name}: no files here")) };
    let journey = (engine::find_game("journey").unwrap().spec)(None, &[], &no_files).unwrap();
    let layout = journey.tensor_layout();
    let ranges: Vec<(f32, f32)> = shape1.fields.iter().map(|f| (f.low, f.high)).collect();
    assert_eq!(ranges, layout.iter().map(|f| (f.low, f.high)).collect::<Vec<_>>());
    assert!(shape1.fields.iter().all(|f| f.low <= f.high && f.high.is_finite()));
    let mut at = 0;
    for f in &shape1.fields {
        let numbers = &s.tensor[at..at + f.size as usize];
        assert!(numbers.iter().all(|x| (f.low..=f.high).contains(x)), "{}: {numbers:?}", f.name);
        at += f.size as usize;
    }
    let bits = |mask: &[u8]| -> Vec<u32> {
        (0..mask.len() as u32 * 8).filter(|&i| mask[i as usize / 8] >> (i % 8) & 1 == 1).collect()
    };
    let sorted = |legal: &[v1::LegalAction]| {
        let mut ids: Vec<u32> = legal.iter().map(|l| l.id).collect();
        ids.sort_unstable();
        ids
    };
    assert_eq!(bits(&s.legal_mask), sorted(&s.legal), "the mask marks the legal ids");
    assert_eq!(s.legal_mask.len() as u32, shape1.action_count.div_ceil(8));
    let plain = m
        .observe(v1::ObserveRequest { match_id: c.match_id.clone(), token: c.tokens[0].token.clone(), tensors: false })
        .await
        .unwrap()
        .into_inner();
    assert!(plain.tensor.is_empty() && plain.legal_mask.is_empty(), "not unless asked");
    // Over Play, when the Hello asks.
    let url = running.url();
    let r = first_request_of_deal_3(
        &url,
        &mut m,
        v1::Hello { name: "learner".into(), tensors: true, ..Default::default() },
    )
    .await;
    assert!(!r.tensor.is_empty());
    assert_eq!(bits(&r.legal_mask), sorted(&r.legal));
    let observation = r.observation.as_ref().unwrap();
    assert!(observation.text.starts_with("Expedition, "), "the text unless left out: {}", observation.text);
    // A client that leaves the text out has the typed observation, the same, without it.
    let terse = first_request_of_deal_3(
        &url,
        &mut m,
        v1::Hello { name: "terse".into(), omit_text: true, ..Default::default() },
    )
    .await;
    let terse_observation = terse.observation.as_ref().unwrap();
    assert_eq!(terse_observation.text, "", "omit_text: no text");
    assert_eq!(terse_observation.game, observation.game, "the same deal, the same typed observation");
    assert_eq!(terse.legal, r.legal);
    // A client that leaves the observation out gets the legal actions, and the tensor it asked
    // for, alone.
    let blind = first_request_of_deal_3(
        &url,
        &mut m,
        v1::Hello { name: "blind".into(), omit_observation: true, tensors: true, ..Default::default() },
    )
    .await;
    assert_eq!(blind.observation, None, "omit_observation: no observation");
    assert_eq!(blind.legal, r.legal, "the same deal, the same legal actions with their labels");
    assert_eq!(blind.tensor, r.tensor, "the tensor, as asked");
    assert_eq!(blind.legal_mask, r.legal_mask);
    running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leaving_client_takes_no_new_seats_and_its_stream_ends_after_its_last_match() {
    let (running, mut m) = start(ServerConfig::default()).await;
    let url = running.url();
    let (tx, mut inbound) = play_stream(&url, hello("leaver", "")).await.unwrap();
    // A match in play: the client is asked, and has not answered.
    let mut r = create("journey", 6);
    r.seats = play_seats(&["leaver"]);
    let c = m.create_match(r).await.unwrap().into_inner();
    let asked = next_request(&mut inbound).await;
    tx.send(v1::BotMessage { message: Some(v1::bot_message::Message::Leave(v1::Leave {})) }).await.unwrap();
    // No new seat for it, by name; the stream stays open for the match in play.
    let mut r = create("journey", 7);
    r.seats = play_seats(&["leaver"]);
    let e = loop {
        match m.create_match(r.clone()).await {
            Err(e) => break e,
            // The Leave not read yet: that match is its too, and is cancelled below.
            Ok(made) => {
                let made = made.into_inner();
                let cancel = v1::CancelMatchRequest { match_id: made.match_id, creator_token: made.creator_token };
                m.cancel_match(cancel).await.unwrap();
            }
        }
    };
    assert_eq!(e.code(), Code::FailedPrecondition);
    assert!(e.message().contains("`leaver` is leaving"), "{}", e.message());
    // It answers and plays its match to the end; then the server ends the stream, OK.
    let mut request = asked;
    loop {
        let action = request.legal[0].id;
        let decision = v1::Decision { request_id: request.request_id, action };
        tx.send(v1::BotMessage { message: Some(v1::bot_message::Message::Decision(decision)) }).await.unwrap();
        match next_of(&mut inbound, |m| !matches!(m, v1::server_message::Message::Error(_))).await {
            v1::server_message::Message::Request(r) => request = r,
            v1::server_message::Message::Ended(e) if e.match_id == c.match_id => break,
            _ => {}
        }
    }
    let end = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match inbound.message().await {
                Ok(Some(_)) => continue,
                other => return other,
            }
        }
    });
    assert!(matches!(end.await, Ok(Ok(None))), "the stream ends without an error");
    // The name is free again.
    drop(tx);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while play_stream(&url, hello("leaver", "")).await.is_err() {
        assert!(tokio::time::Instant::now() < deadline, "the name was not freed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arena_bot_leaves_after_its_games_and_exits() {
    let (running, mut m) = start(ServerConfig::default()).await;
    let url = running.url();
    let bot = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["bot", "random", "--server", &url, "--name", "leaves", "--leave-after", "2"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_connected(&running, "leaves").await;
    for seed in [1, 2] {
        let mut r = create("expedition", seed);
        r.seats = play_seats(&["leaves"]);
        r.seats.push(v1::SeatSpec { player: Some(v1::seat_spec::Player::Bot("random".into())) });
        let c = m.create_match(r).await.unwrap().into_inner();
        wait_record(&mut m, &c.match_id, Duration::from_secs(60)).await;
    }
    // Two seats' games ended: it leaves, the server ends its stream, and it exits on its own.
    let exited = tokio::task::spawn_blocking(move || bot.wait_with_output().unwrap()).await.unwrap();
    assert!(exited.status.success(), "{:?}", exited.status);
    let said = String::from_utf8_lossy(&exited.stdout);
    assert!(said.contains("seats played to the end"), "{said}");
    running.stop().await.unwrap();
}

/// Agents launched in sandboxes reach a server by its Unix socket, and each sandbox is a client
/// of its own (by its PID namespace): one that opens connection after connection takes its
/// own share of the connections, and another sandbox's agent still connects and plays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs bubblewrap: .ci/run installs it and runs it"]
async fn each_sandbox_is_a_client_of_its_own_on_the_unix_socket() {
    let bin = env!("CARGO_BIN_EXE_arena");
    let dir = temp_dir("sandboxes");
    let socket = dir.join("play.sock");
    let shares = server::Shares { connections: 4, ..server::Shares::default() };
    let config = ServerConfig { unix_socket: Some(socket.clone()), shares, ..ServerConfig::default() };
    let running = server::start("127.0.0.1:0".parse().unwrap(), config).await.unwrap();
    // A hog: 12 connections straight to the socket (past its relay), held.
    let hog = arena::sandbox::Sandbox::new().arena_only(&socket, bin);
    let hold = "import socket, time\nheld = []\nfor i in range(12):\n    s = socket.socket(socket.AF_UNIX)\n    s.connect('/run/arena/play.sock')\n    held.append(s)\nprint('holding', flush=True)\ntime.sleep(60)\n";
    let mut hog = served::Process(
        hog.wrap(&[], &["python3".into(), "-c".into(), hold.into()]).unwrap().stdout(Stdio::piped()).spawn().unwrap(),
    );
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(hog.stdout.take().unwrap()), &mut line).unwrap();
    assert_eq!(line.trim(), "holding");
    // Another sandbox's agent, through its relay.
    let good = arena::sandbox::Sandbox::new().arena_only(&socket, bin).env("ARENA_SERVER", "http://127.0.0.1:50051");
    let words: Vec<String> =
        ["sh", "-c", &format!("exec {bin} bot random --server $ARENA_SERVER --name good")].map(String::from).into();
    let _good =
        served::Process(good.wrap(&[], &words).unwrap().stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap());
    let session = running.hub.wait_for_session("good", Duration::from_secs(20)).await.expect("the good agent connects");
    assert!(matches!(session.owner, server::ClientId::Sandbox(_)), "{}", session.owner);
    // And plays.
    let mut m = MatchesClient::new(arena::client::connect(&running.url()).await.unwrap());
    let mut r = create("expedition", 3);
    r.seats = play_seats(&["good", "good"]);
    let created = m.create_match(r).await.unwrap().into_inner();
    let record = wait_record(&mut m, &created.match_id, Duration::from_secs(60)).await;
    assert!(record.outcome.is_some_and(|o| o.verdicts.is_empty()));
    drop(hog);
    running.stop().await.unwrap();
}

/// `arena bot … --sandbox`: the bot runs in a sandbox and cgroup of the arena's own, plays its
/// games as ever, and exits as it would.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs bubblewrap and cgroups: .ci/run installs bubblewrap and runs it as root"]
async fn arena_bot_runs_in_a_sandbox_when_asked() {
    let bin = env!("CARGO_BIN_EXE_arena");
    let running = server::start("127.0.0.1:0".parse().unwrap(), ServerConfig::default()).await.unwrap();
    let url = running.url();
    let child = Command::new(bin)
        .args(["bot", "random", "--server", &url, "--name", "boxed", "--leave-after", "1", "--sandbox"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    running.hub.wait_for_session("boxed", Duration::from_secs(20)).await.expect("the sandboxed bot connects");
    // Its process is bubblewrap's child: a bwrap process runs `arena bot … --name boxed`.
    let boxed = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| std::fs::read(e.ok()?.path().join("cmdline")).ok())
        .any(|c| {
            let words: Vec<&[u8]> = c.split(|&b| b == 0).collect();
            words.first().is_some_and(|w| w.ends_with(b"bwrap")) && words.iter().any(|w| *w == b"boxed")
        });
    assert!(boxed, "a bwrap process runs the bot");
    let mut m = MatchesClient::new(arena::client::connect(&url).await.unwrap());
    let mut r = create("journey", 2);
    r.seats = play_seats(&["boxed"]);
    let created = m.create_match(r).await.unwrap().into_inner();
    let record = wait_record(&mut m, &created.match_id, Duration::from_secs(60)).await;
    assert!(record.outcome.is_some_and(|o| o.verdicts.is_empty()));
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap()).await.unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 seats played to the end"));
    running.stop().await.unwrap();
}
