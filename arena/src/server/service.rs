//! The gRPC services over the hub: the catalogue, matches (create, observe, act, record,
//! spectate) and the Play stream.

use super::hub::{Hub, secret};
use super::session::Session;
use crate::load_file;
use engine::core::games;
use futures_util::StreamExt;
use proto::v1;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status, Streaming};

type Stream_<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send + 'static>>;

#[derive(Clone)]
pub struct Services {
    pub hub: Arc<Hub>,
}

#[tonic::async_trait]
impl v1::catalogue_server::Catalogue for Services {
    async fn list_games(&self, _: Request<v1::ListGamesRequest>) -> Result<Response<v1::ListGamesResponse>, Status> {
        let mut out = Vec::new();
        for g in games() {
            let mut params: Vec<v1::ParamInfo> = Vec::new();
            for preset in g.presets {
                let spec = (g.spec)(Some(preset), &[], &load_file).map_err(|e| Status::internal(e.to_string()))?;
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
        Ok(Response::new(v1::ListGamesResponse { games: out }))
    }
}

#[tonic::async_trait]
impl v1::matches_server::Matches for Services {
    async fn create_match(
        &self,
        req: Request<v1::CreateMatchRequest>,
    ) -> Result<Response<v1::CreateMatchResponse>, Status> {
        let hub = self.hub.clone();
        let req = req.into_inner();
        // Building a game and its agents may take a moment: off the async threads.
        tokio::task::spawn_blocking(move || hub.create(req))
            .await
            .map_err(|e| Status::internal(e.to_string()))?
            .map(Response::new)
    }

    async fn observe(&self, req: Request<v1::ObserveRequest>) -> Result<Response<v1::SeatState>, Status> {
        let r = req.into_inner();
        let (table, seat) = self.hub.seat_of(&r.match_id, &r.token)?;
        let s = table.lock();
        table.seat_state(&s, seat).map(Response::new)
    }

    async fn act(&self, req: Request<v1::ActRequest>) -> Result<Response<v1::ActResponse>, Status> {
        let r = req.into_inner();
        let (table, seat) = self.hub.seat_of(&r.match_id, &r.token)?;
        let state = table.act(seat, r.action, r.version)?;
        Ok(Response::new(v1::ActResponse { state: Some(state) }))
    }

    async fn get_record(&self, req: Request<v1::GetRecordRequest>) -> Result<Response<v1::MatchRecord>, Status> {
        let table = self.hub.table(&req.into_inner().match_id)?;
        table.record().map(Response::new)
    }

    type SpectateStream = Stream_<v1::MatchEvent>;

    async fn spectate(&self, req: Request<v1::SpectateRequest>) -> Result<Response<Self::SpectateStream>, Status> {
        let table = self.hub.table(&req.into_inner().match_id)?;
        // Under the lock: the events so far, and a subscription to exactly those that follow.
        let (backlog, mut live, over) = {
            let s = table.lock();
            (s.events.clone(), table.events.subscribe(), s.ended.is_some())
        };
        let (tx, rx) = tokio::sync::mpsc::channel(256);
        tokio::spawn(async move {
            for e in backlog {
                if tx.send(Ok(e)).await.is_err() {
                    return;
                }
            }
            if over {
                return;
            }
            loop {
                match live.recv().await {
                    Ok(e) => {
                        let end = matches!(e.event, Some(v1::match_event::Event::Ended(_)));
                        if tx.send(Ok(e)).await.is_err() || end {
                            return;
                        }
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => {
                        let _ = tx.send(Err(Status::data_loss(format!("the spectator fell {n} events behind")))).await;
                        return;
                    }
                    Err(_) => return,
                }
            }
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(rx).take_until(self.hub.stopped()))))
    }
}

#[tonic::async_trait]
impl v1::play_server::Play for Services {
    type PlayStream = Stream_<v1::ServerMessage>;

    async fn play(&self, req: Request<Streaming<v1::BotMessage>>) -> Result<Response<Self::PlayStream>, Status> {
        let mut inbound = req.into_inner();
        let hello = match tokio::time::timeout(Duration::from_secs(10), inbound.message()).await {
            Ok(Ok(Some(v1::BotMessage { message: Some(v1::bot_message::Message::Hello(h)) }))) => h,
            Ok(Ok(_)) => return Err(Status::invalid_argument("a Play stream starts with Hello")),
            Ok(Err(e)) => return Err(e),
            Err(_) => return Err(Status::deadline_exceeded("no Hello within 10 s")),
        };
        if hello.name.trim().is_empty() {
            return Err(Status::invalid_argument("Hello: the name is empty"));
        }
        let (tx, rx) = tokio::sync::mpsc::channel(1024);
        let id = secret()?;
        let session = Arc::new(Session::new(id.clone(), hello.name.clone(), hello.games.clone(), tx.clone()));
        tx.send(Ok(v1::ServerMessage {
            message: Some(v1::server_message::Message::Welcome(v1::Welcome { session: id.clone() })),
        }))
        .await
        .map_err(|_| Status::cancelled("the client left"))?;
        self.hub.register(session.clone());
        tracing::info!(name = %hello.name, session = %id, "Play client connected");
        let hub = self.hub.clone();
        let stopped = self.hub.stopped();
        tokio::spawn(async move {
            tokio::pin!(stopped);
            loop {
                let message = tokio::select! {
                    m = inbound.message() => m,
                    _ = &mut stopped => break,
                };
                match message {
                    Ok(Some(v1::BotMessage { message: Some(v1::bot_message::Message::Decision(d)) })) => {
                        session.answer(d)
                    }
                    Ok(Some(_)) => {
                        // Garbage: the seats it plays get no answer and the limit's policy applies.
                        tracing::warn!(name = %session.name, "Play client sent something other than a Decision");
                    }
                    Ok(None) | Err(_) => break,
                }
            }
            session.close();
            hub.unregister(&session.id);
            tracing::info!(name = %session.name, "Play client disconnected");
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(rx).take_until(self.hub.stopped()))))
    }
}
