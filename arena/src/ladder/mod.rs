//! `arena ladder`: a standing arena. Every Play client that says Hello joins; it is matched,
//! pairing after pairing, against the anchors (built-in agents the ladder keeps) and the other
//! clients for as long as it stays connected, and rated as it plays.
//!
//! One decision's way is the server's (the same hub, tables and referee); what the ladder adds:
//! - [`matchmaking`]: who plays whom next (a pure function);
//! - a pairing: one deal played in every seat order (a cooperative entry's deal played once
//!   by each agent), one game after the other, its records held back from everyone until the
//!   last is over;
//! - [`store`]: each finished game committed with the results it completes before anything
//!   else hears of it;
//! - the standings: Bradley–Terry Elo with bootstrap intervals (the tournament's), refit on a
//!   blocking thread at most every `refit_ms`, never in the way of play;
//! - [`service`]: the Ladder service of the contract.

pub mod config;
pub mod matchmaking;
pub mod service;
pub mod store;

use crate::record::{MatchRecord, TournamentGame};
use crate::server::hub::secret_seed;
use crate::server::session::SeatHeld;
use crate::server::table::SharedDeal;
use crate::server::{Hub, names};
use crate::tournament::config::{ResolvedGame, resolve_entries};
use crate::tournament::rate::rated_games;
use config::{Deals, LadderConfig};
use engine::core::{AnySpec, ParamSource};
use matchmaking::{Candidate, EntryShape, History, Pick};
use proto::v1;
use rand::SeedableRng;
use rand::rngs::SmallRng;
use reports::ratings::{RatedGame, RatingList, RatingOptions, rate};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use store::Store;

/// The standings at one refit: the overall list, then one per game entry of the file.
#[derive(Clone, Debug, Default)]
pub struct Standings {
    pub games: u64,
    pub rated_games: u64,
    /// (label, list), the overall list first.
    pub lists: Vec<(String, RatingList)>,
}

/// What the ladder knows of its agents and games, behind one lock.
#[derive(Default)]
struct State {
    names: Vec<String>,
    anchors: Vec<Option<String>>,
    index: HashMap<String, usize>,
    in_flight: Vec<u32>,
    since: Vec<Instant>,
    rated: Vec<RatedGame>,
    pairings: HashMap<(usize, usize), u64>,
    met: HashSet<(usize, usize)>,
    /// Each agent's overall rating and interval width at the last refit.
    overall: HashMap<usize, (f64, f64)>,
    games: u64,
    in_play: u32,
    /// Pairings in play: their games' records are held back.
    open_pairings: HashSet<u64>,
}

impl State {
    /// Note agent `index` (its place in the store) under `name`, if it is new.
    fn add(&mut self, index: usize, name: &str) {
        if index == self.names.len() {
            self.index.insert(names::fold(name), index);
            self.names.push(name.to_string());
            self.anchors.push(None);
            self.in_flight.push(0);
            self.since.push(Instant::now());
        }
    }
}

/// What matchmaking reads of the state: its entries are the file's, the counts the store's.
struct Played<'a> {
    state: &'a State,
    /// The store index of each file entry.
    groups: &'a [usize],
}

impl History for Played<'_> {
    fn pairings(&self, agent: usize, entry: usize) -> u64 {
        self.state.pairings.get(&(agent, self.groups[entry])).copied().unwrap_or(0)
    }
    fn met(&self, a: usize, b: usize) -> bool {
        self.state.met.contains(&(a.min(b), a.max(b)))
    }
}

/// One game entry of the file: its store index and shape.
struct Entry {
    group: usize,
    game: String,
    spec: Arc<dyn AnySpec>,
    shape: EntryShape,
}

pub struct Ladder {
    pub config: LadderConfig,
    pub hub: Arc<Hub>,
    entries: Vec<Entry>,
    /// Every entry the store knows, by its index: how its games are rated.
    known: Vec<ResolvedGame>,
    labels: Vec<String>,
    store: Mutex<Store>,
    state: Mutex<State>,
    /// Woken when a pairing ends (places free up) and when results arrive.
    wake: tokio::sync::Notify,
    pub standings: tokio::sync::watch::Sender<Arc<Standings>>,
}

/// A game entry's identity in the store: its game and every parameter.
fn entry_key(game: &str, spec: &dyn AnySpec) -> Result<String, String> {
    Ok(format!("{game}\n{}", serde_yaml::to_string(&spec.params_yaml()).map_err(|e| e.to_string())?))
}

/// The game entry a store key names, rebuilt from its parameters alone.
fn entry_of_key(key: &str, label: &str) -> Result<ResolvedGame, String> {
    let (game, params) = key.split_once('\n').ok_or("a malformed entry key")?;
    let found = engine::find_game(game)?;
    let source = ParamSource::Yaml { name: format!("the ladder's entry {label}"), text: params.to_string() };
    let spec = (found.spec)(None, &[source], &crate::files::refuse_files).map_err(|e| e.to_string())?;
    let seats = spec.seats();
    Ok(ResolvedGame { spec: spec.into(), label: label.to_string(), cooperative: found.cooperative, seats, deals: None })
}

impl Ladder {
    /// The ladder of `config` (read from `file`, if from a file) over `hub`, its memory in
    /// `data`: agents, entries and rated results read back from the store.
    pub fn open(
        config: LadderConfig,
        file: Option<&Path>,
        text: &str,
        hub: Arc<Hub>,
        data: &Path,
    ) -> Result<Arc<Ladder>, String> {
        let source = file.map_or("the default ladder".to_string(), |f| f.display().to_string());
        let anchors: Vec<(String, String)> =
            config.anchors.iter().enumerate().map(|(i, a)| (format!("anchors[{i}].bot"), a.bot.clone())).collect();
        let resolved = resolve_entries(&source, text, &config.games, &anchors, &crate::files::load_file)?;
        let mut store = Store::open(data)?;
        let mut entries = Vec::new();
        for (g, r) in config.games.iter().zip(resolved) {
            let key = entry_key(&g.game, r.spec.as_ref())?;
            let group = store.entry(&key, &r.label)?;
            let shape = EntryShape { seats: r.seats, cooperative: r.cooperative };
            entries.push(Entry { group, game: g.game.clone(), spec: r.spec, shape });
        }
        let mut known = Vec::new();
        let mut labels = Vec::new();
        for (key, label) in store.entries()? {
            known.push(entry_of_key(&key, &label)?);
            labels.push(label);
        }
        let mut state = State::default();
        for (i, (name, _)) in store.agents()?.into_iter().enumerate() {
            state.add(i, &name);
        }
        for a in &config.anchors {
            let i = store.agent(&a.name, true)?;
            state.add(i, &a.name);
            state.anchors[i] = Some(a.bot.clone());
        }
        state.rated = store.rated()?;
        state.games = store.games()?;
        for g in &state.rated {
            for p in &g.results {
                state.met.insert((p.a.min(p.b), p.a.max(p.b)));
            }
        }
        state.pairings = store.pairings_played()?;
        let ladder = Arc::new(Ladder {
            config,
            hub,
            entries,
            known,
            labels,
            store: Mutex::new(store),
            state: Mutex::new(state),
            wake: tokio::sync::Notify::new(),
            standings: tokio::sync::watch::channel(Arc::new(Standings::default())).0,
        });
        // The standings of what is stored, before any new game.
        let first = ladder.fit();
        ladder.publish(first);
        Ok(ladder)
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn store(&self) -> std::sync::MutexGuard<'_, Store> {
        self.store.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Run: the matchmaker and the refits, until the hub stops.
    pub fn start(self: &Arc<Self>) {
        let me = self.clone();
        tokio::spawn(async move { me.matchmake().await });
        let me = self.clone();
        tokio::spawn(async move { me.refits().await });
    }

    /// Game entries' labels, by their index in the store.
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// Is the agent `name` an anchor or connected now?
    pub fn present(&self, agent: usize) -> bool {
        let (name, anchor) = {
            let s = self.state();
            (s.names[agent].clone(), s.anchors[agent].is_some())
        };
        anchor || self.hub.session(&name).is_some()
    }

    /// The index of a name the ladder has seen (names that look alike are one).
    pub fn agent_index(&self, name: &str) -> Option<usize> {
        self.state().index.get(&names::fold(name)).copied()
    }

    /// The name of agent `agent`.
    pub fn name(&self, agent: usize) -> Option<String> {
        self.state().names.get(agent).cloned()
    }

    pub fn is_anchor(&self, agent: usize) -> bool {
        self.state().anchors.get(agent).is_some_and(Option::is_some)
    }

    /// Is this pairing in play (its games' records held back)?
    pub fn pairing_open(&self, pairing: u64) -> bool {
        self.state().open_pairings.contains(&pairing)
    }

    pub fn in_play(&self) -> u32 {
        self.state().in_play
    }

    /// Finished games stored, now.
    pub fn games(&self) -> u64 {
        self.state().games
    }

    /// The store, for the Ladder service's reads.
    pub fn with_store<T>(&self, read: impl FnOnce(&Store) -> T) -> T {
        read(&self.store())
    }

    async fn matchmake(self: Arc<Self>) {
        let mut rng = SmallRng::seed_from_u64(secret_seed().unwrap_or(1));
        let stopped = self.hub.stopped();
        tokio::pin!(stopped);
        let mut tick = tokio::time::interval(Duration::from_millis(100));
        loop {
            tokio::select! {
                _ = tick.tick() => {}
                _ = self.wake.notified() => {}
                _ = &mut stopped => return,
            }
            if let Err(e) = self.match_once(&mut rng) {
                tracing::error!("ladder: {e}");
            }
        }
    }

    /// Start every pairing that can be made now.
    fn match_once(self: &Arc<Self>, rng: &mut SmallRng) -> Result<(), String> {
        // A stream that sent Leave takes no new pairing.
        let sessions: Vec<_> = self.hub.sessions().into_iter().filter(|s| !s.is_leaving()).collect();
        let mut candidates = Vec::new();
        // New names are written down first (the store before the state).
        for session in &sessions {
            if self.agent_index(&session.name).is_none() {
                let i = self.store().agent(&session.name, false)?;
                self.state().add(i, &session.name);
            }
        }
        let mut s = self.state();
        let now = Instant::now();
        let candidate = |s: &State, agent: usize, limit: u32, plays: Vec<bool>| {
            let (rating, width) = s.overall.get(&agent).copied().unwrap_or((f64::NAN, f64::INFINITY));
            Candidate {
                agent,
                free: limit.saturating_sub(s.in_flight[agent]),
                anchor: s.anchors[agent].is_some(),
                rating,
                width,
                waited: now.duration_since(s.since[agent]).as_secs_f64(),
                plays,
            }
        };
        for (agent, bot) in s.anchors.iter().enumerate() {
            if bot.is_some() {
                candidates.push(candidate(&s, agent, self.config.anchor_games, vec![true; self.entries.len()]));
            }
        }
        for session in &sessions {
            let Some(&agent) = s.index.get(&names::fold(&session.name)) else { continue };
            if s.anchors[agent].is_some() {
                continue;
            }
            let asked = if session.max_games == 0 { self.config.max_games } else { session.max_games };
            let plays = self.entries.iter().map(|e| session.plays(&e.game)).collect();
            candidates.push(candidate(&s, agent, asked.min(self.config.max_games_cap), plays));
        }
        let shapes: Vec<EntryShape> = self.entries.iter().map(|e| e.shape).collect();
        let groups: Vec<usize> = self.entries.iter().map(|e| e.group).collect();
        loop {
            let played = Played { state: &s, groups: &groups };
            let Some(pick) = matchmaking::pick(&candidates, &shapes, &played, self.config.anchor_interval, rng) else {
                break;
            };
            for a in &pick.agents {
                *s.pairings.entry((*a, groups[pick.entry])).or_insert(0) += 1;
                s.in_flight[*a] += 1;
                s.since[*a] = now;
                if let Some(c) = candidates.iter_mut().find(|c| c.agent == *a) {
                    c.free -= 1;
                }
            }
            let me = self.clone();
            tokio::spawn(async move { me.pairing(pick).await });
        }
        Ok(())
    }

    /// Play one pairing to its end, committing each game as it finishes.
    async fn pairing(self: Arc<Self>, pick: Pick) {
        let entry = &self.entries[pick.entry];
        // The connected agents' streams hold the pairing, all its games, as in play: one that
        // leaves ends after the pairing, not between two of its games.
        let names: Vec<String> = {
            let s = self.state();
            pick.agents.iter().filter(|&&a| s.anchors[a].is_none()).map(|&a| s.names[a].clone()).collect()
        };
        let _held: Vec<SeatHeld> =
            names.iter().filter_map(|n| self.hub.session(n)).map(|s| SeatHeld::new(&s)).collect();
        let opened = self.store().pairing(entry.group);
        match opened {
            Ok(pairing) => {
                self.state().open_pairings.insert(pairing);
                if let Err(e) = self.play_pairing(&pick, pairing).await {
                    tracing::warn!("ladder: pairing {pairing}: {e}");
                }
                self.state().open_pairings.remove(&pairing);
            }
            Err(e) => tracing::error!("ladder: {e}"),
        }
        {
            let mut s = self.state();
            for a in &pick.agents {
                s.in_flight[*a] -= 1;
                s.since[*a] = Instant::now();
            }
        }
        self.wake.notify_one();
    }

    async fn play_pairing(&self, pick: &Pick, pairing: u64) -> Result<(), String> {
        let entry = &self.entries[pick.entry];
        let k = pick.agents.len();
        // Seat orders: every rotation of the agents; a cooperative deal, each agent at every seat.
        let orders: Vec<Vec<usize>> = if entry.shape.cooperative {
            pick.agents.iter().map(|&a| vec![a; entry.shape.seats]).collect()
        } else {
            (0..k).map(|r| (0..k).map(|s| pick.agents[(s + r) % k]).collect()).collect()
        };
        let deal = secret_seed().map_err(|e| e.message().to_string())?;
        // On a shared deal, the games' records are held back until the pairing is over; a
        // cooperative deal's moves too (each agent plays the deal after the one before it).
        let shared = matches!(self.config.deals, Deals::Shared).then(|| match entry.shape.cooperative {
            true => SharedDeal::records_and_moves(),
            false => SharedDeal::records(),
        });
        let mut plays: Vec<MatchRecord> = Vec::new();
        let result = async {
            for order in &orders {
                if !order.iter().all(|&a| self.present(a)) {
                    return Err("an agent left: the pairing ends here".to_string());
                }
                let seed = match self.config.deals {
                    Deals::Shared => deal,
                    Deals::Fresh => secret_seed().map_err(|e| e.message().to_string())?,
                };
                let seats: Vec<v1::SeatSpec> = {
                    let s = self.state();
                    order
                        .iter()
                        .map(|&a| v1::SeatSpec {
                            player: Some(match &s.anchors[a] {
                                Some(bot) => v1::seat_spec::Player::Bot(bot.clone()),
                                None => v1::seat_spec::Player::Play(s.names[a].clone()),
                            }),
                        })
                        .collect()
                };
                let move_time = Some(Duration::from_millis(self.config.move_time_ms));
                let table = self
                    .hub
                    .create_hosted(&entry.game, entry.spec.clone(), seed, &seats, move_time, shared.clone())
                    .map_err(|e| e.message().to_string())?;
                self.state().in_play += 1;
                over(&table).await;
                self.state().in_play -= 1;
                let mut record = table.record().map_err(|e| e.message().to_string())?;
                let (names, label) = {
                    let s = self.state();
                    (order.iter().map(|&a| s.names[a].clone()).collect::<Vec<_>>(), self.labels[entry.group].clone())
                };
                record.players = names;
                record.tournament = Some(TournamentGame {
                    job: 0,
                    group: entry.group,
                    label,
                    deal: pairing as u32,
                    seats: order.clone(),
                    play_ms: 0.0,
                });
                plays.push(record);
                let last = plays.len() == orders.len();
                self.commit(&mut plays, entry, last).await?;
            }
            Ok(())
        }
        .await;
        if let Some(deal) = shared {
            deal.release();
        }
        result
    }

    /// Commit the newest play of a pairing with the results it completes: a competitive game
    /// its own; a cooperative deal's, all its plays compared once the last is in.
    async fn commit(&self, plays: &mut [MatchRecord], entry: &Entry, last: bool) -> Result<(), String> {
        let rated: Vec<RatedGame> = if !entry.shape.cooperative {
            rated_games(&plays[plays.len() - 1..], &self.known)
        } else if last {
            rated_games(plays, &self.known)
        } else {
            Vec::new()
        };
        let newest = plays.len() - 1;
        {
            let mut store = self.store();
            let id = store.next_game()?;
            if let Some(t) = plays[newest].tournament.as_mut() {
                t.job = id;
            }
            let record = &plays[newest];
            // Off the async threads would be kinder; one small transaction is quick enough.
            tokio::task::block_in_place(|| store.commit(record, &rated))?;
        }
        let mut s = self.state();
        s.games += 1;
        for g in &rated {
            for p in &g.results {
                s.met.insert((p.a.min(p.b), p.a.max(p.b)));
            }
        }
        s.rated.extend(rated);
        Ok(())
    }

    async fn refits(self: Arc<Self>) {
        let stopped = self.hub.stopped();
        tokio::pin!(stopped);
        let mut last = self.state().rated.len();
        let mut noted = self.with_store(|s| s.last_history()).unwrap_or(0);
        loop {
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(self.config.refit_ms)) => {}
                _ = &mut stopped => return,
            }
            if self.state().rated.len() == last {
                continue;
            }
            let me = self.clone();
            let Ok(standings) = tokio::task::spawn_blocking(move || me.fit()).await else { continue };
            last = standings.rated_games as usize;
            if !history_due(noted, last as u64) {
                self.publish(standings);
                continue;
            }
            noted = last as u64;
            let points: Vec<(usize, f64, f64, f64)> = standings.lists[0]
                .1
                .entries
                .iter()
                .map(|e| {
                    let (lo, hi) = e.interval.unwrap_or((e.rating, e.rating));
                    (e.participant, e.rating, lo, hi)
                })
                .collect();
            if let Err(e) = tokio::task::block_in_place(|| self.store().note_history(last as u64, &points)) {
                tracing::error!("ladder: {e}");
            }
            self.publish(standings);
        }
    }

    /// The ratings of every stored result: overall, and one list per entry of the file.
    pub fn fit(&self) -> Standings {
        let (names, rated, games) = {
            let s = self.state();
            (s.names.clone(), s.rated.clone(), s.games)
        };
        let opts = RatingOptions { anchor: None, bootstrap: self.config.bootstrap, seed: 0 };
        let mut lists = vec![("overall".to_string(), rate(&names, &rated, &opts))];
        for e in &self.entries {
            let of: Vec<RatedGame> = rated.iter().filter(|g| g.group == e.group).cloned().collect();
            lists.push((self.labels[e.group].clone(), rate(&names, &of, &opts)));
        }
        Standings { games, rated_games: rated.len() as u64, lists }
    }

    fn publish(&self, standings: Standings) {
        {
            let mut s = self.state();
            s.overall = standings.lists[0]
                .1
                .entries
                .iter()
                .map(|e| {
                    let width = e.interval.map_or(f64::INFINITY, |(lo, hi)| hi - lo);
                    (e.participant, (e.rating, width))
                })
                .collect();
        }
        self.standings.send_replace(Arc::new(standings));
    }
}

/// Wait until a match is over.
async fn over(table: &crate::server::table::Table) {
    loop {
        let notified = table.over.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if table.is_over() {
            return;
        }
        notified.await;
    }
}

/// The report of a ladder's data directory, as a tournament's (`arena report DIR`): every
/// rated result, one list per game entry it has played and one overall, the progression in
/// the order the games finished. Returns the overall list and the notes.
pub fn write_report(data: &Path, out: &Path, bootstrap: u32) -> Result<(RatingList, Vec<String>), String> {
    let store = Store::open(data)?;
    let participants: Vec<String> = store.agents()?.into_iter().map(|(name, _)| name).collect();
    let groups: Vec<String> = store.entries()?.into_iter().map(|(_, label)| label).collect();
    let games = store.rated()?;
    let notes = vec![format!(
        "A standing ladder's results so far: {} games stored, {} rated results (a cooperative deal's plays rate together).",
        store.games()?,
        games.len()
    )];
    let input = reports::report::ReportInput {
        title: format!("Ladder: {}", data.display()),
        participants,
        groups,
        games,
        options: RatingOptions { anchor: None, bootstrap, seed: 0 },
        side_by_side: Vec::new(),
        notes: notes.clone(),
        run_notes: Vec::new(),
        to_watch: Vec::new(),
        variants: Vec::new(),
    };
    let written = reports::report::write_report(out, &input)?;
    Ok((written.overall, notes))
}

/// Is a rating history point due, `rated` results in, the last noted at `noted`? One each time
/// the results have grown by 2% (at least 20): enough to draw, bounded over a ladder's life
/// (some 500 points per million results).
pub fn history_due(noted: u64, rated: u64) -> bool {
    rated >= noted + (noted / 50).max(20)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matchmaking_reads_counts_by_the_stores_entry_not_the_files_place() {
        // The file lists entries in another order than the store first met them.
        let mut state = State::default();
        state.add(0, "a");
        state.pairings.insert((0, 1), 7);
        let played = Played { state: &state, groups: &[1, 0] };
        assert_eq!((played.pairings(0, 0), played.pairings(0, 1)), (7, 0));
    }
}
