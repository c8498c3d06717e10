//! A ladder's submissions, end to end: `arena ladder` as a real process, agents uploaded by
//! `arena ladder submit` and over the Ladder service, each launched by the ladder for every
//! game in its sandbox (bubblewrap) and cgroup. A well-behaved Python agent (the docs' own,
//! unchanged) is validated, rated and logged; hostile ones get their verdicts while the ladder
//! goes on answering (memory, processes, CPU time, a silent or crashing start); what a
//! stranger's program tries (the host's network, another agent's
//! files, the ladder's store, secrets of the host, writing outside its scratch folder) fails.

use proto::v1;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::scratch;
use crate::served::ladder;

const KEY: &str = "alice-key-0123456789abcdef";

fn ladder_file(dir: &Path) -> PathBuf {
    std::fs::write(dir.join("keys.txt"), format!("alice={KEY}\n")).unwrap();
    let file = dir.join("ladder.yaml");
    std::fs::write(
        &file,
        "name: submissions\ngames:\n  - { game: expedition, preset: no-dice, params: { players: 2 } }\nanchors:\n  - { \
         name: random, bot: random }\nmove_time_ms: 5000\nkeys: keys.txt\nprovisional_games: 0\nrefit_ms: 200\n\
         bootstrap: 50\nsubmissions:\n  limits: { cpus: 1, memory: 256MiB, pids: 32, cpu_seconds: 6 }\n  connect_timeout_ms: 8000\n  \
         archive: { archive_bytes: 6000000, unpacked_bytes: 40000000, entries: 3000, depth: 16 }\n",
    )
    .unwrap();
    file
}

type Client = v1::ladder_client::LadderClient<tonic::transport::Channel>;

/// One call of the Ladder service at `url`.
fn call<T, Fut: std::future::Future<Output = Result<tonic::Response<T>, tonic::Status>>>(
    url: &str,
    f: impl FnOnce(Client) -> Fut,
) -> Result<T, tonic::Status> {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
        let channel = arena::client::connect(url).await.unwrap();
        f(Client::new(channel).max_encoding_message_size(1 << 30)).await.map(|r| r.into_inner())
    })
}

/// An agent's folder: its manifest and files.
fn folder(root: &Path, name: &str, command: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("agent.yaml"), format!("command: {}\n", serde_json::to_string(command).unwrap())).unwrap();
    for (path, text) in files {
        let at = dir.join(path);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::write(at, text).unwrap();
    }
    dir
}

/// Submit `dir` as `alice@VERSION` over the Ladder service.
fn submit(url: &str, dir: &Path, version: &str, key: &str) -> Result<v1::Submission, tonic::Status> {
    let archive = arena::ladder::submissions::pack(dir).unwrap();
    let req = v1::SubmitRequest { name: "alice".into(), version: version.into(), key: key.into(), archive };
    call(url, |mut c| async move { c.submit(req).await })
}

fn standings(url: &str) -> v1::LadderStandings {
    call(url, |mut c| async move { c.standings(v1::StandingsRequest::default()).await }).unwrap()
}

fn results(url: &str, agent: &str) -> u64 {
    standings(url).lists[0].rows.iter().find(|r| r.agent == agent).map_or(0, |r| r.results)
}

fn log(url: &str, version: &str, game: u64) -> Result<String, tonic::Status> {
    let req =
        v1::SubmissionLogRequest { name: "alice".into(), version: version.into(), key: KEY.into(), game_id: game };
    call(url, |mut c| async move { c.submission_log(req).await })
        .map(|r| String::from_utf8_lossy(&r.stderr).into_owned())
}

/// What a probe submission tries before it plays, one line each on its stderr.
const PROBE: &str = r#"
import os, socket, sys
port, other = int(sys.argv[1]), sys.argv[2]
def tried(what, f):
    try:
        print("%s: done %r" % (what, f()), file=sys.stderr)
    except Exception as e:
        print("%s: refused %s" % (what, type(e).__name__), file=sys.stderr)
tried("host port", lambda: socket.create_connection(("127.0.0.1", port), timeout=2).close())
tried("shadow", lambda: open("/etc/shadow").read()[:40])
tried("other agent", lambda: os.listdir(other))
tried("tmp", lambda: os.listdir("/tmp"))
tried("write own folder", lambda: open("mine.txt", "w").write("x"))
tried("write scratch", lambda: open(os.environ["TMPDIR"] + "/mine", "w").write("x"))
ALLOWED = {"PWD", "SHLVL", "_", "PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "ARENA_SERVER", "ARENA_NAME"}
# (pyenv's shims, where python3 is one, set their own.)
mine = lambda k: k in ALLOWED or k == "ARENA_KEY" or k.lstrip("_").startswith("PYENV")
tried("environment", lambda: ("ARENA_KEY" in os.environ, sorted(k for k in os.environ if not mine(k))))
sys.stderr.flush()
os.execvp(sys.argv[3], sys.argv[3:])
"#;

#[test]
#[ignore = "needs bubblewrap and cgroups: .ci/run installs bubblewrap and runs it as root"]
fn submissions_are_validated_rated_and_logged_and_hostile_ones_get_their_verdicts() {
    let bin = env!("CARGO_BIN_EXE_arena");
    let scratch = scratch::scratch("submissions", "run");
    let root: &Path = &scratch;
    std::fs::create_dir_all(root).unwrap();
    let file = ladder_file(root);
    let data = root.join("data");
    let (mut server, url) = ladder(&file, &data);

    // The docs' Python agent, unchanged: its folder as in the repository (the agent and the
    // contract it compiles its stubs from), submitted by the author's command.
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let py = root.join("python");
    std::fs::create_dir_all(py.join("bots/examples/python")).unwrap();
    std::fs::copy(repo.join("bots/examples/python/arena_bot.py"), py.join("bots/examples/python/arena_bot.py"))
        .unwrap();
    copy_dir(&repo.join("proto/proto"), &py.join("proto/proto"));
    std::fs::write(py.join("agent.yaml"), "command: python3 bots/examples/python/arena_bot.py --policy random\n")
        .unwrap();
    let out = Command::new(bin)
        .args(["ladder", "submit", &url, py.to_str().unwrap(), "--name", "alice", "--version", "py1"])
        .env("ARENA_KEY", KEY)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && said.contains("alice@py1: active"),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The Node client's agent, unchanged likewise (with the packages `npm ci` installed).
    let node = root.join("node");
    let modules = repo.join("bots/node/node_modules");
    assert!(modules.is_dir(), "{}: run `npm ci` in bots/node (.ci/run does)", modules.display());
    for f in ["index.js", "random_agent.js", "package.json"] {
        std::fs::create_dir_all(node.join("bots/node")).unwrap();
        std::fs::copy(repo.join("bots/node").join(f), node.join("bots/node").join(f)).unwrap();
    }
    copy_dir(&modules, &node.join("bots/node/node_modules"));
    copy_dir(&repo.join("proto/proto"), &node.join("proto/proto"));
    std::fs::write(node.join("agent.yaml"), "command: node bots/node/random_agent.js\n").unwrap();
    let s = submit(&url, &node, "node1", KEY).unwrap();
    assert_eq!(s.state, "active", "{s:?}");

    // They are matched and rated like any agent.
    let start = Instant::now();
    while results(&url, "alice@py1") < 2 || results(&url, "alice@node1") < 2 {
        assert!(start.elapsed() < Duration::from_secs(120), "both rated: {:#?}", standings(&url));
        std::thread::sleep(Duration::from_millis(200));
    }

    // A probe: what a stranger's program tries, written on its stderr, then it plays.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let py_files = data.join("submissions/1");
    assert!(py_files.join("agent.yaml").is_file(), "the first submission's files are kept in {}", py_files.display());
    // (It also tries to join the ladder under a name of its choosing.)
    let command = format!(
        "/run/bin/arena bot random --server $ARENA_SERVER --name intruder 2>&1 | tail -c 300 >&2; python3 probe.py {port} {} /run/bin/arena bot \
         random --server $ARENA_SERVER --name $ARENA_NAME",
        py_files.display()
    );
    let probe = folder(root, "probe", &command, &[("probe.py", PROBE)]);
    let s = submit(&url, &probe, "probe", KEY).unwrap();
    assert_eq!(s.state, "active", "{s:?}");
    let said = String::from_utf8_lossy(&s.stderr).into_owned();
    for refused in ["host port", "shadow", "other agent", "write own folder"] {
        assert!(said.contains(&format!("{refused}: refused")), "{refused}: {said}");
    }
    assert!(said.contains("tmp: done []") && said.contains("write scratch: done 1"), "{said}");
    assert!(said.contains("`intruder`: an agent launched by this ladder plays under the name it was given"), "{said}");
    assert!(said.contains("environment: done (True, [])"), "{said}");
    assert!(matches!(listener.accept(), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock));
    assert_eq!(log(&url, "probe", 0).unwrap().trim(), said.trim(), "its validation's log");

    // Hostile submissions, each refused with its verdict and the end of its stderr.
    let hostile = [
        ("bomb", "python3 -c \"x = bytearray(10 * 1024**3)\"", "used more than 256 MiB of memory"),
        ("fork", "echo forking >&2; f() { f | f & }; f; sleep 30", "reached its limit of 32 processes"),
        ("sleeper", "echo zzz >&2; exec sleep 1000", "did not say Hello within 8000 ms"),
        ("crash", "echo 'Traceback: it broke' >&2; exit 3", "ended before it said Hello"),
    ];
    let busy = "(while :; do :; done) & exec /run/bin/arena bot mcts:iterations=100000000 --server $ARENA_SERVER --name $ARENA_NAME";
    let hostile = hostile.into_iter().chain([("busy", busy, "CPU time at move")]);
    for (version, command, verdict) in hostile {
        let dir = folder(root, version, command, &[]);
        let s = submit(&url, &dir, version, KEY).unwrap();
        assert_eq!(s.state, "refused", "{version}: {s:?}");
        assert!(s.verdict.contains(verdict), "{version}: {}", s.verdict);
        // The ladder answers meanwhile, and goes on playing.
        assert!(!standings(&url).lists.is_empty());
    }
    let s =
        submit(&url, &folder(root, "crash2", "echo 'Traceback: it broke' >&2; exit 3", &[]), "crash2", KEY).unwrap();
    assert!(s.verdict.contains("Traceback: it broke"), "{s:?}");
    // Megabytes on stderr: kept to its end.
    let loud = folder(
        root,
        "loud",
        "head -c 3000000 /dev/zero | tr '\\\\0' x >&2; echo END >&2; exec /run/bin/arena bot random --server $ARENA_SERVER --name $ARENA_NAME",
        &[],
    );
    let s = submit(&url, &loud, "loud", KEY).unwrap();
    assert_eq!(s.state, "active", "{s:?}");
    assert!(s.stderr.len() <= 16 << 10 && String::from_utf8_lossy(&s.stderr).ends_with("END"), "{}", s.stderr.len());

    // Refused as sent, nothing stored: a wrong key, a version twice, an archive with a link,
    // past the versions a name may have at once.
    let e = submit(&url, &probe, "other", "not-the-key").unwrap_err();
    assert_eq!(e.code(), tonic::Code::PermissionDenied, "{e:?}");
    let e = submit(&url, &probe, "probe", KEY).unwrap_err();
    assert_eq!(e.code(), tonic::Code::AlreadyExists, "{e:?}");
    // (`pack` follows links; an archive written by another tool may hold one.)
    let archive = tar_with_link();
    let req = v1::SubmitRequest { name: "alice".into(), version: "linked".into(), key: KEY.into(), archive };
    let e = call(&url, |mut c| async move { c.submit(req).await }).unwrap_err();
    assert!(e.code() == tonic::Code::InvalidArgument && e.message().contains("only files and folders"), "{e:?}");
    let listed = |url: &str| {
        let req = v1::SubmissionsRequest { name: "alice".into(), key: KEY.into() };
        call(url, |mut c| async move { c.list_submissions(req).await }).unwrap()
    };
    let versions: Vec<(String, String)> = listed(&url).submissions.into_iter().map(|s| (s.version, s.state)).collect();
    assert_eq!(
        versions.iter().map(|(v, _)| v.as_str()).collect::<Vec<_>>(),
        ["py1", "node1", "probe", "bomb", "fork", "sleeper", "crash", "busy", "crash2", "loud"]
    );
    let stored = arena::ladder::store::Store::open(&data).unwrap().agents().unwrap();
    assert!(!stored.iter().any(|(n, _)| n == "intruder"), "{stored:?}");
    assert!(
        !std::fs::read_dir(data.join("submissions"))
            .unwrap()
            .any(|e| { e.unwrap().file_name().to_string_lossy().starts_with("incoming-") })
    );

    // Each game's stderr is kept for its author: the probe's rated games say what it tried.
    let start = Instant::now();
    let game = loop {
        let s = listed(&url).submissions.into_iter().find(|s| s.version == "probe").unwrap();
        if let Some(&g) = s.logged_games.first() {
            break g;
        }
        assert!(start.elapsed() < Duration::from_secs(120), "a rated game of alice@probe");
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(log(&url, "probe", game).unwrap().contains("shadow: refused"));
    let out = Command::new(bin)
        .args(["ladder", "log", &url, "--name", "alice", "--version", "probe", "--game", &game.to_string()])
        .env("ARENA_KEY", KEY)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("host port: refused"));

    // Retired: it takes no new game; a restart keeps every version's state.
    let req = v1::SubmissionRequest { name: "alice".into(), version: "probe".into(), key: KEY.into() };
    let s = call(&url, |mut c| async move { c.retire_submission(req).await }).unwrap();
    assert_eq!(s.state, "retired");
    server.kill().unwrap();
    server.wait().unwrap();
    let (_server, url) = ladder(&file, &data);
    let again: Vec<(String, String)> = listed(&url).submissions.into_iter().map(|s| (s.version, s.state)).collect();
    let mut expected = versions;
    expected.iter_mut().find(|(v, _)| v == "probe").unwrap().1 = "retired".into();
    assert_eq!(again, expected);
    let before = results(&url, "alice@py1");
    let start = Instant::now();
    while results(&url, "alice@py1") <= before {
        assert!(start.elapsed() < Duration::from_secs(120), "alice@py1 plays on after the restart");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A gzipped tar holding a manifest and a symbolic link to /etc/shadow.
fn tar_with_link() -> Vec<u8> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut tar = tar::Builder::new(gz);
    let manifest = b"command: cat shadow\n";
    let mut h = tar::Header::new_gnu();
    h.set_size(manifest.len() as u64);
    h.set_mode(0o644);
    tar.append_data(&mut h, "agent.yaml", &manifest[..]).unwrap();
    let mut l = tar::Header::new_gnu();
    l.set_entry_type(tar::EntryType::Symlink);
    l.set_size(0);
    tar.append_link(&mut l, "shadow", "/etc/shadow").unwrap();
    tar.into_inner().unwrap().finish().unwrap()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}
