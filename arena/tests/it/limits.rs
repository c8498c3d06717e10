//! The launched participants' limits with real processes: a 10 GB allocation, a fork bomb, a
//! busy loop past its CPU time and a wait past its wall time end their agent's games with the limit's verdict while the
//! tournament goes on, and a busy
//! agent gets its CPU quota's worth and no more. Those make cgroups, so they are ignored by a
//! plain `cargo test`; `.ci/run` runs them as root (`cargo test -- --ignored`). An agent whose
//! process just exits is told by its exit status, with no limits (so anywhere).

use crate::scratch;
use arena::limits::{Host, Limits};
use arena::referee::Fault;
use arena::tournament::log::read_log;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const NEEDS: &str = "needs cgroups (root, or a delegated v2 group)";

/// Held by each test that makes groups: they run one at a time (a busy agent measured while
/// another test's agents run would get less than its quota).
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner())
}

/// Play a tournament of `random` and `rules` (built in) and `hog`, launched with this shell
/// `script` after its Play client (`arena bot`, an MCTS slow enough to be in its games when
/// the script goes on) has started in the background; `limits` is the file's field. Returns
/// the run's folder and the records.
fn tournament_with(script: &str, limits: &str) -> (scratch::Scratch, Vec<arena::record::MatchRecord>) {
    let bin = env!("CARGO_BIN_EXE_arena");
    let mut command = format!("{bin} bot mcts:iterations=20000 --server $ARENA_SERVER --name $ARENA_NAME &\n");
    command += "sleep 2\n";
    command += script;
    let indented: String = command.lines().map(|l| format!("      {l}\n")).collect();
    let text = format!(
        "name: limits\nseed: 2\ngames_per_pairing: 4\nconcurrency: 2\nbootstrap: 10\nmove_time_ms: 20000\n\
         isolation: none\nlimits: {limits}\nparticipants:\n  - {{ name: random, bot: random }}\n  - {{ name: rules, bot: \
         rules }}\n  - name: hog\n    command: |\n{indented}games:\n  - {{ game: expedition, preset: no-dice, params: {{ \
         players: 2 }} }}\n"
    );
    let dir = scratch::scratch("limits", "run");
    let file = dir.with_extension("yaml");
    std::fs::write(&file, text).unwrap();
    let o = Command::new(bin)
        .args(["tournament", file.to_str().unwrap(), "--out", dir.to_str().unwrap(), "--quiet"])
        .output()
        .unwrap();
    assert!(o.status.success(), "the run goes on: {}", String::from_utf8_lossy(&o.stderr));
    let records = read_log(&dir).unwrap().records;
    // Every game scheduled is played: 3 pairings × 4 deals × 2 seat orders.
    assert_eq!(records.len(), 3 * 4 * 2);
    // The built-in participants' own games are played out.
    let theirs = records.iter().filter(|r| !r.players.iter().any(|p| p == "hog"));
    assert!(theirs.clone().count() == 8 && theirs.clone().all(|r| r.verdicts.is_empty()));
    (dir, records)
}

/// The hog's verdicts of `kind`, and every verdict of the run that is not one.
fn verdicts(records: &[arena::record::MatchRecord], kind: Fault) -> (Vec<String>, Vec<String>) {
    let (mut of_kind, mut others) = (Vec::new(), Vec::new());
    for r in records {
        for v in &r.verdicts {
            match (v.kind == kind, r.players[v.seat] == "hog") {
                (true, true) => of_kind.push(v.detail.clone()),
                _ => others.push(format!("{} {}: {}", r.players[v.seat], v.kind.name(), v.detail)),
            }
        }
    }
    (of_kind, others)
}

#[test]
#[ignore = "needs cgroups (root, or a delegated v2 group)"]
fn a_10_gb_allocation_ends_its_games_with_the_memory_verdict() {
    let _serial = one_at_a_time();
    let script = "echo hog: allocating 10 GB >&2\npython3 -c 'x = b\"x\" * (10 * 2**30)'\nkill $!\nwait\n";
    let (dir, records) = tournament_with(script, "{ memory: 1GiB }");
    let (memory, others) = verdicts(&records, Fault::MemoryLimit);
    assert!(others.is_empty(), "{others:?}");
    assert!(!memory.is_empty(), "some of the hog's games end with the memory verdict");
    let log = dir.join("stderr/hog.log");
    for d in &memory {
        assert!(d.starts_with("hog: used more than 1 GiB of memory (the limit)"), "{d}");
        assert!(d.contains(&format!("the end of its stderr is kept in {}", log.display())), "{d}");
    }
    let kept = std::fs::read_to_string(&log).unwrap();
    assert!(kept.contains("hog: allocating 10 GB"), "{kept}");
    // Forfeits: the hog lost each.
    let ended: Vec<_> = records.iter().filter(|r| !r.verdicts.is_empty()).collect();
    assert!(ended.iter().all(|r| r.outcome.forfeited_by.is_some_and(|s| r.players[s] == "hog")));
}

#[test]
#[ignore = "needs cgroups (root, or a delegated v2 group)"]
fn a_participant_past_its_cpu_time_ends_its_games_with_that_verdict() {
    let _serial = one_at_a_time();
    let script = "echo hog: spinning >&2\nwhile :; do :; done\n";
    let (_dir, records) = tournament_with(script, "{ cpus: 1, cpu_seconds: 3 }");
    let (cpu, others) = verdicts(&records, Fault::CpuTime);
    assert!(others.is_empty(), "{others:?}");
    assert!(!cpu.is_empty(), "some of the hog's games end with the CPU-time verdict");
    for d in &cpu {
        assert!(d.starts_with("hog: used its 3 s of CPU time (the limit) after 3."), "{d}");
    }
}

#[test]
#[ignore = "needs cgroups (root, or a delegated v2 group)"]
fn a_participant_past_its_wall_time_ends_its_games_with_that_verdict() {
    let _serial = one_at_a_time();
    // Its Play client plays on in the background; the process idles past 4 s in all.
    let script = "echo hog: waiting >&2\nsleep 60\n";
    let (_dir, records) = tournament_with(script, "{ wall_seconds: 4 }");
    let (wall, others) = verdicts(&records, Fault::WallTime);
    assert!(others.is_empty(), "{others:?}");
    assert!(!wall.is_empty(), "some of the hog's games end with the wall-time verdict");
    for d in &wall {
        assert!(d.starts_with("hog: ran past its 4 s of wall time (the limit)"), "{d}");
    }
}

#[test]
#[ignore = "needs cgroups (root, or a delegated v2 group)"]
fn a_fork_bomb_ends_its_games_with_the_process_count_verdict() {
    let _serial = one_at_a_time();
    // Bounded, should the limit fail: 1000 sleeps, not an exponential bomb.
    let script = "i=0\nwhile [ $i -lt 1000 ]; do sleep 100 & i=$((i+1)); done\necho hog: all forked >&2\nwait\n";
    let (dir, records) = tournament_with(script, "{ pids: 32 }");
    let (pids, others) = verdicts(&records, Fault::ProcessCount);
    assert!(others.is_empty(), "{others:?}");
    assert!(!pids.is_empty(), "some of the hog's games end with the process count verdict");
    assert!(pids.iter().all(|d| d.starts_with("hog: reached its limit of 32 processes")), "{pids:?}");
    // The shell said why it stopped (and never got past the loop).
    let kept = std::fs::read_to_string(dir.join("stderr/hog.log")).unwrap();
    assert!(kept.contains("fork") && !kept.contains("all forked"), "{kept}");
}

/// Run two busy threads (two shell loops) in a group with `cpus` for `wall`: the cores'
/// worth of CPU time they got.
fn busy_share(cpus: f64, wall: Duration) -> f64 {
    let host = Host::find().expect(NEEDS);
    let group =
        host.group(&format!("busy-test-{}", (cpus * 100.0) as u32), &Limits { cpus, ..Limits::default() }).unwrap();
    let mut cmd = Command::new("sh");
    cmd.args(["-c", "while :; do :; done & while :; do :; done"]).stdout(Stdio::null()).stderr(Stdio::null());
    group.join_on_spawn(&mut cmd);
    let mut child = cmd.spawn().unwrap();
    // Past the start, then measured.
    std::thread::sleep(Duration::from_millis(300));
    let (t0, used0) = (Instant::now(), group.cpu_used().expect("the host tells the CPU time used"));
    std::thread::sleep(wall);
    let (t1, used1) = (Instant::now(), group.cpu_used().unwrap());
    let _ = child.kill();
    let _ = child.wait();
    drop(group);
    (used1 - used0).as_secs_f64() / (t1 - t0).as_secs_f64()
}

#[test]
#[ignore = "needs cgroups (root, or a delegated v2 group)"]
fn a_busy_agent_gets_its_quota_of_cpu() {
    let _serial = one_at_a_time();
    let one = busy_share(1.0, Duration::from_secs(3));
    eprintln!("two busy threads with a 1-core quota used {one:.2} cores");
    // The upper bound is the limit (the kernel never lets the group past its quota by more
    // than a period's rounding); the lower only says it ran, a busy machine (other tests)
    // giving it less than its quota.
    assert!((0.25..=1.3).contains(&one), "{one:.2} cores");
    let half = busy_share(0.5, Duration::from_secs(3));
    eprintln!("two busy threads with a 0.5-core quota used {half:.2} cores");
    assert!((0.12..=0.65).contains(&half), "{half:.2} cores");
}

#[test]
#[ignore = "needs cgroups (root, or a delegated v2 group)"]
fn a_group_is_removed_with_what_was_left_in_it() {
    let _serial = one_at_a_time();
    let host = Host::find().expect(NEEDS);
    let group = host.group("leftovers-test", &Limits::default()).unwrap();
    let dirs = group.dirs().to_vec();
    assert!(!dirs.is_empty() && dirs.iter().all(|d| d.is_dir()), "{dirs:?}");
    // The kernel took the default limits (v1's files, or v2's), swap with memory where it is
    // accounted apart.
    let mut seen = Vec::new();
    for d in &dirs {
        for (file, value) in [
            ("cpu.cfs_quota_us", "100000"),
            ("cpu.max", "100000 100000"),
            ("memory.limit_in_bytes", "1073741824"),
            ("memory.memsw.limit_in_bytes", "1073741824"),
            ("memory.max", "1073741824"),
            ("memory.swap.max", "0"),
            ("pids.max", "64"),
        ] {
            if let Ok(text) = std::fs::read_to_string(d.join(file)) {
                assert_eq!(text.trim(), value, "{}", d.join(file).display());
                seen.push(file);
            }
        }
    }
    assert!(seen.len() >= 3, "the cpu, memory and pids limits: {seen:?}");
    let mut cmd = Command::new("sh");
    cmd.args(["-c", "sleep 100 & sleep 100 & exit 0"]);
    group.join_on_spawn(&mut cmd);
    let status = cmd.status().unwrap();
    assert_eq!(group.ending(status), arena::limits::Ending::Exited("exit status: 0".into()));
    let procs = std::fs::read_to_string(dirs[0].join("cgroup.procs")).unwrap();
    assert_eq!(procs.lines().count(), 2, "the two sleeps are left in the group: {procs}");
    drop(group);
    assert!(dirs.iter().all(|d| !d.exists()), "removed: {dirs:?}");
}

#[test]
fn an_agent_whose_process_ends_mid_run_loses_its_games_naming_its_exit_status() {
    // No limits: a plain `cargo test` runs it anywhere.
    let script = "kill $!\necho hog: giving up >&2\nexit 3\n";
    let (dir, records) = tournament_with(script, "none");
    let (gone, others) = verdicts(&records, Fault::Disconnected);
    assert!(others.is_empty(), "{others:?}");
    assert!(!gone.is_empty(), "some of the hog's games end with its disconnection");
    let log = dir.join("stderr/hog.log");
    for d in &gone {
        assert!(d.starts_with("hog: its process ended (exit status: 3)"), "{d}");
        assert!(d.ends_with(&format!("the end of its stderr is kept in {}", log.display())), "{d}");
    }
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "hog: giving up\n");
}

#[test]
#[ignore = "needs root, to run the arena as the user nobody (setpriv)"]
fn an_ordinary_user_who_cannot_make_groups_is_told_what_is_missing_and_how_to_opt_out() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch::scratch("limits", "user");
    let open = |p: &std::path::Path, mode| std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    std::fs::create_dir_all(&dir).unwrap();
    open(dir.parent().unwrap(), 0o755);
    open(&dir, 0o777);
    let file = dir.join("t.yaml");
    std::fs::write(
        &file,
        "games_per_pairing: 1\nisolation: none\nparticipants:\n  - { name: a, bot: random }\n  - { name: b, command: \
         \"sleep 30\" }\ngames: [{game: expedition, preset: no-dice}]\n",
    )
    .unwrap();
    open(&file, 0o644);
    let started = Instant::now();
    let o = Command::new("setpriv")
        .args(["--reuid=nobody", "--regid=nogroup", "--clear-groups", env!("CARGO_BIN_EXE_arena"), "tournament"])
        .args([file.to_str().unwrap(), "--out", dir.join("out").to_str().unwrap(), "--quiet"])
        .output()
        .expect("setpriv (util-linux) runs");
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{e}");
    // (Where it was refused depends on the host: a group's folder, or a v2 controller to enable.)
    for words in ["cgroup", "Permission denied", "set `limits: none`"] {
        assert!(e.contains(words), "{words}: {e}");
    }
    // Before anything started: the command (30 s of sleep) was never launched.
    assert!(started.elapsed() < Duration::from_secs(10));
}

/// A victim that counts, at each decision, how far it gets in 20 ms of busy work (one number
/// a line in `$REPORT`), then plays at random: the Python package's `play`.
const VICTIM: &str = r#"
import os, random, time
from tabletop_arena import play
out = open(os.environ["REPORT"], "a")
def agent(request):
    end = time.perf_counter() + 0.02
    n = 0
    while time.perf_counter() < end:
        n += 1
    out.write("%d\n" % n)
    out.flush()
    return random.choice(list(request.legal))
play(agent, observation=False)
"#;

/// The victim's work per decision (the median) in a tournament against a hog that keeps 8
/// processes busy beside its games, under `limits` (the file's field). Both unconfined: in
/// their sandboxes, each is a session of its own, and where the kernel groups sessions for
/// its scheduler (`sched_autogroup`) the hog's processes share one session's part already.
fn victim_beside_a_hog(limits: &str) -> f64 {
    let bin = env!("CARGO_BIN_EXE_arena");
    let dir = scratch::scratch("limits", "hog");
    std::fs::create_dir_all(&*dir).unwrap();
    let (victim, report) = (dir.join("victim.py"), dir.join("report"));
    std::fs::create_dir_all(&report).unwrap();
    std::fs::write(&victim, VICTIM).unwrap();
    // (Each busy process stops once the hog's shell is gone: run unconfined, nothing else
    // would stop it.)
    let hog = format!(
        "for i in 1 2 3 4 5 6 7 8; do (while kill -0 $$ 2>/dev/null; do :; done) & done; {bin} bot random --server $ARENA_SERVER --name $ARENA_NAME"
    );
    let text = format!(
        "name: hog\nseed: 4\ngames_per_pairing: 2\nconcurrency: 1\nbootstrap: 10\nmove_time_ms: 20000\nlimits: {limits}\n\
         isolation: none\n\
         participants:\n  - {{ name: hog, command: \"{hog}\" }}\n  - {{ name: victim, command: \"python3 {}\", writable: [{}], \
         env: {{ REPORT: {} }} }}\ngames:\n  - {{ game: expedition, preset: no-dice, params: {{ players: 2 }} }}\n",
        victim.display(),
        report.display(),
        report.join("work").display()
    );
    let file = dir.join("hog.yaml");
    std::fs::write(&file, text).unwrap();
    let o = Command::new(bin)
        .args(["tournament", file.to_str().unwrap(), "--out", dir.join("run").to_str().unwrap(), "--quiet"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut work: Vec<f64> =
        std::fs::read_to_string(report.join("work")).unwrap().lines().map(|l| l.parse().unwrap()).collect();
    assert!(work.len() >= 20, "the victim decided {} times", work.len());
    work.sort_by(f64::total_cmp);
    work[work.len() / 2]
}

#[test]
#[ignore = "needs cgroups and the Python package: .ci/run runs it as root"]
fn a_cpu_hog_beside_a_game_takes_nothing_from_its_opponent_under_limits() {
    let _serial = one_at_a_time();
    // The hog's 8 busy processes share its one core's quota; without limits they share the
    // machine with the victim, who gets a fraction of a core for its 20 ms of work.
    let unlimited = victim_beside_a_hog("none");
    let limited = victim_beside_a_hog("{ cpus: 1, memory: 1GiB, pids: 64 }");
    eprintln!("the victim's work per decision beside a hog: {limited:.0} with limits, {unlimited:.0} without");
    // Not a speed: a share. Under limits the victim keeps a core of its own (on 2 cores, 2 of
    // 9 busy processes' worth without them): at least half as much again.
    assert!(limited > 1.5 * unlimited, "{limited:.0} with limits, {unlimited:.0} without");
}
