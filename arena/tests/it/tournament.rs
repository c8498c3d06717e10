//! Tournaments: kill and resume, shards, external participants, secret deals, the report
//! (opened in headless Chromium). Verdicts are tested with the referee (`tests/it/referee.rs`).

use arena::record::MatchRecord;
use arena::tournament::log::read_log;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::scratch;
use crate::served;
use scratch::Scratch;

fn temp_dir(name: &str) -> Scratch {
    scratch::scratch("tournament", name)
}

fn no_files(_: &str) -> Result<String, String> {
    Err("no files".into())
}

// ----- kill, resume, shards, report: the binary as a real process ----------------------------

const SMALL: &str = "name: small\nseed: 7\ngames_per_pairing: 24\nconcurrency: 2\nbootstrap: 200\nparticipants:\n  - { name: random, bot: random }\n  - { name: rules, bot: rules }\n  - { name: greedy, bot: \"greedy:samples=2\" }\ngames:\n  - { game: expedition, preset: dice, params: { players: 2 } }\n  - { game: expedition, preset: no-dice, params: { players: 2 } }\n  - { game: journey, preset: classic }\n";

fn arena() -> Command {
    Command::new(env!("CARGO_BIN_EXE_arena"))
}

fn run_ok(cmd: &mut Command) -> String {
    let o = cmd.output().unwrap();
    assert!(o.status.success(), "{cmd:?} failed: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

fn sorted_records(dir: &Path) -> Vec<MatchRecord> {
    let mut r: Vec<MatchRecord> = read_log(dir).unwrap().records.iter().map(MatchRecord::without_timings).collect();
    r.sort_by_key(|r| r.place().job);
    r
}

fn ratings(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("ratings.json")).unwrap()).unwrap()
}

fn small_file() -> Scratch {
    let f = temp_dir("small.yaml");
    std::fs::write(&f, SMALL).unwrap();
    f
}

#[test]
fn a_killed_tournament_resumes_to_the_same_games_and_ratings() {
    let file = small_file();
    let whole = temp_dir("whole");
    run_ok(arena().args(["tournament", file.to_str().unwrap(), "--out", whole.to_str().unwrap(), "--quiet"]));
    let total = read_log(&whole).unwrap().records.len();
    assert!(total > 100);
    // Built-in agents only: the deals are a pure function of the file, no secret is drawn.
    assert!(!whole.join("deal-secret").exists());

    let killed = temp_dir("killed");
    let mut child = served::Process(
        arena()
            .args(["tournament", file.to_str().unwrap(), "--out", killed.to_str().unwrap(), "--quiet"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    // Kill it (SIGKILL) once a few games are logged, well before the end.
    let start = Instant::now();
    loop {
        let n = std::fs::read_to_string(killed.join("games.jsonl")).map(|t| t.lines().count()).unwrap_or(0);
        if n >= 10 {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "no games logged");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let partial = read_log(&killed).unwrap().records.len();
    assert!(partial < total, "the run was killed before its end ({partial} of {total})");
    // A kill mid-write leaves a line cut short: make sure there is one to drop.
    let mut f = std::fs::OpenOptions::new().append(true).open(killed.join("games.jsonl")).unwrap();
    std::io::Write::write_all(&mut f, b"{\"job\": 3, \"grou").unwrap();
    drop(f);

    let out = run_ok(arena().args(["tournament", "--resume", killed.to_str().unwrap(), "--quiet"]));
    assert!(out.contains(&format!("{} were logged before", partial)), "{out}");
    assert_eq!(sorted_records(&killed), sorted_records(&whole), "the same games, move for move");
    assert_eq!(ratings(&killed.join("report")), ratings(&whole.join("report")), "the same ratings");
    // Starting again over a directory with a log is refused and changes nothing.
    let o = arena().args(["tournament", file.to_str().unwrap(), "--out", killed.to_str().unwrap()]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--resume"));
    assert_eq!(read_log(&killed).unwrap().records.len(), total);

    // Shards: three processes, run by the Slurm job-array script as Slurm would (one task per
    // shard), then one report over their directories.
    let root = temp_dir("slurm");
    for k in 0..3 {
        run_ok(&mut slurm_task(&file, &root, 3, k));
    }
    let shards: Vec<PathBuf> = (0..3).map(|k| root.join(format!("shard-{k}"))).collect();
    for dir in &shards {
        assert!(dir.join("games.jsonl").exists());
        assert!(!dir.join("report").exists(), "a shard alone is not reported");
        // Its output, in the results folder; the file's `concurrency: 2` outranks Slurm's CPUs.
        let log = std::fs::read_to_string(dir.join("output.log")).unwrap();
        assert!(log.contains("--cpus 1") && log.contains("with 2 workers"), "{log}");
    }
    let merged = temp_dir("merged");
    let mut args: Vec<String> = vec!["report".into()];
    args.extend(shards.iter().map(|d| d.display().to_string()));
    args.extend(["--out".into(), merged.display().to_string()]);
    run_ok(arena().args(&args));
    assert_eq!(ratings(&merged), ratings(&whole.join("report")), "shards give the ratings of one run");
    // A missing shard: the merge fails, naming it, and writes nothing; allowed, it is noted.
    let partial = temp_dir("partial");
    let o = arena()
        .args(["report", shards[0].to_str().unwrap(), shards[1].to_str().unwrap(), "--out", partial.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    let lacking = sorted_records(&shards[2]).len();
    assert!(err.contains(&format!("{lacking} of {total} games missing")), "{err}");
    assert!(err.contains(&format!("shard 2/3: no directory given ({lacking} games missing)")), "{err}");
    assert!(!partial.exists(), "nothing written");
    let report = run_ok(arena().args([
        "report",
        shards[0].to_str().unwrap(),
        shards[1].to_str().unwrap(),
        "--out",
        partial.to_str().unwrap(),
        "--allow-incomplete",
    ]));
    assert!(report.contains("missing"), "{report}");
    // Twice the same shard: refused, naming it; allowed, the duplicates are noted.
    let o = arena()
        .args(["report", shards[0].to_str().unwrap(), shards[0].to_str().unwrap(), shards[1].to_str().unwrap()])
        .args(["--out", temp_dir("twice").to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("{} is given twice", shards[0].display())), "{err}");
    let report = run_ok(arena().args([
        "report",
        shards[0].to_str().unwrap(),
        shards[0].to_str().unwrap(),
        "--out",
        temp_dir("twice").to_str().unwrap(),
        "--allow-incomplete",
    ]));
    assert!(report.contains("logged twice"), "{report}");

    // The Kubernetes Indexed Job runs the same shards: its container command, run here as
    // each pod would run it (JOB_COMPLETION_INDEX set, the image's PATH, the volume and the
    // config map at temporary paths), plays the same games; the report Job merges them.
    let deploy = Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy");
    let manifest = std::fs::read_to_string(deploy.join("k8s-indexed-job.yaml")).unwrap();
    let job: serde_yaml::Value = serde_yaml::from_str(manifest.split("\n---").next().unwrap()).unwrap();
    let spec = &job["spec"];
    assert_eq!(spec["completionMode"], "Indexed");
    assert_eq!(spec["completions"], spec["parallelism"]);
    let container = &spec["template"]["spec"]["containers"][0];
    let env = |name: &str| {
        container["env"].as_sequence().unwrap().iter().find(|e| e["name"] == name).unwrap_or_else(|| panic!("{name}"))
    };
    // The shard count is fixed in the manifest, equal to the completions.
    assert_eq!(env("SHARDS")["value"].as_str().unwrap(), spec["completions"].as_u64().unwrap().to_string());
    let cpus = &env("CPUS")["valueFrom"]["resourceFieldRef"];
    assert_eq!((&cpus["containerName"], &cpus["resource"]), (&container["name"], &"requests.cpu".into()));
    let k8s = temp_dir("k8s");
    let bin = k8s.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_arena"), bin.join("arena")).unwrap();
    std::os::unix::fs::symlink(deploy.join("arena-shard.sh"), bin.join("arena-shard.sh")).unwrap();
    let results = k8s.join("results");
    let in_pod = |text: &str| {
        text.replace("/config/tournament.yaml", file.to_str().unwrap()).replace("/results", results.to_str().unwrap())
    };
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let mut pod: Vec<String> =
        container["command"].as_sequence().unwrap().iter().map(|v| in_pod(v.as_str().unwrap())).collect();
    pod.extend(container["args"].as_sequence().unwrap().iter().map(|v| in_pod(v.as_str().unwrap())));
    for (k, shard) in shards.iter().enumerate() {
        run_ok(
            Command::new(&pod[0])
                .args(&pod[1..])
                .env("PATH", &path)
                .env_remove("ARENA")
                .env("SHARDS", "3")
                .env("CPUS", "1")
                .env("JOB_COMPLETION_INDEX", k.to_string()),
        );
        let dir = results.join(format!("shard-{k}"));
        assert_eq!(sorted_records(&dir), sorted_records(shard));
        assert!(std::fs::read_to_string(dir.join("output.log")).unwrap().contains("played"));
    }
    let report_job: serde_yaml::Value =
        serde_yaml::from_str(&std::fs::read_to_string(deploy.join("k8s-report-job.yaml")).unwrap()).unwrap();
    let merge: Vec<String> = report_job["spec"]["template"]["spec"]["containers"][0]["command"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|v| in_pod(v.as_str().unwrap()))
        .collect();
    run_ok(Command::new(&merge[0]).args(&merge[1..]).env("PATH", &path).env_remove("ARENA"));
    assert_eq!(ratings(&results.join("report")), ratings(&whole.join("report")), "the report Job's merge");
}

/// One task of `deploy/slurm-array.sh` as Slurm runs it: the tournament in `shards` shards into
/// `root`, task `index` of an array whose size (2) is not the shard count.
fn slurm_task(file: &Path, root: &Path, shards: u32, index: u32) -> Command {
    let mut cmd = Command::new("bash");
    cmd.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/slurm-array.sh"))
        .args([file.to_str().unwrap(), root.to_str().unwrap(), &shards.to_string()])
        .env("SLURM_ARRAY_TASK_COUNT", "2")
        .env("SLURM_ARRAY_TASK_ID", index.to_string())
        .env("SLURM_CPUS_PER_TASK", "1")
        .env("ARENA", env!("CARGO_BIN_EXE_arena"));
    cmd
}

fn failure(cmd: &mut Command) -> String {
    let o = cmd.output().unwrap();
    assert!(!o.status.success(), "{cmd:?} succeeded");
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// Shards name themselves: the count is the run's, never the array's, so any subset of tasks
/// run again plays exactly its shards; a task past the count, a folder of another split and a
/// missing binary are refused, saying so. The workers follow Slurm's CPUs when the file sets
/// no `concurrency`.
#[test]
fn any_subset_of_shards_run_again_plays_the_same_games() {
    let file = temp_dir("subset.yaml");
    std::fs::write(
        &file,
        SMALL.replace("games_per_pairing: 24", "games_per_pairing: 6").replace("concurrency: 2\n", ""),
    )
    .unwrap();
    let all = temp_dir("subset-all");
    for k in 0..4 {
        let out = run_ok(&mut slurm_task(&file, &all, 4, k));
        assert!(out.contains("with 1 workers"), "one worker per CPU granted: {out}");
    }
    // `--array=1-3` with 4 shards: shards 1/4, 2/4 and 3/4, the same games.
    let again = temp_dir("subset-again");
    for k in 1..4 {
        run_ok(&mut slurm_task(&file, &again, 4, k));
        let dir = |root: &Path| root.join(format!("shard-{k}"));
        assert_eq!(sorted_records(&dir(&again)), sorted_records(&dir(&all)), "shard {k}/4");
    }
    // A finished shard run again has nothing left to play, and its output log grows.
    let out = run_ok(&mut slurm_task(&file, &all, 4, 2));
    assert!(out.contains("played 0 games"), "{out}");
    let log = std::fs::read_to_string(all.join("shard-2/output.log")).unwrap();
    assert_eq!(log.lines().filter(|l| l.starts_with("== ")).count(), 2, "appended: {log}");
    // A task past the count; a folder that holds another split; a binary nowhere to be found.
    let err = failure(&mut slurm_task(&file, &all, 4, 4));
    assert!(err.contains("task 4 is out of range: this run has 4 shards, numbered 0 to 3"), "{err}");
    let err = failure(&mut slurm_task(&file, &all, 3, 1));
    assert!(err.contains("holds shard 1/4, not shard 1/3"), "{err}");
    let lone = temp_dir("subset-lone");
    std::fs::create_dir_all(&lone).unwrap();
    let script = lone.join("arena-shard.sh");
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/arena-shard.sh"), &script).unwrap();
    let err = failure(
        Command::new("bash")
            .arg(&script)
            .args(["play", file.to_str().unwrap(), lone.join("out").to_str().unwrap(), "2", "0"])
            .env_remove("ARENA")
            .env("PATH", "/usr/bin:/bin"),
    );
    assert!(err.contains("cannot find the arena binary"), "{err}");
}

/// Headless Chromium, as the machine's probe starts it, dumping the DOM of `url` once its
/// scripts ran; the DOM and any console messages.
fn chromium_dom(url: &str) -> (String, Vec<String>) {
    let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .iter()
        .find(|p| Path::new(p).exists())
        .expect("headless Chromium is required (Debian's `chromium`, installed by .ci/run)");
    let profile = temp_dir(&format!("chromium-profile-{}", url.len()));
    let o = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=3000",
            &format!("--user-data-dir={}", profile.display()),
            "--dump-dom",
            url,
        ])
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success(), "chromium failed: {log}");
    let console =
        log.lines().filter(|l| l.contains("CONSOLE") || l.contains("Failed to load")).map(str::to_string).collect();
    (String::from_utf8_lossy(&o.stdout).to_string(), console)
}

/// The report page opens from disk in headless Chromium with no console message and shows
/// every chart; a game it links to steps forward with its `next` button.
#[test]
#[ignore = "needs headless Chromium: .ci/run installs Debian's chromium and runs it"]
fn the_report_and_its_game_pages_open_in_a_browser() {
    let file = small_file();
    let dir = temp_dir("browser");
    run_ok(arena().args(["tournament", file.to_str().unwrap(), "--out", dir.to_str().unwrap(), "--quiet"]));
    let report = dir.join("report");
    let (dom, console) = chromium_dom(&format!("file://{}", report.join("index.html").display()));
    assert!(console.is_empty(), "console messages: {console:?}");
    for chart in ["ratings", "progression", "head_to_head", "variants"] {
        assert!(dom.contains(chart), "the page shows no `{chart}` chart");
    }
    let charts = dom.matches("<svg").count() + dom.matches("data:image/png").count();
    assert!(charts >= 4, "{charts} charts rendered");
    // Games to watch: every pairing of every entry links its games.
    assert!(dom.contains("Games to watch"));
    let link = dom.split("href=\"games/").nth(1).expect("a game linked").split('"').next().unwrap().to_string();
    let page = report.join("games").join(&link);
    assert!(page.exists(), "{link}");
    // Step through it: three presses of `next` show position 3, its mover and move.
    let job: u64 = link.trim_start_matches("game-").trim_end_matches(".html").parse().unwrap();
    let record = sorted_records(&dir).into_iter().find(|r| r.place().job == job).unwrap();
    let mut labels = Vec::new();
    record
        .replay(&no_files, |g| {
            if let Some(&a) = record.game.actions.get(labels.len()) {
                labels.push(g.action_label(a));
            }
        })
        .unwrap();
    let (dom, console) = chromium_dom(&format!("file://{}?next=3", page.display()));
    assert!(console.is_empty(), "console messages: {console:?}");
    assert!(dom.contains(&format!("position 3 of {}", record.game.actions.len())), "{dom}");
    assert!(dom.contains(&html_escape(&labels[3])), "the move made from position 3: {}", labels[3]);
    assert!(dom.contains("sees") && dom.matches("<pre>").count() == record.players.len(), "every seat's view");
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[test]
fn external_participants_play_over_the_play_stream() {
    // One external participant launched by the arena, one that connects by itself.
    let bin = env!("CARGO_BIN_EXE_arena");
    let text = format!(
        // (Unconfined, so that a plain `cargo test` needs no bubblewrap: the sandbox's own tests
        // are the ignored ones below, which .ci/run runs.)
        "name: external\nseed: 3\ngames_per_pairing: 4\nconcurrency: 2\nbootstrap: 100\nmove_time_ms: 10000\nisolation: none\nlimits: none\nparticipants:\n  - {{ name: random, bot: random }}\n  - {{ name: launched, command: \"{bin} bot rules --server $ARENA_SERVER --name $ARENA_NAME\" }}\n  - {{ name: visitor, connect: true }}\ngames:\n  - {{ game: expedition, preset: no-dice, params: {{ players: 2 }} }}\n  - {{ game: journey, preset: classic }}\n"
    );
    let file = temp_dir("external.yaml");
    std::fs::write(&file, text).unwrap();
    let out = temp_dir("external-out");
    // The arena says where the visitor should connect.
    let (mut child, url, _err) = served::tournament_awaiting_visitors(&file, &out);
    let mut visitor = served::Process(
        Command::new(bin)
            .args(["bot", "greedy", "--server", &url, "--name", "visitor"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let status = child.wait().unwrap();
    assert!(status.success());
    let _ = visitor.wait();
    let records = read_log(&out).unwrap().records;
    assert_eq!(records.len(), 2 * 3 * 4 + 3 * 4, "every game played");
    assert!(records.iter().all(|r| r.verdicts.is_empty()), "no verdicts");
    for name in ["launched", "visitor"] {
        assert!(records.iter().any(|r| r.players.iter().any(|p| p == name)));
    }
    let standings = std::fs::read_to_string(out.join("report/standings.md")).unwrap();
    assert!(standings.contains("launched") && standings.contains("visitor"), "{standings}");
}

/// The deal seeds of a tournament directory, by game id.
fn seeds(dir: &Path) -> Vec<(u64, u64)> {
    sorted_records(dir).iter().map(|r| (r.place().job, r.game.seed)).collect()
}

#[test]
#[ignore = "needs bubblewrap: .ci/run installs it and runs it"]
fn a_launched_participant_inherits_no_secret_and_runs_under_its_sandbox() {
    let bin = env!("CARGO_BIN_EXE_arena");
    let out = temp_dir("env-out");
    let dumps = temp_dir("env-dumps");
    std::fs::create_dir_all(&dumps).unwrap();
    // Each command writes its environment down, then plays.
    let command = |name: &str| {
        format!("env > {}/{name}.env; exec {bin} bot random --server $ARENA_SERVER --name $ARENA_NAME", dumps.display())
    };
    // Both write in `dumps`, the rest of the system read-only in their sandboxes; `boxed` runs
    // under an operator's command (which notes that it ran), and is given a variable.
    let prefix = format!("sh -c 'echo ran > {}/boxed.prefix; exec \\\"$@\\\"' prefix", dumps.display());
    let text = format!(
        "name: env\nseed: 5\ngames_per_pairing: 1\nconcurrency: 1\nbootstrap: 10\nmove_time_ms: 10000\nparticipants:\n  - {{ name: plain, command: \"{}\", writable: [{dumps}] }}\n  - {{ name: boxed, command: \"{}\", sandbox: \"{prefix}\", writable: [{dumps}], env: {{ GIVEN: 'its own', OMP_NUM_THREADS: '1' }} }}\ngames:\n  - {{ game: expedition, preset: no-dice, params: {{ players: 2 }} }}\n",
        command("plain"),
        command("boxed"),
        dumps = dumps.display()
    );
    let file = temp_dir("env.yaml");
    std::fs::write(&file, text).unwrap();
    let secret = "0123456789abcdef0123456789abcdef";
    run_ok(
        arena()
            .args(["tournament", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"])
            .env("ARENA_DEAL_SECRET", secret)
            .env("ARENA_KEY", "the-name-key")
            .env("LAB_API_TOKEN", "the-lab-token")
            .env("NOT_PASSED_ON", "the arena's"),
    );
    for name in ["plain", "boxed"] {
        let env = std::fs::read_to_string(dumps.join(format!("{name}.env"))).unwrap();
        for leaked in [secret, "the-name-key", "the-lab-token", "NOT_PASSED_ON"] {
            assert!(!env.contains(leaked), "{name} inherited {leaked}: {env}");
        }
        // A fresh environment: where to connect (its relay, on its own loopback), its name,
        // PATH, its own HOME and temporary folder, and what the file gives it.
        assert!(env.contains("ARENA_NAME=") && env.contains("ARENA_SERVER=http://127.0.0.1:50051\n"), "{env}");
        assert!(env.contains("\nPATH=") && env.contains("HOME=/dev/shm") && env.contains("TMPDIR=/dev/shm"), "{env}");
        assert_eq!(
            env.contains("GIVEN=its own\n") && env.contains("OMP_NUM_THREADS=1"),
            name == "boxed",
            "{name}: {env}"
        );
    }
    assert!(dumps.join("boxed.prefix").exists() && !dumps.join("plain.prefix").exists());
    // A sandbox or a writable folder without a command, or a sandbox that is not a command, is
    // refused by name.
    for (participant, field, why) in [
        ("{ name: b, bot: random, sandbox: sudo }", "sandbox", "only a `command`"),
        ("{ name: b, command: x, sandbox: \"'unclosed\" }", "sandbox", "not a command"),
        ("{ name: b, bot: random, writable: [logs] }", "writable", "only a `command`"),
        ("{ name: b, command: x, writable: [\"\"] }", "writable[0]", "is empty"),
        ("{ name: b, bot: random, env: { A: b } }", "env", "only a `command`"),
        ("{ name: b, command: x, env: { 'A-B': c } }", "env.A-B", "not a variable's name"),
        ("{ name: b, command: x, env: { 9A: c } }", "env.9A", "not a variable's name"),
        ("{ name: b, command: x, env: { ARENA_SERVER: c } }", "env.ARENA_SERVER", "set by the arena"),
    ] {
        let text = format!(
            "games_per_pairing: 1\nparticipants:\n  - {{ name: a, bot: random }}\n  - {participant}\ngames: [{{game: journey}}]\n"
        );
        let e = arena::tournament::Tournament::load("t.yaml", &text, &no_files).err().unwrap();
        assert!(e.contains(&format!("participants[1].{field}")) && e.contains(why), "{e}");
    }
}

/// What a sandboxed participant tries before it plays (`python3 - REPORT PORT < PROBE`): a
/// connection to a port of the host's loopback, to the world, to the host's services' sockets;
/// reading what only root may; writing outside its folders. One line per try in REPORT.
const REACH: &str = r#"
import os, socket, sys
report, port = sys.argv[1], int(sys.argv[2])
lines = []
def tried(what, f):
    try:
        lines.append("%s: done %r" % (what, f()))
    except Exception as e:
        lines.append("%s: refused %s" % (what, type(e).__name__))
tried("host port", lambda: socket.create_connection(("127.0.0.1", port), timeout=2).close())
tried("world", lambda: socket.create_connection(("1.1.1.1", 53), timeout=2).close())
tried("run", lambda: sorted(os.listdir("/run")))
tried("shadow", lambda: open("/etc/shadow").read()[:40])
tried("write tmp", lambda: open("/tmp/arena-sandbox-escape", "w").write("x"))
tried("write scratch", lambda: open(os.environ["TMPDIR"] + "/mine", "w").write("x"))
open(report + "/reach.txt", "w").write("\n".join(lines) + "\n")
"#;

#[test]
#[ignore = "needs bubblewrap: .ci/run installs it and runs it"]
fn a_sandboxed_participant_reaches_the_arena_and_nothing_else() {
    let bin = env!("CARGO_BIN_EXE_arena");
    let scratch = temp_dir("reach");
    let report = scratch.join("report");
    std::fs::create_dir_all(&report).unwrap();
    std::fs::write(scratch.join("reach.py"), REACH).unwrap();
    // A port of the host's loopback the probe is told of (it must not reach it).
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let command = format!(
        "python3 - {report} {port} < {probe} && exec {bin} bot random --server $ARENA_SERVER --name $ARENA_NAME",
        report = report.display(),
        probe = scratch.join("reach.py").display()
    );
    let file = scratch.join("reach.yaml");
    std::fs::write(&file, format!(
        "name: reach\nseed: 4\ngames_per_pairing: 2\nconcurrency: 1\nbootstrap: 10\nmove_time_ms: 10000\nparticipants:\n  - {{ name: random, bot: random }}\n  - {{ name: probe, command: \"{command}\", writable: [{}] }}\ngames:\n  - {{ game: expedition, preset: no-dice, params: {{ players: 2 }} }}\n",
        report.display()
    ))
    .unwrap();
    let run = scratch.join("run");
    run_ok(arena().args(["tournament", file.to_str().unwrap(), "--out", run.to_str().unwrap(), "--quiet"]));
    let reach = std::fs::read_to_string(report.join("reach.txt")).unwrap();
    for refused in ["host port", "world", "shadow", "write tmp"] {
        assert!(reach.contains(&format!("{refused}: refused")), "{refused}: {reach}");
    }
    // Its /run holds the arena's socket's folder and its binary (the relay) alone; its scratch
    // folder is its own.
    assert!(reach.contains("run: done ['arena', 'bin']") && reach.contains("write scratch: done 1"), "{reach}");
    assert!(matches!(listener.accept(), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock));
    assert!(!Path::new("/tmp/arena-sandbox-escape").exists());
    // And it played every game, through its relay to the arena's socket.
    let log = std::fs::read_to_string(run.join("games.jsonl")).unwrap();
    assert_eq!(log.lines().filter(|l| l.contains("\"verdict\":null") || !l.contains("verdict")).count(), 4, "{log}");
}

/// A participant that looks for the deal secret wherever a process of the operator's user
/// could: its own environment; the command line, environment and memory of its parent and
/// grandparent (`/proc/$PPID/…`: the arena, unless a sandbox hides it); the folders their
/// command lines name and the run's folder; then it plays. `sh PROBE REPORT RUN COMMAND…`
/// writes what it read into the folder REPORT, one file per place (errors included).
const PROBE: &str = r#"report=$1; run=$2; shift 2
env > "$report/own.env" 2>&1
pid=$PPID; depth=0
while [ "$pid" -gt 0 ] && [ "$depth" -lt 2 ]; do
  tr '\0' ' ' < /proc/$pid/cmdline > "$report/$pid.cmdline" 2>&1
  tr '\0' '\n' < /proc/$pid/environ > "$report/$pid.environ" 2>&1
  { grep ' rw' /proc/$pid/maps | while read -r range rest; do
      start=$((0x${range%-*})); end=$((0x${range#*-}))
      dd if=/proc/$pid/mem iflag=skip_bytes,count_bytes skip=$start count=$((end - start)) bs=1M status=none
    done; } > "$report/$pid.mem" 2>&1
  for word in $(tr '\0' '\n' < /proc/$pid/cmdline) "$run"; do
    if [ -d "$word" ]; then echo "$word:"; ls -a "$word"; cat "$word/deal-secret"; fi
  done > "$report/$pid.folders" 2>&1
  pid=$(awk '/^PPid:/ { print $2 }' /proc/$pid/status)
  depth=$((depth + 1))
done
exec "$@"
"#;

/// What a probe (above) read, file by file, and whether any of it holds `secret`.
struct Probed {
    files: std::collections::BTreeMap<String, Vec<u8>>,
}

impl Probed {
    fn read(report: &Path) -> Probed {
        let files = std::fs::read_dir(report)
            .unwrap()
            .map(|f| {
                let path = f.unwrap().path();
                (path.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&path).unwrap())
            })
            .collect();
        Probed { files }
    }

    /// The files that hold `secret`.
    fn holding(&self, secret: &str) -> Vec<&str> {
        let s = secret.as_bytes();
        self.files.iter().filter(|(_, b)| b.windows(s.len()).any(|w| w == s)).map(|(n, _)| n.as_str()).collect()
    }

    fn text(&self, name: &str) -> String {
        String::from_utf8_lossy(&self.files[name]).into_owned()
    }

    /// The processes it looked at, by their files' pid.
    fn pids(&self) -> Vec<String> {
        self.files.keys().filter_map(|n| n.strip_suffix(".cmdline")).map(str::to_string).collect()
    }
}

#[test]
#[ignore = "needs bubblewrap: .ci/run installs it and runs it"]
fn a_launched_participant_cannot_learn_the_deal_secret() {
    let bin = env!("CARGO_BIN_EXE_arena");
    let secret = "5ec7e7d0a1b2c3d4e5f60718293a4b5c";
    let scratch = temp_dir("probe");
    std::fs::create_dir_all(&scratch).unwrap();
    let probe = scratch.join("probe.sh");
    std::fs::write(&probe, PROBE).unwrap();
    // A tournament with the probe as a participant, its report in REPORT (made beforehand, given
    // to it to write in).
    let (run, report) = (scratch.join("run"), scratch.join("report"));
    std::fs::create_dir_all(&report).unwrap();
    let command = format!(
        "sh {} {} {} {bin} bot random --server $ARENA_SERVER --name $ARENA_NAME",
        probe.display(),
        report.display(),
        run.display()
    );
    let file = scratch.join("probe.yaml");
    std::fs::write(&file, format!(
        "name: probe\nseed: 9\ngames_per_pairing: 2\nconcurrency: 1\nbootstrap: 10\nmove_time_ms: 10000\nparticipants:\n  - {{ name: random, bot: random }}\n  - {{ name: probe, command: \"{command}\", writable: [{}] }}\ngames:\n  - {{ game: expedition, preset: no-dice, params: {{ players: 2 }} }}\n",
        report.display()
    ))
    .unwrap();
    let started = arena()
        .args(["tournament", file.to_str().unwrap(), "--out", run.to_str().unwrap(), "--quiet"])
        .env("ARENA_DEAL_SECRET", secret)
        .output()
        .unwrap();
    assert!(started.status.success(), "{}", String::from_utf8_lossy(&started.stderr));

    // In its sandbox (the default): it read every place, and found the secret in none.
    let probed = Probed::read(&report);
    assert!(probed.holding(secret).is_empty(), "the secret, found in {:?}", probed.holding(secret));
    let own = probed.text("own.env");
    assert!(!own.contains("ARENA_DEAL_SECRET") && own.contains("ARENA_NAME=probe"), "{own}");
    let pids = probed.pids();
    assert!(!pids.is_empty(), "it looked at its parent: {:?}", probed.files.keys());
    for pid in &pids {
        for kind in ["cmdline", "environ", "mem", "folders"] {
            assert!(probed.files.contains_key(&format!("{pid}.{kind}")), "{pid}.{kind}");
        }
        // Its parents are its own shell and the sandbox's first process, never the arena.
        let cmdline = probed.text(&format!("{pid}.cmdline"));
        assert!(!cmdline.contains(" tournament "), "process {pid} is the arena: {cmdline}");
        // The run's folder is there, and empty.
        let folders = probed.text(&format!("{pid}.folders"));
        assert!(folders.contains(&format!("{}:\n.\n..\n", run.display())), "{folders}");
        assert!(folders.contains("deal-secret: No such file or directory"), "{folders}");
    }
    // The deals still follow from the secret (and the file's seed): those of the tournament
    // sealed with it, no others.
    assert_eq!(std::fs::read_to_string(run.join("deal-secret")).unwrap().trim(), secret);
    let mut t = arena::tournament::Tournament::load("t", &std::fs::read_to_string(&file).unwrap(), &no_files).unwrap();
    t.seal_deals(secret).unwrap();
    let dealt: Vec<(u64, u64)> = t.jobs.iter().map(|j| (j.id, j.seed)).collect();
    assert_eq!(seeds(&run), dealt);

    // Unconfined (`isolation: none` in the run's file, as one resumes it so), the same probe
    // finds the secret in the run's folder, which the arena's command line names. The arena's
    // environment block is scrubbed even so (where the probe may read it at all: the arena
    // holding a secret is not dumpable, so only root's processes do).
    let log = std::fs::read_to_string(run.join("games.jsonl")).unwrap();
    std::fs::write(run.join("games.jsonl"), format!("{}\n", log.lines().next().unwrap())).unwrap();
    let kept = run.join("tournament.yaml");
    std::fs::write(&kept, format!("{}isolation: none\n", std::fs::read_to_string(&kept).unwrap())).unwrap();
    for f in std::fs::read_dir(&report).unwrap() {
        std::fs::remove_file(f.unwrap().path()).unwrap();
    }
    run_ok(arena().args(["tournament", "--resume", run.to_str().unwrap(), "--quiet"]).env("ARENA_DEAL_SECRET", secret));
    let probed = Probed::read(&report);
    let holding = probed.holding(secret);
    assert!(holding.iter().any(|f| f.ends_with(".folders")), "found in {holding:?}");
    let arena_pid = probed
        .pids()
        .into_iter()
        .find(|pid| probed.text(&format!("{pid}.cmdline")).contains(&format!("--resume {} ", run.display())))
        .expect("the probe's parent or grandparent is the arena");
    let environ = probed.text(&format!("{arena_pid}.environ"));
    assert!(!environ.contains(secret), "{environ}");
    assert!(
        environ.contains("Permission denied") || environ.contains("ARENA_DEAL_SECRET=xxxxxxxxxxxxxxxx"),
        "{environ}"
    );
    // The resumed games are dealt as before.
    assert_eq!(seeds(&run), dealt);
}

#[test]
fn deals_with_an_external_participant_follow_a_secret_of_the_run() {
    let bin = env!("CARGO_BIN_EXE_arena");
    let text = format!(
        "name: secret\nseed: 5\ngames_per_pairing: 3\nconcurrency: 1\nbootstrap: 50\nmove_time_ms: 10000\nisolation: none\nlimits: none\nparticipants:\n  - {{ name: random, bot: random }}\n  - {{ name: visitor, command: \"{bin} bot random --server $ARENA_SERVER --name $ARENA_NAME\" }}\ngames:\n  - {{ game: expedition, preset: no-dice, params: {{ players: 2 }} }}\n"
    );
    let file = temp_dir("secret.yaml");
    std::fs::write(&file, text).unwrap();
    let run = |out: &Path| {
        run_ok(arena().args(["tournament", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]))
    };
    let (a, b) = (temp_dir("secret-a"), temp_dir("secret-b"));
    run(&a);
    run(&b);
    let (sa, sb) = (seeds(&a), seeds(&b));
    assert_eq!(sa.len(), 6);
    assert!(sa.iter().zip(&sb).all(|(x, y)| x.0 == y.0 && x.1 != y.1), "two runs of one file deal differently");
    // Neither deals what the file alone would.
    let t = arena::tournament::Tournament::load("t", &std::fs::read_to_string(&file).unwrap(), &no_files).unwrap();
    assert!(t.jobs.iter().all(|j| sa.iter().all(|(_, s)| *s != j.seed)));
    // The secret stays in the directory, for its owner only.
    let secret = a.join("deal-secret");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&secret).unwrap().permissions().mode() & 0o777, 0o600);
    // Resume deals the same games: keep the first two logged games, resume the rest.
    let log = std::fs::read_to_string(a.join("games.jsonl")).unwrap();
    let head: Vec<&str> = log.lines().take(2).collect();
    std::fs::write(a.join("games.jsonl"), format!("{}\n", head.join("\n"))).unwrap();
    let out = run_ok(arena().args(["tournament", "--resume", a.to_str().unwrap(), "--quiet"]));
    assert!(out.contains("2 were logged before"), "{out}");
    assert_eq!(seeds(&a), sa, "resumed games are dealt as before");
    run_ok(arena().args(["report", a.to_str().unwrap(), "--out", temp_dir("secret-report").to_str().unwrap()]));
    // Without its secret, the directory's deals cannot be known again: refused, named.
    std::fs::remove_file(&secret).unwrap();
    let o = arena().args(["tournament", "--resume", a.to_str().unwrap(), "--quiet"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("deal-secret"), "{}", String::from_utf8_lossy(&o.stderr));
    // Shards of such a tournament share one secret, given to each.
    let o = arena()
        .args([
            "tournament",
            file.to_str().unwrap(),
            "--out",
            temp_dir("secret-shard").to_str().unwrap(),
            "--shard",
            "0/2",
        ])
        .env_remove("ARENA_DEAL_SECRET")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("ARENA_DEAL_SECRET"));
    let shards: Vec<Scratch> = (0..2).map(|k| temp_dir(&format!("secret-shard-{k}"))).collect();
    for (k, dir) in shards.iter().enumerate() {
        run_ok(
            arena()
                .args(["tournament", file.to_str().unwrap(), "--out", dir.to_str().unwrap(), "--quiet"])
                .args(["--shard", &format!("{k}/2")])
                .env("ARENA_DEAL_SECRET", "00112233445566778899aabbccddeeff"),
        );
    }
    let merged = run_ok(arena().args([
        "report",
        shards[0].to_str().unwrap(),
        shards[1].to_str().unwrap(),
        "--out",
        temp_dir("secret-merged").to_str().unwrap(),
    ]));
    assert!(merged.contains("6 games played of 6"), "{merged}");
}

#[test]
fn a_host_that_cannot_sandbox_says_what_is_missing_and_how_to_opt_out() {
    let scratch = temp_dir("unsandboxed");
    let bin = scratch.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let file = scratch.join("t.yaml");
    let tournament = |participant: &str, path: &std::ffi::OsStr| {
        std::fs::write(&file, format!(
            "games_per_pairing: 1\nparticipants:\n  - {{ name: a, bot: random }}\n  - {participant}\ngames: [{{game: expedition, preset: no-dice}}]\n"
        ))
        .unwrap();
        let out = scratch.join("out");
        let o = arena()
            .args(["tournament", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"])
            .env("PATH", path)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2));
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let launched = "{ name: b, command: \"./bot\" }";
    // No bubblewrap on PATH.
    let e = tournament(launched, bin.as_os_str());
    for words in [
        "participant `b`",
        "bubblewrap (`bwrap`) is not on PATH",
        "apt-get install bubblewrap",
        "isolation: none",
        "--set isolation=none",
    ] {
        assert!(e.contains(words), "{words}: {e}");
    }
    // A bubblewrap that the kernel refuses its namespaces (as bwrap says it).
    let fake = bin.join("bwrap");
    std::fs::write(&fake, "#!/bin/sh\necho 'bwrap: No permissions to create a new namespace, likely because the kernel does not allow non-privileged user namespaces.' >&2\nexit 1\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let e = tournament(launched, bin.as_os_str());
    for words in [
        "bubblewrap cannot make the sandbox here",
        "No permissions to create a new namespace",
        "needs user namespaces",
        "isolation: none",
    ] {
        assert!(e.contains(words), "{words}: {e}");
    }
    // A folder to write in that is not there.
    let e = tournament("{ name: b, command: \"./bot\", writable: [no-such-folder] }", bin.as_os_str());
    assert!(e.contains("participant `b`: the folder to write in no-such-folder"), "{e}");
    // Nothing was made, let alone played.
    assert!(!scratch.join("out").exists());
    // One inside the run's folder, which its sandbox hides (the host's own bubblewrap).
    let inside = scratch.join("out/logs");
    std::fs::create_dir_all(&inside).unwrap();
    let system = std::env::var_os("PATH").unwrap();
    let e = tournament(&format!("{{ name: b, command: \"./bot\", writable: [{}] }}", inside.display()), &system);
    assert!(e.contains("is inside") && e.contains("which the sandbox hides"), "{e}");
    // One around it, where the participant could move it away.
    let e = tournament(&format!("{{ name: b, command: \"./bot\", writable: [{}] }}", scratch.display()), &system);
    assert!(e.contains("holds") && e.contains("which the sandbox hides"), "{e}");
    assert!(!scratch.join("out/games.jsonl").exists());
}

#[test]
fn a_launched_participant_that_exits_before_it_connects_fails_the_start_at_once_saying_how() {
    let scratch = temp_dir("exits");
    std::fs::create_dir_all(&scratch).unwrap();
    let file = scratch.join("t.yaml");
    // The start must not wait out the connect timeout (before, it did, and said only that).
    std::fs::write(
        &file,
        "games_per_pairing: 1\nisolation: none\nlimits: none\nconnect_timeout_s: 60\nparticipants:\n  - { name: a, bot: random }\n  - \
         { name: quitter, command: \"echo no model file here >&2; exit 7\" }\ngames: [{game: expedition, preset: \
         no-dice}]\n",
    )
    .unwrap();
    let out = scratch.join("out");
    let o = arena()
        .args(["tournament", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    for words in ["participant `quitter` exited", "exit status: 7", "before it connected", "no model file here"] {
        assert!(e.contains(words), "{words}: {e}");
    }
}

/// The tournament as a user drives it: a gauntlet plays only its participant's pairings, the
/// command line overrides the file (and `--resume` keeps the override), a deals file is
/// played by every pairing, and the variant section's figures are those of the log.
#[test]
fn gauntlets_overrides_deals_and_the_variant_section() {
    let dir = temp_dir("driven");
    std::fs::create_dir_all(&dir).unwrap();
    let deals = dir.join("deals.yaml");
    std::fs::write(&deals, "- 11\n- { seed: 12 }\n- { journey: [9♠, 5♥, K♠], supply: [3♦, 4♣] }\n").unwrap();
    let text = format!(
        "name: driven\nseed: 4\ngames_per_pairing: 7\nbootstrap: 50\ngauntlet: greedy\nparticipants:\n  - {{ name: random, bot: random }}\n  - {{ name: rules, bot: rules }}\n  - {{ name: greedy, bot: \"greedy:samples=1\" }}\ngames:\n  - {{ game: expedition, preset: dice }}\n  - {{ game: expedition, preset: no-dice }}\n  - {{ game: journey, preset: classic, deals: {} }}\n",
        deals.display()
    );
    let file = dir.join("driven.yaml");
    std::fs::write(&file, text).unwrap();
    let out = dir.join("run");
    let printed = run_ok(arena().args([
        "tournament",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--games-per-pairing",
        "4",
        "--quiet",
    ]));
    assert!(printed.contains("rank") && printed.contains("greedy"), "the compact standings: {printed}");
    let records = sorted_records(&out);
    // Overridden: 4 deals per pairing; gauntlet: 2 pairings × 2 orders per expedition entry;
    // the deals file: its 3 deals, each by all 3 participants.
    let by_group = |g: usize| records.iter().filter(|r| r.place().group == g).collect::<Vec<_>>();
    assert_eq!(by_group(0).len(), 4 * 2 * 2);
    assert_eq!(by_group(1).len(), 4 * 2 * 2);
    assert!(by_group(0).iter().all(|r| r.players.iter().any(|p| p == "greedy")), "only greedy's pairings");
    let journey = by_group(2);
    assert_eq!(journey.len(), 3 * 3);
    for deal in 0..3 {
        let plays: Vec<_> = journey.iter().filter(|r| r.place().deal == deal).collect();
        let who: std::collections::BTreeSet<&str> = plays.iter().map(|r| r.players[0].as_str()).collect();
        assert_eq!(who.len(), 3, "deal {deal} played by every participant");
        assert!(plays.iter().all(|r| r.game.seed == plays[0].game.seed && r.game.scenario == plays[0].game.scenario));
    }
    assert!(journey.iter().any(|r| r.game.seed == 11) && journey.iter().any(|r| r.game.seed == 12));
    assert!(journey.iter().filter(|r| r.game.scenario.as_deref().is_some_and(|s| s.contains("K♠"))).count() == 3);
    // Resume keeps the override (the schedule matches), from the run's own copy of the deals.
    std::fs::remove_file(&deals).unwrap();
    let log = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
    let kept: Vec<&str> = log.lines().take(5).collect();
    std::fs::write(out.join("games.jsonl"), format!("{}\n", kept.join("\n"))).unwrap();
    run_ok(arena().args(["tournament", "--resume", out.to_str().unwrap(), "--quiet"]));
    assert_eq!(sorted_records(&out), records, "the same games after a resume");
    // The variant section, counted again from the log.
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report/variants.json")).unwrap()).unwrap();
    let v = &v[0];
    for (side, group) in [("left", 0), ("right", 1)] {
        let games = by_group(group);
        let first: f64 = games
            .iter()
            .map(|r| match r.outcome.result.ranks[0].cmp(&r.outcome.result.ranks[1]) {
                std::cmp::Ordering::Less => 1.0,
                std::cmp::Ordering::Equal => 0.5,
                std::cmp::Ordering::Greater => 0.0,
            })
            .sum::<f64>()
            / games.len() as f64;
        let length = games.iter().map(|r| r.game.actions.len() as f64).sum::<f64>() / games.len() as f64;
        let draws = games.iter().filter(|r| r.outcome.result.ranks[0] == r.outcome.result.ranks[1]).count();
        let f = &v[side];
        assert_eq!(f["games"], games.len());
        assert!((f["first_seat_score"]["value"].as_f64().unwrap() - first).abs() < 1e-9, "{side}: {f}");
        assert!((f["length"]["value"].as_f64().unwrap() - length).abs() < 1e-9, "{side}: {f}");
        assert!((f["draws"].as_f64().unwrap() - draws as f64 / games.len() as f64).abs() < 1e-12);
    }
    // Every gap the sentence names is the difference of the two ratings in that variant's list.
    let ratings: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report/ratings.json")).unwrap()).unwrap();
    let rating = |group: usize, name: &str| {
        let entries = ratings["by_group"][group]["entries"].as_array().unwrap();
        entries.iter().find(|e| e["name"] == name).unwrap()["rating"].as_f64().unwrap()
    };
    let gaps = v["gaps"].as_array().unwrap();
    assert!(!gaps.is_empty(), "{v}");
    let summary = v["summary"].as_str().unwrap();
    for g in gaps {
        let (a, b) = (g["a"].as_str().unwrap(), g["b"].as_str().unwrap());
        for (side, group) in [("left", 0), ("right", 1)] {
            let gap = rating(group, a) - rating(group, b);
            let value = &g[side]["value"];
            if let Some(x) = value.as_f64() {
                assert!((x - gap).abs() < 1e-9, "{side} gap {a}–{b}: {x} where the list says {gap}");
            } else {
                assert!(value.is_null(), "a bound is written as no number: {value}");
            }
        }
        if let (Some(l), Some(_)) = (g["left"]["value"].as_f64(), g["right"]["value"].as_f64()) {
            assert!(summary.contains(&format!("rating gap {a}–{b} ({}", reports::stats::signed(l, 0))), "{summary}");
        }
    }
    let page = std::fs::read_to_string(out.join("report/index.html")).unwrap();
    assert!(page.contains(summary.split(':').next().unwrap()), "the sentence is on the page");
    assert!(page.contains("A hollow marker is a bound"));
}

/// Stopping rules: a gauntlet's pairings stop once their sequential test decides; a run stops
/// once every rating is precise enough; the games skipped are not "missing", and a resumed run
/// plays the same games.
#[test]
fn tournaments_stop_when_the_answer_is_known() {
    let dir = temp_dir("stopping");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("sprt.yaml");
    std::fs::write(
        &file,
        "name: sprt\nseed: 2\ngames_per_pairing: 60\nbootstrap: 50\ngauntlet: rules\nsprt: \"elo0=0,elo1=100\"\nparticipants:\n  - { name: random, bot: random }\n  - { name: rules, bot: rules }\ngames:\n  - { game: expedition, preset: no-dice }\n",
    )
    .unwrap();
    let out = dir.join("sprt");
    run_ok(arena().args(["tournament", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]));
    let played = sorted_records(&out).len();
    assert!(played < 60 * 2 / 2, "rules beats random: the test decides early ({played} games)");
    let standings = std::fs::read_to_string(out.join("report/standings.md")).unwrap();
    assert!(standings.contains("H1 accepted: rules is stronger than elo0 = 0"), "{standings}");
    assert!(standings.contains("were not needed") && !standings.contains("missing"), "{standings}");
    // A resumed run decides the same.
    let log = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
    let kept: Vec<&str> = log.lines().take(3).collect();
    std::fs::write(out.join("games.jsonl"), format!("{}\n", kept.join("\n"))).unwrap();
    run_ok(arena().args(["tournament", "--resume", out.to_str().unwrap(), "--quiet"]));
    assert_eq!(sorted_records(&out).len(), played);
    // Precision: a loose target is met after a few deals.
    let out = dir.join("precise");
    run_ok(arena().args([
        "tournament",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
        "--set",
        "sprt=null",
        "--set",
        "gauntlet=[]",
        "--set",
        "until_error_elo=150",
        "--set",
        "participants[1].bot=random",
    ]));
    let n = sorted_records(&out).len();
    assert!((10..120).contains(&n), "two random agents: precise enough before the cap ({n} games)");
    let standings = std::fs::read_to_string(out.join("report/standings.md")).unwrap();
    assert!(standings.contains("every rating was within 150 Elo on both sides after"), "{standings}");
    // ... and the report's own list says so: every final interval within the target.
    let ratings: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report/ratings.json")).unwrap()).unwrap();
    let entries = ratings["overall"]["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    for e in entries {
        let (lo, hi) = (e["interval"][0].as_f64().unwrap(), e["interval"][1].as_f64().unwrap());
        let r = e["rating"].as_f64().unwrap();
        assert!(r - lo <= 150.0 && hi - r <= 150.0, "{e}");
    }
    // Games go where the intervals are widest: the two random agents settle (their games
    // against each other stop) while `rules`, a bound against both, plays on against them.
    let three = dir.join("three.yaml");
    std::fs::write(
        &three,
        "name: three\nseed: 2\ngames_per_pairing: 60\nbootstrap: 50\nuntil_error_elo: 150\nparticipants:\n  - { name: random, bot: random }\n  - { name: chance, bot: random }\n  - { name: rules, bot: rules }\ngames:\n  - { game: expedition, preset: no-dice }\n",
    )
    .unwrap();
    let out = dir.join("steered");
    run_ok(arena().args(["tournament", three.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]));
    let standings = std::fs::read_to_string(out.join("report/standings.md")).unwrap();
    let note = standings
        .lines()
        .find(|l| l.contains("ratings within 150 Elo on both sides at the end:"))
        .unwrap_or_else(|| panic!("{standings}"));
    let settled = |name: &str| -> u32 {
        let at = note.find(&format!("{name} from ")).unwrap_or_else(|| panic!("{note}")) + name.len() + 6;
        note[at..].split(' ').next().unwrap().parse().unwrap()
    };
    let both = settled("random").max(settled("chance"));
    let records = sorted_records(&out);
    let randoms = |r: &&MatchRecord| !r.place().seats.contains(&2);
    assert!(records.iter().filter(randoms).all(|r| r.place().deal < both), "{note}");
    assert!(records.iter().any(|r| !randoms(&r) && r.place().deal >= both), "rules played on: {note}");
    // No stopping rule in shards.
    let o = arena()
        .args(["tournament", file.to_str().unwrap(), "--out", dir.join("s").to_str().unwrap(), "--shard", "0/2"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stderr).contains("shards"));
}

/// The report says how long each participant took per decision, and its slowest beside the
/// limit that binds it (the arena's per-move limit, or a search agent's own `ms=`).
#[test]
fn the_report_gives_each_participants_time_per_decision() {
    let dir = temp_dir("timing");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("timing.yaml");
    std::fs::write(
        &file,
        "name: timing\nseed: 3\ngames_per_pairing: 2\nbootstrap: 20\nmove_time_ms: 2000\nparticipants:\n  - { name: random, bot: random }\n  - { name: searcher, bot: \"strong:iterations=40,ms=50\" }\ngames:\n  - { game: expedition, preset: no-dice }\n",
    )
    .unwrap();
    let out = dir.join("run");
    run_ok(arena().args(["tournament", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]));
    let standings = std::fs::read_to_string(out.join("report/standings.md")).unwrap();
    let line = standings.lines().find(|l| l.contains("time per decision:")).unwrap_or_else(|| panic!("{standings}"));
    let says = |name: &str, limit: &str| {
        let part = line.split(';').find(|p| p.contains(&format!("{name} median"))).unwrap_or_else(|| panic!("{line}"));
        part.contains(&format!("(limit {limit} ms)")) || part.contains(&format!("over its {limit} ms limit"))
    };
    assert!(says("searcher", "50") && says("random", "2000"), "{line}");
}

/// Every tournament file shipped in `examples/` loads: its agents, games and fields are valid.
#[test]
fn the_example_tournament_files_load() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut loaded = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "yaml") {
            let text = std::fs::read_to_string(&path).unwrap();
            let t = arena::tournament::Tournament::load(&path.display().to_string(), &text, &no_files)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(!t.jobs.is_empty(), "{}: no games", path.display());
            loaded.push(path.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    loaded.sort();
    assert!(loaded.contains(&"strong-vs-mcts.yaml".to_string()) && loaded.len() >= 4, "{loaded:?}");
}

/// The server a tournament runs for its external participants welcomes one with the tournament:
/// its name, its games and presets as Hello.games names them, its per-move limit.
#[test]
fn a_tournaments_server_welcomes_a_participant_with_its_name_games_and_limit() {
    let text = "name: cup\nseed: 3\ngames_per_pairing: 1\nmove_time_ms: 7000\nisolation: none\nparticipants:\n  - { \
                name: random, bot: random }\n  - { name: visitor, connect: true }\ngames:\n  - { game: expedition, \
                preset: no-dice, params: { players: 2 } }\n  - { game: journey }\n";
    let file = temp_dir("welcome.yaml");
    std::fs::write(&file, text).unwrap();
    let out = temp_dir("welcome-out");
    let (child, url, _err) = served::tournament_awaiting_visitors(&file, &out);
    let welcome = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
        let mut client = proto::v1::play_client::PlayClient::new(arena::client::connect(&url).await.unwrap());
        let (tx, rx) = tokio::sync::mpsc::channel(4);
        let hello = proto::v1::Hello { name: "visitor".into(), ..Default::default() };
        tx.send(proto::v1::BotMessage { message: Some(proto::v1::bot_message::Message::Hello(hello)) }).await.unwrap();
        let mut stream = client.play(tokio_stream::wrappers::ReceiverStream::new(rx)).await.unwrap().into_inner();
        match stream.message().await.unwrap() {
            Some(proto::v1::ServerMessage { message: Some(proto::v1::server_message::Message::Welcome(w)) }) => w,
            other => panic!("a Play stream's first answer is its Welcome: {other:?}"),
        }
    });
    let journey = engine::find_game("journey").unwrap().default_preset;
    assert_eq!(
        (welcome.tournament.as_str(), welcome.ladder.as_str(), welcome.games.clone(), welcome.move_time_ms),
        ("cup", "", vec!["expedition:no-dice".to_string(), format!("journey:{journey}")], 7000)
    );
    drop(child);
}
