//! `arena ladder` as a real process, with real clients (`arena bot` processes) over real
//! sockets: clients are matched within seconds and rated with intervals that narrow; a client
//! that leaves is not matched and keeps its rating when it returns; a new version is rated
//! apart; a kill -9 loses no finished game and the ladder resumes the same standings.

use arena::ladder::store::Store;
use proto::v1;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::scratch;
use crate::served::{self, Process};

const LADDER: &str = "name: test\ngames:\n  - { game: expedition, preset: no-dice, params: { players: 2 } }\n  - { game: journey, preset: classic, params: { travellers: 1 } }\nanchors:\n  - { name: random, bot: random }\n  - { name: greedy, bot: greedy }\nmove_time_ms: 5000\nanchor_interval: 100000\nrefit_ms: 200\nbootstrap: 100\nmax_games: 2\n";

/// The ladder started on a free port: the process and its URL.
fn ladder(file: &Path, data: &Path) -> (Process, String) {
    let args = ["ladder", file.to_str().unwrap(), "--data", data.to_str().unwrap()];
    let (child, url, mut out) = served::serving(&args, "serving on ");
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    (child, url)
}

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
        c.standings(v1::StandingsRequest {}).await.unwrap().into_inner()
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
        let mut stream = c.watch_standings(v1::StandingsRequest {}).await.unwrap().into_inner();
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
