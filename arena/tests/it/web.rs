//! The web face's gate, over real HTTP/1.1 from sockets bound to distinct 127.0.0.N sources
//! (distinct clients to the face): where the server serves its clients by key, every route but
//! the static files answers 401 without one and 200 with one, shown in a header or in the
//! cookie `/api/key` sets; the face answers to its names only (a DNS-rebinding Host is refused)
//! and takes requests from its own pages only (a cross-origin POST is refused); it shares its
//! connections by client, keeping room for new ones while 21 others are at their shares; and
//! a client past its rate is refused, naming it, while another is served.

use crate::scratch;
use crate::served::{self, Process};
use std::io::BufRead;
use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const KEY: &str = "lab-key-0123456789abcdef";
const OTHER_KEY: &str = "class-key-0123456789abcdef";

/// No read of this file waits for ever: a face that does not answer fails the test.
const PATIENCE: Duration = Duration::from_secs(60);

/// A file of client keys, in a scratch directory of its own.
fn keys() -> scratch::Scratch {
    let file = scratch::scratch("web", "keys");
    std::fs::write(&file, format!("lab={KEY}\nclass={OTHER_KEY}\n")).unwrap();
    file
}

/// `arena ARGS --http 127.0.0.1:0 --addr 127.0.0.1:0` (a command whose first line holds
/// `says`): the process, and its web face's address.
fn with_face(args: &[&str], says: &str) -> (Process, SocketAddr) {
    let (child, _, mut out) = served::serving(&[args, &["--http", "127.0.0.1:0"]].concat(), says);
    let mut line = String::new();
    let face = loop {
        line.clear();
        assert!(out.read_line(&mut line).unwrap() > 0, "no web face was started");
        if let Some(url) = line.trim().strip_prefix("the web face: http://") {
            break url.trim_end_matches('/').parse().unwrap();
        }
    };
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    (child, face)
}

/// An answer of the face.
#[derive(Debug)]
struct Answer {
    status: u16,
    head: String,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().skip(1).find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.trim().eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }

    /// The refusal's message (`{"error": …}`).
    fn error(&self) -> String {
        let v: serde_json::Value = serde_json::from_str(&self.body).unwrap_or_else(|_| panic!("not JSON: {self:?}"));
        v["error"].as_str().unwrap_or_else(|| panic!("no error: {self:?}")).to_string()
    }

    fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|_| panic!("not JSON: {self:?}"))
    }
}

/// A connection to the face from 127.0.0.`source`: another client for each source.
async fn connect(face: SocketAddr, source: u8) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::new(Ipv4Addr::new(127, 0, 0, source).into(), 0)).unwrap();
    socket.connect(face).await.unwrap()
}

/// A request's text: `headers` (a `host` among them replaces the face's own address).
fn request_text(face: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> String {
    let mut text = format!("{method} {path} HTTP/1.1\r\n");
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
        text += &format!("host: {face}\r\n");
    }
    for (n, v) in headers {
        text += &format!("{n}: {v}\r\n");
    }
    if !body.is_empty() {
        text += "content-type: application/json\r\n";
    }
    text + &format!("content-length: {}\r\nconnection: close\r\n\r\n{body}", body.len())
}

/// Read until the head is in, and (`events`) the first event of a stream after it; or to the
/// end. An answer of what was read.
async fn read_answer(stream: &mut TcpStream, events: bool) -> Answer {
    let mut raw = Vec::new();
    let mut buf = [0u8; 16384];
    let read = async {
        loop {
            if events {
                let text = String::from_utf8_lossy(&raw).to_string();
                if let Some((head, body)) = text.split_once("\r\n\r\n")
                    && head.starts_with("HTTP/1.1 200")
                    && body.contains("\n\n")
                {
                    return;
                }
            }
            // Else to the end: every request says `connection: close`.
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => raw.extend_from_slice(&buf[..n]),
            }
        }
    };
    tokio::time::timeout(PATIENCE, read).await.expect("the face answers");
    let text = String::from_utf8_lossy(&raw).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or_else(|| panic!("no answer: {text:?}"));
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("{head}"));
    let chunked = head.to_ascii_lowercase().contains("transfer-encoding: chunked");
    let body = if chunked && !events { dechunk(body) } else { body.to_string() };
    Answer { status, head: head.to_string(), body }
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || rest.len() < n {
            break;
        }
        out += &rest[..n];
        body = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// One request from 127.0.0.`source`, on a connection of its own, answered to its end.
async fn ask(face: SocketAddr, source: u8, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Answer {
    let mut stream = connect(face, source).await;
    stream.write_all(request_text(face, method, path, headers, body).as_bytes()).await.unwrap();
    read_answer(&mut stream, false).await
}

/// An event stream opened from 127.0.0.`source`: its connection (kept open while held) and its
/// answer (a 200's first event).
async fn follow(face: SocketAddr, source: u8, path: &str, headers: &[(&str, &str)]) -> (TcpStream, Answer) {
    let mut stream = connect(face, source).await;
    stream.write_all(request_text(face, "GET", path, headers, "").as_bytes()).await.unwrap();
    let answer = read_answer(&mut stream, true).await;
    (stream, answer)
}

fn json(value: serde_json::Value) -> String {
    value.to_string()
}

/// A ladder's file: two anchors that keep meeting (finished games to step through, standings).
const LADDER: &str = "name: keyed\ngames:\n  - { game: expedition, preset: no-dice, params: { players: 2 } }\nanchors:\n  - { name: random, bot: random }\n  - { name: rules, bot: rules }\nrefit_ms: 200\nanchor_interval: 1\nbootstrap: 50\n";

/// What one pass over every route asks: (method, path, token, body, an event stream).
type Route = (&'static str, String, Option<String>, String, bool);

/// Every route of the face (but the static files), for match `id` (whose seats `tokens` open),
/// the finished match `done` and the ladder's stored game 1. `key`: what POST /api/key is given.
fn routes(id: &str, tokens: &[String], to_move: usize, act: &str, done: &str, key: &str) -> Vec<Route> {
    let get = |p: String| ("GET", p, None, String::new(), false);
    let new_match =
        json(serde_json::json!({ "game": "expedition", "preset": "no-dice", "seats": ["person", "person"] }));
    vec![
        get("/".into()),
        get(format!("/match?id={id}")),
        get("/play".into()),
        get("/key".into()),
        get(format!("/game?id={done}")),
        get("/game?ladder=1".into()),
        get("/api/face".into()),
        get("/api/games".into()),
        get("/api/matches".into()),
        get(format!("/api/matches/{id}")),
        ("GET", format!("/api/matches/{id}/events"), None, String::new(), true),
        ("GET", format!("/api/matches/{id}/state"), Some(tokens[0].clone()), String::new(), false),
        ("GET", format!("/api/matches/{id}/seat"), Some(tokens[0].clone()), String::new(), true),
        get("/api/progression".into()),
        ("GET", "/api/standings".into(), None, String::new(), true),
        get("/api/key".into()),
        ("POST", "/api/matches".into(), None, new_match, false),
        ("POST", format!("/api/matches/{id}/act"), Some(tokens[to_move].clone()), act.to_string(), false),
        ("POST", format!("/api/matches/{id}/resign"), Some(tokens[1 - to_move].clone()), String::new(), false),
        ("POST", "/api/key".into(), None, json(serde_json::json!({ "key": key })), false),
        ("DELETE", "/api/key".into(), None, String::new(), false),
    ]
}

/// Ask every route with `headers` (a key, or none): each answer.
async fn ask_all(face: SocketAddr, routes: &[Route], headers: &[(&str, &str)]) -> Vec<(String, Answer)> {
    let mut answers = Vec::new();
    for (method, path, token, body, stream) in routes {
        let bearer = token.as_ref().map(|t| format!("Bearer {t}"));
        let mut h = headers.to_vec();
        if let Some(b) = &bearer {
            h.push(("authorization", b));
        }
        let answer =
            if *stream { follow(face, 1, path, &h).await.1 } else { ask(face, 1, method, path, &h, body).await };
        answers.push((format!("{method} {path}"), answer));
    }
    answers
}

/// A new match of two person seats, made through the face with `headers`: its id, its tokens,
/// the seat to move, and a move for it (`{"action", "version"}`).
async fn person_match(face: SocketAddr, headers: &[(&str, &str)]) -> (String, Vec<String>, usize, String) {
    let body = json(serde_json::json!({ "game": "expedition", "preset": "no-dice", "seats": ["person", "person"] }));
    let made = ask(face, 1, "POST", "/api/matches", headers, &body).await;
    assert_eq!(made.status, 200, "{made:?}");
    let made = made.json();
    let id = made["match_id"].as_str().unwrap().to_string();
    let tokens: Vec<String> =
        made["seats"].as_array().unwrap().iter().map(|s| s["token"].as_str().unwrap().into()).collect();
    let bearer = format!("Bearer {}", tokens[0]);
    let mut h = headers.to_vec();
    h.push(("authorization", &bearer));
    let state = ask(face, 1, "GET", &format!("/api/matches/{id}/state"), &h, "").await.json();
    let to_move = state["to_move"].as_u64().unwrap() as usize;
    // The seat's own legal actions are listed to it alone: ask as the seat to move.
    let bearer = format!("Bearer {}", tokens[to_move]);
    let mut h = headers.to_vec();
    h.push(("authorization", &bearer));
    let state = ask(face, 1, "GET", &format!("/api/matches/{id}/state"), &h, "").await.json();
    let act = json(serde_json::json!({ "action": state["legal"][0]["id"], "version": state["version"] }));
    (id, tokens, to_move, act)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn where_the_server_serves_by_key_every_route_but_the_static_files_needs_one() {
    let keys = keys();
    let file = scratch::scratch("web", "ladder.yaml");
    std::fs::write(&file, LADDER).unwrap();
    let data = scratch::scratch("web", "data");
    let (_ladder, face) = with_face(
        &[
            "ladder",
            file.to_str().unwrap(),
            "--data",
            data.to_str().unwrap(),
            "--require-key",
            "always",
            "--client-keys",
            keys.to_str().unwrap(),
            // Not this test's subject: its step-through pages would spend a bucket.
            "--http-requests-per-client-per-second",
            "100000",
        ],
        "serving on ",
    );
    let with_header = [("x-arena-key", KEY)];
    // A finished match and a stored game of the ladder's, to step through.
    let mut polls = 0;
    let done = loop {
        polls += 1;
        assert!(polls < 1500, "the ladder's anchors finished no game");
        let listed = ask(face, 1, "GET", "/api/matches", &with_header, "").await;
        let game = ask(face, 1, "GET", "/game?ladder=1", &with_header, "").await;
        if let Some(id) = listed.json()["finished"][0]["id"].as_str()
            && game.status == 200
        {
            break id.to_string();
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };

    // With the key in its header, every route answers.
    let (id, tokens, to_move, act) = person_match(face, &with_header).await;
    let every = routes(&id, &tokens, to_move, &act, &done, KEY);
    for (route, answer) in ask_all(face, &every, &with_header).await {
        assert_eq!(answer.status, 200, "{route}: {answer:?}");
    }

    // Without a key, none does: a page answers with the form that takes one.
    let (id, tokens, to_move, act) = person_match(face, &with_header).await;
    let every = routes(&id, &tokens, to_move, &act, &done, "");
    for (route, answer) in ask_all(face, &every, &[]).await {
        assert_eq!(answer.status, 401, "{route}: {answer:?}");
        if answer.header("content-type").is_some_and(|t| t.starts_with("text/html")) {
            assert!(answer.body.contains("id=\"key-form\""), "{route}: {answer:?}");
        } else {
            let e = answer.error();
            assert!(e.contains("key") && (e.contains("/key") || e.contains("no key given")), "{route}: {e}");
        }
    }
    // Nor with a key that is not one.
    let wrong = ask(face, 1, "GET", "/api/games", &[("x-arena-key", "not-a-key-of-this-face")], "").await;
    assert_eq!((wrong.status, wrong.error().as_str()), (401, "x-arena-key: not a client key of this server"));
    // The static files are open: the form needs its script.
    for path in [
        "/static/arena.js",
        "/static/key.js",
        "/static/arena.css",
        "/static/viewer.js",
        "/favicon.ico",
        "/rules/journey",
        "/rules/expedition",
    ] {
        assert_eq!(ask(face, 1, "GET", path, &[], "").await.status, 200, "{path}");
    }

    // A browser shows its key in the cookie /api/key sets (no script reads it), on every route,
    // event streams included.
    let taken = ask(face, 1, "POST", "/api/key", &[], &json(serde_json::json!({ "key": KEY }))).await;
    assert_eq!((taken.status, &taken.json()["client"]), (200, &serde_json::json!("lab")), "{taken:?}");
    let set = taken.header("set-cookie").unwrap().to_string();
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(set.contains(attribute), "{set}");
    }
    let cookie = set.split(';').next().unwrap().to_string();
    let with_cookie = [("cookie", cookie.as_str())];
    let (id, tokens, to_move, act) = person_match(face, &with_cookie).await;
    let every = routes(&id, &tokens, to_move, &act, &done, KEY);
    for (route, answer) in ask_all(face, &every, &with_cookie).await {
        assert_eq!(answer.status, 200, "{route}: {answer:?}");
        if route == "DELETE /api/key" {
            assert!(answer.header("set-cookie").is_some_and(|c| c.contains("Max-Age=0")), "forgotten: {answer:?}");
        }
    }
    // A cookie that holds no key of this server is refused, and forgotten.
    let stale = ask(face, 1, "GET", "/api/games", &[("cookie", "arena-key=6e6f7065")], "").await;
    assert_eq!(stale.status, 401);
    assert!(stale.error().contains("not a key of this server"), "{stale:?}");
    assert!(stale.header("set-cookie").is_some_and(|c| c.contains("Max-Age=0")), "{stale:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_face_answers_to_its_own_names_and_takes_requests_from_its_own_pages() {
    let (_server, face) = with_face(&["serve", "--http-host", "arena.example.org"], "serving tabletop.arena.v1 on ");
    let port = face.port();
    let games = |host: String| async move { ask(face, 2, "GET", "/api/games", &[("host", &host)], "").await };
    // A page of another site whose name was made to resolve here (DNS rebinding) is not served.
    let rebound = games(format!("rebind.attacker.example:{port}")).await;
    assert_eq!(rebound.status, 421, "{rebound:?}");
    let e = rebound.error();
    assert!(e.contains("does not answer to `rebind.attacker.example:") && e.contains("--http-host"), "{e}");
    // Its own names are: localhost, its IP addresses, the operator's (in any case, with a dot).
    for host in [format!("localhost:{port}"), face.to_string(), "Arena.Example.org.".into(), format!("[::1]:{port}")] {
        assert_eq!(games(host.clone()).await.status, 200, "{host}");
    }
    // A request that names no host is refused too.
    let mut bare = connect(face, 2).await;
    bare.write_all(b"GET /api/games HTTP/1.0\r\n\r\n").await.unwrap();
    let bare = read_answer(&mut bare, false).await;
    assert_eq!(bare.status, 400, "{bare:?}");
    assert!(bare.error().contains("(Host)"), "{bare:?}");

    // A POST from a page of another origin is refused; from the face's own pages, from a page
    // on the operator's names, or from a program (no Origin) it is taken.
    let new_match =
        json(serde_json::json!({ "game": "expedition", "preset": "no-dice", "seats": ["person", {"bot": "random"}] }));
    let post = |origin: Option<String>| {
        let body = new_match.clone();
        async move {
            let headers: Vec<(&str, &str)> = origin.iter().map(|o| ("origin", o.as_str())).collect();
            ask(face, 2, "POST", "/api/matches", &headers, &body).await
        }
    };
    for foreign in ["http://attacker.example", "null", &format!("http://localhost:{}", port + 1), "file://"] {
        let refused = post(Some(foreign.to_string())).await;
        assert_eq!(refused.status, 403, "{foreign}: {refused:?}");
        assert!(refused.error().contains("another origin") && refused.error().contains(foreign), "{refused:?}");
    }
    for own in [Some(format!("http://{face}")), Some("https://arena.example.org".into()), None] {
        let made = post(own.clone()).await;
        assert_eq!(made.status, 200, "{own:?}: {made:?}");
        assert!(made.json()["match_id"].is_string());
    }
    // Nor is a page of another origin served what it reads.
    let (_, seen) = follow(face, 2, "/api/matches", &[("origin", "http://attacker.example")]).await;
    assert_eq!(seen.status, 403, "{seen:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_past_its_rate_is_refused_naming_it_while_another_is_served() {
    let keys = keys();
    // A bucket of 25 requests that refills in 100 s a request: nothing refills during the test.
    let (_server, face) = with_face(
        &[
            "serve",
            "--http-requests-per-client-per-second",
            "0.01",
            "--http-game-page-cost",
            "25",
            "--client-keys",
            keys.to_str().unwrap(),
        ],
        "serving tabletop.arena.v1 on ",
    );
    assert_eq!(ask(face, 2, "GET", "/api/games", &[], "").await.status, 200);
    // A /game page costs more of the rate than the whole rest of its bucket: refused, naming
    // what it counts as, while a cheap request still is served.
    let game = ask(face, 2, "GET", "/game?id=none", &[], "").await;
    assert_eq!(game.status, 429, "{game:?}");
    assert!(game.error().contains("a /game page counts as 25"), "{game:?}");
    assert!(game.header("retry-after").is_some_and(|s| s.parse::<u64>().unwrap() > 0), "{game:?}");
    let mut served = 1;
    let refused = loop {
        let answer = ask(face, 2, "GET", "/api/games", &[], "").await;
        if answer.status != 200 {
            break answer;
        }
        served += 1;
        assert!(served <= 25, "a bucket of 25 is spent by 25 requests");
    };
    assert_eq!((served, refused.status), (25, 429), "{refused:?}");
    let e = refused.error();
    assert!(
        e.contains("the clients of 127.0.0.2: over 0.01 requests a second to the web face, a client's rate"),
        "{e}"
    );
    // Another client is served: another address, and a key's holder at the same address.
    assert_eq!(ask(face, 3, "GET", "/api/games", &[], "").await.status, 200);
    assert_eq!(ask(face, 2, "GET", "/api/games", &[("x-arena-key", KEY)], "").await.status, 200);
    // A /game page with a whole bucket is let through (there is no match `none`).
    let fresh = ask(face, 4, "GET", "/game?id=none", &[], "").await;
    assert_eq!(fresh.status, 404, "{fresh:?}");
}

/// Client 127.0.0.`source` (showing `key`, if any) follows a match on event streams, each on a
/// connection of its own, until one is refused: how many it opened (held in `held`), and the
/// refusal.
async fn at_share(
    face: SocketAddr,
    source: u8,
    events: &str,
    key: Option<&str>,
    held: &mut Vec<TcpStream>,
) -> (usize, Answer) {
    let headers: Vec<(&str, &str)> = key.iter().map(|k| ("x-arena-key", *k)).collect();
    let mut opened = 0;
    loop {
        let (stream, answer) = follow(face, source, events, &headers).await;
        if answer.status != 200 {
            return (opened, answer);
        }
        assert!(answer.body.contains("\"kind\":\"started\""), "{answer:?}");
        held.push(stream);
        opened += 1;
        assert!(opened <= 4, "a share of 4");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_face_shares_its_connections_by_client_and_a_new_client_still_gets_in() {
    let keys = keys();
    // 96 connections, 4 a client: the last 12 kept for clients holding fewer than 1.
    let (_server, face) = with_face(
        &[
            "serve",
            "--http-connections",
            "96",
            "--http-connections-per-client",
            "4",
            "--client-keys",
            keys.to_str().unwrap(),
        ],
        "serving tabletop.arena.v1 on ",
    );
    let (id, _, _, _) = person_match(face, &[]).await;
    let events = format!("/api/matches/{id}/events");
    let mut held = Vec::new();
    // 20 addresses and a key's holder, each at its share of 4: the key's is its own, though
    // it connects from an address at its share.
    let mut clients = 0;
    for source in 2..=21 {
        let (opened, refused) = at_share(face, source, &events, None, &mut held).await;
        assert_eq!((opened, refused.status), (4, 429), "127.0.0.{source}: {refused:?}");
        let e = refused.error();
        assert!(
            e.contains(&format!(
                "4 browser connections held by the clients of 127.0.0.{source} already: a client's share"
            )),
            "{e}"
        );
        assert_eq!(refused.header("connection"), Some("close"));
        clients += 1;
        if source == 2 {
            let (opened, refused) = at_share(face, 2, &events, Some(KEY), &mut held).await;
            assert_eq!((opened, refused.status), (4, 429), "the key's holder: {refused:?}");
            assert!(refused.error().contains("held by client `lab` already: a client's share"), "{refused:?}");
            clients += 1;
        }
    }
    assert_eq!((clients, held.len()), (21, 84));
    // All but the reserve is taken: the next client gets a place of it, not two.
    let (opened, refused) = at_share(face, 22, &events, None, &mut held).await;
    assert_eq!((opened, refused.status), (1, 429), "{refused:?}");
    assert!(refused.error().contains("the last 12 of the 96 are kept for new clients"), "{refused:?}");
    // A new client still gets in, and is served.
    let (stream, answer) = follow(face, 23, &events, &[]).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    held.push(stream);
    assert_eq!(ask(face, 24, "GET", "/api/games", &[], "").await.status, 200);
    // Connections past an address's share wait for a request that shows a key, a few at a time;
    // past those, a connection is refused at once, with the share it met.
    let idle: Vec<TcpStream> = futures_util::future::join_all((0..4).map(|_| connect(face, 3))).await;
    let mut past = connect(face, 3).await;
    let at_once = read_answer(&mut past, false).await;
    assert_eq!(at_once.status, 429, "{at_once:?}");
    assert!(at_once.error().contains("held by the clients of 127.0.0.3 already: a client's share"), "{at_once:?}");
    drop(idle);
}

/// The game JSON of a step-through page (`<script type="application/json" id="game">`).
fn game_of_page(page: &str) -> serde_json::Value {
    let (_, rest) = page.split_once("id=\"game\">").unwrap_or_else(|| panic!("no game in {page}"));
    let (data, _) = rest.split_once("</script>").unwrap();
    serde_json::from_str(data).unwrap()
}

/// A finished match's step-through page names a seat played through its token as the match page
/// does, "a person", never by the record's word `token`; an agent's seat by its name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_game_page_names_a_token_seat_a_person_not_token() {
    let (_server, face) = with_face(&["serve"], "serving tabletop.arena.v1 on ");
    let new_match =
        json(serde_json::json!({ "game": "expedition", "preset": "no-dice", "seats": ["person", {"bot": "random"}] }));
    let made = ask(face, 3, "POST", "/api/matches", &[], &new_match).await;
    assert_eq!(made.status, 200, "{made:?}");
    let made = made.json();
    let id = made["match_id"].as_str().unwrap().to_string();
    let bearer = format!("Bearer {}", made["seats"][0]["token"].as_str().unwrap());
    let resigned = ask(face, 3, "POST", &format!("/api/matches/{id}/resign"), &[("authorization", &bearer)], "").await;
    assert_eq!(resigned.status, 200, "{resigned:?}");
    let mut polls = 0;
    let page = loop {
        polls += 1;
        assert!(polls < 300, "the resigned match's page never came");
        let page = ask(face, 3, "GET", &format!("/game?id={id}"), &[], "").await;
        if page.status == 200 {
            break page;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let game = game_of_page(&page.body);
    assert_eq!(game["players"], serde_json::json!(["a person", "random"]), "{}", game["result"]);
    assert!(game["result"].as_str().unwrap().contains("a person (seat 0) resigned"), "{}", game["result"]);
}

/// Each game's rules as implemented, a page of the face: every section has an id to link to,
/// the page holds no script and keeps the face's policy; a name that is no game (or a path) is
/// not found. The table links to it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rules_are_pages_of_the_face() {
    let (_server, face) = with_face(&["serve"], "serving tabletop.arena.v1 on ");
    for (game, section) in [("journey", "<h2 id=\"6-fighting\">"), ("expedition", "<h2 id=\"observation-tensor\">")] {
        let page = ask(face, 1, "GET", &format!("/rules/{game}"), &[], "").await;
        assert_eq!(page.status, 200, "{page:?}");
        assert!(page.header("content-type").is_some_and(|t| t.starts_with("text/html")), "{page:?}");
        assert!(page.header("content-security-policy").is_some_and(|p| p.contains("script-src 'self'")), "{page:?}");
        assert!(page.body.contains(section), "{game}: no {section}");
        assert!(!page.body.contains("<script"), "{game}: a script in the rules");
        for (at, _) in page.body.match_indices("<h") {
            let tag = &page.body[at..at + 4];
            if tag[2..3].chars().all(|c| c.is_ascii_digit()) {
                assert!(
                    tag.ends_with(' ') && page.body[at + 4..].starts_with("id=\""),
                    "{game}: a heading without an id at {at}"
                );
            }
        }
    }
    let journey = ask(face, 1, "GET", "/rules/journey", &[], "").await;
    assert!(journey.body.contains("<code>strike &lt;card&gt;</code>"), "the rules' text stays text");
    for path in ["/rules/chess", "/rules/..%2F..%2Fetc%2Fpasswd", "/rules/journey.md"] {
        let missing = ask(face, 1, "GET", path, &[], "").await;
        assert_eq!(missing.status, 404, "{path}: {missing:?}");
        assert_eq!(missing.error(), "no such game; the games are journey, expedition");
    }
    // The table links to them.
    for page in ["/play", "/match?id=1"] {
        let html = ask(face, 1, "GET", page, &[], "").await.body;
        assert!(html.contains("<a id=\"rules\""), "{page}: no link to the rules");
    }
}
