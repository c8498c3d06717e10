//! A ladder's games played by workers (`workers:`, `arena worker`), as real processes over
//! 127.0.0.1: leased, played, shown, reported and stored once; every refusal named (a worker
//! with an agent's key, an agent with a worker's, a record that does not replay or was not
//! leased); a cooperative deal's plays hidden until the last is in; and, the chaos test, kill -9
//! of any worker or of the ladder at random moments loses no finished game and stores none
//! twice.

use arena::ladder::store::Store;
use arena::record::MatchRecord;
use arena::referee::MatchOutcome;
use engine::core::ParamSource;
use proto::v1;
use std::collections::{HashMap, HashSet};
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::scratch;
use crate::served::{self, Process, ladder};

const W1: &str = "w1-key-0123456789abcdef";
const W2: &str = "w2-key-0123456789abcdef";
const W3: &str = "w3-key-0123456789abcdef";
const ALICE: &str = "alice-key-0123456789abcdef";

/// A ladder file with workers (and alice's key), written in `dir`.
fn ladder_file(dir: &Path, games: &str, extra: &str) -> PathBuf {
    std::fs::write(dir.join("workers.txt"), format!("w1={W1}\nw2={W2}\nw3={W3}\n")).unwrap();
    std::fs::write(dir.join("keys.txt"), format!("alice={ALICE}\n")).unwrap();
    let file = dir.join("ladder.yaml");
    std::fs::write(
        &file,
        format!(
            "name: workers\ngames:\n{games}anchors:\n  - {{ name: random, bot: random }}\n  - {{ name: rules, bot: rules }}\n  \
             - {{ name: greedy, bot: greedy }}\nmove_time_ms: 5000\nanchor_interval: 0\nprovisional_games: 0\n\
             refit_ms: 200\nbootstrap: 20\nkeys: keys.txt\nworkers: {{ keys: workers.txt, lease_ms: 2000 }}\n{extra}"
        ),
    )
    .unwrap();
    file
}

const NO_DICE: &str = "  - { game: expedition, preset: no-dice, params: { players: 2 } }\n";

/// The ladder at a fixed address (a restarted one is found where it was), started once it
/// binds (a port just freed may take a moment).
fn ladder_at(file: &Path, data: &Path, addr: &str) -> Process {
    for _ in 0..50 {
        let mut child = Process(
            Command::new(env!("CARGO_BIN_EXE_arena"))
                .args(["ladder", file.to_str().unwrap(), "--data", data.to_str().unwrap(), "--addr", addr])
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        );
        let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        if line.contains("serving on ") {
            std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
            return child;
        }
        drop(child);
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("the ladder did not start on {addr}");
}

/// `arena worker` as `name`, its data in `data`; each line it prints sent to `lines`.
fn worker(url: &str, name: &str, key: &str, data: &Path, lines: Arc<Mutex<Vec<String>>>) -> Process {
    let mut child = Process(
        Command::new(env!("CARGO_BIN_EXE_arena"))
            .args(["worker", "--ladder", url, "--name", name, "--data", data.to_str().unwrap(), "--slots", "3"])
            .env("ARENA_WORKER_KEY", key)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let out = std::io::BufReader::new(child.stdout.take().unwrap());
    std::thread::spawn(move || {
        for line in out.lines().map_while(Result::ok) {
            lines.lock().unwrap().push(line);
        }
    });
    child
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

type Work = v1::work_client::WorkClient<tonic::transport::Channel>;

fn work<T, Fut: std::future::Future<Output = Result<tonic::Response<T>, tonic::Status>>>(
    url: &str,
    f: impl FnOnce(Work) -> Fut,
) -> Result<T, tonic::Status> {
    runtime().block_on(async {
        let channel = arena::client::connect(url).await.unwrap();
        f(Work::new(channel)).await.map(|r| r.into_inner())
    })
}

fn id(name: &str, key: &str) -> Option<v1::WorkerId> {
    Some(v1::WorkerId { name: name.into(), key: key.into(), instance: String::new() })
}

fn rules() -> Vec<String> {
    engine::games()
        .iter()
        .map(|g| format!("{}={}", g.name, (g.spec)(None, &[], &arena::files::refuse_files).unwrap().rules_version()))
        .collect()
}

fn acquire(url: &str, name: &str, key: &str) -> Result<Vec<v1::Lease>, tonic::Status> {
    let req = v1::AcquireRequest { worker: id(name, key), slots: 1, sandbox: false, rules: rules() };
    work(url, |mut c| async move { c.acquire(req).await }).map(|r| r.leases)
}

/// A lease acquired (asked again until one comes).
fn lease(url: &str, name: &str, key: &str) -> v1::Lease {
    let start = Instant::now();
    loop {
        if let Some(l) = acquire(url, name, key).unwrap().into_iter().next() {
            return l;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "no lease within a minute");
    }
}

/// A lease's game played here, each seat's first legal action: its record, as a worker sends it.
fn played(lease: &v1::Lease) -> MatchRecord {
    let found = engine::find_game(&lease.game).unwrap();
    let source = ParamSource::Yaml { name: "lease".into(), text: lease.params_yaml.clone() };
    let spec = (found.spec)(None, &[source], &arena::files::refuse_files).unwrap();
    let mut game = spec.new_game(lease.seed);
    let mut record = spec.record(lease.seed, None);
    let mut legal = Vec::new();
    while !game.is_terminal() {
        legal.clear();
        game.legal_actions(&mut legal);
        game.apply(legal[0]).unwrap();
        record.actions.push(legal[0]);
    }
    MatchRecord {
        game: record,
        players: lease.seats.iter().map(|s| s.name.clone()).collect(),
        outcome: MatchOutcome::played(game.outcome().unwrap()),
        verdicts: Vec::new(),
        metrics: Default::default(),
        move_ms: Vec::new(),
        match_id: None,
        tournament: None,
    }
}

fn report(
    url: &str,
    name: &str,
    key: &str,
    lease: &str,
    record: &MatchRecord,
) -> Result<v1::ReportResponse, tonic::Status> {
    let req = v1::ReportRequest {
        worker: id(name, key),
        lease: lease.into(),
        record_json: serde_json::to_string(record).unwrap(),
        logs: Vec::new(),
    };
    work(url, |mut c| async move { c.report(req).await })
}

fn stored_games(data: &Path) -> u64 {
    Store::open(data).unwrap().games().unwrap()
}

#[test]
fn every_wrong_worker_call_is_refused_by_name_and_a_report_is_stored_once() {
    let scratch = scratch::scratch("workers", "workers-refusals");
    let dir: &Path = &scratch;
    std::fs::create_dir_all(dir).unwrap();
    let data = dir.join("data");
    let file = ladder_file(dir, NO_DICE, "");
    let (_ladder, url) = ladder(&file, &data);

    // A worker with an agent's key: refused, and told why.
    let e = acquire(&url, "alice", ALICE).unwrap_err();
    assert_eq!(e.code(), tonic::Code::PermissionDenied);
    assert!(e.message().contains("is an agent of this ladder, not a worker"), "{}", e.message());
    // A worker's name with a wrong key, and no name at all.
    let e = acquire(&url, "w1", W2).unwrap_err();
    assert!(e.code() == tonic::Code::PermissionDenied && e.message().contains("not this worker's key"), "{e:?}");
    let e = acquire(&url, "stranger", W1).unwrap_err();
    assert!(e.message().contains("not a worker of this ladder"), "{e:?}");
    // Other rules than the ladder's.
    let req = v1::AcquireRequest { worker: id("w1", W1), slots: 1, sandbox: false, rules: vec!["expedition=0".into()] };
    let e = work(&url, |mut c| async move { c.acquire(req).await }).unwrap_err();
    assert!(e.code() == tonic::Code::FailedPrecondition && e.message().contains("rules version 0"), "{e:?}");

    // An agent with a worker's key (its name and key): its Hello is refused, and told why.
    let e = runtime().block_on(async {
        let hello = v1::Hello { name: "w1".into(), key: W1.into(), ..Default::default() };
        let channel = arena::client::connect(&url).await.unwrap();
        let mut c = v1::play_client::PlayClient::new(channel);
        let (tx, rx) = tokio::sync::mpsc::channel(4);
        tx.send(v1::BotMessage { message: Some(v1::bot_message::Message::Hello(hello)) }).await.unwrap();
        let mut stream = c.play(tokio_stream::wrappers::ReceiverStream::new(rx)).await?.into_inner();
        stream.message().await.map(|_| ())
    });
    let e = e.unwrap_err();
    assert!(e.message().contains("is a worker of this ladder"), "{e:?}");

    // A report of a lease never given, and of one given to another worker.
    let l = lease(&url, "w1", W1);
    let good = played(&l);
    let e = report(&url, "w1", W1, "no-such-lease", &good).unwrap_err();
    assert!(e.code() == tonic::Code::NotFound && e.message().contains("no lease"), "{e:?}");
    let e = report(&url, "w2", W2, &l.lease, &good).unwrap_err();
    assert_eq!(e.code(), tonic::Code::NotFound, "{e:?}");
    // Records that are not the lease's game, or do not replay.
    let mut other_deal = good.clone();
    other_deal.game.seed ^= 1;
    let mut cut = good.clone();
    cut.game.actions.pop();
    let mut illegal = good.clone();
    illegal.game.actions[0] = 60_000;
    let mut claimed = good.clone();
    claimed.outcome.result.ranks.reverse();
    claimed.outcome.result.scores.reverse();
    for (bad, why) in [
        (&other_deal, "deal (seed) is not the lease's"),
        (&cut, "stop before the end"),
        (&illegal, "does not replay"),
        (&claimed, "the record says"),
    ] {
        let e = report(&url, "w1", W1, &l.lease, bad).unwrap_err();
        assert_eq!(e.code(), tonic::Code::InvalidArgument, "{why}: {e:?}");
        assert!(e.message().contains(why) && e.message().contains("nothing is stored"), "{why}: {}", e.message());
    }
    let garbage =
        v1::ReportRequest { worker: id("w1", W1), lease: l.lease.clone(), record_json: "{".into(), logs: vec![] };
    let e = work(&url, |mut c| async move { c.report(garbage).await }).unwrap_err();
    assert!(e.message().contains("not a match record"), "{e:?}");
    assert_eq!(stored_games(&data), 0, "nothing stored on a refusal");

    // The lease's own record: stored; sent again: the same game, stored before.
    let first = report(&url, "w1", W1, &l.lease, &good).unwrap();
    assert!(!first.already && first.game_id >= 1);
    let again = report(&url, "w1", W1, &l.lease, &good).unwrap();
    assert!(again.already && again.game_id == first.game_id, "{again:?}");
    assert_eq!(stored_games(&data), 1);

    // A lease not kept is voided: its report is refused, nothing stored, and the game is
    // leased again with the same deal.
    let kept = lease(&url, "w1", W1);
    let start = Instant::now();
    let again = loop {
        match acquire(&url, "w2", W2).unwrap().into_iter().next() {
            Some(l) if l.seed == kept.seed && l.seats == kept.seats => break l,
            Some(_) => {}
            None => {}
        }
        assert!(start.elapsed() < Duration::from_secs(30), "the voided lease's game leased again");
    };
    assert_ne!(again.lease, kept.lease);
    let e = report(&url, "w1", W1, &kept.lease, &played(&kept)).unwrap_err();
    assert!(e.code() == tonic::Code::FailedPrecondition && e.message().contains("voided"), "{e:?}");
    assert_eq!(stored_games(&data), 1);
    let stored = report(&url, "w2", W2, &again.lease, &played(&again)).unwrap();
    assert!(!stored.already);
    assert_eq!(stored_games(&data), 2);
}

#[test]
fn a_cooperative_deal_played_by_two_workers_is_hidden_until_both_are_in() {
    let scratch = scratch::scratch("workers", "workers-cooperative");
    let dir: &Path = &scratch;
    std::fs::create_dir_all(dir).unwrap();
    let data = dir.join("data");
    let file = ladder_file(dir, "  - { game: journey, preset: classic, params: { travellers: 1 } }\n", "");
    let (_ladder, url) = ladder(&file, &data);
    let ladder_call = |id: u64| {
        runtime().block_on(async {
            let channel = arena::client::connect(&url).await.unwrap();
            let mut c = v1::ladder_client::LadderClient::new(channel);
            c.get_ladder_record(v1::LadderRecordRequest { game_id: id }).await.map(|r| r.into_inner())
        })
    };
    // The first play of a pairing by w1, the next by w2 (each an agent's play of one deal).
    let first = lease(&url, "w1", W1);
    let stored = report(&url, "w1", W1, &first.lease, &played(&first)).unwrap();
    // (Other pairings' plays are played meanwhile.)
    let second = loop {
        let l = lease(&url, "w2", W2);
        if l.seed == first.seed {
            break l;
        }
        report(&url, "w2", W2, &l.lease, &played(&l)).unwrap();
    };
    assert_ne!(second.seats, first.seats, "…by another agent");
    // Nothing of the first play reaches anyone (w2's agents included) while the second is out.
    let e = ladder_call(stored.game_id).unwrap_err();
    assert!(e.code() == tonic::Code::FailedPrecondition && e.message().contains("still in play"), "{e:?}");
    let mut plays = vec![stored.game_id];
    let mut next = second;
    // The pairing's other plays, then the record is given.
    loop {
        let r = report(&url, "w2", W2, &next.lease, &played(&next)).unwrap();
        plays.push(r.game_id);
        match acquire(&url, "w2", W2).unwrap().into_iter().find(|l| l.seed == first.seed) {
            Some(l) => next = l,
            None => break,
        }
    }
    let start = Instant::now();
    while ladder_call(plays[0]).is_err() {
        assert!(start.elapsed() < Duration::from_secs(10), "the record is given once the pairing is over");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(ladder_call(plays[0]).unwrap().seed, first.seed);
}

/// Every `reported lease L: game G` line of the workers' logs, by lease.
fn reported(lines: &[String]) -> HashMap<String, u64> {
    let mut out = HashMap::new();
    for line in lines {
        let Some(rest) = line.strip_prefix("reported lease ") else { continue };
        let (lease, game) = rest.split_once(": game ").unwrap();
        let game: u64 = game.split(' ').next().unwrap().parse().unwrap();
        if let Some(before) = out.insert(lease.to_string(), game) {
            assert_eq!(before, game, "lease {lease} answered as two games");
        }
    }
    out
}

fn free_addr() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().to_string()
}

/// A small pseudo-random sequence (the kills' order and moments), seeded.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// The chaos test, over anchors' games alone (no sandbox needed); the submissions' variant is
/// below.
#[test]
fn kill_9_of_any_worker_or_the_ladder_loses_no_finished_game_and_stores_none_twice() {
    chaos("workers-chaos", "", 1000);
}

#[test]
#[ignore = "needs bubblewrap and cgroups: .ci/run installs bubblewrap and runs it as root"]
fn kill_9_chaos_with_a_submission_among_the_anchors() {
    chaos(
        "workers-chaos-submission",
        "submissions:\n  limits: { cpus: 1, memory: 512MiB, pids: 64 }\n  connect_timeout_ms: 20000\n  games: 2\n",
        1000,
    );
}

fn chaos(name: &str, extra: &str, games: u64) {
    let scratch = scratch::scratch("workers", name);
    let dir: &Path = &scratch;
    std::fs::create_dir_all(dir).unwrap();
    let data = dir.join("data");
    let file = ladder_file(dir, NO_DICE, extra);
    let addr = free_addr();
    let url = format!("http://{addr}");
    let mut coordinator = ladder_at(&file, &data, &addr);
    if !extra.is_empty() {
        // A submission: the arena's own random agent, launched for each of its games.
        let agent = dir.join("agent");
        std::fs::create_dir_all(&agent).unwrap();
        std::fs::write(agent.join("agent.yaml"), "command: /run/bin/arena bot random --server \"$ARENA_SERVER\" --name \"$ARENA_NAME\" --key \"$ARENA_KEY\"\n").unwrap();
        let archive = arena::ladder::submissions::pack(&agent).unwrap();
        let req = v1::SubmitRequest { name: "alice".into(), version: "1".into(), key: ALICE.into(), archive };
        let s = runtime()
            .block_on(async {
                let channel = arena::client::connect(&url).await.unwrap();
                v1::ladder_client::LadderClient::new(channel).submit(req).await.map(|r| r.into_inner())
            })
            .unwrap();
        assert_eq!(s.state, "active", "{s:?}");
    }
    let lines = Arc::new(Mutex::new(Vec::new()));
    let names = [("w1", W1), ("w2", W2), ("w3", W3)];
    let mut workers: Vec<Process> =
        names.iter().map(|(n, k)| worker(&url, n, k, &dir.join(n), lines.clone())).collect();
    let mut rng = Lcg(0x5eed);
    let mut kills = 0;
    let start = Instant::now();
    while kills < 10 || stored_games(&data) < games {
        assert!(start.elapsed() < Duration::from_secs(600), "{games} games within 10 minutes");
        std::thread::sleep(Duration::from_millis(200 + rng.next(1500)));
        if kills >= 10 {
            continue;
        }
        kills += 1;
        let which = rng.next(4) as usize;
        if which == 3 {
            coordinator.kill().unwrap();
            coordinator.wait().unwrap();
            std::thread::sleep(Duration::from_millis(rng.next(500)));
            coordinator = ladder_at(&file, &data, &addr);
        } else {
            workers[which].kill().unwrap();
            workers[which].wait().unwrap();
            let (n, k) = names[which];
            workers[which] = worker(&url, n, k, &dir.join(n), lines.clone());
        }
    }
    // Every report a worker holds is sent: the workers stopped once their folders are empty.
    let start = Instant::now();
    while names.iter().any(|(n, _)| std::fs::read_dir(dir.join(n).join("pending")).unwrap().next().is_some()) {
        assert!(start.elapsed() < Duration::from_secs(60), "the workers' pending reports sent");
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(workers);
    drop(coordinator);

    let store = Store::open(&data).unwrap();
    let lines = lines.lock().unwrap().clone();
    let reported = reported(&lines);
    let (open, done, void) = store.lease_counts().unwrap();
    let stored = store.games().unwrap();
    eprintln!(
        "{stored} games; leases {done} done, {void} void, {open} open; {} reported in the workers' logs",
        reported.len()
    );
    assert!(stored >= games);
    // Every game is a leased one, stored once: its lease done, naming it.
    assert_eq!(done, stored, "every stored game is one lease's");
    for (lease, game) in &reported {
        let row = store.lease(lease).unwrap().unwrap_or_else(|| panic!("lease {lease} unknown"));
        assert_eq!((row.state.as_str(), row.game), ("done", Some(*game)), "lease {lease}");
    }
    // No deal's seat order stored twice (a voided lease's game leased again is stored once).
    let mut seen = HashSet::new();
    let mut rated_expected = 0;
    for g in store.all_games().unwrap() {
        let place = g.record.place();
        assert!(seen.insert((g.record.game.seed, place.seats.clone())), "game {} stored twice", g.id);
        if !g.record.outcome.aborted {
            rated_expected += 1;
        }
    }
    if !extra.is_empty() {
        let theirs =
            store.all_games().unwrap().iter().filter(|g| g.record.players.iter().any(|p| p == "alice@1")).count();
        eprintln!("alice@1 (a submission) played {theirs} of them");
        assert!(theirs >= 20, "the submission plays on the workers: {theirs} games");
    }
    // Every competitive game rated once, no more.
    assert_eq!(store.rated().unwrap().len(), rated_expected);
    // The standings after a restart are a fit of the stored results.
    let (ladder_again, url) = ladder(&file, &data);
    let s = until_rated(&url, store.rated().unwrap().len() as u64);
    let names: Vec<String> = store.agents().unwrap().into_iter().map(|(n, _)| n).collect();
    let fit = reports::ratings::rate(
        &names,
        &store.rated().unwrap(),
        &reports::ratings::RatingOptions { anchor: None, bootstrap: 0, seed: 0 },
    );
    for row in &s.lists[0].rows {
        let e = fit.entries.iter().find(|e| e.name == row.agent).unwrap();
        assert!((e.rating - row.rating).abs() < 1.0, "{}: {} served, {} fitted", row.agent, row.rating, e.rating);
    }
    drop(ladder_again);
}

fn until_rated(url: &str, rated: u64) -> v1::LadderStandings {
    let start = Instant::now();
    loop {
        let s = runtime().block_on(async {
            let channel = arena::client::connect(url).await.unwrap();
            let mut c = v1::ladder_client::LadderClient::new(channel);
            c.standings(v1::StandingsRequest::default()).await.unwrap().into_inner()
        });
        if s.rated_games == rated {
            return s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the standings refit over {rated} results: {}",
            s.rated_games
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A worker's game is shown on the ladder as it is played: listed among the matches in play,
/// its moves streamed to a spectator of the ladder (Spectate) one by one before its end, and
/// the stored record is that match, move for move.
#[test]
fn a_workers_game_is_shown_live_on_the_ladder_and_stored_as_shown() {
    let scratch = scratch::scratch("workers", "live");
    let dir: &Path = &scratch;
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("workers.txt"), format!("w1={W1}\n")).unwrap();
    let file = dir.join("ladder.yaml");
    std::fs::write(
        &file,
        "name: live\ngames:\n  - { game: expedition, preset: no-dice, params: { players: 2 } }\nanchors:\n  - { name: \
         steady, bot: \"mcts:iterations=300\" }\n  - { name: coin, bot: random }\nanchor_interval: 0\nprovisional_games: \
         0\nbootstrap: 20\nworkers: { keys: workers.txt }\n",
    )
    .unwrap();
    let data = dir.join("data");
    let (_ladder, url, web) = served::ladder_with_face(&file, &data);
    let lines = Arc::new(Mutex::new(Vec::new()));
    let _w1 = worker(&url, "w1", W1, &dir.join("w1"), lines);
    // A match in play on the ladder, played on the worker.
    let start = Instant::now();
    let id = loop {
        let (status, body) = served::http(&web, "GET", "/api/matches", "");
        assert_eq!(status, 200, "{body}");
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        if let Some(m) = v["matches"].as_array().and_then(|m| m.first()) {
            break m["id"].as_str().unwrap().to_string();
        }
        assert!(start.elapsed() < Duration::from_secs(30), "a worker's game in play on the ladder");
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut in_play_at_a_move = 0;
    let events = runtime().block_on(async {
        let channel = arena::client::connect(&url).await.unwrap();
        let mut c = v1::matches_client::MatchesClient::new(channel);
        let mut stream = c
            .spectate(v1::SpectateRequest { match_id: id.clone(), from_version: 0, with_table: false })
            .await
            .unwrap()
            .into_inner();
        let mut events = Vec::new();
        while let Some(e) = stream.message().await.unwrap() {
            let e = e.event.unwrap();
            // A move shown while the game is still in play (not all at its end).
            if matches!(e, v1::match_event::Event::Moved(_)) && in_play_at_a_move < 3 {
                let (_, body) = served::http(&web, "GET", "/api/matches", "");
                let v: serde_json::Value = serde_json::from_str(&body).unwrap();
                if v["matches"].as_array().unwrap().iter().any(|m| m["id"] == id.as_str()) {
                    in_play_at_a_move += 1;
                }
            }
            events.push(e);
        }
        events
    });
    assert!(in_play_at_a_move > 0, "moves are shown while the game is in play");
    let moves: Vec<u32> = events
        .iter()
        .filter_map(|e| match e {
            v1::match_event::Event::Moved(m) => Some(m.action),
            _ => None,
        })
        .collect();
    assert!(matches!(events.first(), Some(v1::match_event::Event::Started(_))), "{events:?}");
    assert!(matches!(events.last(), Some(v1::match_event::Event::Ended(_))), "{events:?}");
    assert!(moves.len() > 5, "its moves shown one by one: {events:?}");
    // The stored record is the match shown.
    let start = Instant::now();
    let record = loop {
        let found = Store::open(&data)
            .unwrap()
            .all_games()
            .unwrap()
            .into_iter()
            .find(|g| g.record.match_id.as_deref() == Some(id.as_str()));
        if let Some(g) = found {
            break g.record;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "the shown match stored");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(record.game.actions, moves, "the record is the match shown, move for move");
}

/// The worker's health service says SERVING once it has reached the ladder; on SIGTERM it takes
/// no new game, its games in play end and are reported, and it exits with nothing pending.
#[test]
fn a_worker_is_ready_once_the_ladder_answers_and_a_sigterm_lets_its_games_end_and_be_reported() {
    let scratch = scratch::scratch("workers", "health");
    let dir: &Path = &scratch;
    std::fs::create_dir_all(dir).unwrap();
    let file = ladder_file(dir, NO_DICE, "");
    let data = dir.join("data");
    let (_ladder, url) = ladder(&file, &data);
    let health = free_addr();
    let mut w = Process(
        Command::new(env!("CARGO_BIN_EXE_arena"))
            .args(["worker", "--ladder", &url, "--name", "w1", "--data", dir.join("w1").to_str().unwrap()])
            .args(["--health", &health, "--grace", "30"])
            .env("ARENA_WORKER_KEY", W1)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let out = std::io::BufReader::new(w.stdout.take().unwrap());
    let lines = Arc::new(Mutex::new(Vec::new()));
    let seen = lines.clone();
    let reader = std::thread::spawn(move || {
        for line in out.lines().map_while(Result::ok) {
            seen.lock().unwrap().push(line);
        }
    });
    let status = || {
        runtime().block_on(async {
            let Ok(channel) = arena::client::connect(&format!("http://{health}")).await else { return -1 };
            let mut c = tonic_health::pb::health_client::HealthClient::new(channel);
            c.check(tonic_health::pb::HealthCheckRequest { service: String::new() })
                .await
                .map_or(-1, |r| r.into_inner().status)
        })
    };
    let start = Instant::now();
    while status() != tonic_health::pb::health_check_response::ServingStatus::Serving as i32 {
        assert!(start.elapsed() < Duration::from_secs(30), "the worker ready once the ladder answers");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Games reported, then a SIGTERM: the worker exits, cleanly, with nothing pending.
    while !lines.lock().unwrap().iter().any(|l| l.starts_with("reported lease")) {
        assert!(start.elapsed() < Duration::from_secs(30), "a game reported");
        std::thread::sleep(Duration::from_millis(20));
    }
    let kill = Command::new("kill").args(["-TERM", &w.id().to_string()]).status().unwrap();
    assert!(kill.success());
    let exit = w.wait().unwrap();
    assert!(exit.success(), "{exit:?}");
    reader.join().unwrap();
    assert_eq!(std::fs::read_dir(dir.join("w1").join("pending")).unwrap().count(), 0, "nothing left pending");
    // Every game it was given is stored (none was cut short by the stop).
    let lines = lines.lock().unwrap().clone();
    let reported = reported(&lines);
    let store = Store::open(&data).unwrap();
    for lease in reported.keys() {
        assert_eq!(store.lease(lease).unwrap().unwrap().state, "done");
    }
    assert!(!lines.iter().any(|l| l.contains("not played")), "{lines:?}");
}

/// deploy/slurm-workers.sh as Slurm runs an array task: the worker NAME, its instance the
/// task's index, its key read from ROOT/worker.key; it plays and reports; refused without a
/// key, and without the array's index.
#[test]
fn the_slurm_workers_script_runs_a_worker_per_array_task() {
    let scratch = scratch::scratch("workers", "slurm");
    let dir: &Path = &scratch;
    std::fs::create_dir_all(dir).unwrap();
    let file = ladder_file(dir, NO_DICE, "");
    let data = dir.join("data");
    let (_ladder, url) = ladder(&file, &data);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/slurm-workers.sh");
    let root = dir.join("root");
    std::fs::create_dir_all(&root).unwrap();
    let task = |index: Option<&str>| {
        let mut c = Command::new("bash");
        c.arg(&script).args([url.as_str(), "w2", root.to_str().unwrap()]).env("ARENA", env!("CARGO_BIN_EXE_arena"));
        if let Some(i) = index {
            c.env("SLURM_ARRAY_TASK_ID", i);
        }
        c.env_remove("ARENA_WORKER_KEY");
        c
    };
    let out = task(Some("3")).output().unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("worker.key"), "{out:?}");
    std::fs::write(root.join("worker.key"), format!("{W2}\n")).unwrap();
    let out = task(None).output().unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("array job"), "{out:?}");
    let mut child = Process(task(Some("3")).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap());
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    assert!(first.contains("worker `w2` (instance slurm-3)"), "{first}");
    let mut line = String::new();
    while !line.starts_with("reported lease") {
        line.clear();
        assert!(out.read_line(&mut line).unwrap() > 0, "the task's worker ended before it reported a game");
    }
    let lease = line["reported lease ".len()..].split(':').next().unwrap().to_string();
    let row = Store::open(&data).unwrap().lease(&lease).unwrap().unwrap();
    assert_eq!((row.worker.as_str(), row.state.as_str()), ("w2/slurm-3", "done"));
    assert!(root.join("w2-3").join("pending").is_dir(), "its reports kept under ROOT/NAME-K");
}
