//! People on a ladder: a person on the web face challenges an agent (an anchor, or a connected
//! client that accepts challenges) to a game of a two-seat competitive entry, under a name of
//! their own; the game is stored and rated as the ladder's games are, the name marked as a
//! person's in the standings, so how the agents fare against people is measured.
//!
//! A person's name is a name like any other (the gate's caps and ownership: a client keeps the
//! names it added), and no program may say Hello with it.

use super::Ladder;
use crate::server::hub::secret_seed;
use crate::server::names;
use crate::server::shares::ClientId;
use crate::server::table::Table;
use crate::tournament::rate::rated_games;
use proto::v1;
use std::sync::Arc;
use std::time::Duration;
use tonic::Status;

/// A challenge begun: its match, and the person's seat and token.
pub struct Challenge {
    pub table: Arc<Table>,
    pub seat: usize,
    pub token: String,
}

impl Ladder {
    /// The file's entries a person may challenge an agent to (two-seat competitive ones): each
    /// one's index and label.
    pub fn challenge_entries(&self) -> Vec<(usize, String)> {
        self.entries
            .iter()
            .enumerate()
            .filter(|(_, e)| !e.shape.cooperative && e.shape.seats == 2)
            .map(|(k, e)| (k, self.labels[e.group].clone()))
            .collect()
    }

    /// `person` (a name `client` may hold, marked as a person's) challenges `agent` to a game
    /// of the file's entry `entry`: the person's seat drawn at random, the game stored and
    /// rated when it ends.
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
        if e.shape.cooperative || e.shape.seats != 2 {
            return Err(Status::invalid_argument(format!(
                "entry: `{}` is not a two-seat competitive game: a challenge is one person against one agent",
                self.labels[e.group]
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
        let seat = (seed >> 63) as usize;
        let mut seats = vec![v1::SeatSpec { player: Some(v1::seat_spec::Player::Token(true)) }; 2];
        seats[1 - seat] = v1::SeatSpec { player: Some(player) };
        let person_name = self.state().names[me].clone();
        let mut names = vec![person_name.clone(); 2];
        names[1 - seat] = opponent_name;
        let mut order = vec![me; 2];
        order[1 - seat] = opponent;
        let move_time = Some(Duration::from_millis(self.config.challenge_move_time_ms));
        // Its place among the matches in play is the challenger's (its client's share of them).
        let table = self.hub.create_hosted_for(
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
        {
            let mut s = self.state();
            s.in_play += 1;
            s.playing.insert(table.setup.id.clone(), table.clone());
        }
        let me_ = self.clone();
        let t = table.clone();
        let group = e.group;
        tokio::spawn(async move {
            t.wait_over().await;
            {
                let mut s = me_.state();
                s.in_play -= 1;
                s.playing.remove(&t.setup.id);
            }
            if let Err(e) = me_.store_challenge(&t, group, &order) {
                tracing::error!("ladder: a challenge's game: {e}");
            }
        });
        tracing::info!(person = %person_name, agent, "ladder: a challenge");
        Ok(Challenge { table, seat, token })
    }

    /// A challenge's game over: stored and rated as a game of its entry (a pairing of one game).
    fn store_challenge(&self, table: &Table, group: usize, order: &[usize]) -> Result<(), String> {
        let mut record = table.record().map_err(|e| e.message().to_string())?;
        if record.outcome.cancelled {
            return Ok(());
        }
        let pairing = self.store().pairing(group)?;
        self.place(&mut record, group, pairing, order);
        let rated =
            if record.outcome.aborted { Vec::new() } else { rated_games(std::slice::from_ref(&record), &self.known) };
        tokio::task::block_in_place(|| self.commit_record(&mut record, &rated, None)).map(|_| ())
    }
}
