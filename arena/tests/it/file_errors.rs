//! Files the `arena` binary is given, wrong: a tournament file's mistake names its line and
//! field, an override's names the override, a `deals:` file is read beside the tournament
//! file; `arena replay` refuses a seat its game lacks and says why a file holds no records.

use std::path::Path;
use std::process::{Command, Output};

use crate::scratch;

fn arena(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arena")).current_dir(dir).args(args).output().expect("arena runs")
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let o = arena(dir, args);
    assert!(o.status.success(), "arena {args:?} failed: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// The error of a run that must fail: exit code 2, nothing on stdout, one `error: ` line.
fn fails(dir: &Path, args: &[&str]) -> String {
    let o = arena(dir, args);
    let stderr = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(2), "arena {args:?} should fail: {stderr}");
    assert!(o.stdout.is_empty(), "nothing on stdout when failing: {}", String::from_utf8_lossy(&o.stdout));
    stderr.strip_prefix("error: ").unwrap_or_else(|| panic!("an error line: {stderr}")).trim_end().to_string()
}

/// A tournament file of four participants and two games; `extra` lines go after line 9
/// (before `games:`), and `last` is the second game entry (line 12 without extra lines).
fn tournament(participant_c: &str, extra: &str, last: &str) -> String {
    [
        "name: mistakes",                            // 1
        "seed: 1",                                   // 2
        "games_per_pairing: 1",                      // 3
        "bootstrap: 10",                             // 4
        "participants:",                             // 5
        "  - { name: a, bot: random }",              // 6
        "  - name: b",                               // 7
        "    bot: rules",                            // 8
        &format!("  - {participant_c}"),             // 9
        extra,                                       // 10 (and on)
        "games:",                                    //
        "  - { game: expedition, preset: no-dice }", //
        &format!("  - {last}"),                      //
    ]
    .iter()
    .filter(|l| !l.is_empty())
    .map(|l| format!("{l}\n"))
    .collect()
}

#[test]
fn each_of_five_tournament_file_mistakes_names_its_line_and_field() {
    let root = scratch::scratch("file-errors", "mistakes");
    let dir = root.parent().unwrap();
    let good_c = "{ name: c, bot: greedy }";
    let journey = "{ game: journey }";
    let cases: [(&str, String, String); 8] = [
        // A bad `bot:` spec, in a flow mapping of the list.
        (
            "bot.yaml",
            tournament("{ name: c, bot: \"mcts:depth=x\" }", "", journey),
            "line 9: field `participants[2].bot`: mcts: `depth` expects a whole number (0: to the end), got `x`"
                .into(),
        ),
        // ... and one no agent has, in a block mapping.
        (
            "agent.yaml",
            tournament(good_c, "", journey).replace("    bot: rules", "    bot: mtcs"),
            "line 8: field `participants[1].bot`: unknown agent `mtcs`; the agents are: random, rules, greedy, mcts, strong"
                .into(),
        ),
        // A `deals:` file that is not there (read beside the tournament file).
        (
            "deals.yaml",
            tournament(good_c, "", "{ game: journey, deals: missing-deals.yaml }"),
            format!(
                "line 12: field `games[1].deals`: cannot read {}: ",
                dir.join("missing-deals.yaml").display()
            ),
        ),
        // A `gauntlet:` that is not a participant: one name, then a list of them.
        (
            "gauntlet.yaml",
            tournament(good_c, "gauntlet: zed", journey),
            "line 10: field `gauntlet`: `zed` is not a participant (they are: a, b, c)".into(),
        ),
        (
            "gauntlets.yaml",
            tournament(good_c, "gauntlet:\n  - a\n  - zed", journey),
            "line 12: field `gauntlet[1]`: `zed` is not a participant (they are: a, b, c)".into(),
        ),
        // An unknown field, of the file and of a participant.
        (
            "unknown.yaml",
            tournament(good_c, "colour: red", journey),
            "line 10: unknown field `colour`, expected one of `name`, `seed`, ".into(),
        ),
        (
            "unknown-nested.yaml",
            tournament(good_c, "", journey).replace("    bot: rules", "    bots: rules"),
            "line 8: field `participants[1]`: unknown field `bots`, expected one of `name`, `bot`, ".into(),
        ),
        // A value of the wrong type, nested in a block mapping.
        (
            "type.yaml",
            tournament("name: c\n    bot: greedy\n    move_time_ms: soon", "", journey),
            "line 11: field `participants[2].move_time_ms`: invalid type: string \"soon\", expected u64".into(),
        ),
    ];
    let out = dir.join("out");
    for (name, text, expected) in &cases {
        let file = dir.join(name);
        std::fs::write(&file, text).unwrap();
        let e = fails(dir, &["tournament", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        let whole = format!("{} {expected}", file.display());
        assert!(e.starts_with(&whole), "{name}:\n{text}\nexpected: {whole}\n     got: {e}");
        assert!(!out.exists(), "{name}: nothing is played");
    }
}

#[test]
fn a_mistaken_override_names_the_override_and_no_line() {
    let root = scratch::scratch("file-errors", "overrides");
    let dir = root.parent().unwrap();
    let file = dir.join("t.yaml");
    let text = tournament("{ name: c, bot: greedy }", "", "{ game: journey }");
    assert_eq!(text.lines().count(), 12);
    std::fs::write(&file, &text).unwrap();
    let out = dir.join("out");
    let run =
        |set: &str| fails(dir, &["tournament", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--set", set]);
    let e = run("games_per_pairng=3");
    assert!(
        e.starts_with("--set games_per_pairng=3: unknown field `games_per_pairng`, expected one of `name`, `seed`, "),
        "{e}"
    );
    assert!(!e.contains("line") && !e.contains("t.yaml"), "an override has no line: {e}");
    let e = run("participants[1].bot=mtcs");
    assert!(e.starts_with("--set participants[1].bot=mtcs: field `participants[1].bot`: unknown agent `mtcs`"), "{e}");
    let e = run("gauntlet=[a, zed]");
    assert_eq!(e, "--set gauntlet=[a, zed]: field `gauntlet[1]`: `zed` is not a participant (they are: a, b, c)");
    let e = run("games[0].params.players=9");
    assert!(
        e.starts_with("--set games[0].params.players=9: field `games[0].params.players`: 9 is out of range"),
        "{e}"
    );
    assert!(!e.contains("line"), "{e}");
    // The file's own mistake keeps its line, whatever override comes with it.
    std::fs::write(&file, text.replace("bootstrap: 10", "bootstrap: many")).unwrap();
    let e = run("seed=5");
    assert!(
        e.starts_with(&format!("{} line 4: field `bootstrap`: invalid type: string \"many\"", file.display())),
        "{e}"
    );
}

#[test]
fn a_deals_file_is_read_beside_the_tournament_file_that_names_it() {
    let root = scratch::scratch("file-errors", "deals");
    let top = root.parent().unwrap();
    let folder = top.join("tournaments");
    let elsewhere = top.join("elsewhere");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(folder.join("my-deals.yaml"), "- 21\n- 22\n").unwrap();
    let file = folder.join("t.yaml");
    std::fs::write(
        &file,
        "seed: 3\ngames_per_pairing: 5\nbootstrap: 10\nparticipants:\n  - { name: a, bot: random }\n  - { name: b, bot: rules }\ngames:\n  - { game: journey, deals: my-deals.yaml }\n",
    )
    .unwrap();
    // Run from another folder, where no `my-deals.yaml` is.
    let out = top.join("run");
    ok(&elsewhere, &["tournament", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    let log = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
    let seeds: std::collections::BTreeSet<u64> =
        log.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["seed"].as_u64().unwrap()).collect();
    assert_eq!(log.lines().count(), 2 * 2, "both deals, each by both participants");
    assert_eq!(seeds, [21, 22].into(), "the deals of the file beside the tournament file");
    // A deals file an override names is read from the working directory.
    let out = top.join("run-2");
    let set = "games[0].deals=my-deals.yaml";
    let e = fails(&elsewhere, &["tournament", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--set", set]);
    assert!(
        e.starts_with("--set games[0].deals=my-deals.yaml: field `games[0].deals`: cannot read my-deals.yaml: "),
        "{e}"
    );
    ok(&folder, &["tournament", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet", "--set", set]);
}

/// A records file of one game of `game` (`expedition`: 2 seats; `journey`: 1).
fn records(dir: &Path, game: &str) -> std::path::PathBuf {
    let file = dir.join(format!("{game}.jsonl"));
    ok(dir, &["play", game, "--games", "1", "--bots", "rules", "--records", file.to_str().unwrap()]);
    file
}

#[test]
fn replay_refuses_a_seat_the_recorded_game_does_not_have() {
    let root = scratch::scratch("file-errors", "seats");
    let dir = root.parent().unwrap();
    let expedition = records(dir, "expedition");
    let f = expedition.to_str().unwrap();
    let e = fails(dir, &["replay", f, "--text", "--seat", "7"]);
    assert_eq!(e, "--seat 7: the recorded game (expedition) has 2 seats: 0 to 1");
    assert!(ok(dir, &["replay", f, "--text", "--seat", "1"]).contains("You are seat 1"), "a seat it has is shown");
    let journey = records(dir, "journey");
    let e = fails(dir, &["replay", journey.to_str().unwrap(), "--text", "--seat", "1"]);
    assert_eq!(e, "--seat 1: the recorded game (journey) has 1 seat: seat 0");
    // Games of several seat counts: the one without the seat is named.
    let both = dir.join("both.jsonl");
    let text = std::fs::read_to_string(&expedition).unwrap() + &std::fs::read_to_string(&journey).unwrap();
    std::fs::write(&both, text).unwrap();
    let e = fails(dir, &["replay", both.to_str().unwrap(), "--text", "--seat", "1"]);
    assert_eq!(
        e,
        format!("--seat 1: game 2 of {} (journey) has 1 seat: seat 0; choose a game with --game N", both.display())
    );
    assert!(
        ok(dir, &["replay", both.to_str().unwrap(), "--game", "1", "--text", "--seat", "1"]).contains("You are seat 1")
    );
}

#[test]
fn replay_says_why_a_file_holds_no_records() {
    let root = scratch::scratch("file-errors", "records");
    let dir = root.parent().unwrap();
    // Missing: the system's error, with the path.
    let missing = dir.join("missing.jsonl");
    let e = fails(dir, &["replay", missing.to_str().unwrap()]);
    assert!(e.starts_with(&format!("cannot read {}: ", missing.display())) && e.contains("(os error 2)"), "{e}");
    // Empty.
    let empty = dir.join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    assert_eq!(fails(dir, &["replay", empty.to_str().unwrap()]), format!("{} is empty", empty.display()));
    // One line of prose: which line, why, and only how it begins.
    let prose = dir.join("prose.jsonl");
    let line = format!("my notes: the games went well {}", "and they went on ".repeat(20));
    std::fs::write(&prose, format!("{line}\n")).unwrap();
    let e = fails(dir, &["replay", prose.to_str().unwrap()]);
    assert!(e.starts_with(&format!("{} line 1: not a records file: ", prose.display())), "{e}");
    let begins = format!("it begins {:?}…", &line[..40]);
    assert!(e.contains(&format!("not JSON (expected value at column 1; {begins})")), "{e}");
    assert!(e.ends_with("the file holds no records"), "{e}");
    assert!(e.len() < 300 && !e.contains(&line[..80]), "a short prefix only: {e}");
    // JSON, but not a record.
    let object = dir.join("object.jsonl");
    std::fs::write(&object, "{\"hello\": 1}\n").unwrap();
    let e = fails(dir, &["replay", object.to_str().unwrap()]);
    assert!(e.starts_with(&format!("{} line 1: not a match record: missing field `", object.display())), "{e}");
    // A bad line between records is named by its number.
    let played = records(dir, "expedition");
    let good = std::fs::read_to_string(&played).unwrap();
    let mixed = dir.join("mixed.jsonl");
    std::fs::write(&mixed, format!("{good}not json\n{good}")).unwrap();
    let e = fails(dir, &["replay", mixed.to_str().unwrap()]);
    assert_eq!(e, format!("{} line 2: not JSON (expected ident at column 2; it begins \"not json\")", mixed.display()));
}
