//! The gRPC services over the hub: the catalogue, matches (create, observe, act, record,
//! spectate) and the Play stream.

use super::hub::{Hub, secret};
use super::names;
use super::session::{Session, StreamFault};
use super::shares::{ClientId, Held, KEY_HEADER};
use super::wire;
use crate::files::shown;
use engine::games;
use futures_util::StreamExt;
use proto::v1;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status, Streaming};

pub type Stream_<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send + 'static>>;

#[derive(Clone)]
pub struct Services {
    pub hub: Arc<Hub>,
}

impl Services {
    /// Who sends this request: the holder of its key, or its address.
    pub fn client<T>(&self, req: &Request<T>, creates: bool) -> Result<ClientId, Status> {
        let key = req.metadata().get(KEY_HEADER).map(|v| v.as_bytes());
        self.hub.clients.identify(key, req.remote_addr(), creates)
    }

    /// Run `work` as one of the client's calls being read (admitted at the client's rate by
    /// [`super::admission`]): refused past its share, never on the threads that answer everyone
    /// else, but on the hub's readers, below their priority ([`super::thinkers`]).
    pub async fn off_the_async_threads<T: Send + 'static>(
        &self,
        client: &ClientId,
        work: impl FnOnce(Arc<Hub>) -> Result<T, Status> + Send + 'static,
    ) -> Result<T, Status> {
        let call: Held = self.hub.calls.take(client)?;
        let hub = self.hub.clone();
        self.hub
            .readers
            .run(move || {
                let _call = call;
                work(hub)
            })
            .await
            .map_err(|_| Status::internal("the call's work panicked"))?
    }

    /// A place among the spectators for this request's client.
    pub fn spectator<T>(&self, req: &Request<T>) -> Result<Held, Status> {
        let client = self.client(req, false)?;
        self.hub.spectators.take(&client)
    }
}

/// A spectator's stream: ends as soon as its client goes (its place given back at once), or
/// the server stops.
pub fn spectator_stream<T: Send + 'static>(
    hub: &Hub,
    rx: tokio::sync::mpsc::Receiver<Result<T, Status>>,
) -> Stream_<T> {
    Box::pin(ReceiverStream::new(rx).take_until(hub.stopped()))
}

#[tonic::async_trait]
impl v1::catalogue_server::Catalogue for Services {
    async fn list_games(&self, req: Request<v1::ListGamesRequest>) -> Result<Response<v1::ListGamesResponse>, Status> {
        self.client(&req, false)?;
        let mut out = Vec::new();
        for g in games() {
            let mut params: Vec<v1::ParamInfo> = Vec::new();
            for preset in g.presets {
                let spec = (g.spec)(Some(preset), &[], &crate::files::refuse_files)
                    .map_err(|e| Status::internal(e.to_string()))?;
                for (i, p) in spec.describe().into_iter().enumerate() {
                    if params.len() <= i {
                        params.push(v1::ParamInfo { name: p.name.into(), doc: p.doc.into(), ..Default::default() });
                    }
                    if *preset == g.default_preset {
                        params[i].default_value = p.value.clone();
                    }
                    params[i].preset_values.insert(preset.to_string(), p.value);
                }
            }
            out.push(v1::GameInfo {
                name: g.name.into(),
                summary: g.summary.into(),
                presets: g.presets.iter().map(|p| p.to_string()).collect(),
                default_preset: g.default_preset.into(),
                seats_param: g.seats_param.into(),
                cooperative: g.cooperative,
                params,
            });
        }
        Ok(Response::new(v1::ListGamesResponse {
            games: out,
            limits: Some(self.hub.config.limits()),
            content_sets: self.hub.content_sets(),
        }))
    }

    async fn describe_game(&self, req: Request<v1::DescribeGameRequest>) -> Result<Response<v1::GameShape>, Status> {
        let client = self.client(&req, false)?;
        let r = req.into_inner();
        let as_match =
            v1::CreateMatchRequest { game: r.game, preset: r.preset, params: r.params, ..Default::default() };
        let spec = self.off_the_async_threads(&client, move |hub| hub.spec(&as_match)).await?;
        let layout = spec.tensor_layout();
        let count = spec.action_count();
        Ok(Response::new(v1::GameShape {
            game: spec.game().to_string(),
            seats: spec.seats() as u32,
            tensor_size: engine::core::tensor_size(&layout) as u32,
            fields: layout
                .iter()
                .map(|f| v1::TensorFieldInfo {
                    name: f.name.into(),
                    size: f.size as u32,
                    doc: f.doc.into(),
                    low: f.low,
                    high: f.high,
                })
                .collect(),
            action_count: count,
            actions: (0..count).filter_map(|id| spec.action_name(id).map(|name| v1::ActionName { id, name })).collect(),
        }))
    }
}

#[tonic::async_trait]
impl v1::matches_server::Matches for Services {
    async fn create_match(
        &self,
        req: Request<v1::CreateMatchRequest>,
    ) -> Result<Response<v1::CreateMatchResponse>, Status> {
        let client = self.client(&req, true)?;
        let req = req.into_inner();
        // Reading the request and building a game and its agents take a moment: off the async
        // threads, as one of the client's calls.
        let on = client.clone();
        self.off_the_async_threads(&client, move |hub| hub.create(req, &on)).await.map(Response::new)
    }

    async fn observe(&self, req: Request<v1::ObserveRequest>) -> Result<Response<v1::SeatState>, Status> {
        self.client(&req, false)?;
        let r = req.into_inner();
        let (table, seat) = self.hub.seat_of(&r.match_id, &r.token)?;
        let s = table.lock();
        table.seat_state(&s, seat, r.tensors).map(Response::new)
    }

    type WatchStream = Stream_<v1::SeatState>;

    async fn watch(&self, req: Request<v1::ObserveRequest>) -> Result<Response<Self::WatchStream>, Status> {
        let place = self.spectator(&req)?;
        let r = req.into_inner();
        let (table, seat) = self.hub.seat_of(&r.match_id, &r.token)?;
        let (tx, rx) = tokio::sync::mpsc::channel(16);
        tokio::spawn(async move {
            let _place = place;
            // The seat's state at every new version and at the end; a slow reader skips to the
            // newest.
            let mut sent: Option<(u64, bool)> = None;
            loop {
                let changed = table.changed.notified();
                tokio::pin!(changed);
                changed.as_mut().enable();
                let state = {
                    let s = table.lock();
                    let now = (s.version, s.ended.is_some());
                    (sent != Some(now)).then(|| table.seat_state(&s, seat, r.tensors).map(|st| (st, now)))
                };
                match state {
                    Some(Ok((st, now))) => {
                        if tx.send(Ok(st)).await.is_err() || now.1 {
                            break;
                        }
                        sent = Some(now);
                    }
                    Some(Err(e)) => {
                        let _ = tx.send(Err(e)).await;
                        break;
                    }
                    None => tokio::select! {
                        _ = changed => {}
                        _ = tx.closed() => break,
                    },
                }
            }
        });
        Ok(Response::new(spectator_stream(&self.hub, rx)))
    }

    async fn act(&self, req: Request<v1::ActRequest>) -> Result<Response<v1::ActResponse>, Status> {
        self.client(&req, false)?;
        let r = req.into_inner();
        let (table, seat) = self.hub.seat_of(&r.match_id, &r.token)?;
        let state = table.act(seat, r.action, r.version)?;
        Ok(Response::new(v1::ActResponse { state: Some(state) }))
    }

    async fn resign(&self, req: Request<v1::ResignRequest>) -> Result<Response<v1::SeatState>, Status> {
        self.client(&req, false)?;
        let r = req.into_inner();
        let (table, seat) = self.hub.seat_of(&r.match_id, &r.token)?;
        table.resign(seat).map(Response::new)
    }

    async fn cancel_match(&self, req: Request<v1::CancelMatchRequest>) -> Result<Response<v1::MatchRecord>, Status> {
        self.client(&req, false)?;
        let r = req.into_inner();
        let table = self.hub.created(&r.match_id, &r.creator_token)?;
        table.cancel()?;
        let record = table.published_record()?;
        super::wire::record(&record, table.setup.cooperative).map(Response::new).map_err(Status::internal)
    }

    async fn get_record(&self, req: Request<v1::GetRecordRequest>) -> Result<Response<v1::MatchRecord>, Status> {
        self.client(&req, false)?;
        let table = self.hub.table(&req.into_inner().match_id)?;
        let record = table.published_record()?;
        super::wire::record(&record, table.setup.cooperative).map(Response::new).map_err(Status::internal)
    }

    type SpectateStream = Stream_<v1::MatchEvent>;

    async fn spectate(&self, req: Request<v1::SpectateRequest>) -> Result<Response<Self::SpectateStream>, Status> {
        let place = self.spectator(&req)?;
        let r = req.into_inner();
        let table = self.hub.table(&r.match_id)?;
        let (tx, rx) = tokio::sync::mpsc::channel(64);
        tokio::spawn(async move {
            let _place = place;
            // The events from `from_version` on, read from the match itself: a spectator never
            // falls behind, however slow (it is sent what it has room for, then waits).
            let mut next = 0;
            // Which table to send, and when (if asked for).
            let mut feed = super::table::TableFeed::default();
            loop {
                let changed = table.changed.notified();
                tokio::pin!(changed);
                changed.as_mut().enable();
                // A match on a deal other matches still play shows that it started, then
                // nothing until they are over: its moves would tell their players their deal.
                if let Some(deal) = table.moves_held_by().cloned() {
                    let started = (next == 0).then(|| table.lock().events.first().cloned()).flatten();
                    if let Some(e) = started.filter(|e| e.version >= r.from_version)
                        && tx.send(Ok(e)).await.is_err()
                    {
                        return;
                    }
                    next = next.max(1);
                    tokio::select! {
                        _ = deal.released() => continue,
                        _ = tx.closed() => break,
                    }
                }
                let (batch, over, table_due) = {
                    let mut s = table.lock();
                    let batch: Vec<v1::MatchEvent> = s.events[next..]
                        .iter()
                        .filter(|e| {
                            e.version >= r.from_version || matches!(e.event, Some(v1::match_event::Event::Ended(_)))
                        })
                        .cloned()
                        .collect();
                    next = s.events.len();
                    // The table as it stands after these events, when asked for and due.
                    let table_due = match r.with_table {
                        true => feed.next(&table, &mut s, Instant::now()),
                        false => Ok((None, None)),
                    };
                    (batch, s.ended.is_some(), table_due)
                };
                let (mut view, wake) = match table_due {
                    Ok(due) => due,
                    Err(e) => {
                        let _ = tx.send(Err(e)).await;
                        return;
                    }
                };
                for e in batch {
                    // The last table comes before the end (a client may stop reading there).
                    if matches!(e.event, Some(v1::match_event::Event::Ended(_)))
                        && let Some(v) = view.take()
                        && tx.send(Ok(v)).await.is_err()
                    {
                        return;
                    }
                    if tx.send(Ok(e)).await.is_err() {
                        return;
                    }
                }
                if let Some(v) = view
                    && tx.send(Ok(v)).await.is_err()
                {
                    return;
                }
                if over {
                    break;
                }
                let wake_at = wake.unwrap_or_else(Instant::now);
                tokio::select! {
                    _ = changed => {}
                    _ = tokio::time::sleep_until(wake_at.into()), if wake.is_some() => {}
                    _ = tx.closed() => break,
                }
            }
        });
        Ok(Response::new(spectator_stream(&self.hub, rx)))
    }
}

#[tonic::async_trait]
impl v1::play_server::Play for Services {
    type PlayStream = Stream_<v1::ServerMessage>;

    async fn play(&self, req: Request<Streaming<v1::BotMessage>>) -> Result<Response<Self::PlayStream>, Status> {
        let client = self.client(&req, false)?;
        let mut inbound = req.into_inner();
        let hello = match tokio::time::timeout(Duration::from_secs(10), inbound.message()).await {
            Ok(Ok(Some(v1::BotMessage { message: Some(v1::bot_message::Message::Hello(h)) }))) => h,
            Ok(Ok(_)) => return Err(Status::invalid_argument("a Play stream starts with Hello")),
            Ok(Err(e)) => return Err(e),
            Err(_) => return Err(Status::deadline_exceeded("no Hello within 10 s")),
        };
        check_hello(&hello)?;
        let (tx, rx) = tokio::sync::mpsc::channel(1024);
        let id = secret()?;
        let name = names::versioned(&hello.name, &hello.version)
            .map_err(|e| Status::invalid_argument(format!("Hello.version: `{}`: {e}", shown(&hello.version))))?;
        let mut session = Session::new(id.clone(), name.clone(), hello.games.clone(), tx.clone());
        session.tensors = hello.tensors;
        session.observation = wire::Shown::asked(&hello);
        session.max_games = hello.max_games;
        session.owner = self.hub.owner_of(&name, &hello.key, &client);
        session.accept_challenges = hello.accept_challenges;
        let session = Arc::new(session);
        // The Welcome is queued before the name is taken: once it is, a match (a ladder's
        // pairing) may send a request at once, and the Welcome comes first. A refusal below
        // answers the call with its status, and the queue (Welcome and all) is dropped.
        tx.send(Ok(v1::ServerMessage { message: Some(v1::server_message::Message::Welcome(self.hub.welcome(&id))) }))
            .await
            .map_err(|_| Status::cancelled("the client left"))?;
        self.hub.register(session.clone(), &hello.key, &client)?;
        tracing::info!(%name, session = %id, "Play client connected");
        let hub = self.hub.clone();
        let stopped = self.hub.stopped();
        let limit = hub.config.max_stream_faults;
        tokio::spawn(async move {
            tokio::pin!(stopped);
            loop {
                let message = tokio::select! {
                    m = inbound.message() => m,
                    _ = &mut stopped => break,
                };
                let fault = match message {
                    Ok(Some(v1::BotMessage { message: Some(v1::bot_message::Message::Decision(d)) })) => {
                        let id = d.request_id;
                        session.answer(d).err().map(|f| (f, id))
                    }
                    Ok(Some(v1::BotMessage { message: Some(v1::bot_message::Message::Resign(r)) })) => {
                        hub.resign_play(&session, &r).err().map(|f| (f, 0))
                    }
                    Ok(Some(v1::BotMessage { message: Some(v1::bot_message::Message::Hello(_)) })) => {
                        Some((StreamFault::SecondHello, 0))
                    }
                    Ok(Some(v1::BotMessage { message: Some(v1::bot_message::Message::Leave(_)) })) => {
                        session.leave();
                        None
                    }
                    Ok(Some(v1::BotMessage { message: None })) => Some((StreamFault::EmptyMessage, 0)),
                    Ok(None) | Err(_) => break,
                };
                if let Some((fault, request_id)) = fault
                    && let Err(count) = session.fault(fault, request_id, limit).await
                {
                    session.end_with(Status::invalid_argument(format!(
                        "{count} faults on this Play stream (the server's limit is {limit}): closed"
                    )));
                    break;
                }
            }
            session.close();
            hub.unregister(&session.name, &session.id);
            tracing::info!(name = %session.name, faults = session.faults(), "Play client disconnected");
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(rx).take_until(self.hub.stopped()))))
    }
}

/// A Hello's name and games, within bounds: a name as [`names::check`] has it, at most 16
/// games, each one the server has.
fn check_hello(hello: &v1::Hello) -> Result<(), Status> {
    names::check(&hello.name)
        .map_err(|e| Status::invalid_argument(format!("Hello.name: `{}` is not a name: {e}", shown(&hello.name))))?;
    if hello.games.len() > 16 {
        return Err(Status::invalid_argument(format!("Hello.games: {} games, at most 16", hello.games.len())));
    }
    for g in &hello.games {
        let (game, preset) = match g.split_once(':') {
            Some((game, preset)) => (game, Some(preset)),
            None => (g.as_str(), None),
        };
        let entry = engine::find_game(game).map_err(|_| {
            let names: Vec<_> = games().iter().map(|g| g.name).collect();
            Status::invalid_argument(format!(
                "Hello.games: unknown game `{}`; the games are: {} (a game, or GAME:PRESET for one preset)",
                shown(game),
                names.join(", ")
            ))
        })?;
        if let Some(preset) = preset
            && !entry.presets.contains(&preset)
        {
            return Err(Status::invalid_argument(format!(
                "Hello.games: `{}`: {} has no preset `{}`; its presets are: {}",
                shown(g),
                entry.name,
                shown(preset),
                entry.presets.join(", ")
            )));
        }
    }
    if hello.key.len() > 256 {
        return Err(Status::invalid_argument("Hello.key: over 256 characters"));
    }
    Ok(())
}
