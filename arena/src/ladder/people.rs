//! People on a ladder: a person on the web face challenges an agent (an anchor, or a connected
//! client that accepts challenges) under a name of their own: to a game of a two-seat
//! competitive entry, the person at one seat and the agent at the other; or to a deal of a
//! cooperative entry, played by each at every seat (the person's play and the agent's, on one
//! deal, compared as a cooperative pairing's plays are). The games are stored and rated as the
//! ladder's are, the name marked as a person's in the standings, so how the agents fare
//! against people is measured.
//!
//! A person's name is a name like any other (the gate's caps and ownership: a client keeps the
//! names it added), and no program may say Hello with it.

use super::Ladder;
use crate::record::MatchRecord;
use crate::server::hub::secret_seed;
use crate::server::names;
use crate::server::shares::ClientId;
use crate::server::table::{SharedDeal, Table};
use crate::tournament::rate::rated_games;
use proto::v1;
use std::sync::Arc;
use std::time::Duration;
use tonic::Status;

/// A challenge begun: the person's match, and their seats with each one's token (one seat of
/// a competitive game; every seat of a cooperative deal).
pub struct Challenge {
    pub table: Arc<Table>,
    pub seats: Vec<(usize, String)>,
}

impl Ladder {
    /// The file's entries a person may challenge an agent to (two-seat competitive ones, and
    /// cooperative ones): each one's index and label.
    pub fn challenge_entries(&self) -> Vec<(usize, String)> {
        self.entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.shape.cooperative || e.shape.seats == 2)
            .map(|(k, e)| (k, self.labels[e.group].clone()))
            .collect()
    }

    /// `person` (a name `client` may hold, marked as a person's) challenges `agent` to a game
    /// of the file's entry `entry`: at a competitive one, the person's seat drawn at random; at
    /// a cooperative one, the person at every seat and the agent at every seat of the same
    /// deal, in a match of its own. Stored and rated when it ends (the two plays of a deal once
    /// both are over).
    pub fn challenge(
        self: &Arc<Self>,
        person: &str,
        client: &ClientId,
        agent: &str,
        entry: usize,
    ) -> Result<Challenge, Status> {
        if self.draining() {
            return Err(Status::unavailable("the ladder is stopping: no new game"));
        }
        let e = self.entries.get(entry).ok_or_else(|| {
            Status::invalid_argument(format!(
                "entry: {entry} is not one of this ladder's {} game entries",
                self.entries.len()
            ))
        })?;
        if !e.shape.cooperative && e.shape.seats != 2 {
            return Err(Status::invalid_argument(format!(
                "entry: `{}` is a competitive game of {} seats: a challenge is one person against one agent, at \
                 two seats (or a cooperative deal, each playing every seat)",
                self.labels[e.group], e.shape.seats
            )));
        }
        names::check(person).map_err(|why| Status::invalid_argument(format!("name: `{person}`: {why}")))?;
        if person.contains('@') || names::fold(person) == names::fold(agent) {
            return Err(Status::invalid_argument(format!(
                "name: `{person}` cannot challenge itself or carry a version"
            )));
        }
        // The person's name: a person's already (the same client's), or new.
        match self.agent_index(person) {
            Some(known) if !self.state().person[known] => {
                return Err(Status::permission_denied(format!(
                    "name: `{person}` is an agent's name on this ladder (`{}`): a person chooses another",
                    self.state().names[known]
                )));
            }
            _ => {}
        }
        let keyed = matches!(client, ClientId::Name(_));
        if self.work.as_ref().is_some_and(|w| w.is_worker(person)) || (self.hub.is_keyed(person) && !keyed) {
            return Err(Status::permission_denied(format!(
                "name: `{person}` is reserved on this ladder: choose another, or give its key"
            )));
        }
        if self.config.admission == super::config::Admission::Keyed && !keyed {
            return Err(Status::permission_denied(
                "this ladder is keyed: a person plays under a name the operator gave a key, and gives that key",
            ));
        }
        // Its opponent: an anchor, or a connected client that takes challenges.
        let opponent = self.agent_index(agent).ok_or_else(|| {
            Status::not_found(format!("agent: no agent `{}` is on this ladder", crate::files::shown(agent)))
        })?;
        let (player, opponent_name) = {
            let s = self.state();
            let name = s.names[opponent].clone();
            match &s.anchors[opponent] {
                Some(bot) => (v1::seat_spec::Player::Bot(bot.clone()), name),
                None => match self.hub.session(&name) {
                    Some(session) if session.accept_challenges && session.plays(&e.game, &e.preset) => {
                        (v1::seat_spec::Player::Play(name.clone()), name)
                    }
                    Some(_) => {
                        return Err(Status::failed_precondition(format!(
                            "agent: `{name}` is connected but takes no challenge (Hello.accept_challenges) of this game"
                        )));
                    }
                    None => {
                        return Err(Status::failed_precondition(format!(
                            "agent: `{name}` is not connected now: challenge an anchor or a connected agent"
                        )));
                    }
                },
            }
        };
        self.admit_name(person, client)?;
        let me = self.agent_index(person).ok_or_else(|| Status::internal("a name admitted and not stored"))?;
        if !self.state().person[me] {
            self.store().set_person(me).map_err(Status::internal)?;
            self.state().person[me] = true;
        }
        let seed = secret_seed()?;
        let person_name = self.state().names[me].clone();
        let move_time = Some(Duration::from_millis(self.config.challenge_move_time_ms));
        if e.shape.cooperative {
            return self.cooperative_challenge(client, e, seed, (me, person_name), (opponent, opponent_name), player);
        }
        let seat = (seed >> 63) as usize;
        let mut seats = vec![v1::SeatSpec { player: Some(v1::seat_spec::Player::Token(true)) }; 2];
        seats[1 - seat] = v1::SeatSpec { player: Some(player) };
        let mut names = vec![person_name.clone(); 2];
        names[1 - seat] = opponent_name;
        let mut order = vec![me; 2];
        order[1 - seat] = opponent;
        // Its place among the matches in play is the challenger's (its client's share of them).
        let table = self.hub.create_hosted(
            client,
            &e.game,
            &e.preset,
            e.spec.clone(),
            seed,
            &seats,
            &names,
            move_time,
            None,
            None,
        )?;
        let token =
            table.setup.tokens[seat].clone().ok_or_else(|| Status::internal("a person's seat without a token"))?;
        self.mark_playing(&table, true);
        let me_ = self.clone();
        let t = table.clone();
        let group = e.group;
        tokio::spawn(async move {
            t.wait_over().await;
            me_.mark_playing(&t, false);
            if let Err(e) = me_.store_challenge(&[(&t, &order)], group) {
                tracing::error!("ladder: a challenge's game: {e}");
            }
        });
        tracing::info!(person = %person_name, agent, "ladder: a challenge");
        Ok(Challenge { table, seats: vec![(seat, token)] })
    }

    /// A cooperative deal challenged: the agent plays it at every seat (at the ladder's limits),
    /// the person at every seat (at a challenge's), each in a match of its own, both places the
    /// challenger's. Neither match shows its moves or record until both are over (each would
    /// tell the other's player the deal); then both are stored, the second rated with the
    /// first, as a cooperative pairing's plays are.
    fn cooperative_challenge(
        self: &Arc<Self>,
        client: &ClientId,
        e: &super::Entry,
        seed: u64,
        (me, person_name): (usize, String),
        (opponent, opponent_name): (usize, String),
        player: v1::seat_spec::Player,
    ) -> Result<Challenge, Status> {
        let n = e.shape.seats;
        let deal = SharedDeal::records_and_moves();
        let open = |seat: v1::seat_spec::Player, name: &str, move_ms: u64, bank| {
            self.hub.create_hosted(
                client,
                &e.game,
                &e.preset,
                e.spec.clone(),
                seed,
                &vec![v1::SeatSpec { player: Some(seat) }; n],
                &vec![name.to_string(); n],
                Some(Duration::from_millis(move_ms)),
                bank,
                Some(deal.clone()),
            )
        };
        let person = open(v1::seat_spec::Player::Token(true), &person_name, self.config.challenge_move_time_ms, None)?;
        let agent = match open(player, &opponent_name, self.config.move_time_ms, self.config.bank_clock()) {
            Ok(t) => t,
            Err(s) => {
                let _ = person.cancel();
                return Err(s);
            }
        };
        let seats = (0..n)
            .map(|k| person.setup.tokens[k].clone().map(|t| (k, t)))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| Status::internal("a person's seat without a token"))?;
        self.mark_playing(&person, true);
        self.mark_playing(&agent, true);
        let me_ = self.clone();
        let (p, a) = (person.clone(), agent);
        let group = e.group;
        tokio::spawn(async move {
            // The agent's play first (stored unrated), then the person's, rated with it.
            a.wait_over().await;
            me_.mark_playing(&a, false);
            p.wait_over().await;
            me_.mark_playing(&p, false);
            deal.release();
            if let Err(e) = me_.store_challenge(&[(&a, &vec![opponent; n]), (&p, &vec![me; n])], group) {
                tracing::error!("ladder: a challenge's deal: {e}");
            }
        });
        tracing::info!(person = %person_name, agent = %opponent_name, "ladder: a cooperative challenge");
        Ok(Challenge { table: person, seats })
    }

    /// A challenge's games over (each with its agents by seat): stored as one pairing of its
    /// entry, the last rated with those before it (a competitive game alone; a cooperative
    /// deal's two plays together). A cancelled one is not stored; an aborted one rates nobody.
    fn store_challenge(&self, games: &[(&Arc<Table>, &Vec<usize>)], group: usize) -> Result<(), String> {
        let mut plays = Vec::new();
        for (table, order) in games {
            let record = table.record().map_err(|e| e.message().to_string())?;
            if record.outcome.cancelled {
                return Ok(());
            }
            plays.push((record, order));
        }
        let pairing = self.store().pairing(group)?;
        let mut records: Vec<MatchRecord> = Vec::new();
        for (mut record, order) in plays {
            self.place(&mut record, group, pairing, order);
            records.push(record);
        }
        let aborted = records.iter().any(|r| r.outcome.aborted);
        let last = records.len() - 1;
        for k in 0..records.len() {
            let rated = if aborted || k < last { Vec::new() } else { rated_games(&records, &self.known) };
            tokio::task::block_in_place(|| self.commit_record(&mut records[k], &rated, None))?;
        }
        Ok(())
    }
}
