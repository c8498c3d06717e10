//! The `arena` binary, run as a real process.

use std::process::{Command, Output};

fn arena(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arena")).args(args).output().expect("arena runs")
}

fn ok(args: &[&str]) -> String {
    let o = arena(args);
    assert!(o.status.success(), "arena {args:?} failed: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

fn fails(args: &[&str]) -> String {
    let o = arena(args);
    assert_eq!(o.status.code(), Some(2), "arena {args:?} should fail");
    assert!(o.stdout.is_empty(), "nothing on stdout when failing");
    String::from_utf8(o.stderr).unwrap()
}

use crate::scratch;

/// A file called `name` holding `text`, in a directory removed when it is dropped.
fn temp(name: &str, text: &str) -> scratch::Scratch {
    let p = scratch::scratch("cli", name);
    std::fs::write(&p, text).unwrap();
    p
}

fn json(args: &[&str]) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(&ok(args)).unwrap();
    v.as_object_mut().unwrap().remove("elapsed_seconds");
    v
}

#[test]
fn games_lists_every_game_preset_and_parameter() {
    let out = ok(&["games"]);
    for word in [
        "journey",
        "expedition",
        "classic",
        "martian",
        "dunwich",
        "no-dice",
        "satchel_limit",
        "return_journey",
        "forgotten_roll",
        "content",
    ] {
        assert!(out.contains(word), "`{word}` missing from:\n{out}");
    }
    let v: serde_json::Value = serde_json::from_str(&ok(&["games", "--json"])).unwrap();
    let journey = &v[0];
    assert_eq!(journey["default_preset"], "dunwich");
    let travellers = journey["params"].as_array().unwrap().iter().find(|p| p["name"] == "travellers").unwrap();
    assert_eq!(travellers["values"], serde_json::json!(["1", "1", "1"]));
}

#[test]
fn play_journey_prints_a_summary_that_the_seed_fixes() {
    let out = ok(&["play", "journey", "--preset", "classic", "--games", "300", "--seed", "1", "--bots", "random"]);
    assert!(out.contains("300 games") && out.contains("arrived:") && out.contains("score:"), "{out}");
    let args = ["play", "journey", "--preset", "classic", "--games", "300", "--seed", "1", "--json"];
    let a = json(&args);
    assert_eq!(a, json(&args), "same seed, same result");
    assert_eq!(a["games"], 300);
    assert!(a["metrics"]["arrived"]["mean"].is_number());
    let mut other = args;
    other[7] = "2";
    assert_ne!(a, json(&other), "another seed, other games");
}

#[test]
fn play_expedition_no_dice_reports_win_shares_per_seat() {
    let v = json(&[
        "play",
        "expedition",
        "--players",
        "3",
        "--param",
        "dice=false",
        "--games",
        "100",
        "--seed",
        "3",
        "--json",
    ]);
    let seats = v["seats"].as_array().unwrap();
    assert_eq!(seats.len(), 3);
    let total: f64 = seats.iter().map(|s| s["win_share"].as_f64().unwrap()).sum();
    assert!((total - 1.0).abs() < 1e-9, "win shares add up to one: {total}");
    assert!(v["params"].as_str().unwrap().contains("dice: false"));
    assert!(v["length"]["mean"].as_f64().unwrap() > 10.0);
}

#[test]
fn trace_shows_every_seat_its_own_view() {
    let out = ok(&["play", "expedition", "--games", "1", "--seed", "5", "--trace"]);
    assert!(out.contains("You are seat 0") && out.contains("You are seat 1"));
    assert!(out.contains("(hidden)"), "others' Expedition cards are hidden");
    assert!(out.contains("▶ seat"), "each move is shown");
    let out = ok(&["play", "journey", "--preset", "martian", "--players", "2", "--games", "1", "--trace"]);
    assert!(out.contains("traveller 0 sees") && out.contains("traveller 1 sees") && out.contains("legal:"));
}

#[test]
fn bad_input_is_named_and_fails() {
    let e = fails(&["play", "journey", "--param", "travellers=9"]);
    assert!(e.contains("travellers") && e.contains("1 to 4"), "{e}");
    let e = fails(&["play", "journey", "--param", "nonsense=1"]);
    assert!(e.contains("nonsense"), "{e}");
    let e = fails(&["play", "journey", "--preset", "easy"]);
    assert!(e.contains("easy") && e.contains("classic"), "{e}");
    let e = fails(&["play", "draughts"]);
    assert!(e.contains("draughts") && e.contains("journey"), "{e}");
    let o = arena(&["play", "journey", "--games", "0"]);
    assert_eq!(o.status.code(), Some(2), "clap refuses zero games");
    assert!(String::from_utf8_lossy(&o.stderr).contains("--games"));
    let e = fails(&["play", "journey", "--bots", "genius"]);
    assert!(e.contains("genius") && e.contains("random"), "{e}");
    let f = temp("bad.yaml", "travellers: 2\nallies: perhaps\n");
    let e = fails(&["play", "journey", "--params", f.to_str().unwrap()]);
    assert!(e.contains("bad.yaml") && e.contains("allies") && e.contains("line 2"), "{e}");
    let f = temp("bad-scenario.yaml", "journey: [5♠, 5♠]\n");
    let e = fails(&["play", "journey", "--scenario", f.to_str().unwrap()]);
    assert!(e.contains("5♠ is placed twice"), "{e}");
    let e = fails(&["play", "expedition", "--content", "/no/such/content.yaml"]);
    assert!(e.contains("/no/such/content.yaml"), "{e}");
}

/// A records file's games, one JSON value each, without their move times (the only part
/// that differs from one run of a series to the next).
fn records_without_times(file: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            v.as_object_mut().unwrap().remove("move_ms");
            v
        })
        .collect()
}

/// `--jobs` plays games side by side; the summary and the records (move times aside) are the
/// ones played one after another, in the same order.
#[test]
fn games_played_side_by_side_are_the_games_played_in_turn() {
    let records = |jobs: &str| {
        let file = temp("jobs.jsonl", "");
        let args = ["play", "expedition", "--games", "5", "--swap-seats", "--seed", "3", "--json", "--jobs", jobs];
        let bots = ["--bots", "mcts:iterations=40,random", "--records", file.to_str().unwrap()];
        let summary = json(&[&args[..], &bots[..]].concat());
        let lines = records_without_times(&file);
        (summary, lines)
    };
    let (one, one_records) = records("1");
    let (three, three_records) = records("3");
    assert_eq!(one_records.len(), 10);
    assert_eq!(one, three);
    assert_eq!(one_records, three_records);
}

/// `--skip K` plays the series from deal K + 1: the first games of a series and the rest,
/// played apart, are the games of the whole series (records, seat rotations and all).
#[test]
fn a_series_split_by_skip_is_the_whole_series() {
    let records = |games: &str, skip: &str| {
        let file = temp("skip.jsonl", "");
        let args = ["play", "expedition", "--games", games, "--skip", skip, "--swap-seats", "--seed", "3"];
        let bots = ["--bots", "mcts:iterations=30,random", "--records", file.to_str().unwrap()];
        let out = ok(&[&args[..], &bots[..]].concat());
        let lines = records_without_times(&file);
        (out, lines)
    };
    let (_, whole) = records("5", "0");
    let (_, head) = records("2", "0");
    let (out, tail) = records("3", "2");
    assert_eq!(whole.len(), 10);
    assert_eq!([head, tail].concat(), whole);
    assert!(out.contains("6 games, seed 3, from deal 3"), "{out}");
}

#[test]
fn records_replay_to_the_same_outcomes() {
    let file = temp("games.jsonl", "");
    let f = file.to_str().unwrap();
    ok(&["play", "expedition", "--games", "3", "--seed", "9", "--records", f]);
    let replayed = ok(&["replay", f]);
    assert_eq!(replayed.lines().count(), 3, "{replayed}");
    assert!(replayed.lines().all(|l| l.contains("scores")), "{replayed}");
    // Tamper with one action: the replay names the game and the action.
    let text = std::fs::read_to_string(&file).unwrap();
    let broken = text.replacen("\"actions\":[", "\"actions\":[999999,", 1);
    std::fs::write(&file, broken).unwrap();
    let e = fails(&["replay", f]);
    assert!(e.contains("game 1") && e.contains("action #0"), "{e}");
}

/// Every file the project writes replays: `play --records`, a tournament's log, `serve
/// --records`; a record of other rules is refused naming both versions; a game reads move by
/// move, with what a seat saw.
#[test]
fn arena_replay_reads_every_records_file_and_refuses_other_rules() {
    let dir = scratch::scratch("replay", "files");
    std::fs::create_dir_all(&dir).unwrap();
    let played = dir.join("play.jsonl");
    ok(&["play", "journey", "--games", "2", "--bots", "rules", "--records", played.to_str().unwrap()]);
    let t = temp(
        "replay-t.yaml",
        "seed: 2\ngames_per_pairing: 2\nparticipants:\n  - { name: a, bot: random }\n  - { name: b, bot: rules }\ngames:\n  - { game: expedition, preset: no-dice }\n",
    );
    let tdir = dir.join("t");
    ok(&["tournament", t.to_str().unwrap(), "--out", tdir.to_str().unwrap(), "--quiet"]);
    let served = dir.join("served.jsonl");
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        use proto::v1;
        let config = arena::server::ServerConfig { records: Some(served.clone()), ..Default::default() };
        let running = arena::server::start("127.0.0.1:0".parse().unwrap(), config).await.unwrap();
        let mut m = arena::client::matches(arena::client::connect(&running.url()).await.unwrap());
        let bot = |b: &str| v1::SeatSpec { player: Some(v1::seat_spec::Player::Bot(b.into())) };
        let req = v1::CreateMatchRequest {
            game: "expedition".into(),
            seats: vec![bot("random"), bot("rules")],
            ..Default::default()
        };
        m.create_match(req).await.unwrap();
        while running.hub.active() > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        running.stop().await.unwrap();
    });
    for (file, games) in [(played.clone(), 2), (tdir.join("games.jsonl"), 4), (served.clone(), 1)] {
        let out = ok(&["replay", file.to_str().unwrap()]);
        assert_eq!(out.lines().filter(|l| l.starts_with("game ")).count(), games, "{}: {out}", file.display());
    }
    // Move by move, with the mover, who sat there and every label; with --seat, its view.
    let text = ok(&["replay", served.to_str().unwrap(), "--game", "1", "--text", "--seat", "1"]);
    assert!(text.contains("seat 0: random") && text.contains("seat 1: rules"), "{text}");
    assert!(text.lines().any(|l| l.trim_start().starts_with("1. seat")), "{text}");
    assert!(text.contains("You are seat 1"), "seat 1's view is shown: {text}");
    let e = fails(&["replay", served.to_str().unwrap(), "--game", "2"]);
    assert!(e.contains("--game 2") && e.contains("1 to 1"), "{e}");
    // Edit the rules version: refused, naming both.
    let edited = dir.join("edited.jsonl");
    let line = std::fs::read_to_string(&played).unwrap().lines().next().unwrap().to_string();
    std::fs::write(&edited, line.replace("\"rules_version\":1", "\"rules_version\":99") + "\n").unwrap();
    let e = fails(&["replay", edited.to_str().unwrap()]);
    assert!(e.contains("version 99") && e.contains("version 1"), "{e}");
    // Not a records file at all.
    let e = fails(&["replay", t.to_str().unwrap()]);
    assert!(e.contains("line 1") && e.contains("not a records file"), "{e}");
}

#[test]
fn records_of_scenario_games_replay_from_the_scenario() {
    // A late position: a fresh deal could not replay these actions.
    let scenario =
        temp("late.yaml", "journey: [5♥, 2♠, 4♥, A♥]\npassed: [3♥, 7♥]\nwreckage: [9♠, 5♠]\ndiscard: [4♣, 5♣, J♦]\n");
    let file = temp("scenario-games.jsonl", "");
    let (s, f) = (scenario.to_str().unwrap(), file.to_str().unwrap());
    let played = ok(&["play", "journey", "--games", "5", "--seed", "4", "--scenario", s, "--records", f, "--json"]);
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(text.matches("\"scenario\":").count(), 5, "every record keeps its scenario:\n{text}");
    let replayed = ok(&["replay", f]);
    assert_eq!(replayed.lines().count(), 5, "{replayed}");
    // The replayed scores are the played ones.
    let v: serde_json::Value = serde_json::from_str(&played).unwrap();
    let total: f64 = v["score"]["mean"].as_f64().unwrap() * 5.0;
    let replayed_total: i64 = replayed
        .lines()
        .map(|l| l.split("scores [").nth(1).unwrap().split(']').next().unwrap().parse::<i64>().unwrap())
        .sum();
    assert!((total - replayed_total as f64).abs() < 1e-9, "{played}\n{replayed}");
}

#[test]
fn a_closed_pipe_ends_the_program_quietly() {
    use std::io::Read;
    let mut child = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["play", "expedition", "--games", "3", "--trace"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 64];
    child.stdout.as_mut().unwrap().read_exact(&mut first).unwrap();
    drop(child.stdout.take()); // like `| head`
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}: {}", out.status, String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn bench_reports_positive_rates_for_every_case() {
    let v: serde_json::Value =
        serde_json::from_str(&ok(&["bench", "journey", "--seconds", "0.02", "--runs", "1", "--json"])).unwrap();
    let rows = v["random_play"].as_array().unwrap();
    assert_eq!(rows.len(), 6, "three presets at 1 and 4 travellers");
    for r in rows {
        assert!(r["actions_per_second"].as_f64().unwrap() > 0.0);
        assert!(r["clone_ns"].as_f64().unwrap() > 0.0);
    }
    let mcts = v["mcts"].as_array().unwrap();
    assert_eq!(mcts.len(), 3, "one search row per preset");
    for r in mcts {
        assert!(r["iterations_per_second"].as_f64().unwrap() > 0.0);
        assert!(r["playouts_per_second"].as_f64().unwrap() > 0.0);
        assert!(r["sampled_playouts_per_second"].as_f64().unwrap() > 0.0);
        assert!(r["ratio_to_sampled"].as_f64().unwrap() > 0.0);
    }
}

/// The sequential test: a clearly stronger agent is accepted long before the cap, two equal
/// agents are not; seeded, so the same every time.
#[test]
fn compare_stops_when_the_answer_is_known() {
    let run = |a: &str, b: &str, game: &[&str]| -> serde_json::Value {
        let mut args = vec!["compare", a, b];
        args.extend_from_slice(game);
        args.extend([
            "--sprt",
            "elo0=0,elo1=100,alpha=0.05,beta=0.05",
            "--max-games",
            "400",
            "--json",
            "--concurrency",
            "2",
        ]);
        let mut v: serde_json::Value = serde_json::from_str(&ok(&args)).unwrap();
        v.as_object_mut().unwrap().remove("seconds");
        v
    };
    let strong = run("mcts:iterations=200", "random", &["--game", "expedition", "--preset", "no-dice"]);
    assert_eq!(strong["result"], "H1", "{strong}");
    assert!(strong["games"].as_u64().unwrap() < 100, "well before the cap: {strong}");
    assert!(strong["llr"].as_f64().unwrap() >= strong["bounds"][1].as_f64().unwrap());
    assert_eq!(strong["unit_scores"].as_array().unwrap().len(), 5, "pentanomial: pairs of games");
    let even = run("random", "random", &["--game", "expedition", "--preset", "no-dice"]);
    assert_ne!(even["result"], "H1", "{even}");
    assert_eq!(even, run("random", "random", &["--game", "expedition", "--preset", "no-dice"]), "seeded");
    // A cooperative game: each deal a paired comparison (a trinomial unit).
    let coop = run("rules", "random", &["--game", "journey", "--preset", "classic"]);
    assert_eq!(coop["result"], "H1", "{coop}");
    assert_eq!(coop["unit_scores"].as_array().unwrap().len(), 3);
    // Three players: the two in all 6 arrangements among the others, per deal.
    let three = run("rules", "random", &["--game", "expedition", "--players", "3"]);
    assert_eq!(three["games_per_unit"], 6, "{three}");
    // The cap is a cap: below one unit it is refused, and it is never passed.
    for (cap, players) in [("0", "2"), ("1", "3"), ("5", "3")] {
        let e =
            fails(&["compare", "random", "random", "--game", "expedition", "--players", players, "--max-games", cap]);
        assert!(e.contains(&format!("--max-games {cap}")) && e.contains("units of"), "{e}");
    }
    let capped =
        ok(&["compare", "random", "random", "--game", "expedition", "--players", "3", "--max-games", "13", "--json"]);
    let capped: serde_json::Value = serde_json::from_str(&capped).unwrap();
    assert_eq!(capped["games"], 12, "{capped}");
    let e = fails(&["compare", "random", "random", "--game", "expedition", "--sprt", "elo0=10,elo1=0"]);
    assert!(e.contains("elo1"), "{e}");
    let e = fails(&["compare", "random", "random", "--game", "expedition", "--sprt", "model=bayesian"]);
    assert!(e.contains("`bayesian`") && e.contains("normalized"), "{e}");
}

/// `arena compare` says how it goes on stderr when that is no terminal (a log, a pipe): a
/// plain line each hundred games (and every few seconds), with the score and the LLR against
/// its bounds; stdout is the result alone.
#[test]
fn compare_shows_its_progress_on_a_stderr_that_is_no_terminal() {
    let args = [
        "compare",
        "random",
        "random",
        "--game",
        "expedition",
        "--preset",
        "no-dice",
        "--sprt",
        "elo0=0,elo1=5",
        "--max-games",
        "240",
        "--concurrency",
        "2",
    ];
    let o = arena(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (out, err) = (String::from_utf8(o.stdout).unwrap(), String::from_utf8(o.stderr).unwrap());
    for games in [100, 200] {
        let line = err
            .lines()
            .find(|l| l.starts_with(&format!("compare: {games} games: ")))
            .unwrap_or_else(|| panic!("no progress line at {games} games in stderr:\n{err}"));
        assert!(line.contains(" lost by random, score ") && line.contains(", LLR "), "{line}");
        assert!(line.contains("(bounds -2.94, 2.94)"), "{line}");
    }
    assert!(!out.contains("compare: "), "stdout is the result alone: {out}");
    assert!(out.contains("random vs random on expedition: "), "{out}");
}

/// `arena bench-sprt` simulates the test where its error rates are known: at a small run
/// count only the direction is checked (the figures themselves are the benchmark's).
#[test]
fn the_simulated_test_accepts_elo1_far_more_often_than_elo0() {
    for model in ["logistic", "normalized"] {
        let sprt = format!("elo0=0,model={model}");
        let out = ok(&["bench-sprt", "--runs", "60", "--elo1", "20,50", "--draws", "0.6", "--sprt", &sprt, "--json"]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["sprt"]["model"], model);
        assert!(v["sprt"].get("elo1").is_none(), "each row has its own elo1: {}", v["sprt"]);
        let rows = v["rows"].as_array().unwrap();
        assert_eq!(rows.len(), 2);
        for r in rows {
            let (fp, power) = (r["false_positives"].as_f64().unwrap(), r["power"].as_f64().unwrap());
            assert!(fp < 0.25 && power > 0.75, "{model}: {r}");
            assert!(r["mean_games_at_elo1"].as_f64().unwrap() > 0.0);
        }
        assert!(
            rows[0]["mean_games_at_elo0"].as_f64() > rows[1]["mean_games_at_elo0"].as_f64(),
            "a wider gap is told sooner"
        );
    }
    let e = fails(&["bench-sprt", "--sprt", "elo1=5"]);
    assert!(e.contains("--elo1"), "{e}");
}
