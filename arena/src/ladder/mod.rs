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
//!   blocking thread at most every `refit_ms`, never in the way of play, each refit kept in the
//!   store: a restart serves the last at once and refits in the background;
//! - a stop that keeps its promise ([`Ladder::stop`]): no new pairing, the games in play given
//!   a grace period, those still in play then aborted (stored, rated for nobody);
//! - [`service`]: the Ladder service of the contract;
//! - the gate of names ([`NameGate`]): who may hold which name, a bounded number of new
//!   agents per client, provisional agents, rested agents.
//!
//! Locks: the hub's lock of its Play names is taken before the ladder's state or store (a
//! Hello is admitted holding it), never after: nothing here calls the hub holding either.

pub mod config;
pub mod launches;
pub mod matchmaking;
pub mod people;
pub mod service;
pub mod store;
pub mod submissions;
pub mod synthetic;
pub mod work;

use crate::record::MatchRecord;
use crate::server::hub::{House, NameGate, secret_seed};
use crate::server::session::{SeatHeld, Session};
use crate::server::shares::ClientId;
use crate::server::table::SharedDeal;
use crate::server::{Hub, names};
use crate::tournament::config::{GameSpec, ResolvedGame, resolve_entries};
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
use tonic::Status;

/// The standings at one refit: the overall list, then one per game entry of the file.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
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
    /// Each agent's owner, by a number (see `owners`); none for anchors, and for agents stored
    /// before owners were kept until one comes back.
    owner: Vec<Option<u32>>,
    /// Owners (`ClientId::stored`) by number, and back.
    owners: Vec<String>,
    owner_numbers: HashMap<String, u32>,
    /// When each owner added its agents (ms since the epoch), oldest first: its caps.
    added: HashMap<u32, Vec<u64>>,
    /// Ranked (anchors, and agents with enough results against established ones), and each
    /// provisional agent's results against established ones so far.
    established: Vec<bool>,
    qualifying: Vec<u32>,
    /// Games each agent has timed out in, in a row; its rests so far, and the one it is in.
    timeouts: Vec<u32>,
    rests: Vec<u32>,
    rested: Vec<Option<(Instant, String)>>,
    /// The games in play, by match id (a stop aborts those its grace did not see end).
    playing: HashMap<String, Arc<crate::server::table::Table>>,
    /// The Play stream (by its session id) last told of the agent's rest.
    rest_told: Vec<Option<String>>,
    /// Results against established agents a provisional one needs (0: none is provisional).
    needed: u32,
    /// The submissions, by the agent each plays as.
    submission: HashMap<usize, launches::Sub>,
    /// People: agents who are persons playing on the web face (challenges), not programs.
    person: Vec<bool>,
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
            self.owner.push(None);
            self.established.push(self.needed == 0);
            self.qualifying.push(0);
            self.timeouts.push(0);
            self.rests.push(0);
            self.rested.push(None);
            self.rest_told.push(None);
            self.person.push(false);
        }
    }

    /// The number of owner `owner`, given one if new.
    fn owner_number(&mut self, owner: &str) -> u32 {
        if let Some(&n) = self.owner_numbers.get(owner) {
            return n;
        }
        let n = self.owners.len() as u32;
        self.owners.push(owner.to_string());
        self.owner_numbers.insert(owner.to_string(), n);
        n
    }

    /// Agent `agent` is owned by `owner` (added at `added_ms`, counted against its caps).
    fn own(&mut self, agent: usize, owner: &str, added_ms: Option<u64>) {
        let n = self.owner_number(owner);
        self.owner[agent] = Some(n);
        if let Some(ms) = added_ms {
            let times = self.added.entry(n).or_default();
            let at = times.partition_point(|&t| t <= ms);
            times.insert(at, ms);
        }
    }

    /// Note what results against established agents `rated` gives the provisional ones, and
    /// rank those that have `needed` of them now. Replayed in the order stored, at every open.
    fn settle(&mut self, rated: &[RatedGame]) {
        for g in rated {
            let valid = |i: usize| i < self.established.len();
            let mut gains = Vec::new();
            for p in g.results.iter().filter(|p| valid(p.a) && valid(p.b)) {
                let (ea, eb) = (self.established[p.a], self.established[p.b]);
                if eb && !ea {
                    gains.push(p.a);
                }
                if ea && !eb {
                    gains.push(p.b);
                }
            }
            for a in gains {
                self.qualifying[a] += 1;
                if self.qualifying[a] >= self.needed {
                    self.established[a] = true;
                }
            }
        }
    }

    /// Is agent `agent` rested now? (A rest that is over is forgotten.)
    fn is_rested(&mut self, agent: usize, now: Instant) -> bool {
        match &self.rested[agent] {
            Some((until, _)) if *until > now => true,
            Some(_) => {
                self.rested[agent] = None;
                false
            }
            None => false,
        }
    }

    /// Why and how much longer agent `agent` is rested, if it is.
    fn rest_note(&mut self, agent: usize, now: Instant) -> Option<String> {
        if !self.is_rested(agent, now) {
            return None;
        }
        let (until, why) = self.rested[agent].as_ref()?;
        Some(format!("{why} ({} s left)", until.saturating_duration_since(now).as_secs()))
    }
}

/// How long the `k`-th rest of an agent lasts (0 the first): 30 s, doubling, at most 15 min.
pub fn rest_length(k: u32) -> Duration {
    Duration::from_secs(30u64.saturating_mul(1 << k.min(5))).min(Duration::from_secs(15 * 60))
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
    /// The preset its parameters start from (the game's default if the file names none).
    preset: String,
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
    /// Set when the ladder stops: no new pairing, no new game of a pairing.
    draining: std::sync::atomic::AtomicBool,
    /// Set when a refit in progress is to give up (the ladder stops).
    cancel_fit: std::sync::atomic::AtomicBool,
    /// What it needs to launch submissions, if it takes them.
    subs: Option<launches::Subs>,
    /// Its workers, if its games of anchors and submissions are played on workers.
    pub work: Option<work::Work>,
}

/// A game entry's identity in the store: its game and every parameter. Written by serde_yaml
/// as it always was (not `params_to_yaml`): a store's keys stay those it was made with, and it
/// is read back only here, by serde_yaml.
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
            entries.push(Entry { group, game: g.game.clone(), preset: g.preset_or_default()?, spec: r.spec, shape });
        }
        let mut known = Vec::new();
        let mut labels = Vec::new();
        for (key, label) in store.entries()? {
            known.push(entry_of_key(&key, &label)?);
            labels.push(label);
        }
        let mut state = State { needed: config.provisional_games, ..State::default() };
        for (i, a) in store.stored_agents()?.into_iter().enumerate() {
            state.add(i, &a.name);
            state.person[i] = a.person;
            // Anchors, this file's or an earlier one's, are established.
            state.established[i] |= a.anchor;
            if let Some(owner) = &a.owner {
                state.own(i, owner, Some(a.added_ms));
            }
        }
        for a in &config.anchors {
            let i = store.agent(&a.name, true)?;
            state.add(i, &a.name);
            state.anchors[i] = Some(a.bot.clone());
            state.established[i] = true;
        }
        let rated = store.rated()?;
        state.settle(&rated);
        state.rated = rated;
        state.games = store.games()?;
        for g in &state.rated {
            for p in &g.results {
                state.met.insert((p.a.min(p.b), p.a.max(p.b)));
            }
        }
        state.pairings = store.pairings_played()?;
        let subs = match &config.submissions {
            Some(c) => Some(launches::Subs::new(c.clone(), data, hub.config.unix_socket.clone())?),
            None => None,
        };
        let work = match &config.workers {
            Some(w) => {
                let path = config.worker_keys_path(file).expect("a workers section names its keys");
                let keys = crate::files::key_lines("workers.keys", &[], Some(&path))?;
                Some(work::Work::new(w.clone(), keys)?)
            }
            None => None,
        };
        let ladder = Arc::new(Ladder {
            work,
            config,
            hub,
            entries,
            known,
            labels,
            store: Mutex::new(store),
            state: Mutex::new(state),
            wake: tokio::sync::Notify::new(),
            standings: tokio::sync::watch::channel(Arc::new(Standings::default())).0,
            draining: std::sync::atomic::AtomicBool::new(false),
            cancel_fit: std::sync::atomic::AtomicBool::new(false),
            subs,
        });
        ladder.load_submissions()?;
        let orphans = ladder.adopt_orphans()?;
        if orphans > 0 {
            tracing::info!(orphans, "ladder: leases left open at the last stop: their reports are taken for a while");
        }
        // Who may hold a name is the ladder's to say from now on.
        let gate: std::sync::Weak<dyn NameGate> = Arc::downgrade(&ladder) as std::sync::Weak<dyn NameGate>;
        ladder.hub.set_gate(gate);
        ladder.hub.set_house(House {
            ladder: ladder.config.name.clone(),
            tournament: String::new(),
            games: GameSpec::hello_names(&ladder.config.games),
            move_time_ms: ladder.config.move_time_ms.min(u64::from(u32::MAX)) as u32,
        });
        // The last refit kept, served at once (the next one runs in the background once the
        // ladder starts); none kept (a new ladder, or one kept by an older arena): the lists
        // without ratings until then.
        let kept = ladder.kept_standings().unwrap_or_else(|e| {
            tracing::warn!("ladder: the last refit kept does not read ({e}): the standings wait for the next");
            None
        });
        let first = kept.unwrap_or_else(|| ladder.unfitted());
        ladder.publish(first);
        Ok(ladder)
    }

    /// The last refit kept in the store, if there is one and it fits what is stored (its
    /// overall head-to-head counted again from the results: it is not kept).
    fn kept_standings(&self) -> Result<Option<Standings>, String> {
        let Some((_, text)) = self.with_store(|s| s.last_fit())? else { return Ok(None) };
        let mut kept: Standings = serde_json::from_str(&text).map_err(|e| e.to_string())?;
        let s = self.state();
        let fits = kept.lists.len() == self.entries.len() + 1
            && kept.lists.iter().skip(1).zip(&self.entries).all(|((label, _), e)| *label == self.labels[e.group])
            && kept.rated_games as usize <= s.rated.len()
            && kept.lists.iter().all(|(_, l)| {
                l.entries.iter().all(|e| e.participant < s.names.len())
                    && l.unrated.iter().all(|u| u.participant < s.names.len())
            });
        if !fits {
            return Err("it names other entries or agents than the store holds".into());
        }
        kept.lists[0].1.head_to_head =
            reports::ratings::head_to_head_of(&s.names, &s.rated[..kept.rated_games as usize]);
        Ok(Some(kept))
    }

    /// The lists before any refit: everyone without a rating yet.
    fn unfitted(&self) -> Standings {
        let names = self.state().names.clone();
        let opts = RatingOptions { anchor: None, bootstrap: 0, seed: 0 };
        let empty = rate(&names, &[], &opts);
        let mut lists = vec![("overall".to_string(), empty.clone())];
        for e in &self.entries {
            lists.push((self.labels[e.group].clone(), empty.clone()));
        }
        Standings { games: self.state().games, rated_games: 0, lists }
    }

    /// Is the ladder stopping?
    pub fn draining(&self) -> bool {
        self.draining.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Stop: no new pairing and no new game of a pairing; the games in play get `grace` to
    /// end; those still in play then are aborted, stored as such and rated for nobody; a refit
    /// in progress gives up. Returns when every pairing has stored what it played (or, should
    /// one hang, 3 s after the grace).
    pub async fn stop(&self, grace: Duration) {
        self.draining.store(true, std::sync::atomic::Ordering::Release);
        self.cancel_fit.store(true, std::sync::atomic::Ordering::Release);
        self.withdraw_jobs();
        let open = || !self.state().open_pairings.is_empty();
        let end = tokio::time::Instant::now() + grace;
        while open() && tokio::time::Instant::now() < end {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let playing: Vec<_> = self.state().playing.values().cloned().collect();
        if !playing.is_empty() {
            tracing::info!(games = playing.len(), "ladder: the grace is over: aborting the games still in play");
        }
        for table in playing {
            table.abort();
        }
        let end = tokio::time::Instant::now() + Duration::from_secs(3);
        while open() && tokio::time::Instant::now() < end {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
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
        if self.work.is_some() {
            let me = self.clone();
            tokio::spawn(async move { me.sweep_leases().await });
        }
    }

    /// Game entries' labels, by their index in the store.
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// Is the agent `name` an anchor, a submission that plays, or connected now?
    pub fn present(&self, agent: usize) -> bool {
        let (name, here) = {
            let s = self.state();
            let active = s.submission.get(&agent).is_some_and(|sub| sub.state == launches::State::Active);
            (s.names[agent].clone(), s.anchors[agent].is_some() || active)
        };
        here || self.hub.session(&name).is_some()
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
            if self.draining() {
                return;
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
                owner: s.owner[agent],
                established: s.established[agent],
            }
        };
        for (agent, bot) in s.anchors.iter().enumerate() {
            if bot.is_some() {
                candidates.push(candidate(&s, agent, self.config.anchor_games, vec![true; self.entries.len()]));
            }
        }
        // The submissions that play (each launched for its games), but rested ones.
        let games = self.config.submissions.as_ref().map_or(0, |c| c.games);
        let mut active: Vec<usize> =
            s.submission.iter().filter(|(_, sub)| sub.state == launches::State::Active).map(|(a, _)| *a).collect();
        active.sort_unstable();
        for agent in active {
            if !s.is_rested(agent, now) {
                candidates.push(candidate(&s, agent, games, vec![true; self.entries.len()]));
            }
        }
        let mut tell = Vec::new();
        for session in &sessions {
            // Every name was admitted (and stored) at its Hello; a rested agent waits, and a
            // stream of it that has not heard why is told.
            let Some(&agent) = s.index.get(&names::fold(&session.name)) else { continue };
            if s.anchors[agent].is_some() || s.submission.contains_key(&agent) {
                continue;
            }
            if let Some(note) = s.rest_note(agent, now) {
                if s.rest_told[agent].as_ref() != Some(&session.id) {
                    s.rest_told[agent] = Some(session.id.clone());
                    tell.push((session.clone(), format!("this ladder rests `{}`: {note}", session.name)));
                }
                continue;
            }
            let asked = if session.max_games == 0 { self.config.max_games } else { session.max_games };
            let plays = self.entries.iter().map(|e| session.plays(&e.game, &e.preset)).collect();
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
        drop(s);
        for (session, why) in tell {
            session.notice("rested", &why);
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
            pick.agents
                .iter()
                .filter(|&&a| s.anchors[a].is_none() && !s.submission.contains_key(&a))
                .map(|&a| s.names[a].clone())
                .collect()
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

    async fn play_pairing(self: &Arc<Self>, pick: &Pick, pairing: u64) -> Result<(), String> {
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
                if order.iter().any(|&a| self.state().is_rested(a, Instant::now())) {
                    return Err("an agent was rested: the pairing ends here".to_string());
                }
                if self.draining() {
                    return Err("the ladder stops: the pairing ends here".to_string());
                }
                let seed = match self.config.deals {
                    Deals::Shared => deal,
                    Deals::Fresh => secret_seed().map_err(|e| e.message().to_string())?,
                };
                // A game of anchors and submissions alone goes to the workers, if there are.
                let remote = self.work.is_some() && {
                    let st = self.state();
                    order.iter().all(|&a| st.anchors[a].is_some() || st.submission.contains_key(&a))
                };
                let (mut record, logs, lease, ack) = if remote {
                    let d = self.remote_game(entry, pairing, order, seed, shared.clone()).await?;
                    (d.record, d.logs, Some(d.lease), Some(d.ack))
                } else {
                    let (record, logs) = self.local_game(entry, order, seed, shared.clone()).await?;
                    (record, logs, None, None)
                };
                self.note_timeouts(order, &record.verdicts);
                self.place(&mut record, entry.group, pairing, order);
                let aborted = record.outcome.aborted;
                plays.push(record);
                let last = plays.len() == orders.len();
                let committed = self.commit(&mut plays, entry, last, lease.as_deref()).await;
                if let Some(ack) = ack {
                    let answer = match &committed {
                        Ok((game_id, already)) => Ok(v1::ReportResponse { game_id: *game_id, already: *already }),
                        Err(e) => Err(Status::internal(e.clone())),
                    };
                    let _ = ack.send(answer);
                }
                let (game, already) = committed?;
                // Each submission's stderr in this game, kept under the game's id.
                if !already {
                    self.keep_logs(game, &logs);
                }
                if aborted {
                    return Err("the ladder stopped before the game ended: stored as aborted, rated for nobody".into());
                }
            }
            Ok(())
        }
        .await;
        if let Some(deal) = shared {
            deal.release();
        }
        result
    }

    /// A match of the ladder's counted among its matches in play (`playing`), or no more.
    pub(super) fn mark_playing(&self, table: &Arc<crate::server::table::Table>, playing: bool) {
        let mut s = self.state();
        if playing {
            if s.playing.insert(table.setup.id.clone(), table.clone()).is_none() {
                s.in_play += 1;
            }
        } else if s.playing.remove(&table.setup.id).is_some() {
            s.in_play -= 1;
        }
    }

    /// Play one game of a pairing here: its submissions launched, its anchors thinking on the
    /// hub's threads. Its record, and each submission's stderr in it.
    async fn local_game(
        self: &Arc<Self>,
        entry: &Entry,
        order: &[usize],
        seed: u64,
        shared: Option<Arc<SharedDeal>>,
    ) -> Result<(MatchRecord, Vec<(u64, Vec<u8>)>), String> {
        // Each submission of the game launched for it (once, for all its seats).
        let mut launched: Vec<(usize, launches::Launching)> = Vec::new();
        let mut agents: Vec<usize> = order.to_vec();
        agents.sort_unstable();
        agents.dedup();
        agents.retain(|&a| self.active_submission(a));
        for &a in &agents {
            match self.launch(a).await {
                Ok(l) => {
                    if let Some(sub) = self.state().submission.get_mut(&a) {
                        sub.failed_starts = 0;
                    }
                    launched.push((a, l));
                }
                Err(e) => {
                    let name = self.name(a).unwrap_or_default();
                    self.failed_start(a, &e);
                    for (_, l) in &mut launched {
                        self.finish(l).await;
                    }
                    return Err(format!("`{name}` did not start: {e}"));
                }
            }
        }
        // An anchor plays as its bot spec, a submission as its launch, under the name the
        // standings give them.
        let (seats, names): (Vec<v1::SeatSpec>, Vec<String>) = {
            let s = self.state();
            order
                .iter()
                .map(|&a| {
                    let player = match (&s.anchors[a], launched.iter().find(|(b, _)| *b == a)) {
                        (Some(bot), _) => v1::seat_spec::Player::Bot(bot.clone()),
                        (None, Some((_, l))) => v1::seat_spec::Player::Play(l.play_name.clone()),
                        (None, None) => v1::seat_spec::Player::Play(s.names[a].clone()),
                    };
                    (v1::SeatSpec { player: Some(player) }, s.names[a].clone())
                })
                .unzip()
        };
        let move_time = Some(Duration::from_millis(self.config.move_time_ms));
        let table = self
            .hub
            .create_hosted(
                &crate::server::ClientId::Host,
                &entry.game,
                &entry.preset,
                entry.spec.clone(),
                seed,
                &seats,
                &names,
                move_time,
                self.config.bank_clock(),
                shared,
            )
            .map_err(|e| e.message().to_string());
        let table = match table {
            Ok(t) => t,
            Err(e) => {
                for (_, l) in &mut launched {
                    self.finish(l).await;
                }
                return Err(e);
            }
        };
        self.mark_playing(&table, true);
        table.wait_over().await;
        let mut finished = Vec::new();
        for (a, l) in &mut launched {
            finished.push((*a, self.finish(l).await));
        }
        self.mark_playing(&table, false);
        let mut record = table.record().map_err(|e| e.message().to_string())?;
        // A submission whose process broke a limit lost its connection for that: its seats'
        // verdict says so.
        mark_limits(&mut record, order, &finished);
        let s = self.state();
        let logs = finished
            .into_iter()
            .filter_map(|(a, f)| s.submission.get(&a).map(|sub| (sub.id, f.stderr.into_bytes())))
            .collect();
        Ok((record, logs))
    }

    /// Count, for each agent of a game just over, the games in a row it timed out in; rest one
    /// that reaches `rest_after_timeouts`, and tell it why.
    fn note_timeouts(&self, order: &[usize], verdicts: &[crate::referee::Verdict]) {
        let k = self.config.rest_after_timeouts;
        let mut told = Vec::new();
        {
            let mut s = self.state();
            let mut agents: Vec<usize> = order.iter().copied().filter(|&a| s.anchors[a].is_none()).collect();
            agents.dedup();
            for a in agents {
                let late = order.iter().enumerate().any(|(seat, &b)| {
                    b == a && verdicts.iter().any(|v| v.seat == seat && v.kind == crate::referee::Fault::Timeout)
                });
                if !late {
                    s.timeouts[a] = 0;
                    continue;
                }
                s.timeouts[a] += 1;
                if k == 0 || s.timeouts[a] < k {
                    continue;
                }
                let length = rest_length(s.rests[a]);
                let why = format!(
                    "{} games in a row timed out: not matched for {} s (rest {}; each rest is twice as long, up to 15 min)",
                    s.timeouts[a],
                    length.as_secs(),
                    s.rests[a] + 1
                );
                s.timeouts[a] = 0;
                s.rests[a] += 1;
                s.rested[a] = Some((Instant::now() + length, why.clone()));
                told.push((a, s.names[a].clone(), why));
            }
        }
        for (a, name, why) in told {
            tracing::info!(%name, "ladder: rested: {why}");
            if let Some(session) = self.hub.session(&name) {
                self.state().rest_told[a] = Some(session.id.clone());
                session.notice("rested", &format!("this ladder rests `{name}`: {why}"));
            }
        }
    }

    /// What the standings mark of each agent, now.
    pub fn marks(&self) -> LadderMarks {
        let sessions = self.hub.sessions();
        let mut s = self.state();
        // Connected: a Play client holds its name, or it is a submission that plays (launched
        // for each of its games).
        let connected: HashSet<usize> = sessions
            .iter()
            .filter_map(|session| s.index.get(&names::fold(&session.name)).copied())
            .chain(s.submission.iter().filter(|(_, sub)| sub.state == launches::State::Active).map(|(a, _)| *a))
            .collect();
        let now = Instant::now();
        let rested = (0..s.names.len()).map(|a| s.rest_note(a, now)).collect();
        LadderMarks {
            anchors: s.anchors.iter().map(Option::is_some).collect(),
            people: s.person.clone(),
            connected,
            established: s.established.clone(),
            qualifying: s.qualifying.clone(),
            rested,
        }
    }

    /// Commit the newest play of a pairing with the results it completes: a competitive game
    /// its own; a cooperative deal's, all its plays compared once the last is in.
    /// Its id, and whether its lease (`lease`: a worker's game) had been stored already.
    async fn commit(
        &self,
        plays: &mut [MatchRecord],
        entry: &Entry,
        last: bool,
        lease: Option<&str>,
    ) -> Result<(u64, bool), String> {
        let rated: Vec<RatedGame> = if plays.last().is_some_and(|p| p.outcome.aborted) {
            // Aborted by a stop: no result for anyone (a cooperative deal's plays likewise).
            Vec::new()
        } else if !entry.shape.cooperative {
            rated_games(&plays[plays.len() - 1..], &self.known)
        } else if last {
            rated_games(plays, &self.known)
        } else {
            Vec::new()
        };
        let newest = plays.len() - 1;
        self.commit_record(&mut plays[newest], &rated, lease)
    }

    /// Results just stored: noted in the state.
    fn noted(&self, rated: &[RatedGame]) {
        let mut s = self.state();
        s.games += 1;
        for g in rated {
            for p in &g.results {
                s.met.insert((p.a.min(p.b), p.a.max(p.b)));
            }
        }
        s.settle(rated);
        s.rated.extend(rated.iter().cloned());
    }

    /// Refit whenever results arrived, at most every `refit_ms` (at once if the standings
    /// served are older than the store), each refit published, kept in the store, and noted in
    /// the agents' histories when one is due. Ends when the ladder stops (a refit in progress
    /// gives up: [`Ladder::stop`]).
    async fn refits(self: Arc<Self>) {
        let stopped = self.hub.stopped();
        tokio::pin!(stopped);
        let mut last = self.standings.borrow().rated_games as usize;
        let mut noted = self.with_store(|s| s.last_history()).unwrap_or(0);
        let mut first = true;
        loop {
            if !first {
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(self.config.refit_ms)) => {}
                    _ = &mut stopped => return,
                }
            }
            first = false;
            if self.draining() {
                return;
            }
            if self.state().rated.len() == last {
                continue;
            }
            // On a thread of its own, below the request path's priority: the games come first.
            let me = self.clone();
            let fitting = match crate::server::thinkers::run_apart("refit", move || me.fit()) {
                Ok(fitting) => fitting,
                Err(e) => {
                    tracing::error!("ladder: {e}");
                    continue;
                }
            };
            let Ok(standings) = fitting.await else { continue };
            if self.draining() {
                return;
            }
            last = standings.rated_games as usize;
            let standings = Arc::new(standings);
            let me = self.clone();
            let kept = standings.clone();
            let history = crate::standings::history_due(noted, last as u64);
            if history {
                noted = last as u64;
            }
            let stored = tokio::task::spawn_blocking(move || me.keep(&kept, history)).await;
            if let Ok(Err(e)) = stored {
                tracing::error!("ladder: {e}");
            }
            self.publish_shared(standings);
        }
    }

    /// Refit now, on this thread: publish the standings and keep them (what `refits` does in
    /// the background; for benchmarks).
    pub fn refit_now(&self) -> Result<Arc<Standings>, String> {
        let standings = Arc::new(self.fit());
        self.keep(&standings, false)?;
        self.publish_shared(standings.clone());
        Ok(standings)
    }

    /// Keep a refit in the store (without what is counted again on reading it), and note every
    /// rated agent's overall rating in its history if `history`.
    fn keep(&self, standings: &Standings, history: bool) -> Result<(), String> {
        let light = Standings {
            games: standings.games,
            rated_games: standings.rated_games,
            lists: standings
                .lists
                .iter()
                .map(|(label, l)| (label.clone(), RatingList { head_to_head: Vec::new(), ..l.clone() }))
                .collect(),
        };
        let text = serde_json::to_string(&light).map_err(|e| format!("cannot encode the standings: {e}"))?;
        let mut store = self.store();
        store.save_fit(standings.rated_games, &text)?;
        if history {
            let points: Vec<(usize, f64, f64, f64)> = standings.lists[0]
                .1
                .entries
                .iter()
                .map(|e| {
                    let (lo, hi) = e.interval.unwrap_or((e.rating, e.rating));
                    (e.participant, e.rating, lo, hi)
                })
                .collect();
            store.note_history(standings.rated_games, &points)?;
        }
        Ok(())
    }

    /// The ratings of every stored result: overall, and one list per entry of the file, each
    /// started from the last refit's ratings, its re-fits on `refit_threads` threads. Without
    /// each rating's re-fitted values (the intervals are what is kept of them), and the LOS
    /// table of a long list.
    pub fn fit(&self) -> Standings {
        let (names, rated, games) = {
            let s = self.state();
            (s.names.clone(), s.rated.clone(), s.games)
        };
        let before = self.standings.borrow().clone();
        let opts = RatingOptions { anchor: None, bootstrap: self.config.bootstrap, seed: 0 };
        let list = |label: &str, games: &[RatedGame], previous: Option<&RatingList>| {
            let warm: HashMap<usize, f64> = previous
                .map(|l| {
                    l.entries.iter().map(|e| (e.participant, e.rating / reports::ratings::ELO_PER_NEPER)).collect()
                })
                .unwrap_or_default();
            let start = |p: usize| warm.get(&p).copied();
            let effort = reports::ratings::Effort {
                threads: self.config.refit_threads(),
                warm: Some(&start),
                cancel: Some(&self.cancel_fit),
            };
            let mut l = reports::ratings::rate_with(&names, games, &opts, &effort);
            for e in &mut l.entries {
                e.resampled = Vec::new();
            }
            (label.to_string(), l)
        };
        let previous = |k: usize| before.lists.get(k).map(|(_, l)| l);
        let mut lists = vec![list("overall", &rated, previous(0))];
        for (k, e) in self.entries.iter().enumerate() {
            let of: Vec<RatedGame> = rated.iter().filter(|g| g.group == e.group).cloned().collect();
            if of.len() == rated.len() {
                // Every result is this entry's (a ladder of one game): its list is the overall one.
                lists.push((self.labels[e.group].clone(), lists[0].1.clone()));
                continue;
            }
            lists.push(list(&self.labels[e.group], &of, previous(k + 1)));
        }
        Standings { games, rated_games: rated.len() as u64, lists }
    }

    fn publish(&self, standings: Standings) {
        self.publish_shared(Arc::new(standings));
    }

    fn publish_shared(&self, standings: Arc<Standings>) {
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
        self.standings.send_replace(standings);
    }
}

/// What the standings mark of each agent (by index), read at one moment.
pub struct LadderMarks {
    anchors: Vec<bool>,
    people: Vec<bool>,
    connected: HashSet<usize>,
    established: Vec<bool>,
    qualifying: Vec<u32>,
    rested: Vec<Option<String>>,
}

impl crate::standings::Marks for LadderMarks {
    fn anchor(&self, p: usize) -> bool {
        self.anchors.get(p).copied().unwrap_or(false)
    }
    fn person(&self, p: usize) -> bool {
        self.people.get(p).copied().unwrap_or(false)
    }
    fn connected(&self, p: usize) -> bool {
        self.anchor(p) || self.connected.contains(&p)
    }
    fn established(&self, p: usize) -> bool {
        self.established.get(p).copied().unwrap_or(true)
    }
    fn qualifying(&self, p: usize) -> u32 {
        self.qualifying.get(p).copied().unwrap_or(0)
    }
    fn rested(&self, p: usize) -> String {
        self.rested.get(p).cloned().flatten().unwrap_or_default()
    }
}

impl NameGate for Ladder {
    /// A name the ladder knows is its owner's (or its key holder's); a new one is stored for
    /// good, so a client may add only so many (`agents_per_client`, `new_agents_per_hour`).
    fn admit(&self, session: &Session) -> Result<(), Status> {
        if self.work.as_ref().is_some_and(|w| w.is_worker(&session.name)) {
            return Err(Status::permission_denied(format!(
                "`{}` is a worker of this ladder: a worker's key takes work (`arena worker`), it does not play",
                session.name
            )));
        }
        // Over the Unix socket (no address) come only the launched submissions, whose names
        // are reserved for them and never reach the gate: a submission's program saying Hello
        // under another name is refused (names are a pool).
        if self.subs.is_some() && matches!(session.owner, ClientId::Unknown | ClientId::Sandbox(_)) {
            return Err(Status::permission_denied(format!(
                "`{}`: an agent launched by this ladder plays under the name it was given (ARENA_NAME)",
                session.name
            )));
        }
        if let Some(agent) = self.agent_index(&session.name)
            && self.state().person[agent]
        {
            return Err(Status::permission_denied(format!(
                "`{}` is a person's name on this ladder (one who plays on its web face): a program chooses another",
                session.name
            )));
        }
        self.admit_name(&session.name, &session.owner)
    }
}

impl Ladder {
    /// May `owner` hold the name `name` here? A name the ladder knows is its owner's (or its
    /// key holder's); a new one is stored for good, within the client's caps
    /// (`agents_per_client`, `new_agents_per_hour`).
    fn admit_name(&self, name: &str, client: &ClientId) -> Result<(), Status> {
        let owner = client.stored();
        let keyed = matches!(client, ClientId::Name(_));
        if let Some(agent) = self.agent_index(name) {
            let mut s = self.state();
            let theirs = s.owner[agent].map(|n| s.owners[n as usize].clone());
            match theirs {
                Some(o) if o == owner => return Ok(()),
                Some(_) if !keyed => {
                    return Err(Status::permission_denied(format!(
                        "`{name}` is another client's agent on this ladder (`{}`: names that look alike are one): \
                         choose another name, or ask the operator for the name's key",
                        s.names[agent]
                    )));
                }
                // The key holder, or the first client to come back to an agent stored before
                // owners were kept, owns it from now on.
                _ => {
                    drop(s);
                    self.store().set_owner(agent, &owner).map_err(Status::internal)?;
                    s = self.state();
                    s.own(agent, &owner, None);
                    return Ok(());
                }
            }
        }
        let now = store::now_ms();
        if !keyed {
            let mut s = self.state();
            let number = s.owner_number(&owner);
            let added = s.added.get(&number).map(Vec::as_slice).unwrap_or_default();
            let cap = self.config.agents_per_client as usize;
            if added.len() >= cap {
                return Err(Status::resource_exhausted(format!(
                    "{} has {} agents on this ladder, its cap (agents_per_client: {cap}): play under one of them (a new \
                     version is a new agent)",
                    client,
                    added.len()
                )));
            }
            let hour = 3_600_000;
            let recent: Vec<u64> = added.iter().copied().filter(|&t| t + hour > now).collect();
            let rate = self.config.new_agents_per_hour as usize;
            if recent.len() >= rate {
                let wait = (recent[recent.len() - rate] + hour).saturating_sub(now).div_ceil(60_000);
                return Err(Status::resource_exhausted(format!(
                    "{} added {} new agents (names or versions) to this ladder in the last hour, its rate \
                     (new_agents_per_hour: {rate}): the next in {wait} min, or play under one it has",
                    client,
                    recent.len()
                )));
            }
        }
        let index = self.store().agent_of(name, false, Some(&owner)).map_err(Status::internal)?;
        let mut s = self.state();
        s.add(index, name);
        s.own(index, &owner, (!keyed).then_some(now));
        Ok(())
    }
}

/// A launched agent that broke a limit lost its connection for that: the verdicts of the seats
/// it played (`order[seat]` is `a`) say so instead of `disconnected`.
pub fn mark_limits(record: &mut MatchRecord, order: &[usize], finished: &[(usize, launches::Finished)]) {
    for (a, f) in finished {
        let (Some(fault), Some(limit)) = (f.fault, &f.limit) else { continue };
        for v in record.verdicts.iter_mut().filter(|v| order.get(v.seat) == Some(a)) {
            if v.kind == crate::referee::Fault::Disconnected {
                v.kind = fault;
                v.detail = format!("its process {limit}");
            }
        }
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

    #[test]
    fn a_provisional_agent_counts_results_against_established_ones_alone() {
        use reports::ratings::Pairwise;
        let mut state = State { needed: 2, ..State::default() };
        for (i, name) in ["anchor", "p", "q"].iter().enumerate() {
            state.add(i, name);
        }
        state.established[0] = true;
        let game = |a, b| RatedGame { group: 0, unit: 0, results: vec![Pairwise { a, b, score: 1.0 }], plays: 1 };
        // p against q: both provisional, neither counts it.
        state.settle(&[game(1, 2), game(2, 1)]);
        assert_eq!((state.qualifying[1], state.qualifying[2]), (0, 0));
        // p against the anchor, twice: established, and from then on it counts for q.
        state.settle(&[game(1, 0), game(0, 1)]);
        assert!(state.established[1] && !state.established[2]);
        state.settle(&[game(2, 1)]);
        assert_eq!(state.qualifying[2], 1);
        // With nothing needed, every agent is ranked at once.
        let mut open = State::default();
        open.add(0, "x");
        assert!(open.established[0]);
    }

    #[test]
    fn rests_double_up_to_fifteen_minutes() {
        let secs: Vec<u64> = (0..8).map(|k| rest_length(k).as_secs()).collect();
        assert_eq!(secs, [30, 60, 120, 240, 480, 900, 900, 900]);
    }
}
