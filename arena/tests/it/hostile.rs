//! The server against a hostile client, over real sockets: YAML that would weigh gigabytes or
//! nest without end is refused at once while others are served; the content directory offers
//! regular files of its own only and no answer quotes one; a client at its share of matches,
//! streams and spectators leaves room for the next client and for keyed bots; a spectator
//! that goes gives its place back at once; names that look alike are one name.

use arena::server::{self, KeyRequired, Running, ServerConfig, Shares};
use proto::v1;
use std::collections::HashMap;
use std::net::IpAddr;
use std::process::Command;
use std::time::{Duration, Instant};
use tonic::transport::Channel;
use tonic::{Code, Request};

use crate::scratch;
use crate::served;

/// A channel to `url` whose connections come from `source`: another client, as the server
/// tells clients apart by address.
async fn connect_from(url: &str, source: IpAddr) -> Channel {
    arena::client::connect_from(url, source).await.unwrap()
}

/// `message` with the client key `key` in its metadata (none for "").
fn keyed<T>(message: T, key: &str) -> Request<T> {
    let mut r = Request::new(message);
    if !key.is_empty() {
        r.metadata_mut().insert("x-arena-key", key.parse().unwrap());
    }
    r
}

fn token_match(game: &str) -> v1::CreateMatchRequest {
    v1::CreateMatchRequest { game: game.into(), seed: Some(1), ..Default::default() }
}

fn with_content(content: &str) -> v1::CreateMatchRequest {
    let mut r = token_match("expedition");
    r.params = HashMap::from([("content".to_string(), content.to_string())]);
    r
}

/// Open a Play stream saying `hello` (with the client key `key`): the server's first answer.
async fn play(
    channel: Channel,
    hello: v1::Hello,
    key: &str,
) -> Result<(tokio::sync::mpsc::Sender<v1::BotMessage>, tonic::Streaming<v1::ServerMessage>), tonic::Status> {
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    tx.send(v1::BotMessage { message: Some(v1::bot_message::Message::Hello(hello)) }).await.unwrap();
    let mut inbound = v1::play_client::PlayClient::new(channel)
        .play(keyed(tokio_stream::wrappers::ReceiverStream::new(rx), key))
        .await?
        .into_inner();
    match inbound.message().await?.and_then(|m| m.message) {
        Some(v1::server_message::Message::Welcome(_)) => Ok((tx, inbound)),
        other => panic!("expected Welcome, got {other:?}"),
    }
}

fn hello(name: &str, key: &str) -> v1::Hello {
    v1::Hello { name: name.into(), key: key.into(), ..Default::default() }
}

/// YAML of a few hundred kilobytes that names one scalar 10^`levels` times over.
fn alias_bomb(levels: usize) -> String {
    let mut text = format!("a0: &a0 [{}]\n", ["\"lol lol lol lol\""; 10].join(", "));
    for i in 1..levels {
        text += &format!("a{i}: &a{i} [{}]\n", vec![format!("*a{}", i - 1); 10].join(", "));
    }
    // Padded to the size the attack was tried at.
    text + &format!("# {}\n", "x".repeat(300 * 1024))
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn yaml_that_would_weigh_gigabytes_or_nest_without_end_is_refused_and_others_are_served() {
    let (mut child, url, _out) = served::serve(&[]);
    let pid = child.id();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let channel = arena::client::connect(&url).await.unwrap();
        let mut matches = v1::matches_client::MatchesClient::new(channel.clone());
        let mut catalogue = v1::catalogue_client::CatalogueClient::new(channel.clone());
        // The server at rest, after one honest call of each kind.
        matches.create_match(with_content(include_str!("../../../engine/src/expedition/content.yaml"))).await.unwrap();
        let before = rss_kib(pid);

        // Meanwhile, another client asks for its health over and over.
        let health_channel = arena::client::connect(&url).await.unwrap();
        let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
        let health = tokio::spawn(async move {
            let mut h = tonic_health::pb::health_client::HealthClient::new(health_channel);
            let (mut answers, mut slowest) = (0, Duration::ZERO);
            loop {
                let t = Instant::now();
                let r = h.check(tonic_health::pb::HealthCheckRequest { service: String::new() }).await.unwrap();
                assert_eq!(r.into_inner().status(), tonic_health::pb::health_check_response::ServingStatus::Serving);
                slowest = slowest.max(t.elapsed());
                answers += 1;
                if stopped.try_recv().is_ok() {
                    return (answers, slowest);
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        });

        let bomb = alias_bomb(9);
        let deep_open = "{a: ".repeat(50_000);
        let deep_closed = format!("{}1{}", "{a: ".repeat(20_000), "}".repeat(20_000));
        let wide = format!("[{}]", vec!["1"; 300_000].join(","));
        let attacks: Vec<(&str, &String, &str)> = vec![
            ("an alias bomb", &bomb, "YAML nodes"),
            ("a mapping 50,000 deep, never closed", &deep_open, "levels"),
            ("a mapping 20,000 deep", &deep_closed, "levels"),
            ("300,000 scalars", &wide, "YAML nodes"),
        ];
        for round in 0..3 {
            for (what, text, limit) in &attacks {
                let describe = v1::DescribeGameRequest {
                    game: "expedition".into(),
                    params: HashMap::from([("content".to_string(), text.to_string())]),
                    ..Default::default()
                };
                let mut scenario = token_match("journey");
                scenario.scenario = text.to_string();
                let refusals = [
                    catalogue.describe_game(describe).await.unwrap_err(),
                    matches.create_match(with_content(text)).await.unwrap_err(),
                    matches.create_match(scenario).await.unwrap_err(),
                ];
                for e in refusals {
                    assert_eq!(e.code(), Code::InvalidArgument, "{what}: {e:?}");
                    assert!(e.message().contains(limit) && e.message().contains("limit"), "{what}: {}", e.message());
                    assert!(e.message().len() < 300, "{what}: the answer echoes the request: {}", e.message());
                }
            }
            if round == 0 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
        let after = rss_kib(pid);
        let _ = stop.send(());
        let (answers, slowest) = health.await.unwrap();
        eprintln!(
            "resident memory {before} KiB before the attacks, {after} KiB after; {answers} health checks, the slowest \
             {slowest:?}"
        );
        assert!(answers >= 2, "the health check answered throughout");
        // Each request was up to 1.2 MB: the server kept no more than a few of them.
        assert!(after < before + 32 * 1024, "resident memory rose from {before} KiB to {after} KiB");
        // And it still serves.
        matches.create_match(token_match("journey")).await.unwrap();
    });
    Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(child.wait().unwrap().success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_content_directory_offers_its_own_regular_files_and_no_answer_quotes_one() {
    let root = scratch::scratch("hostile", "content");
    let sets = root.join("sets");
    std::fs::create_dir_all(&sets).unwrap();
    let marker = format!("MARKER{}", std::process::id());
    let outside = root.join("outside.yaml");
    std::fs::write(&outside, format!("{marker}: [{marker}]\n")).unwrap();
    std::fs::write(sets.join("small.yaml"), SMALL_CONTENT).unwrap();
    // A set that does not read: its text must reach the operator's log only.
    std::fs::write(sets.join("broken.yaml"), format!("tiles: {marker}\n")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", sets.join("passwd.yaml")).unwrap();
    std::os::unix::fs::symlink(&outside, sets.join("link.yaml")).unwrap();
    std::os::unix::fs::symlink(sets.join("small.yaml"), sets.join("inner.yaml")).unwrap();
    std::fs::hard_link(&outside, sets.join("hard.yaml")).unwrap();
    assert!(Command::new("mkfifo").arg(sets.join("pipe.yaml")).status().unwrap().success());

    let config = ServerConfig { content_dir: Some(sets.clone()), ..ServerConfig::default() };
    let running = server::start("127.0.0.1:0".parse().unwrap(), config).await.unwrap();
    let channel = arena::client::connect(&running.url()).await.unwrap();
    let mut m = v1::matches_client::MatchesClient::new(channel.clone());
    let listed = v1::catalogue_client::CatalogueClient::new(channel)
        .list_games(v1::ListGamesRequest {})
        .await
        .unwrap()
        .into_inner()
        .content_sets;
    assert_eq!(listed, ["broken", "small"], "links, pipes and files linked in from elsewhere are not offered");
    for name in ["passwd", "link", "inner", "hard", "pipe"] {
        let e = tokio::time::timeout(Duration::from_secs(10), m.create_match(with_content(name)))
            .await
            .expect("refused at once")
            .unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{name}: {e:?}");
        assert!(e.message().contains("offers no such content set"), "{name}: {}", e.message());
        assert!(!e.message().contains("root:") && !e.message().contains(&marker), "{name}: {}", e.message());
    }
    let e = m.create_match(with_content("broken")).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("operator's log") && !e.message().contains(&marker), "{}", e.message());
    m.create_match(with_content("small")).await.unwrap();
    // A long value sent is echoed back as a short prefix at most.
    let mut long = token_match("journey");
    long.scenario = format!("travellers: [{}]", marker.repeat(30_000));
    let e = m.create_match(long).await.unwrap_err();
    assert!(e.message().len() < 500 && e.message().matches(&marker).count() <= 4, "{}", e.message());
    running.stop().await.unwrap();
}

const SMALL_CONTENT: &str = "tiles:\n  - { name: A, kind: artifact, tools: [compass, rope] }\n  - { name: B, kind: artifact, tools: [map, shovel] }\n  - { name: C, kind: place, tools: [compass, map, rope] }\n  - { name: D, kind: place, tools: [rope, map, shovel] }\n  - { name: E, kind: place, tools: [shovel, shovel, compass] }\ncharacters:\n  - { name: Ann, favourite: compass }\n  - { name: Bob, favourite: map }\nmissions:\n  - { name: M1, discoveries: [A, B, C], coins: 3 }\n  - { name: M2, discoveries: [C, D, E], coins: 5 }\ndiscovery_cards:\n  - { name: Clue, tile: E }\ndice_cards: 3\n";

const ALICE: &str = "alice-key-0123456789";
const BOB: &str = "bob-key-0123456789ab";
const BOT_KEY: &str = "keyed-bot-key";

async fn shared_server(require_key: KeyRequired) -> Running {
    let config = ServerConfig {
        max_matches: 3,
        max_sessions: 2,
        max_spectators: 3,
        shares: Shares { matches: 2, play_streams: 1, spectators: 2, ..Shares::default() },
        client_keys: HashMap::from([("alice".into(), ALICE.into()), ("bob".into(), BOB.into())]),
        require_key,
        bot_keys: HashMap::from([("Keeper".into(), BOT_KEY.into())]),
        ..ServerConfig::default()
    };
    server::start("127.0.0.1:0".parse().unwrap(), config).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_at_its_share_leaves_room_for_the_next_and_for_keyed_bots() {
    let running = shared_server(KeyRequired::Never).await;
    let url = running.url();
    // Two clients by key, on one connection each: alice takes her share of everything.
    let mut m = v1::matches_client::MatchesClient::new(arena::client::connect(&url).await.unwrap());
    let mut created = Vec::new();
    for _ in 0..2 {
        created.push(m.create_match(keyed(token_match("journey"), ALICE)).await.unwrap().into_inner());
    }
    let e = m.create_match(keyed(token_match("journey"), ALICE)).await.unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted);
    assert!(e.message().contains("client `alice`") && e.message().contains("share"), "{}", e.message());
    let bobs = m.create_match(keyed(token_match("journey"), BOB)).await.unwrap().into_inner();

    let channel = arena::client::connect(&url).await.unwrap();
    let _alice_stream = play(channel.clone(), hello("alice-bot", ""), ALICE).await.unwrap();
    let e = play(channel.clone(), hello("alice-bot-2", ""), ALICE).await.unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "{e:?}");
    let _bob_stream = play(channel.clone(), hello("bob-bot", ""), BOB).await.unwrap();
    // The streams are all taken now, but a keyed name always gets in.
    let e = play(channel.clone(), hello("stranger", ""), "").await.unwrap_err();
    assert!(e.message().contains("its limit"), "{}", e.message());
    let _keeper = play(channel.clone(), hello("Keeper", BOT_KEY), "").await.unwrap();

    let spectate = |id: &str, key: &str| {
        keyed(v1::SpectateRequest { match_id: id.into(), from_version: 0, with_table: false }, key)
    };
    let mut held = Vec::new();
    for c in &created {
        held.push(m.spectate(spectate(&c.match_id, ALICE)).await.unwrap().into_inner());
    }
    let e = m.spectate(spectate(&created[0].match_id, ALICE)).await.unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted);
    held.push(m.spectate(spectate(&bobs.match_id, BOB)).await.unwrap().into_inner());

    let e = m.create_match(keyed(token_match("journey"), "not-a-key-of-this-server")).await.unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated, "{e:?}");
    running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_without_a_key_is_its_address() {
    let config =
        ServerConfig { shares: Shares { matches: 1, play_streams: 1, ..Shares::default() }, ..ServerConfig::default() };
    let running = server::start("127.0.0.1:0".parse().unwrap(), config).await.unwrap();
    let url = running.url();
    let here = connect_from(&url, [127, 0, 0, 2].into()).await;
    let mut m = v1::matches_client::MatchesClient::new(here.clone());
    m.create_match(token_match("journey")).await.unwrap();
    let e = m.create_match(token_match("journey")).await.unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted);
    assert!(e.message().contains("the clients of 127.0.0.2") && e.message().contains("share"), "{}", e.message());
    let _held = play(here.clone(), hello("here", ""), "").await.unwrap();
    assert_eq!(play(here, hello("here-2", ""), "").await.unwrap_err().code(), Code::ResourceExhausted);
    // Another address is another client, whatever the first holds.
    let there = connect_from(&url, [127, 0, 0, 3].into()).await;
    v1::matches_client::MatchesClient::new(there.clone()).create_match(token_match("journey")).await.unwrap();
    play(there, hello("there", ""), "").await.unwrap();
    running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operator_can_require_a_key_to_create_matches() {
    let running = shared_server(KeyRequired::ToCreate).await;
    let channel = arena::client::connect(&running.url()).await.unwrap();
    let mut m = v1::matches_client::MatchesClient::new(channel.clone());
    let e = m.create_match(token_match("journey")).await.unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated);
    assert!(e.message().contains("x-arena-key"), "{}", e.message());
    let created = m.create_match(keyed(token_match("journey"), BOB)).await.unwrap().into_inner();
    // Playing, watching and listing need no key.
    play(channel.clone(), hello("anyone", ""), "").await.unwrap();
    m.spectate(v1::SpectateRequest { match_id: created.match_id, from_version: 0, with_table: false }).await.unwrap();
    let limits = v1::catalogue_client::CatalogueClient::new(channel)
        .list_games(v1::ListGamesRequest {})
        .await
        .unwrap()
        .into_inner()
        .limits
        .unwrap();
    assert!(limits.create_needs_key && limits.share_matches == 2 && limits.max_yaml_nodes > 0, "{limits:?}");
    running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spectator_that_goes_gives_its_place_back_at_once() {
    let config = ServerConfig {
        max_spectators: 1,
        // No event comes to wake the old spectator: nobody moves for the whole test.
        idle: Some(Duration::from_secs(3600)),
        ..ServerConfig::default()
    };
    let running = server::start("127.0.0.1:0".parse().unwrap(), config).await.unwrap();
    let mut m = v1::matches_client::MatchesClient::new(arena::client::connect(&running.url()).await.unwrap());
    let created = m.create_match(token_match("expedition")).await.unwrap().into_inner();
    let watch = || v1::ObserveRequest {
        match_id: created.match_id.clone(),
        token: created.tokens[0].token.clone(),
        ..Default::default()
    };
    for round in 0..3 {
        // A spectator, then a seat watching its view, each dropped after its first message.
        let mut events = free_place(|| {
            let (mut m, r) = (
                m.clone(),
                v1::SpectateRequest { match_id: created.match_id.clone(), from_version: 0, with_table: false },
            );
            async move { m.spectate(r).await }
        })
        .await
        .unwrap_or_else(|e| panic!("round {round}: {e:?}"));
        events.message().await.unwrap().unwrap();
        drop(events);
        let mut views = free_place(|| {
            let (mut m, r) = (m.clone(), watch());
            async move { m.watch(r).await }
        })
        .await
        .unwrap_or_else(|e| panic!("round {round}: {e:?}"));
        views.message().await.unwrap().unwrap();
        drop(views);
    }
    running.stop().await.unwrap();
}

/// The call, retried while the place it needs is still taken (the client's going takes one
/// round trip to reach the server), for a few seconds at most: a place kept until the
/// match's next event would never come back here.
async fn free_place<T, F, Fut>(call: F) -> Result<T, tonic::Status>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<tonic::Response<T>, tonic::Status>>,
{
    let end = Instant::now() + Duration::from_secs(5);
    loop {
        match call().await {
            Ok(r) => return Ok(r.into_inner()),
            Err(e) if e.code() == Code::ResourceExhausted && Instant::now() < end => {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            Err(e) => return Err(e),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_that_look_alike_are_one_name() {
    let running = shared_server(KeyRequired::Never).await;
    let channel = arena::client::connect(&running.url()).await.unwrap();
    let _alice = play(channel.clone(), hello("alice", ""), BOB).await.unwrap();
    for alike in ["Alice", "ALICE", "a1ice", "aIice"] {
        let e = play(channel.clone(), hello(alike, ""), ALICE).await.unwrap_err();
        assert_eq!(e.code(), Code::AlreadyExists, "{alike}: {e:?}");
        assert!(e.message().contains("as `alice`"), "{alike}: {}", e.message());
    }
    for (foreign, shown) in [("alic\u{435}", "U+0435"), ("ali\u{200b}ce", "U+200B"), ("al ice", "0x20")] {
        let e = play(channel.clone(), hello(foreign, ""), ALICE).await.unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{foreign:?}: {e:?}");
        assert!(e.message().contains(shown), "{foreign:?}: {}", e.message());
    }
    // A name like a keyed one is that name: its key is needed.
    let e = play(channel.clone(), hello("keeper", ""), ALICE).await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    play(channel.clone(), hello("KEEPER", BOT_KEY), ALICE).await.unwrap();
    // Seats find a client by any of its name's forms.
    let mut req = token_match("journey");
    req.seats = vec![v1::SeatSpec { player: Some(v1::seat_spec::Player::Play("ALICE".into())) }];
    let mut m = v1::matches_client::MatchesClient::new(channel);
    m.create_match(keyed(req, BOB)).await.unwrap();
    running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_are_a_pool_one_address_cannot_fill() {
    let config = ServerConfig {
        max_connections: 12,
        shares: Shares { connections: 4, ..Shares::default() },
        ..ServerConfig::default()
    };
    let running = server::start("127.0.0.1:0".parse().unwrap(), config).await.unwrap();
    let url = running.url();
    let list = |channel: Channel| async move {
        arena::client::catalogue(channel).list_games(v1::ListGamesRequest {}).await.map(|r| r.into_inner())
    };
    // One address holds its four connections, each serving calls.
    let mut held = Vec::new();
    for _ in 0..4 {
        let c = connect_from(&url, [127, 0, 0, 7].into()).await;
        list(c.clone()).await.unwrap();
        held.push(c);
    }
    let limits = list(held[0].clone()).await.unwrap().limits.unwrap();
    assert_eq!((limits.max_connections, limits.share_connections), (12, 4));
    // A fifth from it is closed as it comes: no call gets through.
    let refused = arena::client::connect_from(&url, [127, 0, 0, 7].into()).await;
    let closed = match refused {
        Err(_) => true,
        Ok(c) => list(c).await.is_err(),
    };
    assert!(closed, "a fifth connection of one address served a call");
    // Another address is served meanwhile, and the first gets a place back when one closes.
    list(connect_from(&url, [127, 0, 0, 8].into()).await).await.unwrap();
    held.pop();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        if let Ok(c) = arena::client::connect_from(&url, [127, 0, 0, 7].into()).await
            && list(c).await.is_ok()
        {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the place was never given back");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    running.stop().await.unwrap();
}
