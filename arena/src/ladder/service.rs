//! The Ladder service of the contract: standings (now, and as they change), an agent's games,
//! head-to-head and rating over time, and the records of finished games. Every call is a
//! stranger's: read-only, bounded (at most 200 games listed), and a game of a pairing still in
//! play is not given (its deal is still being played).

use super::{Ladder, Standings};
use crate::server::names;
use crate::server::service::{Services, Stream_, spectator_stream};
use crate::standings::{Page, rating_table};
use proto::v1;
use std::sync::Arc;
use tonic::{Request, Response, Status};

#[derive(Clone)]
pub struct LadderService {
    pub ladder: Arc<Ladder>,
    services: Services,
}

impl LadderService {
    pub fn new(ladder: Arc<Ladder>) -> LadderService {
        let services = Services { hub: ladder.hub.clone() };
        LadderService { ladder, services }
    }

    /// The record of stored game `id`, unless its pairing is still in play (its deal is).
    pub fn published(&self, id: u64) -> Result<crate::record::MatchRecord, Status> {
        let game = self
            .ladder
            .with_store(|s| s.game(id))
            .map_err(Status::internal)?
            .ok_or_else(|| Status::not_found(format!("no game {id} on this ladder")))?;
        if self.ladder.pairing_open(u64::from(game.record.place().deal)) {
            return Err(Status::failed_precondition(format!(
                "game {id} is over, but its deal is still in play in its pairing: its record (and seed) is given once \
                 that is over"
            )));
        }
        Ok(game.record)
    }

    /// The `top` agents of the overall list now, each with its rating over time (oldest first).
    pub fn progression(&self, top: usize) -> Result<Vec<(String, Vec<crate::standings::HistoryPoint>)>, Status> {
        let now = self.ladder.standings.borrow().clone();
        let Some((_, overall)) = now.lists.first() else { return Ok(Vec::new()) };
        let leaders: Vec<(String, usize)> =
            overall.entries.iter().take(top).map(|e| (e.name.clone(), e.participant)).collect();
        self.ladder
            .with_store(|s| {
                leaders
                    .into_iter()
                    .map(|(name, agent)| Ok((name, s.history(agent)?)))
                    .collect::<Result<Vec<_>, String>>()
            })
            .map_err(Status::internal)
    }

    /// The standings as the wire has them, the page `page` of each list, who is connected,
    /// provisional and rested read now.
    pub fn table(&self, s: &Standings, page: &Page) -> v1::LadderStandings {
        let marks = self.ladder.marks();
        let mut connected: Vec<usize> = marks.connected.iter().copied().collect();
        connected.sort_unstable();
        let lists = s
            .lists
            .iter()
            .enumerate()
            .map(|(k, (label, list))| {
                let mut table = rating_table(label, list, &marks, page);
                // An agent that joined since this refit is in none of its rows: not rated yet,
                // from its Hello on (in the lists of the games it plays).
                let fitted: std::collections::HashSet<usize> = list
                    .entries
                    .iter()
                    .map(|e| e.participant)
                    .chain(list.unrated.iter().map(|u| u.participant))
                    .collect();
                for &a in connected.iter().filter(|a| !fitted.contains(a)) {
                    if table.unrated.len() >= page.limit {
                        break;
                    }
                    let Some(name) = self.ladder.name(a) else { continue };
                    let plays = match k.checked_sub(1).and_then(|e| self.ladder.entries.get(e)) {
                        Some(entry) => {
                            self.ladder.hub.session(&name).is_some_and(|s| s.plays(&entry.game, &entry.preset))
                        }
                        None => true,
                    };
                    if plays {
                        table.unrated.push(v1::UnratedRow {
                            agent: name,
                            reason: reports::ratings::NO_RATED_GAME.to_string(),
                            anchor: false,
                            connected: true,
                        });
                    }
                }
                table
            })
            .collect();
        v1::LadderStandings {
            ladder: self.ladder.config.name.clone(),
            games: self.ladder.games(),
            rated_games: s.rated_games,
            lists,
            in_play: self.ladder.in_play(),
            scheduled: 0,
            provisional_games: self.ladder.config.provisional_games,
        }
    }
}

#[tonic::async_trait]
impl v1::ladder_server::Ladder for LadderService {
    async fn standings(&self, req: Request<v1::StandingsRequest>) -> Result<Response<v1::LadderStandings>, Status> {
        self.services.client(&req, false)?;
        let page = Page::of(req.get_ref()).map_err(Status::invalid_argument)?;
        let now = self.ladder.standings.borrow().clone();
        Ok(Response::new(self.table(&now, &page)))
    }

    type WatchStandingsStream = Stream_<v1::LadderStandings>;

    async fn watch_standings(
        &self,
        req: Request<v1::StandingsRequest>,
    ) -> Result<Response<Self::WatchStandingsStream>, Status> {
        let place = self.services.spectator(&req)?;
        let page = Page::of(req.get_ref()).map_err(Status::invalid_argument)?;
        let mut changes = self.ladder.standings.subscribe();
        // Sent again when a client joins or leaves too: a new agent is listed (not rated yet)
        // from its Hello on, and who is connected is told as it changes.
        let mut roster = self.ladder.hub.roster();
        let (tx, rx) = tokio::sync::mpsc::channel(4);
        let me = self.clone();
        tokio::spawn(async move {
            let _place = place;
            loop {
                let now = changes.borrow_and_update().clone();
                roster.borrow_and_update();
                if tx.send(Ok(me.table(&now, &page))).await.is_err() {
                    return;
                }
                let next = tokio::select! {
                    c = changes.changed() => c.is_ok(),
                    r = roster.changed() => r.is_ok(),
                };
                if !next {
                    return;
                }
            }
        });
        Ok(Response::new(spectator_stream(&self.ladder.hub, rx)))
    }

    async fn agent_games(
        &self,
        req: Request<v1::AgentGamesRequest>,
    ) -> Result<Response<v1::AgentGamesResponse>, Status> {
        self.services.client(&req, false)?;
        let r = req.into_inner();
        // No name is longer than a name and its version: nothing longer is folded.
        if r.agent.len() > names::MAX_NAME + 1 + names::MAX_VERSION {
            return Err(Status::invalid_argument(format!(
                "agent: `{}` is longer than any name",
                crate::files::shown(&r.agent)
            )));
        }
        let agent = self.ladder.agent_index(&r.agent).ok_or_else(|| {
            Status::not_found(format!("no agent `{}` has played on this ladder", crate::files::shown(&r.agent)))
        })?;
        let limit = match r.limit {
            0 => 20,
            n => n.min(200),
        } as usize;
        let (recent, history) = self
            .ladder
            // The limit counts the games given: those of pairings in play are held back (their
            // deal is still being played), and left out before the limit is counted. (A game is
            // committed under the store's lock, its pairing opened before it: read under that
            // lock, whether a stored game's pairing is open does not change meanwhile.)
            .with_store(|s| {
                let recent = s.recent(agent, limit, |pairing| !self.ladder.pairing_open(pairing))?;
                Ok::<_, String>((recent, s.history(agent)?))
            })
            .map_err(Status::internal)?;
        let mut games = Vec::new();
        for g in recent {
            let cooperative = engine::find_game(&g.record.game.game).is_ok_and(|e| e.cooperative);
            let outcome = crate::server::wire::record(&g.record, cooperative).map_err(Status::internal)?.outcome;
            games.push(v1::LadderGame {
                game_id: g.id,
                entry: self.ladder.labels().get(g.entry).cloned().unwrap_or_default(),
                players: g.record.players.clone(),
                outcome,
                finished_ms: g.finished_ms,
                match_id: g.record.match_id.clone().unwrap_or_default(),
            });
        }
        let standings = self.ladder.standings.borrow().clone();
        let overall = &standings.lists[0].1;
        let head_to_head = overall
            .head_to_head
            .iter()
            .filter(|h| h.a == agent)
            .map(|h| v1::HeadToHeadRow { opponent: h.b_name.clone(), results: h.games, points: h.points })
            .collect();
        let history = history
            .into_iter()
            .map(|p| v1::RatingPoint { games: p.rated_games, rating: p.rating, lower: p.lower, upper: p.upper })
            .collect();
        let name = self.ladder.name(agent).unwrap_or_default();
        Ok(Response::new(v1::AgentGamesResponse { agent: name, games, head_to_head, history }))
    }

    async fn get_ladder_record(
        &self,
        req: Request<v1::LadderRecordRequest>,
    ) -> Result<Response<v1::MatchRecord>, Status> {
        self.services.client(&req, false)?;
        let game = self.published(req.into_inner().game_id)?;
        let cooperative = engine::find_game(&game.game.game).is_ok_and(|e| e.cooperative);
        crate::server::wire::record(&game, cooperative).map(Response::new).map_err(Status::internal)
    }

    async fn submit(&self, req: Request<v1::SubmitRequest>) -> Result<Response<v1::Submission>, Status> {
        self.services.client(&req, false)?;
        self.ladder.submit(req.into_inner()).await.map(Response::new)
    }

    async fn list_submissions(
        &self,
        req: Request<v1::SubmissionsRequest>,
    ) -> Result<Response<v1::SubmissionsResponse>, Status> {
        self.services.client(&req, false)?;
        self.ladder.list_submissions(req.get_ref()).map(Response::new)
    }

    async fn retire_submission(&self, req: Request<v1::SubmissionRequest>) -> Result<Response<v1::Submission>, Status> {
        self.services.client(&req, false)?;
        self.ladder.retire(req.get_ref()).map(Response::new)
    }

    async fn submission_log(
        &self,
        req: Request<v1::SubmissionLogRequest>,
    ) -> Result<Response<v1::SubmissionLogResponse>, Status> {
        self.services.client(&req, false)?;
        self.ladder.submission_log(req.get_ref()).map(Response::new)
    }
}
