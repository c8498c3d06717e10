//! `arena ladder` as a real process, with real clients (`arena bot` processes) over real
//! sockets: clients are matched within seconds and rated with intervals that narrow; a client
//! that leaves is not matched and keeps its rating when it returns; a new version is rated
//! apart; a kill -9 loses no finished game and the ladder resumes the same standings. And as
//! strangers would attack it, each from an address of its own on 127.0.0.0/8: names are a
//! bounded resource per client, new agents are provisional, one client's agents never meet,
//! a client cannot seat another's agent, a hung agent is rested and its name is its own.

use arena::ladder::store::Store;
use proto::v1;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::scratch;
use crate::served::{self, Process, http, ladder, ladder_with_face};

const LADDER: &str = "name: test\ngames:\n  - { game: expedition, preset: no-dice, params: { players: 2 } }\n  - { game: journey, preset: classic, params: { travellers: 1 } }\nanchors:\n  - { name: random, bot: random }\n  - { name: greedy, bot: greedy }\nmove_time_ms: 5000\nanchor_interval: 100000\nrefit_ms: 200\nbootstrap: 100\nmax_games: 2\nprovisional_games: 2\n";

/// `arena bot random` joined as `name` (and `version`).
fn client(url: &str, name: &str, version: &str) -> Process {
    bot(url, &["--name", name, "--agent-version", version])
}

/// `arena bot random` on the ladder at `url`, with `args`.
fn bot(url: &str, args: &[&str]) -> Process {
    Process(
        Command::new(env!("CARGO_BIN_EXE_arena"))
            .args(["bot", "random", "--server", url])
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    )
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

fn standings(url: &str) -> v1::LadderStandings {
    runtime().block_on(async {
        let mut c = v1::ladder_client::LadderClient::new(arena::client::connect(url).await.unwrap());
        c.standings(v1::StandingsRequest::default()).await.unwrap().into_inner()
    })
}

fn agent_games(url: &str, agent: &str) -> Result<v1::AgentGamesResponse, tonic::Status> {
    runtime().block_on(async {
        let mut c = v1::ladder_client::LadderClient::new(arena::client::connect(url).await.unwrap());
        c.agent_games(v1::AgentGamesRequest { agent: agent.into(), limit: 200 }).await.map(|r| r.into_inner())
    })
}

/// An agent's overall row, if rated.
fn row<'a>(s: &'a v1::LadderStandings, agent: &str) -> Option<&'a v1::RatingRow> {
    s.lists[0].rows.iter().find(|r| r.agent == agent)
}

/// Wait (at most `within`) until the standings satisfy `done`.
fn until(url: &str, within: Duration, what: &str, done: impl Fn(&v1::LadderStandings) -> bool) -> v1::LadderStandings {
    let start = Instant::now();
    loop {
        let s = standings(url);
        if done(&s) {
            return s;
        }
        assert!(start.elapsed() < within, "{what} within {within:?}: {s:#?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn stop(process: Process) {
    drop(process);
}

/// The standings without what changes from one reading to the next while nothing is played
/// (who is connected).
fn ratings(s: &v1::LadderStandings) -> Vec<(String, String, u64, String, String)> {
    s.lists
        .iter()
        .flat_map(|l| {
            l.rows.iter().map(|r| {
                (
                    l.label.clone(),
                    r.agent.clone(),
                    r.results,
                    format!("{:.9}", r.rating),
                    format!("{:.9}/{:.9}", r.lower, r.upper),
                )
            })
        })
        .collect()
}

#[test]
fn clients_join_are_matched_and_rated_and_nothing_is_lost_to_a_kill() {
    let file = scratch::scratch("ladder", "ladder.yaml");
    std::fs::write(&file, LADDER).unwrap();
    let data = scratch::scratch("ladder", "data");
    let (server, url) = ladder(&file, &data);
    let alice = client(&url, "alice", "");
    let bob = client(&url, "bob", "");

    // Both are matched within seconds, seat-swapped, and appear with intervals.
    let first = until(&url, Duration::from_secs(30), "both rated", |s| {
        ["alice", "bob"].iter().all(|a| row(s, a).is_some_and(|r| r.results >= 10 && r.upper > r.lower && r.connected))
    });
    let games = agent_games(&url, "alice").unwrap();
    let seats: std::collections::HashSet<usize> = games
        .games
        .iter()
        .filter(|g| g.entry.starts_with("expedition"))
        .filter_map(|g| g.players.iter().position(|p| p == "alice"))
        .collect();
    assert_eq!(seats.len(), 2, "alice plays both seats of expedition: {games:#?}");
    // Its intervals narrow as results arrive.
    let width = |s: &v1::LadderStandings| row(s, "alice").map(|r| r.upper - r.lower).unwrap();
    // (Eight times the results: about a third of the width, well clear of the bootstrap's noise.)
    let later = until(&url, Duration::from_secs(90), "eight times the results", |s| {
        row(s, "alice").is_some_and(|r| r.results >= 8 * row(&first, "alice").unwrap().results)
    });
    assert!(width(&later) < width(&first), "{} then {}", width(&first), width(&later));
    // Its rating over time is kept (points as the results grow).
    let history = agent_games(&url, "alice").unwrap().history;
    assert!(!history.is_empty() && history.windows(2).all(|w| w[0].games < w[1].games), "{history:?}");

    // Bob leaves: he is matched no more, and keeps his rating.
    stop(bob);
    std::thread::sleep(Duration::from_millis(500));
    let gone = agent_games(&url, "bob").unwrap().games.len();
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(agent_games(&url, "bob").unwrap().games.len(), gone, "nobody is matched after leaving");
    let away = standings(&url);
    let kept = row(&away, "bob").expect("bob keeps his place").clone();
    assert!(!kept.connected);
    // He comes back: his results go on from where they were.
    let bob = client(&url, "bob", "");
    until(&url, Duration::from_secs(30), "bob back", |s| {
        row(s, "bob").is_some_and(|r| r.connected && r.results > kept.results)
    });

    // A new version is rated apart.
    let alice2 = client(&url, "alice", "2");
    until(&url, Duration::from_secs(30), "alice@2 rated", |s| row(s, "alice@2").is_some_and(|r| r.results > 0));
    assert!(row(&standings(&url), "alice").is_some());

    // Everyone leaves; once the last games are in and rated, the standings stand still.
    for c in [alice, bob, alice2] {
        stop(c);
    }
    // (Stored games and rated results; a cooperative deal's first play alone rates nothing.)
    let stored = || {
        let store = Store::open(&data).unwrap();
        (store.games().unwrap(), store.rated().unwrap().len() as u64)
    };
    let settled = until(&url, Duration::from_secs(30), "the last games rated", |s| {
        s.in_play == 0 && (s.games, s.rated_games) == stored() && {
            std::thread::sleep(Duration::from_millis(400));
            let again = standings(&url);
            (again.games, again.rated_games) == (s.games, s.rated_games)
        }
    });
    stop(server); // SIGKILL: kill -9
    let (restarted, url) = ladder(&file, &data);
    let resumed = standings(&url);
    assert_eq!(resumed.games, settled.games, "no finished game lost");
    assert_eq!(ratings(&resumed), ratings(&settled), "the same standings after a kill -9");
    stop(restarted);
}

#[test]
fn a_kill_mid_games_loses_no_finished_game() {
    let file = scratch::scratch("ladder", "mid.yaml");
    std::fs::write(&file, LADDER).unwrap();
    let data = scratch::scratch("ladder", "mid-data");
    let (server, url) = ladder(&file, &data);
    let clients = [client(&url, "carol", ""), client(&url, "dave", "")];
    until(&url, Duration::from_secs(30), "games in play", |s| s.games >= 10 && s.in_play > 0);
    // Every game the ladder has told of is finished and stored before it was told.
    let told: Vec<u64> = agent_games(&url, "carol").unwrap().games.iter().map(|g| g.game_id).collect();
    stop(server);
    for c in clients {
        stop(c);
    }
    let store = Store::open(&data).unwrap();
    for id in &told {
        assert!(store.game(*id).unwrap().is_some(), "game {id} was told of and is stored");
    }
    // Every stored game replays, and a restart rates exactly them.
    let all = store.all_games().unwrap();
    for g in &all {
        g.record.replay(&arena::files::refuse_files, |_| {}).unwrap_or_else(|e| panic!("game {} replays: {e}", g.id));
    }
    let (restarted, url) = ladder(&file, &data);
    assert_eq!(standings(&url).games, all.len() as u64);
    stop(restarted);
    // `arena replay` replays a ladder's games, `arena report` reports them, as a tournament's.
    let replayed = Command::new(env!("CARGO_BIN_EXE_arena")).args(["replay", data.to_str().unwrap()]).output().unwrap();
    let text = String::from_utf8_lossy(&replayed.stdout);
    assert!(replayed.status.success(), "{}", String::from_utf8_lossy(&replayed.stderr));
    assert_eq!(text.lines().filter(|l| l.starts_with("game ")).count(), all.len(), "{text}");
    let report = data.join("report");
    let reported = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["report", data.to_str().unwrap(), "--out", report.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(reported.status.success(), "{}", String::from_utf8_lossy(&reported.stderr));
    let standings_md = std::fs::read_to_string(report.join("standings.md")).unwrap();
    assert!(standings_md.contains("carol") && standings_md.contains("expedition no-dice"), "{standings_md}");
}

#[test]
fn a_record_is_given_once_its_pairing_is_over_and_strangers_are_refused_cleanly() {
    let file = scratch::scratch("ladder", "records.yaml");
    std::fs::write(&file, LADDER).unwrap();
    let data = scratch::scratch("ladder", "records-data");
    let (server, url) = ladder(&file, &data);
    let erin = client(&url, "erin", "");
    // Fay plays expedition only: she is rated there and listed as not rated yet in journey.
    let fay = bot(&url, &["--name", "fay", "--games", "expedition"]);
    until(&url, Duration::from_secs(30), "erin and fay rated", |s| {
        row(s, "erin").is_some_and(|r| r.results >= 2) && row(s, "fay").is_some_and(|r| r.results >= 2)
    });
    let journey = standings(&url).lists.into_iter().find(|l| l.label.starts_with("journey")).expect("a journey list");
    assert!(journey.rows.iter().all(|r| r.agent != "fay"), "{journey:#?}");
    assert!(
        journey.unrated.iter().any(|u| u.agent == "fay" && u.connected && u.reason == "no rated game"),
        "{journey:#?}"
    );
    // Rated results may all be of pairings still in play (their records held back): wait for a
    // game whose pairing is over.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let games = loop {
        let games = agent_games(&url, "erin").unwrap();
        if !games.games.is_empty() {
            break games;
        }
        assert!(std::time::Instant::now() < deadline, "no game of erin's pairings over within 30 s");
        std::thread::sleep(Duration::from_millis(100));
    };
    let id = games.games.last().unwrap().game_id;
    let record = runtime().block_on(async {
        let mut c = v1::ladder_client::LadderClient::new(arena::client::connect(&url).await.unwrap());
        c.get_ladder_record(v1::LadderRecordRequest { game_id: id }).await.unwrap().into_inner()
    });
    assert!(record.players.iter().any(|p| p == "erin") && !record.actions.is_empty());
    // Each game names the server's match it was played as (its MatchEnded's match_id): the
    // server's record of that match is the ladder's record of the game.
    let listed = games.games.last().unwrap();
    assert!(!listed.match_id.is_empty(), "{listed:?}");
    let served = runtime().block_on(async {
        let mut m = arena::client::matches(arena::client::connect(&url).await.unwrap());
        m.get_record(v1::GetRecordRequest { match_id: listed.match_id.clone() }).await.unwrap().into_inner()
    });
    assert_eq!((served.seed, &served.actions, &served.players), (record.seed, &record.actions, &record.players));
    // The limit counts the games given, those of pairings in play left out first: limit 1
    // gives one game whenever there is one to give.
    for _ in 0..20 {
        let one = runtime().block_on(async {
            let mut c = v1::ladder_client::LadderClient::new(arena::client::connect(&url).await.unwrap());
            c.agent_games(v1::AgentGamesRequest { agent: "erin".into(), limit: 1 }).await.unwrap().into_inner()
        });
        assert_eq!(one.games.len(), 1, "{one:?}");
    }
    let e = agent_games(&url, "nobody").unwrap_err();
    assert_eq!(e.code(), tonic::Code::NotFound);
    assert!(e.message().contains("`nobody`"), "{}", e.message());
    // An anchor's name is the ladder's.
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["bot", "random", "--server", &url, "--name", "greedy"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("reserved"), "{}", String::from_utf8_lossy(&out.stderr));
    // Standings as they change: the first now, then one per refit.
    let refits = runtime().block_on(async {
        let mut c = v1::ladder_client::LadderClient::new(arena::client::connect(&url).await.unwrap());
        let mut stream = c.watch_standings(v1::StandingsRequest::default()).await.unwrap().into_inner();
        let first = stream.message().await.unwrap().unwrap();
        let next = tokio::time::timeout(Duration::from_secs(30), stream.message()).await.unwrap().unwrap().unwrap();
        (first.rated_games, next.rated_games)
    });
    assert!(refits.1 > refits.0, "a refit with more results: {refits:?}");
    // The CLI prints the standings.
    let printed = Command::new(env!("CARGO_BIN_EXE_arena")).args(["ladder", "standings", &url]).output().unwrap();
    let text = String::from_utf8_lossy(&printed.stdout);
    assert!(
        printed.status.success()
            && text.contains("erin (connected)")
            && text.contains("random (anchor)")
            && text.lines().any(|l| l.contains("fay (connected)") && l.contains("not rated yet: no rated game")),
        "{text}"
    );
    // A page of one row: the first rank of each list, and how many there are.
    let paged = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["ladder", "standings", &url, "--rows", "1", "--from", "2"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&paged.stdout);
    let overall = standings(&url).lists[0].total;
    assert!(paged.status.success() && text.contains(&format!("ranks 2 to 2 of {overall}")), "{text}");
    assert!(
        text.lines().any(|l| l.trim_start().starts_with("2  "))
            && !text.lines().any(|l| l.trim_start().starts_with("1  ")),
        "{text}"
    );
    stop(fay);
    stop(erin);
    stop(server);
}

#[test]
fn a_keyed_ladder_lets_in_only_its_names_and_their_versions() {
    let file = scratch::scratch("ladder", "keyed.yaml");
    std::fs::write(&file, format!("{LADDER}admission: keyed\nkeys: keys.txt\n")).unwrap();
    std::fs::write(file.with_file_name("keys.txt"), "frank=0123456789abcdef0123\n").unwrap();
    let data = scratch::scratch("ladder", "keyed-data");
    let (server, url) = ladder(&file, &data);
    let refused = |name: &str, key: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_arena"))
            .args(["bot", "random", "--server", &url, "--name", name, "--key", key])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{name} with key {key:?} is let in");
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    assert!(refused("stranger", "").contains("only the names the operator gave a key"));
    assert!(refused("frank", "wrong-key-wrong-key").contains("reserved"));
    let keyed =
        |version: &str| bot(&url, &["--name", "frank", "--key", "0123456789abcdef0123", "--agent-version", version]);
    let (frank, frank2) = (keyed(""), keyed("2"));
    until(&url, Duration::from_secs(30), "frank and frank@2 rated", |s| {
        row(s, "frank").is_some_and(|r| r.results > 0) && row(s, "frank@2").is_some_and(|r| r.results > 0)
    });
    // A name longer than any name is refused before it is looked up.
    let e = agent_games(&url, &"x".repeat(200)).unwrap_err();
    assert_eq!(e.code(), tonic::Code::InvalidArgument, "{}", e.message());
    for c in [frank, frank2, server] {
        stop(c);
    }
}

/// A Play stream from `source` that said `hello`: its sender (drop it to close) and the
/// stream, past the server's first answer (its Welcome), or the refusal.
async fn hello_from(
    url: &str,
    source: [u8; 4],
    hello: v1::Hello,
) -> Result<(tokio::sync::mpsc::Sender<v1::BotMessage>, tonic::Streaming<v1::ServerMessage>), tonic::Status> {
    welcomed(url, source, hello).await.map(|(tx, stream, _)| (tx, stream))
}

type Welcomed = (tokio::sync::mpsc::Sender<v1::BotMessage>, tonic::Streaming<v1::ServerMessage>, v1::Welcome);

/// [`hello_from`], with the Welcome.
async fn welcomed(url: &str, source: [u8; 4], hello: v1::Hello) -> Result<Welcomed, tonic::Status> {
    let channel = arena::client::connect_from(url, source.into()).await.unwrap();
    let mut client = v1::play_client::PlayClient::new(channel);
    let (tx, rx) = tokio::sync::mpsc::channel(16);
    tx.send(v1::BotMessage { message: Some(v1::bot_message::Message::Hello(hello)) }).await.unwrap();
    let mut stream = client.play(tokio_stream::wrappers::ReceiverStream::new(rx)).await?.into_inner();
    match stream.message().await? {
        Some(v1::ServerMessage { message: Some(v1::server_message::Message::Welcome(w)) }) => Ok((tx, stream, w)),
        other => panic!("a Play stream's first answer is its Welcome: {other:?}"),
    }
}

#[test]
fn a_new_agent_is_listed_at_its_hello_and_its_welcome_tells_the_ladders_games_which_presets_choose() {
    // No anchor, and two seats to each game: one client alone plays nothing, so nothing is
    // rated and no refit comes to list it.
    let file = scratch::scratch("ladder", "welcome.yaml");
    std::fs::write(
        &file,
        "name: quiet\ngames:\n  - { game: expedition, preset: no-dice, params: { players: 2 } }\n  - { game: journey, \
         preset: classic, params: { travellers: 2 } }\nmove_time_ms: 4000\nrefit_ms: 200\nprovisional_games: 0\n",
    )
    .unwrap();
    let data = scratch::scratch("ladder", "welcome-data");
    let (server, url) = ladder(&file, &data);
    let rt = runtime();
    let hello = |games: &[&str]| v1::Hello {
        name: "june".into(),
        games: games.iter().map(|g| g.to_string()).collect(),
        ..Default::default()
    };
    // A preset the game does not have is refused, naming the presets it has.
    let e = rt.block_on(refused(&url, [127, 0, 0, 21], hello(&["expedition:fast"])));
    assert_eq!(e.code(), tonic::Code::InvalidArgument, "{}", e.message());
    assert!(e.message().contains("no preset `fast`") && e.message().contains("no-dice"), "{}", e.message());
    // June plays journey's classic preset alone.
    let (_tx, _stream, welcome) = rt.block_on(welcomed(&url, [127, 0, 0, 21], hello(&["journey:classic"]))).unwrap();
    assert!(!welcome.session.is_empty());
    assert_eq!(
        (welcome.ladder.as_str(), welcome.games.clone(), welcome.move_time_ms),
        ("quiet", vec!["expedition:no-dice".to_string(), "journey:classic".to_string()], 4000)
    );
    let unrated = |l: &v1::RatingTable| l.unrated.iter().any(|u| u.agent == "june" && u.connected);
    let s = until(&url, Duration::from_secs(10), "june listed as not rated yet", |s| unrated(&s.lists[0]));
    let list = |label: &str| s.lists.iter().find(|l| l.label.starts_with(label)).unwrap();
    assert!(unrated(list("journey")), "{s:#?}");
    assert!(!unrated(list("expedition")), "june plays no expedition: {s:#?}");
    assert_eq!(s.rated_games, 0, "listed before any refit: {s:#?}");
    stop(server);
}

/// The refusal of a Hello that must be refused.
async fn refused(url: &str, source: [u8; 4], hello: v1::Hello) -> tonic::Status {
    match hello_from(url, source, hello).await {
        Ok(_) => panic!("the Hello was let in"),
        Err(e) => e,
    }
}

fn named(name: &str, version: &str) -> v1::Hello {
    v1::Hello { name: name.into(), version: version.into(), ..Default::default() }
}

/// Is `agent` listed as connected in the overall list (ranked, provisional or not rated yet)?
fn connected(s: &v1::LadderStandings, agent: &str) -> bool {
    let l = &s.lists[0];
    l.rows.iter().chain(&l.provisional).any(|r| r.agent == agent && r.connected)
        || l.unrated.iter().any(|u| u.agent == agent && u.connected)
}

/// The ladder's stored agents' names.
fn stored_agents(data: &Path) -> Vec<String> {
    Store::open(data).unwrap().agents().unwrap().into_iter().map(|(n, _)| n).collect()
}

#[test]
fn a_flood_of_names_from_one_client_is_refused_past_its_rate_and_cap_and_no_flood_name_ranks() {
    let file = scratch::scratch("ladder", "flood.yaml");
    // (So many results needed that the flood names stay provisional all through the test.)
    let slow = LADDER.replace("provisional_games: 2", "provisional_games: 1000");
    std::fs::write(&file, format!("{slow}new_agents_per_hour: 4\nagents_per_client: 6\n")).unwrap();
    let data = scratch::scratch("ladder", "flood-data");
    let (server, url) = ladder(&file, &data);
    let (flooder, visitor) = ([127, 0, 0, 2], [127, 0, 0, 3]);
    runtime().block_on(async {
        // One client adds four names, holding each a moment; the fifth is refused, a version
        // likewise (a new agent), and the refusal says whose rate and what it is.
        for i in 0..4 {
            let held = hello_from(&url, flooder, named(&format!("flood{i}"), "")).await.unwrap();
            tokio::time::sleep(Duration::from_millis(300)).await;
            drop(held);
        }
        for (name, version) in [("flood4", ""), ("flood0", "2")] {
            let e = refused(&url, flooder, named(name, version)).await;
            assert_eq!(e.code(), tonic::Code::ResourceExhausted, "{e:?}");
            assert!(
                e.message().contains("the clients of 127.0.0.2 added 4 new agents")
                    && e.message().contains("new_agents_per_hour: 4"),
                "{}",
                e.message()
            );
        }
        // A name it has is still its own; another client is served, but not under its names.
        drop(hello_from(&url, flooder, named("flood0", "")).await.unwrap());
        drop(hello_from(&url, visitor, named("visitor", "")).await.unwrap());
        let e = refused(&url, visitor, named("FLOOD1", "")).await;
        assert_eq!(e.code(), tonic::Code::PermissionDenied, "{e:?}");
        assert!(e.message().contains("another client's agent"), "{}", e.message());
        // The grammar: no `@` inside a name, no markup, versions of `A-Z a-z 0-9 . _ -`.
        for (name, version, says) in [
            ("flood0@1", "", "separates a name from its version"),
            ("c<!--<script>", "", "`<` is not allowed"),
            ("flood0", "x!", "not allowed in a version"),
        ] {
            let e = refused(&url, flooder, named(name, version)).await;
            assert_eq!(e.code(), tonic::Code::InvalidArgument, "{e:?}");
            assert!(e.message().contains(says), "{}", e.message());
        }
    });
    // The store holds the anchors, the four and the visitor: nothing else.
    assert_eq!(stored_agents(&data).len(), 2 + 4 + 1, "{:?}", stored_agents(&data));

    // Two of the flood names play: they never meet, and each is listed apart, rated but
    // unranked, until it has its results against established agents (the anchors).
    let players = [
        bot(&url, &["--name", "flood0", "--source", "127.0.0.2"]),
        bot(&url, &["--name", "flood1", "--source", "127.0.0.2"]),
    ];
    let s = until(&url, Duration::from_secs(30), "both provisional", |s| {
        ["flood0", "flood1"].iter().all(|a| s.lists[0].provisional.iter().any(|r| r.agent == *a && r.results >= 4))
    });
    // (The names held a moment may have played a game too, lost by leaving: listed apart alike.)
    for r in s.lists[0].provisional.iter().filter(|r| r.agent == "flood0" || r.agent == "flood1") {
        assert!(r.rank == 0 && r.qualifying >= 4 && r.upper > r.lower, "{r:?}");
    }
    assert_eq!(s.provisional_games, 1000);
    assert!(s.lists.iter().all(|l| l.rows.iter().all(|r| !r.agent.starts_with("flood"))), "none ranked: {s:#?}");
    assert_eq!(s.lists[0].total as usize, s.lists[0].rows.len());
    drop(players);
    let store = Store::open(&data).unwrap();
    for g in store.all_games().unwrap() {
        let flood = g.record.players.iter().filter(|p| p.starts_with("flood")).count();
        assert!(
            flood <= 1
                || g.record.players.iter().all(|p| p == "flood0")
                || g.record.players.iter().all(|p| p == "flood1"),
            "one client's agents met in game {}: {:?}",
            g.id,
            g.record.players
        );
    }
    stop(server);

    // Restarted with a larger rate and a cap of 5: the client has 4 (kept across the restart),
    // adds a fifth, and is refused a sixth by the cap.
    std::fs::write(&file, format!("{LADDER}new_agents_per_hour: 100\nagents_per_client: 5\n")).unwrap();
    let (server, url) = ladder(&file, &data);
    runtime().block_on(async {
        drop(hello_from(&url, flooder, named("flood4", "")).await.unwrap());
        let e = refused(&url, flooder, named("flood5", "")).await;
        assert_eq!(e.code(), tonic::Code::ResourceExhausted, "{e:?}");
        assert!(e.message().contains("has 5 agents on this ladder, its cap (agents_per_client: 5)"), "{}", e.message());
    });
    stop(server);
}

#[test]
fn a_ladders_clients_are_seated_by_others_only_when_they_accept_challenges() {
    let file = scratch::scratch("ladder", "challenges.yaml");
    std::fs::write(&file, LADDER).unwrap();
    let data = scratch::scratch("ladder", "challenges-data");
    let (server, url, web) = ladder_with_face(&file, &data);
    let _closed = bot(&url, &["--name", "h1"]);
    let _open = bot(&url, &["--name", "h2", "--accept-challenges"]);
    until(&url, Duration::from_secs(30), "both connected", |s| connected(s, "h1") && connected(s, "h2"));
    let create = |name: &str| {
        runtime().block_on(async {
            let mut c = arena::client::matches(arena::client::connect(&url).await.unwrap());
            c.create_match(v1::CreateMatchRequest {
                game: "expedition".into(),
                preset: "no-dice".into(),
                params: [("players".to_string(), "2".to_string())].into(),
                seats: vec![
                    v1::SeatSpec { player: Some(v1::seat_spec::Player::Play(name.into())) },
                    v1::SeatSpec { player: Some(v1::seat_spec::Player::Token(true)) },
                ],
                ..Default::default()
            })
            .await
        })
    };
    let e = create("h1").unwrap_err();
    assert_eq!(e.code(), tonic::Code::FailedPrecondition, "{e:?}");
    assert!(e.message().contains("plays this ladder's pairings only"), "{}", e.message());
    create("h2").unwrap();
    // The web face's new match is the same call, refused the same way.
    let (status, body) = http(
        &web,
        "POST",
        "/api/matches",
        r#"{"game":"expedition","preset":"no-dice","seats":[{"play":"h1"},"person"]}"#,
    );
    assert_eq!(status, 409, "{body}");
    assert!(body.contains("plays this ladder's pairings only"), "{body}");
    stop(server);
}

/// SIGTERM to a ladder, and its clean exit awaited (a minute at most: it promises its grace
/// and 5 s; nothing is timed here).
fn terminate(server: &mut Process) {
    signal(server, "-TERM");
    let asked = Instant::now();
    loop {
        if let Some(status) = server.try_wait().unwrap() {
            assert!(status.success(), "{status:?}");
            return;
        }
        assert!(asked.elapsed() < Duration::from_secs(60), "the ladder did not stop");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Stop (SIGSTOP) or go on (SIGCONT) with a process, as a hung agent would.
fn signal(process: &Process, which: &str) {
    let done = Command::new("kill").args([which, &process.id().to_string()]).status().unwrap();
    assert!(done.success());
}

#[test]
fn a_hung_agent_is_rested_and_told_why_and_its_restarted_copy_gets_its_name_at_once() {
    let file = scratch::scratch("ladder", "hung.yaml");
    let fast = LADDER.replace("move_time_ms: 5000", "move_time_ms: 300");
    std::fs::write(&file, format!("{fast}rest_after_timeouts: 2\n")).unwrap();
    let data = scratch::scratch("ladder", "hung-data");
    let (server, url) = ladder(&file, &data);
    let hung = bot(&url, &["--name", "hung"]);
    until(&url, Duration::from_secs(30), "hung playing", |s| {
        s.lists[0].rows.iter().chain(&s.lists[0].provisional).any(|r| r.agent == "hung" && r.results >= 2)
    });
    // Stopped, it times out its games, two in a row: the ladder rests it.
    signal(&hung, "-STOP");
    let s = until(&url, Duration::from_secs(30), "hung rested", |s| {
        s.lists[0].rows.iter().chain(&s.lists[0].provisional).any(|r| r.agent == "hung" && !r.rested.is_empty())
    });
    let rested = s.lists[0].rows.iter().chain(&s.lists[0].provisional).find(|r| r.agent == "hung").unwrap();
    assert!(rested.rested.contains("2 games in a row timed out: not matched for 30 s"), "{}", rested.rested);
    let stored = Store::open(&data).unwrap().games().unwrap();
    // (A pairing that started before the rest plays on until the rest is noticed: its games
    // end with a verdict against the stopped agent. A pairing after the rest would be played
    // cleanly by the healthy copy below.)
    // Its restarted copy (the same client) takes its name over from the stopped one at once,
    // hears why it waits, and is not matched while the rest lasts.
    let copy = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["bot", "random", "--server", &url, "--name", "hung"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut copy = Process(copy);
    let mut err = std::io::BufReader::new(copy.stderr.take().unwrap());
    let mut line = String::new();
    while !line.contains("rests `hung`") {
        line.clear();
        assert!(std::io::BufRead::read_line(&mut err, &mut line).unwrap() > 0, "the copy heard nothing");
    }
    assert!(line.contains("2 games in a row timed out"), "{line}");
    assert!(connected(&standings(&url), "hung"));
    std::thread::sleep(Duration::from_secs(2));
    for g in agent_games(&url, "hung").unwrap().games.iter().filter(|g| g.game_id > stored) {
        let seats: Vec<u32> =
            g.players.iter().enumerate().filter(|(_, p)| *p == "hung").map(|(s, _)| s as u32).collect();
        let verdicts = &g.outcome.as_ref().unwrap().verdicts;
        assert!(
            verdicts.iter().any(|v| seats.contains(&v.seat) && (v.kind == "timeout" || v.kind == "disconnected")),
            "a rested agent is matched: game {} played cleanly: {g:?}",
            g.game_id
        );
    }
    drop(copy);
    drop(hung);
    stop(server);
}

#[test]
fn a_stopped_clients_name_is_free_again_once_keepalive_finds_it_gone() {
    // A plain server, where a name is anyone's once its stream is gone.
    let (server, url, _out) = served::serve(&[]);
    let sleeper = bot(&url, &["--name", "sleeper", "--source", "127.0.0.2"]);
    runtime().block_on(async {
        // Connected: another client is refused the name.
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            match hello_from(&url, [127, 0, 0, 3], named("sleeper", "")).await {
                Err(e) if e.code() == tonic::Code::AlreadyExists => break,
                Err(e) => panic!("{e:?}"),
                Ok(_) => assert!(Instant::now() < deadline, "the sleeper never connected"),
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        // Stopped, it answers no ping: its connection is closed and the name is free (the
        // keepalive's 2 s + 3 s; the test waits longer, nothing timed).
        signal(&sleeper, "-STOP");
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            match hello_from(&url, [127, 0, 0, 3], named("sleeper", "")).await {
                Ok(_) => break,
                Err(e) => {
                    assert_eq!(e.code(), tonic::Code::AlreadyExists, "{e:?}");
                    assert!(Instant::now() < deadline, "the name is still held: {}", e.message());
                }
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    });
    drop(sleeper);
    stop(server);
}

#[test]
fn a_restart_over_a_large_store_serves_its_last_refit_at_once_and_a_stop_in_a_refit_is_prompt() {
    // 5,000 agents and 100,000 rated results (made up: results, not games), a light bootstrap.
    // (No anchor: nothing is played while the test looks; every agent ranked at once.)
    let text = "name: large\ngames:\n  - { game: expedition, preset: no-dice, params: { players: 2 } }\nrefit_ms: 200\nbootstrap: 20\nprovisional_games: 0\n";
    let file = scratch::scratch("ladder", "large.yaml");
    std::fs::write(&file, text).unwrap();
    let data = scratch::scratch("ladder", "large-data");
    let config = arena::ladder::config::LadderConfig::parse("large.yaml", text).unwrap();
    arena::ladder::synthetic::fill(&config, text, &data, 5000, 100_000, 1).unwrap();
    // The first start has no refit kept: it listens at once, with nobody rated yet, and
    // refits in the background.
    let (server, url) = ladder(&file, &data);
    let first = standings(&url);
    assert_eq!((first.games, first.rated_games), (100_000, 0), "served before any refit");
    let fitted = until(&url, Duration::from_secs(120), "the refit", |s| s.rated_games == 100_000);
    assert!(fitted.lists[0].total > 4000, "{}", fitted.lists[0].total);
    stop(server); // kill -9, the refit kept
    // More results came meanwhile (stored, not refit): the restart serves the kept refit on
    // its first answer, and refits the rest in the background.
    arena::ladder::synthetic::fill(&config, text, &data, 5000, 1000, 2).unwrap();
    let (mut server, url) = ladder(&file, &data);
    let resumed = standings(&url);
    assert_eq!((resumed.games, resumed.rated_games), (101_000, 100_000));
    assert_eq!(ratings(&resumed), ratings(&fitted), "the kept refit, as it was served");
    // SIGTERM while that refit runs: the process stops in time (its grace, 10 s, has no
    // game to wait for; the refit gives up).
    terminate(&mut server);
}

#[test]
fn a_stop_lets_games_end_aborts_those_that_do_not_and_rates_no_live_client_disconnected() {
    let file = scratch::scratch("ladder", "drain.yaml");
    // A game waits a minute for a move: the silent client's outlasts the grace.
    let slow = LADDER.replace("move_time_ms: 5000", "move_time_ms: 60000");
    std::fs::write(&file, &slow).unwrap();
    let data = scratch::scratch("ladder", "drain-data");
    let args = ["ladder", file.to_str().unwrap(), "--data", data.to_str().unwrap(), "--grace", "2"];
    let (mut server, url, mut out) = served::serving(&args, "serving on ");
    let live = bot(&url, &["--name", "live", "--source", "127.0.0.2"]);
    // (A runtime with a thread of its own: the silent client's connection answers the server's
    // keepalive pings while the test waits, as a live process's would.)
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    // The silent client says Hello and never answers: it holds a seat of a game in play.
    let (_silent, mut stream) = rt.block_on(hello_from(&url, [127, 0, 0, 3], named("silent", ""))).unwrap();
    rt.block_on(async {
        loop {
            match stream.message().await.unwrap() {
                Some(v1::ServerMessage { message: Some(v1::server_message::Message::Request(_)) }) => break,
                Some(_) => continue,
                None => panic!("the stream ended"),
            }
        }
    });
    until(&url, Duration::from_secs(30), "live playing", |s| {
        s.lists[0].rows.iter().chain(&s.lists[0].provisional).any(|r| r.agent == "live" && r.results >= 4)
    });
    terminate(&mut server);
    let mut said = String::new();
    std::io::Read::read_to_string(&mut out, &mut said).unwrap();
    assert!(said.contains("stopped"), "{said}");
    drop(live);
    let store = Store::open(&data).unwrap();
    let games = store.all_games().unwrap();
    // The silent client's game was aborted: stored, nobody at fault, and rated for nobody.
    let silent = store.agents().unwrap().iter().position(|(n, _)| n == "silent").unwrap();
    let aborted: Vec<_> = games.iter().filter(|g| g.record.outcome.aborted).collect();
    assert!(
        aborted.iter().any(|g| g.record.players.iter().any(|p| p == "silent")),
        "the silent client's game is stored as aborted: {:?}",
        games.iter().map(|g| (&g.record.players, &g.record.outcome)).collect::<Vec<_>>()
    );
    assert!(aborted.iter().all(|g| g.record.outcome.cancelled && g.record.verdicts.is_empty()));
    assert!(
        store.rated().unwrap().iter().flat_map(|r| &r.results).all(|p| p.a != silent && p.b != silent),
        "an aborted game rates nobody"
    );
    // The live client played to the end: no game of its ended with it disconnected.
    for g in &games {
        for (seat, p) in g.record.players.iter().enumerate() {
            if p == "live" {
                assert!(
                    !g.record.verdicts.iter().any(|v| v.seat == seat && v.kind == arena::referee::Fault::Disconnected),
                    "game {}: live disconnected",
                    g.id
                );
            }
        }
    }
}

/// Two anchors named otherwise than their bots, that keep meeting.
const NAMED_ANCHORS: &str = "name: named\ngames:\n  - { game: expedition, preset: no-dice, params: { players: 2 } }\nanchors:\n  - { name: steady, bot: \"mcts:iterations=30\" }\n  - { name: coin, bot: random }\nrefit_ms: 200\nanchor_interval: 1\nbootstrap: 20\n";

/// An anchor has one name everywhere: the standings', in AgentGames, the ladder's record, the
/// server's record of the match (Matches.GetRecord) and the web face's match lists; never its
/// bot spec.
#[test]
fn an_anchor_is_named_as_the_standings_name_it_in_games_records_and_match_lists() {
    let file = scratch::scratch("ladder", "named-anchors.yaml");
    std::fs::write(&file, NAMED_ANCHORS).unwrap();
    let data = scratch::scratch("ladder", "named-anchors-data");
    let (server, url, web) = ladder_with_face(&file, &data);
    let s = until(&url, Duration::from_secs(60), "steady and coin rated", |s| {
        row(s, "steady").is_some() && row(s, "coin").is_some()
    });
    let ranked: Vec<&str> = s.lists[0].rows.iter().map(|r| r.agent.as_str()).collect();
    assert!(ranked.contains(&"steady") && ranked.contains(&"coin"), "{ranked:?}");
    let deadline = Instant::now() + Duration::from_secs(60);
    let game = loop {
        if let Some(g) = agent_games(&url, "steady").unwrap().games.into_iter().next() {
            break g;
        }
        assert!(Instant::now() < deadline, "no game of steady's over within 60 s");
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut names = game.players.clone();
    names.sort();
    assert_eq!(names, ["coin", "steady"], "{game:?}");
    let (stored, served) = runtime().block_on(async {
        let channel = arena::client::connect(&url).await.unwrap();
        let mut l = v1::ladder_client::LadderClient::new(channel.clone());
        let stored = l.get_ladder_record(v1::LadderRecordRequest { game_id: game.game_id }).await.unwrap().into_inner();
        let mut m = arena::client::matches(channel);
        let served = m.get_record(v1::GetRecordRequest { match_id: game.match_id.clone() }).await.unwrap().into_inner();
        (stored, served)
    });
    assert_eq!(stored.players, game.players);
    assert_eq!(served.players, game.players, "the server's record names the anchors as the ladder does");
    // The web face's lists of matches in play and finished.
    let (status, body) = http(&web, "GET", "/api/matches", "");
    assert_eq!(status, 200, "{body}");
    let listed: serde_json::Value = serde_json::from_str(&body).unwrap();
    let players: Vec<String> = ["matches", "finished"]
        .iter()
        .flat_map(|k| listed[k].as_array().cloned().unwrap_or_default())
        .flat_map(|m| m["players"].as_array().cloned().unwrap_or_default())
        .map(|p| p.as_str().unwrap().to_string())
        .collect();
    assert!(!players.is_empty(), "{body}");
    assert!(players.iter().all(|p| p == "steady" || p == "coin"), "{body}");
    stop(server);
}

/// The first event of the web face's event stream at `path` (`addr`: `host:port`), its `data:`
/// as JSON.
fn first_event(addr: &str, path: &str) -> serde_json::Value {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    // Not a timing: a face that never answers fails the test instead of hanging it.
    stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let mut raw = Vec::new();
    let mut buf = [0u8; 16384];
    loop {
        let text = String::from_utf8_lossy(&raw);
        if let Some((_, body)) = text.split_once("\r\n\r\n")
            && let Some((_, data)) = body.split_once("data: ")
            && let Some((line, _)) = data.split_once('\n')
        {
            assert!(text.starts_with("HTTP/1.1 200"), "{text}");
            return serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        }
        let n = stream.read(&mut buf).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert!(n > 0, "the stream ended before its first event: {text}");
        raw.extend_from_slice(&buf[..n]);
    }
}

/// The web face's standings list a new agent as not rated yet from its Hello on, before any
/// game or refit, as Ladder.Standings does.
#[test]
fn the_web_faces_standings_list_a_new_agent_at_its_hello() {
    // No anchor, and two seats to the game: one client alone plays nothing.
    let file = scratch::scratch("ladder", "web-new-agent.yaml");
    std::fs::write(
        &file,
        "name: quiet\ngames:\n  - { game: expedition, preset: no-dice, params: { players: 2 } }\nrefit_ms: 200\n\
         provisional_games: 0\n",
    )
    .unwrap();
    let data = scratch::scratch("ladder", "web-new-agent-data");
    let (server, url, web) = ladder_with_face(&file, &data);
    let rt = runtime();
    let before = first_event(&web, "/api/standings");
    assert!(!before.to_string().contains("\"july\""), "{before}");
    let (_tx, _stream) = rt.block_on(hello_from(&url, [127, 0, 0, 22], named("july", ""))).unwrap();
    let listed = |s: &serde_json::Value| {
        s["lists"][0]["unrated"].as_array().unwrap().iter().any(|u| u["agent"] == "july" && u["connected"] == true)
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    let s = loop {
        let s = first_event(&web, "/api/standings");
        if listed(&s) {
            break s;
        }
        assert!(Instant::now() < deadline, "july not listed as not rated yet: {s}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(s["rated_games"], 0, "listed before any game or refit: {s}");
    stop(server);
}

/// A person challenges an anchor on the ladder's face, to a game and to a cooperative deal:
/// each is stored and rated, the name marked as a person's in the standings (kept across a
/// restart); no program may say Hello with a person's name; a challenge names what is wrong
/// with it.
#[test]
fn a_persons_challenge_is_rated_under_a_name_no_program_may_take() {
    let scratch = scratch::scratch("ladder", "people");
    let dir: &Path = &scratch;
    std::fs::create_dir_all(dir).unwrap();
    let file = dir.join("ladder.yaml");
    // A three-seat competitive entry besides: no challenge there.
    let three = "  - { game: expedition, preset: no-dice, params: { players: 3 } }\nanchors:";
    std::fs::write(&file, LADDER.replace("anchors:", three)).unwrap();
    let data = dir.join("data");
    let (ladder, url, web) = ladder_with_face(&file, &data);
    let challenge = |body: &str| http(&web, "POST", "/api/challenge", body);
    // What is wrong, by name: an unknown agent, a three-seat game, an anchor's name.
    let (status, said) = challenge(r#"{"agent":"nobody","entry":0,"name":"ada"}"#);
    assert!(status == 404 && said.contains("no agent `nobody`"), "{status} {said}");
    let (status, said) = challenge(r#"{"agent":"greedy","entry":2,"name":"ada"}"#);
    assert!(status == 400 && said.contains("a competitive game of 3 seats"), "{status} {said}");
    let (status, said) = challenge(r#"{"agent":"greedy","entry":0,"name":"random"}"#);
    assert!(status == 403 && said.contains("an agent's name"), "{status} {said}");
    let (status, said) = challenge(r#"{"agent":"greedy","entry":0,"name":"ada","extra":1}"#);
    assert!(status == 422 || status == 400, "{status} {said}");
    // A challenge: the person resigns at once (the game ends, a loss for the person).
    let (status, made) = challenge(r#"{"agent":"greedy","entry":0,"name":"ada"}"#);
    assert_eq!(status, 200, "{made}");
    let resign = |made: &str| {
        let made: serde_json::Value = serde_json::from_str(made).unwrap();
        let id = made["match_id"].as_str().unwrap();
        let token = made["seats"][0]["token"].as_str().unwrap();
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(&web).unwrap();
        write!(
            stream,
            "POST /api/matches/{id}/resign HTTP/1.1\r\nHost: {web}\r\nAuthorization: Bearer {token}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    };
    resign(&made);
    // A cooperative deal (one traveller): the person's play, resigned at once, and greedy's of
    // the same deal, compared: the person's second result, in the journey's list.
    let (status, made) = challenge(r#"{"agent":"greedy","entry":1,"name":"ada"}"#);
    assert_eq!(status, 200, "{made}");
    // Its moves held back while it is played: they would tell greedy's play the deal.
    let id = serde_json::from_str::<serde_json::Value>(&made).unwrap()["match_id"].as_str().unwrap().to_string();
    let (status, shown) = http(&web, "GET", &format!("/api/matches/{id}"), "");
    assert!(status == 200 && shown.contains("\"held\":true"), "{status} {shown}");
    resign(&made);
    let rated = |url: &str| {
        until(url, Duration::from_secs(30), "the person rated", |s| {
            // (Provisional: results against an established agent, of the two it needs.)
            let has = |list: &v1::RatingTable, results| {
                list.rows.iter().chain(&list.provisional).any(|r| r.agent == "ada" && r.person && r.results == results)
            };
            let journey = s.lists.iter().find(|l| l.label.contains("journey"));
            has(&s.lists[0], 2) && journey.is_some_and(|l| has(l, 1))
        })
    };
    rated(&url);
    // No program may say Hello with a person's name.
    let e = runtime().block_on(refused(&url, [127, 0, 0, 1], named("ada", "")));
    assert!(e.message().contains("a person's name"), "{e:?}");
    // Kept across a restart.
    stop(ladder);
    let (again, url) = served::ladder(&file, &data);
    rated(&url);
    stop(again);
    // A client's challenges in play count against its share of the matches in play: one
    // stranger cannot fill the pool the ladder's own pairings take their places from.
    let (_small, _, web) = served::ladder_with_face_and(&file, &data, &["--matches-per-client", "2"]);
    for _ in 0..2 {
        let (status, said) = http(&web, "POST", "/api/challenge", r#"{"agent":"greedy","entry":0,"name":"ada"}"#);
        assert_eq!(status, 200, "{said}");
    }
    let (status, said) = http(&web, "POST", "/api/challenge", r#"{"agent":"greedy","entry":0,"name":"ada"}"#);
    assert!(status == 429 && said.contains("a client's share"), "{status} {said}");
}
