//! The Python example agent (`bots/examples/python`) plays a tournament over the Play stream.
//! Its packages come from `bots/examples/python/requirements.txt`: the test is ignored by a
//! plain `cargo test` (reported as such, never passed unchecked) and run by `.ci/run`, which
//! installs them, with `cargo test -- --ignored`; there a missing package fails it.

use crate::scratch;

use arena::tournament::log::read_log;
use std::path::Path;
use std::process::Command;

#[test]
#[ignore = "needs python3 with grpcio: .ci/run installs bots/examples/python/requirements.txt and runs it"]
fn the_python_agent_plays_a_tournament() {
    let has_grpc = Command::new("python3").args(["-c", "import grpc, grpc_tools"]).status().is_ok_and(|s| s.success());
    assert!(
        has_grpc,
        "python3 with grpcio and grpcio-tools is required: pip install -r bots/examples/python/requirements.txt"
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bots/examples/python/arena_bot.py");
    let text = format!(
        "name: python\nseed: 4\ngames_per_pairing: 3\nconcurrency: 2\nbootstrap: 100\nmove_time_ms: 20000\nparticipants:\n  - {{ name: rules, bot: rules }}\n  - {{ name: py, command: \"python3 {} --policy eager\" }}\ngames:\n  - {{ game: expedition, preset: no-dice, params: {{ players: 2 }} }}\n  - {{ game: journey, preset: martian }}\n",
        script.display()
    );
    let dir = scratch::scratch("python", "out");
    let file = dir.with_extension("yaml");
    std::fs::write(&file, text).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["tournament", file.to_str().unwrap(), "--out", dir.to_str().unwrap(), "--quiet"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let records = read_log(&dir).unwrap().records;
    assert_eq!(records.len(), 3 * 2 + 3 * 2);
    assert!(
        records.iter().all(|r| r.verdicts.is_empty()),
        "{:?}",
        records.iter().flat_map(|r| &r.verdicts).collect::<Vec<_>>()
    );
    assert!(records.iter().filter(|r| r.players.iter().any(|p| p == "py")).all(|r| !r.game.actions.is_empty()));
    let standings = std::fs::read_to_string(dir.join("report/standings.md")).unwrap();
    assert!(standings.contains("| py |") || standings.contains(" py "), "{standings}");
}

/// Agents in three languages — built-in Rust agents, the Python ISMCTS agent of the
/// `tabletop_arena` package, the Node.js random agent — play one tournament through the
/// server, every game recorded.
#[test]
#[ignore = "needs python3 with the tabletop_arena package and bots/node's packages: .ci/run installs both and runs it"]
fn three_languages_play_one_tournament() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let has_package = Command::new("python3").args(["-c", "import tabletop_arena"]).status().is_ok_and(|s| s.success());
    assert!(has_package, "python3 with the tabletop_arena package is required: pip install ./bots/python");
    assert!(root.join("bots/node/node_modules/@grpc/grpc-js").exists(), "run `npm ci` in bots/node");
    let dir = scratch::scratch("languages", "out");
    let o = Command::new(env!("CARGO_BIN_EXE_arena"))
        .current_dir(&root)
        .args([
            "tournament",
            "examples/languages.yaml",
            "--out",
            dir.to_str().unwrap(),
            "--quiet",
            "--games-per-pairing",
            "2",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let records = read_log(&dir).unwrap().records;
    // expedition: 6 pairs × 2 deals × 2 orders; journey: 4 participants × 2 deals.
    assert_eq!(records.len(), 6 * 2 * 2 + 4 * 2, "every game recorded");
    for name in ["python", "node", "rules", "mcts"] {
        assert!(records.iter().any(|r| r.players.iter().any(|p| p == name)), "{name} played");
    }
    assert!(records.iter().all(|r| r.verdicts.is_empty()), "every answer legal and in time");
}
