//! Every string a stranger controls is inert in every page. Strings that break pages which
//! escape too little (`</script>`, `<!--<script>`, a script, an `<img onerror>`, the end of an
//! attribute, quotes, `&amp;`, `]]>`, U+2028 and U+2029) are put in every field that still
//! carries any text: a tournament's name and its participants' names, a content set's tile,
//! card and character names (inline in a tournament's game entry, and a set of the operator's
//! `--content-dir`), a ladder's name, and its agents' names and versions and a game entry's
//! label as an older arena stored them, and a seat's name typed on the play page. Every kind
//! of page (the front page, a match, the play page, `/game?id=`, `/game?ladder=N`, the
//! report's index and its game pages) opens in headless Chromium (playwright-core, from
//! `arena/tests/browser`, `pages.js`): it renders, its script runs (what it fills is filled),
//! the browser logs and refuses nothing, no element, handler or script comes of a string, and
//! every string shows as the text it is.

use crate::served::{self, Process};
use crate::{matches, scratch};
use arena::ladder::store::Store;
use arena::record::{MatchRecord, TournamentGame};
use arena::tournament::log::read_log;
use proto::v1;
use reports::ratings::{Pairwise, RatedGame};
use serde_json::{Value, json};
use std::io::{BufRead, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// What every string carries after its own tag: each piece is markup that a page escaping too
/// little would run or parse (a script that marks the page, an image whose error handler marks
/// it, an element, an attribute after a quote), or a character that ends something early.
const HOSTILE: &str = "<!--<script></script><script>document.body.dataset.pwned=1</script>\
<img src=x onerror=document.body.dataset.pwned=2><b id=injected>\" onclick=\"document.body.dataset.pwned=3\" \
x=\" 'q' &amp; ]]>\u{2028}\u{2029}</b>";

fn hostile(tag: &str) -> String {
    format!("{tag}{HOSTILE}")
}

/// The default content of expedition with every name (tiles, characters, cards) hostile; and
/// those names.
fn hostile_content() -> (serde_yaml::Value, Vec<String>) {
    let mut content: serde_yaml::Value =
        serde_yaml::from_str(include_str!("../../../engine/src/expedition/content.yaml")).unwrap();
    let rename = |v: &mut serde_yaml::Value| *v = serde_yaml::Value::String(hostile(v.as_str().unwrap()));
    let mut names = Vec::new();
    for list in ["tiles", "characters", "missions", "discovery_cards"] {
        for item in content[list].as_sequence_mut().unwrap() {
            rename(&mut item["name"]);
            names.push(item["name"].as_str().unwrap().to_string());
            if let Some(tiles) = item.get_mut("discoveries") {
                tiles.as_sequence_mut().unwrap().iter_mut().for_each(rename);
            }
            if let Some(tile) = item.get_mut("tile") {
                rename(tile);
            }
        }
    }
    (content, names)
}

/// YAML of `value`, checked to read back as it is (a line separator must stay one).
fn yaml(value: &Value) -> String {
    let text = serde_yaml::to_string(value).unwrap();
    assert_eq!(&serde_yaml::from_str::<Value>(&text).unwrap(), value, "YAML reads back what was written:\n{text}");
    text
}

/// The next line of a serving command's output that starts with `prefix`, past the others.
fn line_starting(out: &mut impl BufRead, prefix: &str) -> String {
    let mut line = String::new();
    loop {
        line.clear();
        assert!(out.read_line(&mut line).unwrap() > 0, "the command ended before saying `{prefix}`");
        if let Some(rest) = line.strip_prefix(prefix) {
            return rest.trim().to_string();
        }
    }
}

/// A page for `pages.js`: its name, its address, its steps (a `wait` is met once its selector
/// selects an element).
/// `text` as a query string's value: every byte but letters and digits percent-encoded.
fn query_value(text: &str) -> String {
    text.bytes()
        .map(|b| if b.is_ascii_alphanumeric() { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect()
}

fn page(name: &str, url: &str, steps: Value) -> Value {
    json!({ "name": name, "url": url, "steps": steps })
}

/// The viewer has shown the first position of a two-seat game.
const VIEWER_READY: [&str; 2] = ["#where:text-matches('^position 0 of [0-9]+$')", "#seats section:nth-child(2)"];
/// A finished match's page has shown its moves and its result.
const MATCH_OVER: [&str; 2] = ["#moves li", "#result:not([hidden])"];

/// The pages opened in headless Chromium, and what each showed (see `pages.js`).
fn look(pages: &[Value]) -> Vec<Value> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser");
    assert!(
        dir.join("node_modules/playwright-core").exists(),
        "run `npm ci` in arena/tests/browser (.ci/run does): pages.js drives Chromium with playwright-core"
    );
    let mut node = Process(
        Command::new("node")
            .arg(dir.join("pages.js"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("node is required (.ci/run's browser tests use it)"),
    );
    node.stdin.take().unwrap().write_all(json!(pages).to_string().as_bytes()).unwrap();
    let mut out = String::new();
    std::io::Read::read_to_string(&mut node.stdout.take().unwrap(), &mut out).unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut node.stderr.take().unwrap(), &mut err).unwrap();
    assert!(node.wait().unwrap().success(), "pages.js failed: {err}");
    let found: Vec<Value> = serde_json::from_str(&out).unwrap();
    assert_eq!(found.len(), pages.len());
    found
}

/// What a page must have shown.
struct Expect<'a> {
    /// Its script elements (`src`, or `inline TYPE`), in order.
    scripts: &'a [&'a str],
    /// Strings its text shows, each whole.
    shown: Vec<String>,
    /// Strings of which its text shows at least one (a game's labels and views name some of
    /// the content's tiles and cards, never all).
    some_of: &'a [String],
    /// A refusal the page asks for: its response holds the first, the browser's line about it
    /// the second.
    refusal: Option<(&'a str, &'a str)>,
}

fn check(found: &Value, expect: Expect) {
    let name = found["name"].as_str().unwrap();
    let text = found["text"].as_str().unwrap_or_default();
    let list = |key: &str| -> Vec<String> {
        found[key].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect()
    };
    assert!(
        found["done"] == true,
        "{name}: its script did not do its work (step {} not met: {}); it shows:\n{text}\nconsole: {:?}",
        found["failed_step"],
        found["problem"],
        list("console")
    );
    let (response, line) = expect.refusal.unwrap_or(("\0", "\0"));
    let console: Vec<String> = list("console").into_iter().filter(|l| !l.contains(line)).collect();
    assert!(console.is_empty(), "{name}: the console: {console:?}");
    assert!(list("errors").is_empty(), "{name}: uncaught errors: {:?}", list("errors"));
    let responses: Vec<String> = list("responses").into_iter().filter(|l| !l.contains(response)).collect();
    assert!(responses.is_empty(), "{name}: refused or failed requests: {responses:?}");
    if expect.refusal.is_some() {
        let refused = list("responses").iter().filter(|l| l.contains(response)).count();
        assert_eq!(refused, 1, "{name}: one refusal of {response}: {:?}", list("responses"));
    }
    assert!(list("dialogs").is_empty(), "{name}: dialogs: {:?}", list("dialogs"));
    assert!(found["pwned"].is_null(), "{name}: a string ran as script: {}", found["pwned"]);
    assert!(list("suspects").is_empty(), "{name}: elements made of a string: {:?}", list("suspects"));
    assert_eq!(list("scripts"), expect.scripts, "{name}: the page's scripts, and only those");
    for s in &expect.shown {
        assert!(text.contains(s.as_str()), "{name}: does not show {s:?} as text; it shows:\n{text}");
    }
    if !expect.some_of.is_empty() {
        assert!(
            expect.some_of.iter().any(|s| text.contains(s.as_str())),
            "{name}: shows none of the content's names as text; it shows:\n{text}"
        );
    }
}

const FRONT: [&str; 2] = ["/static/arena.js", "/static/front.js"];
const MATCH: [&str; 3] = ["/static/arena.js", "/static/draw.js", "/static/match.js"];
const PLAY: [&str; 2] = ["/static/arena.js", "/static/play.js"];
const AGENT: [&str; 2] = ["/static/arena.js", "/static/agent.js"];
const GAME: [&str; 3] = ["inline application/json", "/static/draw.js", "/static/viewer.js"];
const REPORT_GAME: [&str; 3] = ["inline application/json", "inline text/javascript", "inline text/javascript"];

#[test]
#[ignore = "needs headless Chromium and arena/tests/browser's packages: .ci/run installs both and runs it"]
fn every_string_from_a_stranger_is_text_in_every_page() {
    let (content, content_names) = hostile_content();
    let dir = scratch::scratch("inert", "work");
    std::fs::create_dir_all(&*dir).unwrap();

    // A tournament of hostile names on hostile content, watched on its web face.
    let title = hostile("T");
    let players = [hostile("p1"), hostile("p2")];
    let file = dir.join("tournament.yaml");
    std::fs::write(
        &file,
        yaml(&json!({
            "name": title,
            "seed": 7,
            "games_per_pairing": 2,
            "bootstrap": 50,
            "participants": [{ "name": players[0], "bot": "random" }, { "name": players[1], "bot": "rules" }],
            "games": [{ "game": "expedition", "preset": "no-dice", "params": { "players": 2, "content": content } }],
        })),
    )
    .unwrap();
    let out = dir.join("tournament");
    let mut tournament = Process(
        Command::new(env!("CARGO_BIN_EXE_arena"))
            .args(["tournament", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"])
            .args(["--http", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut said = std::io::BufReader::new(tournament.stdout.take().unwrap());
    let t_url = line_starting(&mut said, "the web face: ");
    line_starting(&mut said, "the tournament is over");

    // A server whose operator's content set has hostile names; a match on it, played out.
    let sets = dir.join("sets");
    std::fs::create_dir_all(&sets).unwrap();
    std::fs::write(sets.join("hostile.yaml"), serde_yaml::to_string(&content).unwrap()).unwrap();
    let (_server, grpc, mut said) = served::serve(&["--http", "127.0.0.1:0", "--content-dir", sets.to_str().unwrap()]);
    let s_url = line_starting(&mut said, "the web face: ");
    let served_id = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
        let mut m = v1::matches_client::MatchesClient::new(arena::client::connect(&grpc).await.unwrap());
        let bot = |b: &str| v1::SeatSpec { player: Some(v1::seat_spec::Player::Bot(b.into())) };
        let req = v1::CreateMatchRequest {
            game: "expedition".into(),
            preset: "no-dice".into(),
            params: [("players".to_string(), "2".to_string()), ("content".to_string(), "hostile".to_string())].into(),
            seats: vec![bot("random"), bot("rules")],
            seed: Some(7),
            ..Default::default()
        };
        let id = m.create_match(req).await.unwrap().into_inner().match_id;
        matches::wait_record(&mut m, &id, Duration::from_secs(60)).await;
        id
    });

    // A ladder whose store holds names an older arena took: agents (one with a version), a
    // game entry's label, two games of the tournament's played by them, their ratings over time.
    let records = read_log(&out).unwrap().records;
    let agents = [hostile("a1"), format!("a2@{}", hostile("v"))];
    let entry_label = hostile("e");
    let ladder_name = hostile("L");
    let data = dir.join("ladder");
    {
        let mut store = Store::open(&data).unwrap();
        for a in &agents {
            store.agent(a, false).unwrap();
        }
        let params = &records[0].game.params;
        let entry =
            store.entry(&format!("expedition\n{}", serde_yaml::to_string(params).unwrap()), &entry_label).unwrap();
        let pairing = store.pairing(entry).unwrap();
        for (k, r) in records.iter().take(2).enumerate() {
            let seats = r.place().seats.clone();
            let ranks = &r.outcome.result.ranks;
            let score = match ranks[0].cmp(&ranks[1]) {
                std::cmp::Ordering::Less => 1.0,
                std::cmp::Ordering::Equal => 0.5,
                std::cmp::Ordering::Greater => 0.0,
            };
            let stored = MatchRecord {
                players: seats.iter().map(|&p| agents[p].clone()).collect(),
                tournament: Some(TournamentGame {
                    job: k as u64 + 1,
                    group: entry,
                    label: entry_label.clone(),
                    deal: pairing as u32,
                    seats: seats.clone(),
                    play_ms: 0.0,
                }),
                ..r.clone()
            };
            let results = vec![Pairwise { a: seats[0], b: seats[1], score }];
            store.commit(&stored, &[RatedGame { group: entry, unit: pairing, results, plays: 1 }]).unwrap();
        }
        store.note_history(1, &[(0, 10.0, -90.0, 110.0), (1, -10.0, -110.0, 90.0)]).unwrap();
        store.note_history(2, &[(0, 20.0, -80.0, 120.0), (1, -20.0, -120.0, 80.0)]).unwrap();
    }
    let ladder_file = dir.join("ladder.yaml");
    std::fs::write(
        &ladder_file,
        // (No anchor: so no provisional agents, which establish themselves against anchors.)
        yaml(&json!({
            "name": ladder_name,
            "games": [{ "game": "expedition", "params": records[0].game.params }],
            "provisional_games": 0,
        })),
    )
    .unwrap();
    let (_ladder, _, mut said) = served::serving(
        &["ladder", ladder_file.to_str().unwrap(), "--data", data.to_str().unwrap(), "--http", "127.0.0.1:0"],
        "serving on ",
    );
    let l_url = line_starting(&mut said, "the web face: ");

    // A seat's name typed on the play page comes back in the refusal (nobody of that name is
    // connected): the server quotes 64 characters of it, the page trims it (a line separator
    // inside it stays).
    let typed = "c<!--<script></script><img src=x onerror=alert(1)>\u{2028}\"'&amp;";
    let report = out.join("report");
    let report_game = std::fs::read_dir(report.join("games")).unwrap().next().unwrap().unwrap().path();
    let file_url = |p: &Path| format!("file://{}", p.display());
    let wait = |selectors: &[&str]| Value::Array(selectors.iter().map(|s| json!({ "wait": s })).collect());
    // The faces' addresses end with a slash.
    let (t_url, s_url, l_url) = (t_url.trim_end_matches('/'), s_url.trim_end_matches('/'), l_url.trim_end_matches('/'));
    let pages = [
        page(
            "the tournament's front page",
            &format!("{t_url}/"),
            wait(&["table.standings td", "#finished:not([hidden])"]),
        ),
        page(
            "the ladder's front page",
            &format!("{l_url}/"),
            wait(&["table.standings td", "#progression-key span:nth-child(2)"]),
        ),
        page("a ladder's game", &format!("{l_url}/game?ladder=1"), wait(&VIEWER_READY)),
        page(
            "an agent's page",
            &format!("{l_url}/agent?name={}", query_value(&agents[0])),
            // (These stored names are longer than a Hello may say: the page shows the name and
            // the ladder's refusal to look it up, as text.)
            wait(&["#problem:not([hidden])"]),
        ),
        page(
            "the play page",
            &format!("{s_url}/play"),
            json!([
                { "wait": "#game option" },
                { "select": ["#game", "expedition"] },
                { "select": ["#seat-count", "2"] },
                { "select": ["#seat-1", "play"] },
                { "fill": ["#seat-1-name", typed] },
                { "click": "#start" },
                { "wait": "#problem:not([hidden])" },
            ]),
        ),
        page("a server's match", &format!("{s_url}/match?id={served_id}"), wait(&MATCH_OVER)),
        page("a server's game", &format!("{s_url}/game?id={served_id}"), wait(&VIEWER_READY)),
        page("the report", &file_url(&report.join("index.html")), wait(&["table.standings td"])),
        page("a report's game", &file_url(&report_game), wait(&VIEWER_READY)),
    ];
    let found = look(&pages);
    let mut found = found.iter();
    let mut next = || found.next().unwrap();
    let tournament_front = next();
    check(
        tournament_front,
        Expect {
            scripts: &FRONT,
            shown: vec![format!("Tournament {title}"), players[0].clone(), players[1].clone()],
            some_of: &[],
            refusal: None,
        },
    );
    let ladder_shown = vec![format!("Ladder {ladder_name}"), agents[0].clone(), agents[1].clone(), entry_label.clone()];
    check(next(), Expect { scripts: &FRONT, shown: ladder_shown, some_of: &[], refusal: None });
    let shown = agents.to_vec();
    check(next(), Expect { scripts: &GAME, shown, some_of: &content_names, refusal: None });
    let refusal = Some(("GET http", "the server responded with a status of 400"));
    check(next(), Expect { scripts: &AGENT, shown: vec![agents[0].clone()], some_of: &[], refusal });
    // The match is refused (a 4xx to its POST, which the browser reports), the refusal shown.
    let refusal = Some(("POST http", "the server responded with a status of 4"));
    check(next(), Expect { scripts: &PLAY, shown: vec![typed.to_string()], some_of: &[], refusal });
    check(next(), Expect { scripts: &MATCH, shown: vec![], some_of: &content_names, refusal: None });
    check(next(), Expect { scripts: &GAME, shown: vec![], some_of: &content_names, refusal: None });
    let report_index = next();
    check(
        report_index,
        Expect {
            scripts: &[],
            shown: vec![title.clone(), players[0].clone(), players[1].clone()],
            some_of: &[],
            refusal: None,
        },
    );
    assert_eq!(report_index["title"], json!(format!("Tournament: {title}")), "the report's title");
    check(next(), Expect { scripts: &REPORT_GAME, shown: players.to_vec(), some_of: &content_names, refusal: None });

    // A game of the tournament, live and stepped through, from its front page's list.
    let links: Vec<&str> = tournament_front["links"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    let id = links.iter().find_map(|l| l.strip_prefix("/game?id=")).expect("a finished game listed");
    let pages = [
        page("a tournament's match", &format!("{t_url}/match?id={id}"), wait(&MATCH_OVER)),
        page("a tournament's game", &format!("{t_url}/game?id={id}"), wait(&VIEWER_READY)),
    ];
    let found = look(&pages);
    check(&found[0], Expect { scripts: &MATCH, shown: players.to_vec(), some_of: &content_names, refusal: None });
    check(&found[1], Expect { scripts: &GAME, shown: players.to_vec(), some_of: &content_names, refusal: None });
}

/// A long ladder's front page pages through its ranks (50 at a time), and a name on the second
/// page opens that agent's page; its search finds an agent of any rank (the server searches),
/// shown with its rank.
#[test]
#[ignore = "needs headless Chromium and arena/tests/browser's packages: .ci/run installs both and runs it"]
fn a_long_ladders_front_page_pages_through_its_ranks() {
    let scratch = scratch::scratch("inert", "paging");
    let dir: &Path = &scratch;
    std::fs::create_dir_all(dir).unwrap();
    let text = "name: long\ngames:\n  - { game: expedition, preset: no-dice, params: { players: 2 } }\nprovisional_games: 0\nbootstrap: 20\nrefit_ms: 200\n";
    let file = dir.join("ladder.yaml");
    std::fs::write(&file, text).unwrap();
    let config = arena::ladder::config::LadderConfig::parse("long", text).unwrap();
    let data = dir.join("data");
    arena::ladder::synthetic::fill(&config, text, &data, 120, 2400, 1).unwrap();
    let (_ladder, grpc, mut said) = served::serving(
        &["ladder", file.to_str().unwrap(), "--data", data.to_str().unwrap(), "--http", "127.0.0.1:0"],
        "serving on ",
    );
    let url = line_starting(&mut said, "the web face: ");
    let url = url.trim_end_matches('/');
    // The agent at rank 101, by gRPC; a search too long is refused, naming the field.
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (far, refused) = rt.block_on(async {
        let mut c = v1::ladder_client::LadderClient::new(arena::client::connect(&grpc).await.unwrap());
        let asked = |offset, search: &str| v1::StandingsRequest { offset, limit: 1, search: search.into() };
        let s = loop {
            let s = c.standings(asked(100, "")).await.unwrap().into_inner();
            if !s.lists[0].rows.is_empty() {
                break s;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        let refused = c.standings(asked(0, &"é".repeat(33))).await.unwrap_err();
        (s.lists[0].rows[0].clone(), refused)
    });
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
    assert!(refused.message().contains("search: 66 bytes"), "{}", refused.message());
    assert_eq!(far.rank, 101);
    let far_row = format!("tr[data-agent='{}'] td.num:text-is('101')", far.agent.to_lowercase());
    let pages = [
        page(
            "a long ladder's front page",
            &format!("{url}/"),
            json!([
                { "wait": "#paging:not([hidden]) #page-next:not([disabled])" },
                { "click": "#page-next" },
                { "wait": "table.standings td.num:text-is('51')" },
                { "click": "table.standings tr:has(td.num:text-is('51')) a" },
                { "wait": "#games a[href^='/game?ladder=']" },
            ]),
        ),
        page(
            "a long ladder's front page, searched",
            &format!("{url}/"),
            json!([
                { "wait": "table.standings td.num:text-is('1')" },
                { "fill": ["#search", far.agent.to_uppercase()] },
                { "wait": far_row },
            ]),
        ),
    ];
    let found = look(&pages);
    let f = &found[0];
    assert_eq!(f["done"], json!(true), "{f:#}");
    assert!(f["errors"].as_array().unwrap().is_empty() && f["console"].as_array().unwrap().is_empty(), "{f:#}");
    assert!(f["title"].as_str().unwrap().ends_with("— Tabletop Arena"), "an agent's page: {f:#}");
    let f = &found[1];
    assert_eq!(f["done"], json!(true), "{f:#}");
    assert!(f["errors"].as_array().unwrap().is_empty() && f["console"].as_array().unwrap().is_empty(), "{f:#}");
}
