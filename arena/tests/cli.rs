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

fn temp(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("arena-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
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

#[test]
fn records_replay_to_the_same_outcomes() {
    let dir = std::env::temp_dir().join(format!("arena-records-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("games.yaml");
    let f = file.to_str().unwrap();
    ok(&["play", "expedition", "--games", "3", "--seed", "9", "--records", f]);
    let replayed = ok(&["replay", f]);
    assert_eq!(replayed.lines().count(), 3, "{replayed}");
    assert!(replayed.lines().all(|l| l.contains("scores")), "{replayed}");
    // Tamper with one action: the replay names the record and the action.
    let text = std::fs::read_to_string(&file).unwrap();
    let broken = text.replacen("actions:\n  - ", "actions:\n  - 999999\n  - ", 1);
    std::fs::write(&file, broken).unwrap();
    let e = fails(&["replay", f]);
    assert!(e.contains("record 0") && e.contains("action #0"), "{e}");
}

#[test]
fn records_of_scenario_games_replay_from_the_scenario() {
    // A late position: a fresh deal could not replay these actions.
    let scenario =
        temp("late.yaml", "journey: [5♥, 2♠, 4♥, A♥]\npassed: [3♥, 7♥]\nwreckage: [9♠, 5♠]\ndiscard: [4♣, 5♣, J♦]\n");
    let file = temp("scenario-games.yaml", "");
    let (s, f) = (scenario.to_str().unwrap(), file.to_str().unwrap());
    let played = ok(&["play", "journey", "--games", "5", "--seed", "4", "--scenario", s, "--records", f, "--json"]);
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(text.matches("scenario:").count(), 5, "every record keeps its scenario:\n{text}");
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
    }
}
