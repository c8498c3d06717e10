//! The face's addresses. Pages: `/`, `/match?id=ID`, `/play`, `/game?id=ID` (a finished
//! match, or `?ladder=N` a ladder's stored game N, in the report's step-through viewer: every
//! seat's view at every position, given once its deal is no longer in play), `/key` (the
//! client key this browser shows), `/rules/GAME` (a game's rules as implemented), and
//! `/static/NAME`. JSON and event streams (server-sent
//! events), each the gRPC call it names, made as the browser's:
//!
//! | address | call |
//! |---|---|
//! | `GET /api/face` | what this face shows (a ladder's or a tournament's standings, or a server's matches alone) |
//! | `GET /api/games` | `Catalogue.ListGames` |
//! | `GET /api/matches` | the matches in play (the 200 last to move), and the 200 last finished |
//! | `POST /api/matches` | `Matches.CreateMatch` (a person's seats are token seats) |
//! | `GET /api/matches/ID` | a match's game and who sits where |
//! | `GET /api/matches/ID/events` | `Matches.Spectate`: the public events, as they happen |
//! | `GET /api/matches/ID/state` | `Matches.Observe`: the seat's state now (the token likewise) |
//! | `GET /api/matches/ID/seat` | `Matches.Watch`: the seat's state at each change (its token in `Authorization: Bearer`) |
//! | `POST /api/matches/ID/act` | `Matches.Act` (the token likewise) |
//! | `POST /api/matches/ID/resign` | `Matches.Resign` (the token likewise) |
//! | `GET /api/progression` | a ladder's or a tournament's 8 leaders, each with its rating over time |
//! | `GET /api/standings?offset=N&limit=N` | `Ladder.WatchStandings` (a ladder's face; the page of each list, 50 rows by default), or a tournament's standings as it plays |
//! | `GET /api/key`, `POST /api/key`, `DELETE /api/key` | the client key this browser shows (kept in an HttpOnly cookie): whose it is, a new one, none |
//!
//! Every request passes the [`gate`](super::gate) first, and each call is made as its
//! [`Caller`]: its key, if it showed one, passed on as `x-arena-key`.

use super::gate::{self, Caller, Gate};
use super::{CONTENT_SECURITY_POLICY, Face, Standings, assets, error, json};
use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures_util::{Stream, StreamExt};
use proto::v1;
use proto::v1::catalogue_server::Catalogue;
use proto::v1::ladder_server::Ladder;
use proto::v1::matches_server::Matches;
use serde::Deserialize;
use std::sync::Arc;
use tonic::{Code, Status};

/// The largest request body read (a new match, an action).
const MAX_BODY: usize = 16 * 1024;
/// Matches listed at most.
const LISTED: usize = 200;
/// Agents in the progression chart.
const LEADERS: usize = 8;

pub fn router(face: Face, gate: Arc<Gate>) -> axum::Router {
    axum::Router::new()
        .route("/", get(|| async { page(&assets::FRONT) }))
        .route("/match", get(|| async { page(&assets::MATCH) }))
        .route("/agent", get(|| async { page(&assets::AGENT) }))
        .route("/play", get(|| async { page(&assets::PLAY) }))
        .route("/key", get(|| async { page(&assets::KEY) }))
        .route("/game", get(finished_game))
        .route("/static/{name}", get(static_asset))
        .route("/rules/{game}", get(rules_page))
        .route("/favicon.ico", get(|| async { page(assets::find("icon.svg").expect("the icon is embedded")) }))
        .route("/api/face", get(about))
        .route("/api/games", get(games))
        .route("/api/matches", get(matches).post(create))
        .route("/api/matches/{id}", get(one_match))
        .route("/api/matches/{id}/events", get(events))
        .route("/api/matches/{id}/state", get(observe))
        .route("/api/matches/{id}/seat", get(seat))
        .route("/api/matches/{id}/act", post(act))
        .route("/api/matches/{id}/resign", post(resign))
        .route("/api/standings", get(standings))
        .route("/api/progression", get(progression))
        .route("/api/agents/{name}", get(agent))
        .route("/api/challenge", post(challenge))
        .route("/api/key", get(whose_key).post(take_key).delete(forget_key))
        .fallback(|| async { error(StatusCode::NOT_FOUND, "no such page") })
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY))
        .layer(axum::middleware::from_fn_with_state(gate, gate::gate))
        .layer(axum::middleware::map_response(secure))
        .with_state(face)
}

/// Every response: the content security policy and its companions.
async fn secure(mut response: Response) -> Response {
    let h = response.headers_mut();
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CONTENT_SECURITY_POLICY));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert("cross-origin-opener-policy", HeaderValue::from_static("same-origin"));
    h.insert("cross-origin-resource-policy", HeaderValue::from_static("same-origin"));
    if !h.contains_key(header::CACHE_CONTROL) {
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}

fn page(asset: &'static assets::Asset) -> Response {
    ([(header::CONTENT_TYPE, asset.content_type)], asset.body).into_response()
}

/// A game's rules as implemented (the name is looked up among the games, never a path).
async fn rules_page(Path(game): Path<String>) -> Response {
    match super::rules::find(&game) {
        Some(page) => ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], page).into_response(),
        None => {
            let games: Vec<&str> = super::rules::games().collect();
            error(StatusCode::NOT_FOUND, &format!("no such game; the games are {}", games.join(", ")))
        }
    }
}

async fn static_asset(Path(name): Path<String>) -> Response {
    match assets::find(&name) {
        Some(a) => page(a),
        None => error(StatusCode::NOT_FOUND, "no such file"),
    }
}

/// A request's JSON body as `T`, or the refusal (its status) naming `what` and what is wrong.
#[allow(clippy::result_large_err)] // the refusal is the route's answer, as it is
fn read_body<T>(body: Result<Json<T>, axum::extract::rejection::JsonRejection>, what: &str) -> Result<T, Response> {
    body.map(|Json(b)| b).map_err(|e| error(e.status(), &format!("{what}: {}", e.body_text())))
}

/// A request's query as `T`, or a 400 naming `what` and what is wrong.
#[allow(clippy::result_large_err)] // the refusal is the route's answer, as it is
fn read_query<T>(
    query: Result<axum::extract::Query<T>, axum::extract::rejection::QueryRejection>,
    what: &str,
) -> Result<T, Response> {
    query
        .map(|axum::extract::Query(q)| q)
        .map_err(|e| error(StatusCode::BAD_REQUEST, &format!("{what}: {}", e.body_text())))
}

/// A refusal of the gRPC call, as HTTP: its code's nearest status, its message (and where a
/// browser gives its key, when a key is what was missing).
fn refused(status: Status) -> Response {
    let code = match status.code() {
        Code::InvalidArgument | Code::OutOfRange => StatusCode::BAD_REQUEST,
        Code::Unauthenticated => StatusCode::UNAUTHORIZED,
        Code::PermissionDenied => StatusCode::FORBIDDEN,
        Code::NotFound => StatusCode::NOT_FOUND,
        Code::AlreadyExists | Code::FailedPrecondition | Code::Aborted => StatusCode::CONFLICT,
        Code::ResourceExhausted => StatusCode::TOO_MANY_REQUESTS,
        Code::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        Code::DeadlineExceeded => StatusCode::GATEWAY_TIMEOUT,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    if code == StatusCode::UNAUTHORIZED {
        return error(code, &format!("{} (a browser: enter the key at /key)", status.message()));
    }
    error(code, status.message())
}

/// The seat token a request carries (`Authorization: Bearer TOKEN`).
fn token(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).unwrap_or_default();
    value.strip_prefix("Bearer ").filter(|t| !t.is_empty() && t.len() <= 128).map(str::to_string)
}

fn no_token() -> Response {
    error(StatusCode::UNAUTHORIZED, "a seat's token is needed (Authorization: Bearer TOKEN)")
}

/// A stream of the contract's messages as server-sent events named `event`; a refusal
/// mid-stream is an `error` event with its message, and ends the stream.
fn events_of<T: Send + 'static>(
    stream: impl Stream<Item = Result<T, Status>> + Send + 'static,
    event: &'static str,
    to_json: fn(&T) -> serde_json::Value,
) -> Response {
    let events = stream.map(move |item| {
        Ok::<_, std::convert::Infallible>(match item {
            Ok(m) => Event::default().event(event).data(to_json(&m).to_string()),
            Err(status) => Event::default().event("error").data(status.message()),
        })
    });
    Sse::new(events).keep_alive(KeepAlive::default()).into_response()
}

/// Which finished game `/game` shows.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WhichGame {
    id: Option<String>,
    ladder: Option<u64>,
    /// Read by the viewer's script (presses of `next` once loaded).
    #[serde(default, rename = "next")]
    _next: Option<u32>,
}

async fn finished_game(
    State(face): State<Face>,
    caller: Caller,
    axum::extract::Query(which): axum::extract::Query<WhichGame>,
) -> Response {
    let client = match face.services.client(&caller.call(()), false) {
        Ok(c) => c,
        Err(s) => return refused(s),
    };
    let ladder = face.ladder().cloned();
    // Reading the record (a ladder's from its store), replaying the game and writing every
    // seat's view at every position take a moment: one of the browser's calls, off the async
    // threads.
    let built = face
        .services
        .off_the_async_threads(&client, move |hub| {
            let (record, title) = match (which.id, which.ladder, ladder) {
                (Some(id), None, _) => {
                    let record = hub.table(&id)?.published_record()?;
                    let title = format!("{} — match {id}", record.game.game);
                    (record, title)
                }
                (None, Some(n), Some(ladder)) => {
                    let record = ladder.published(n)?;
                    let title = format!("{} — ladder game {n}", record.game.game);
                    (record, title)
                }
                (None, Some(_), None) => return Err(Status::not_found("this server runs no ladder")),
                _ => {
                    return Err(Status::invalid_argument(
                        "/game?id=MATCH (a finished match) or /game?ladder=N (a ladder's game N)",
                    ));
                }
            };
            let view = crate::record::game_view(&record, &title)
                .map_err(|e| Status::internal(format!("the game does not replay: {e}")))?;
            let linked = reports::viewer::Assets::Linked {
                style: "/static/viewer.css",
                draw_style: "/static/draw.css",
                draw: "/static/draw.js",
                script: "/static/viewer.js",
            };
            Ok(reports::viewer::viewer_page(&view, linked))
        })
        .await;
    match built {
        Ok(html) => ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response(),
        Err(s) => refused(s),
    }
}

async fn about(State(face): State<Face>) -> Response {
    let (kind, name) = match &face.standings {
        Some(Standings::Ladder(l)) => ("ladder", Some(l.ladder.config.name.clone())),
        Some(Standings::Tournament(feed)) => ("tournament", Some(feed.standings.borrow().ladder.clone())),
        None => ("server", None),
    };
    // A ladder's game entries a person may challenge an agent to (two-seat competitive ones, and
    // cooperative ones).
    let challenges: Vec<_> = match &face.standings {
        Some(Standings::Ladder(l)) => l
            .ladder
            .challenge_entries()
            .into_iter()
            .map(|(entry, label)| serde_json::json!({ "entry": entry, "label": label }))
            .collect(),
        _ => Vec::new(),
    };
    Json(serde_json::json!({ "kind": kind, "name": name, "challenges": challenges })).into_response()
}

/// A challenge from the web face: `{"agent", "entry", "name"}`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewChallenge {
    agent: String,
    entry: usize,
    name: String,
    /// The name's key, if the operator gave it one (a keyed ladder's names all have one).
    #[serde(default)]
    key: String,
}

/// A person challenges an agent of the ladder: the match, and the person's seat and token (kept
/// by the page in this tab's session storage, as a new match's).
async fn challenge(
    State(face): State<Face>,
    caller: Caller,
    body: Result<Json<NewChallenge>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let new = match read_body(body, "a challenge") {
        Ok(b) => b,
        Err(refusal) => return refusal,
    };
    let Some(Standings::Ladder(l)) = face.standings.clone() else {
        return error(StatusCode::NOT_FOUND, "no ladder here: a challenge is a ladder's game");
    };
    let hub = &face.services.hub;
    // Admitted at the browser's call rate, as a new match is.
    if let Err(s) = hub.admit_call(caller.key.as_deref().map(str::as_bytes), Some(caller.peer), true) {
        return refused(s);
    }
    let client = match face.services.client(&caller.call(()), true) {
        Ok(c) => c,
        Err(s) => return refused(s),
    };
    // The name's key makes its holder the name's owner, as a Hello's does.
    let client = if new.key.is_empty() { client } else { hub.owner_of(&new.name, &new.key, &client) };
    match l.ladder.challenge(&new.name, &client, &new.agent, new.entry) {
        Ok(c) => Json(serde_json::json!({
            "match_id": c.table.setup.id,
            "seats": c.seats.iter().map(|(seat, token)| serde_json::json!({ "seat": seat, "token": token })).collect::<Vec<_>>(),
        }))
        .into_response(),
        Err(s) => refused(s),
    }
}

async fn one_match(State(face): State<Face>, Path(id): Path<String>) -> Response {
    match face.services.hub.table(&id) {
        Ok(t) => Json(serde_json::json!({
            "id": t.setup.id,
            "game": t.setup.game_name,
            "params_yaml": t.params_yaml,
            "players": t.setup.players,
            "over": t.is_over(),
            // Its deal is played at other tables still: its moves are shown once they are over.
            "held": t.moves_held_by().is_some(),
        }))
        .into_response(),
        Err(s) => refused(s),
    }
}

async fn games(State(face): State<Face>, caller: Caller) -> Response {
    match face.services.list_games(caller.call(v1::ListGamesRequest {})).await {
        Ok(r) => Json(json::games(r.get_ref())).into_response(),
        Err(s) => refused(s),
    }
}

async fn matches(State(face): State<Face>) -> Response {
    let list: Vec<_> = face
        .services
        .hub
        .in_play(LISTED)
        .into_iter()
        .map(|(id, game, players, version)| {
            serde_json::json!({ "id": id, "game": game, "players": players, "version": version })
        })
        .collect();
    // The finished ones, to step through: a deal still in play elsewhere is not shown yet.
    let finished: Vec<_> = face
        .services
        .hub
        .recently_finished(LISTED)
        .into_iter()
        .filter(|t| t.is_published())
        .map(|t| {
            let outcome = t.lock().outcome(t.setup.cooperative);
            serde_json::json!({
                "id": t.setup.id, "game": t.setup.game_name, "players": t.setup.players,
                "outcome": outcome.as_ref().map(json::outcome),
            })
        })
        .collect();
    Json(serde_json::json!({ "matches": list, "finished": finished })).into_response()
}

/// A new match as the play page asks for it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewMatch {
    game: String,
    #[serde(default)]
    preset: String,
    seats: Vec<NewSeat>,
    /// The per-move limit (0: the server's default).
    #[serde(default)]
    move_time_ms: u32,
}

/// Who sits at a seat: a person here (a token seat), a built-in agent, or a connected client.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "lowercase")]
enum NewSeat {
    Person,
    Bot(String),
    Play(String),
}

async fn create(
    State(face): State<Face>,
    caller: Caller,
    body: Result<Json<NewMatch>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let new = match read_body(body, "a new match") {
        Ok(b) => b,
        Err(refusal) => return refusal,
    };
    let hub = &face.services.hub;
    // Admitted at the browser's call rate, as the gRPC door admits CreateMatch.
    if let Err(s) = hub.admit_call(caller.key.as_deref().map(str::as_bytes), Some(caller.peer), true) {
        return refused(s);
    }
    let Some(info) = engine::games().iter().find(|g| g.name == new.game) else {
        return error(StatusCode::BAD_REQUEST, &format!("unknown game `{}`", crate::files::shown(&new.game)));
    };
    let people: Vec<u32> =
        new.seats.iter().enumerate().filter(|(_, s)| matches!(s, NewSeat::Person)).map(|(i, _)| i as u32).collect();
    let request = v1::CreateMatchRequest {
        game: new.game.clone(),
        preset: new.preset,
        params: [(info.seats_param.to_string(), new.seats.len().to_string())].into(),
        seats: new
            .seats
            .into_iter()
            .map(|s| v1::SeatSpec {
                player: Some(match s {
                    NewSeat::Person => v1::seat_spec::Player::Token(true),
                    NewSeat::Bot(b) => v1::seat_spec::Player::Bot(b),
                    NewSeat::Play(p) => v1::seat_spec::Player::Play(p),
                }),
            })
            .collect(),
        move_time_ms: new.move_time_ms,
        ..Default::default()
    };
    match face.services.create_match(caller.call(request)).await {
        Ok(r) => {
            let r = r.into_inner();
            let seats: Vec<_> = r
                .tokens
                .iter()
                .filter(|t| people.contains(&t.seat))
                .map(|t| serde_json::json!({ "seat": t.seat, "token": t.token }))
                .collect();
            Json(serde_json::json!({ "match_id": r.match_id, "seats": seats, "creator_token": r.creator_token }))
                .into_response()
        }
        Err(s) => refused(s),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EventsOptions {
    /// Also the table as anyone watching sees it (Table events): what a spectator draws.
    #[serde(default)]
    table: bool,
}

async fn events(
    State(face): State<Face>,
    caller: Caller,
    Path(id): Path<String>,
    options: Result<axum::extract::Query<EventsOptions>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let with_table = match read_query(options, "the events' options") {
        Ok(o) => o.table,
        Err(refusal) => return refusal,
    };
    let request = v1::SpectateRequest { match_id: id, from_version: 0, with_table };
    match face.services.spectate(caller.call(request)).await {
        Ok(r) => events_of(r.into_inner(), "event", json::event),
        Err(s) => refused(s),
    }
}

async fn observe(State(face): State<Face>, caller: Caller, Path(id): Path<String>, headers: HeaderMap) -> Response {
    let Some(token) = token(&headers) else { return no_token() };
    match face.services.observe(caller.call(v1::ObserveRequest { match_id: id, token, tensors: false })).await {
        Ok(r) => Json(json::seat_state(r.get_ref())).into_response(),
        Err(s) => refused(s),
    }
}

async fn seat(State(face): State<Face>, caller: Caller, Path(id): Path<String>, headers: HeaderMap) -> Response {
    let Some(token) = token(&headers) else { return no_token() };
    match face.services.watch(caller.call(v1::ObserveRequest { match_id: id, token, tensors: false })).await {
        Ok(r) => events_of(r.into_inner(), "state", json::seat_state),
        Err(s) => refused(s),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Move {
    action: u32,
    /// The version the action was chosen at (a stale one is refused).
    version: Option<u64>,
}

async fn act(
    State(face): State<Face>,
    caller: Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<Json<Move>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let Some(token) = token(&headers) else { return no_token() };
    let m = match read_body(body, "a move") {
        Ok(b) => b,
        Err(refusal) => return refusal,
    };
    let request = v1::ActRequest { match_id: id, token, action: m.action, version: m.version };
    match face.services.act(caller.call(request)).await {
        Ok(r) => Json(r.into_inner().state.as_ref().map(json::seat_state)).into_response(),
        Err(s) => refused(s),
    }
}

async fn resign(State(face): State<Face>, caller: Caller, Path(id): Path<String>, headers: HeaderMap) -> Response {
    let Some(token) = token(&headers) else { return no_token() };
    match face.services.resign(caller.call(v1::ResignRequest { match_id: id, token })).await {
        Ok(r) => Json(json::seat_state(r.get_ref())).into_response(),
        Err(s) => refused(s),
    }
}

/// One agent of a ladder: its recent games (each a step-through page), head-to-head and rating
/// over time (`Ladder.AgentGames`).
async fn agent(State(face): State<Face>, caller: Caller, Path(name): Path<String>) -> Response {
    let Some(Standings::Ladder(ladder)) = face.standings.clone() else {
        return error(StatusCode::NOT_FOUND, "no ladder here: agents have pages on a ladder's face");
    };
    let request = caller.call(v1::AgentGamesRequest { agent: name, limit: 50 });
    match ladder.agent_games(request).await {
        Ok(r) => {
            let r = r.into_inner();
            Json(serde_json::json!({
                "agent": r.agent,
                "games": r.games.iter().map(|g| serde_json::json!({
                    "game_id": g.game_id, "entry": g.entry, "players": g.players,
                    "outcome": g.outcome.as_ref().map(json::outcome), "finished_ms": g.finished_ms,
                })).collect::<Vec<_>>(),
                "head_to_head": r.head_to_head.iter().map(|h| serde_json::json!({
                    "opponent": h.opponent, "results": h.results, "points": h.points,
                })).collect::<Vec<_>>(),
                "history": r.history.iter().map(|p| [p.games as f64, p.rating, p.lower, p.upper]).collect::<Vec<_>>(),
            }))
            .into_response()
        }
        Err(s) => refused(s),
    }
}

async fn progression(State(face): State<Face>, caller: Caller) -> Response {
    let read = match face.standings.clone() {
        Some(Standings::Ladder(ladder)) => {
            // A read of the store: one of the browser's calls, off the async threads.
            match face.services.client(&caller.call(()), false) {
                Ok(client) => face.services.off_the_async_threads(&client, move |_| ladder.progression(LEADERS)).await,
                Err(s) => Err(s),
            }
        }
        Some(Standings::Tournament(feed)) => {
            let now = feed.standings.borrow().clone();
            let history = feed.history.lock().unwrap_or_else(|p| p.into_inner());
            Ok(now
                .lists
                .first()
                .map(|l| l.rows.as_slice())
                .unwrap_or_default()
                .iter()
                .take(LEADERS)
                .filter_map(|r| feed.names.iter().position(|n| *n == r.agent))
                .map(|p| (feed.names[p].clone(), history[p].clone()))
                .collect())
        }
        None => return error(StatusCode::NOT_FOUND, "no ladder and no tournament here: no rating history"),
    };
    match read {
        Ok(agents) => Json(serde_json::json!({
            "agents": agents.iter().map(|(name, points)| serde_json::json!({
                "name": name,
                "points": points.iter().map(|p| [p.rated_games as f64, p.rating, p.lower, p.upper]).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        }))
        .into_response(),
        Err(s) => refused(s),
    }
}

/// Which rows of each list (`/api/standings?offset=N&limit=N&search=S`), as `StandingsRequest`
/// has them.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StandingsPage {
    #[serde(default)]
    offset: u32,
    #[serde(default)]
    limit: u32,
    #[serde(default)]
    search: String,
}

async fn standings(
    State(face): State<Face>,
    caller: Caller,
    page: Result<axum::extract::Query<StandingsPage>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let page = match read_query(page, "the standings' page") {
        Ok(p) => p,
        Err(refusal) => return refusal,
    };
    let request = v1::StandingsRequest { offset: page.offset, limit: page.limit, search: page.search };
    match &face.standings {
        Some(Standings::Ladder(ladder)) => match ladder.watch_standings(caller.call(request)).await {
            Ok(r) => events_of(r.into_inner(), "standings", json::standings),
            Err(s) => refused(s),
        },
        Some(Standings::Tournament(feed)) => {
            // A place among the spectators, as the Ladder's WatchStandings takes one.
            let place = match face.services.spectator(&caller.call(())) {
                Ok(p) => p,
                Err(s) => return refused(s),
            };
            let changes = tokio_stream::wrappers::WatchStream::new(feed.standings.clone())
                .take_until(face.services.hub.stopped())
                .map(move |s: std::sync::Arc<v1::LadderStandings>| {
                    let _held = &place;
                    Ok::<_, Status>(s)
                });
            events_of(changes, "standings", |s: &std::sync::Arc<v1::LadderStandings>| json::standings(s))
        }
        None => error(StatusCode::NOT_FOUND, "this server runs no ladder and no tournament: it has no standings"),
    }
}

/// Whose key this browser shows, and which calls need one here.
async fn whose_key(State(face): State<Face>, caller: Caller) -> Response {
    Json(key_answer(&face, &caller.client, caller.key.is_some())).into_response()
}

fn key_answer(face: &Face, client: &crate::server::ClientId, keyed: bool) -> serde_json::Value {
    let required = match face.services.hub.clients.required {
        crate::server::KeyRequired::Never => "never",
        crate::server::KeyRequired::ToCreate => "create",
        crate::server::KeyRequired::Always => "always",
    };
    let name = match client {
        crate::server::ClientId::Key(name) if keyed => Some(name.clone()),
        _ => None,
    };
    serde_json::json!({ "client": name, "required": required })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewKey {
    key: String,
}

/// A client key for this browser: checked, then kept in its cookie (HttpOnly, this face's own
/// pages only), which every later request shows.
async fn take_key(
    State(face): State<Face>,
    caller: Caller,
    body: Result<Json<NewKey>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let new = match read_body(body, "a client key") {
        Ok(b) => b,
        Err(refusal) => return refusal,
    };
    let key = new.key.trim();
    if key.is_empty() {
        return error(StatusCode::UNAUTHORIZED, "no key given: {\"key\": \"YOUR KEY\"}");
    }
    if key.len() > gate::MAX_KEY {
        return error(StatusCode::UNAUTHORIZED, "that is not a client key of this server (too long)");
    }
    match face.services.hub.clients.identify(Some(key.as_bytes()), Some(caller.peer), false) {
        Ok(client) => {
            let mut r = Json(key_answer(&face, &client, true)).into_response();
            r.headers_mut().insert(header::SET_COOKIE, gate::key_cookie(key));
            r
        }
        Err(_) => error(StatusCode::UNAUTHORIZED, "that is not a client key of this server"),
    }
}

/// This browser keeps no key any more.
async fn forget_key(State(face): State<Face>, caller: Caller) -> Response {
    let address = face.services.hub.clients.of_addr(Some(caller.peer));
    let mut r = Json(key_answer(&face, &address, false)).into_response();
    r.headers_mut().insert(header::SET_COOKIE, gate::forget_cookie());
    r
}
