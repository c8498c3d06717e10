//! A tournament as it plays, for its web face (`arena tournament --http`):
//!
//! - its standings: the rated results so far (told by the run at most every second, and at
//!   its end) refit on a thread of their own — only the latest results, so a refit never holds
//!   up the games — and published as the Ladder service's standings message, overall and per
//!   game entry;
//! - its games, each shown on the face's server as it is played ([`Shown`]): listed among the
//!   matches in play, its moves streamed to spectators.

use super::config::ResolvedGame;
use super::run::{Live, Showcase, ShownGame};
use super::schedule::Job;
use crate::referee::{MatchOutcome, Verdict};
use crate::server::Hub;
use crate::server::table::{SharedDeal, Table};
use crate::standings::{HistoryPoint, NoMarks, Page, history_due, rating_table};
use engine::core::{ActionId, AnyGame, Seat};
use proto::v1;
use reports::ratings::{RatedGame, RatingOptions, rate};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::Mutex;
use tokio::sync::watch;

/// What the standings are of.
pub struct Tournament {
    pub name: String,
    /// The participants, by index.
    pub names: Vec<String>,
    /// Each game entry's label, by group.
    pub labels: Vec<String>,
    /// Games in the schedule (this run's share).
    pub scheduled: u64,
    /// How the lists are fitted: the report's own options (its anchor, resamples and seed).
    pub options: RatingOptions,
}

impl Tournament {
    /// The standings of `t`'s run, `scheduled` games of it, rated as its report rates them.
    pub fn of(t: &super::Tournament, scheduled: u64) -> Tournament {
        let names = t.names();
        let anchor = t.config.anchor.as_ref().and_then(|a| names.iter().position(|n| n == a));
        Tournament {
            name: t.config.name.clone(),
            labels: t.games.iter().map(|g| g.label.clone()).collect(),
            names,
            scheduled,
            options: RatingOptions { anchor, bootstrap: t.config.bootstrap, seed: t.config.seed },
        }
    }
}

/// A tournament's standings as they change, and its participants' ratings over time.
#[derive(Clone)]
pub struct Feed {
    pub standings: watch::Receiver<Arc<v1::LadderStandings>>,
    /// The participants' names, by index.
    pub names: Vec<String>,
    /// Each participant's rating over time (by index, oldest first): a point each time the
    /// rated results have grown by 2% (at least 20), as a ladder keeps them.
    pub history: Arc<std::sync::Mutex<Vec<Vec<HistoryPoint>>>>,
}

/// The feed, and what the run tells (give it to `RunOptions::live`).
pub fn standings(t: Tournament) -> Result<(Feed, Live), String> {
    let empty = v1::LadderStandings { ladder: t.name.clone(), scheduled: t.scheduled, ..Default::default() };
    let (publish, standings) = watch::channel(Arc::new(empty));
    let history = Arc::new(std::sync::Mutex::new(vec![Vec::new(); t.names.len()]));
    let feed = Feed { standings, names: t.names.clone(), history: history.clone() };
    let (tell, told) = std::sync::mpsc::channel::<(Vec<RatedGame>, usize)>();
    std::thread::Builder::new()
        .name("live-standings".into())
        .spawn(move || {
            // Ends when the run is done telling (its sender dropped).
            let mut noted = 0u64;
            while let Ok(mut latest) = told.recv() {
                while let Ok(newer) = told.try_recv() {
                    latest = newer;
                }
                let now = fit(&t, &latest.0, latest.1);
                if history_due(noted, now.rated_games) {
                    noted = now.rated_games;
                    let mut h = history.lock().unwrap_or_else(|p| p.into_inner());
                    for row in now.lists.first().map(|l| l.rows.as_slice()).unwrap_or_default() {
                        if let Some(p) = t.names.iter().position(|n| *n == row.agent) {
                            h[p].push(HistoryPoint {
                                rated_games: noted,
                                rating: row.rating,
                                lower: row.lower,
                                upper: row.upper,
                            });
                        }
                    }
                }
                publish.send_replace(Arc::new(now));
            }
        })
        .map_err(|e| format!("cannot start the live standings' thread: {e}"))?;
    let tell = std::sync::Mutex::new(tell);
    let live: Live = Arc::new(move |rated, played| {
        let _ = tell.lock().unwrap_or_else(|p| p.into_inner()).send((rated, played));
    });
    Ok((feed, live))
}

/// Deals in play: (game entry, deal) → (its games not over yet, what holds their tables back).
type Deals = Arc<Mutex<HashMap<(usize, u32), (usize, Arc<SharedDeal>)>>>;

/// A run's games shown on a server as they are played ([`Hub::show`]). A deal is played at
/// several tables (seats swapped; every agent on a cooperative deal): with strangers among the
/// participants, one table's moves would tell another's players what their deal holds, so a
/// deal's games show that they started, then nothing until every game on the deal is over.
/// Built-in agents alone, nobody at a table can watch: every game is shown live.
pub struct Shown {
    hub: Arc<Hub>,
    /// Empty when nothing is held back.
    deals: Deals,
    held: bool,
}

impl Shown {
    /// Show a run's games on `hub`; `strangers`: are there participants outside this process
    /// (a tournament's external ones)? Then each deal is held back until it is over.
    pub fn on(hub: Arc<Hub>, strangers: bool) -> Shown {
        Shown { hub, deals: Default::default(), held: strangers }
    }
}

impl Showcase for Shown {
    fn scheduled(&self, jobs: &[Job]) {
        if !self.held {
            return;
        }
        let mut deals = self.deals.lock().unwrap_or_else(|p| p.into_inner());
        for j in jobs {
            deals.entry((j.group, j.deal)).or_insert_with(|| (0, SharedDeal::records_and_moves())).0 += 1;
        }
    }

    fn begin(&self, job: &Job, game: &ResolvedGame, players: &[String], start: &dyn AnyGame) -> Box<dyn ShownGame> {
        let key = (job.group, job.deal);
        let deal = self.held.then(|| {
            let mut deals = self.deals.lock().unwrap_or_else(|p| p.into_inner());
            // A game the run did not announce holds its own deal back until it is over.
            deals.entry(key).or_insert_with(|| (1, SharedDeal::records_and_moves())).1.clone()
        });
        let shown = crate::server::hub::Shown {
            game: game.spec.game().to_string(),
            spec: game.spec.clone(),
            seed: job.seed,
            scenario: job.scenario.clone().unwrap_or_default(),
            players: players.to_vec(),
            move_time: None,
        };
        // With no place left among the matches in play, the game is played unseen.
        let table = match self.hub.show(shown, start.clone_box(), deal) {
            Ok(t) => Some(t),
            Err(e) => {
                tracing::debug!("game {} is not shown: {}", job.id, e.message());
                None
            }
        };
        Box::new(ShownTable { hub: self.hub.clone(), table, deals: self.held.then(|| (self.deals.clone(), key)) })
    }
}

struct ShownTable {
    hub: Arc<Hub>,
    table: Option<Arc<Table>>,
    /// Its deal's count, when deals are held back.
    deals: Option<(Deals, (usize, u32))>,
}

impl ShownGame for ShownTable {
    fn moved(&mut self, seat: Seat, action: ActionId) {
        if let Some(t) = &self.table
            && let Err(e) = t.shown_move(seat.index(), action)
        {
            // The copies disagree (it cannot happen with one engine): stop showing this game.
            tracing::warn!("a shown game stops being shown: {e}");
            self.hub.shown_over(t, MatchOutcome::cancelled(t.setup.seats.len()), Vec::new());
            self.table = None;
        }
    }

    fn ended(self: Box<Self>, outcome: &MatchOutcome, verdicts: &[Verdict]) {
        if let Some(t) = &self.table {
            self.hub.shown_over(t, outcome.clone(), verdicts.to_vec());
        }
        if let Some((deals, key)) = &self.deals {
            let mut deals = deals.lock().unwrap_or_else(|p| p.into_inner());
            if let Some((left, deal)) = deals.get_mut(key) {
                *left = left.saturating_sub(1);
                if *left == 0 {
                    deal.release();
                    deals.remove(key);
                }
            }
        }
    }
}

fn fit(t: &Tournament, rated: &[RatedGame], played: usize) -> v1::LadderStandings {
    let opts = &t.options;
    let mut lists = vec![rating_table("overall", &rate(&t.names, rated, opts), &NoMarks, &Page::ALL)];
    if t.labels.len() > 1 {
        for (group, label) in t.labels.iter().enumerate() {
            let of: Vec<RatedGame> = rated.iter().filter(|g| g.group == group).cloned().collect();
            lists.push(rating_table(label, &rate(&t.names, &of, opts), &NoMarks, &Page::ALL));
        }
    }
    v1::LadderStandings {
        ladder: t.name.clone(),
        games: played as u64,
        rated_games: rated.len() as u64,
        lists,
        in_play: 0,
        scheduled: t.scheduled,
        provisional_games: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the run tells reaches the feed, refit: the games played, every participant rated.
    #[test]
    fn told_results_become_the_published_standings() {
        let t = Tournament {
            name: "t".into(),
            names: vec!["a".into(), "b".into()],
            labels: vec!["g".into()],
            scheduled: 4,
            options: RatingOptions { anchor: None, bootstrap: 20, seed: 0 },
        };
        let (feed, live) = standings(t).unwrap();
        let mut changes = feed.standings.clone();
        assert_eq!(changes.borrow().scheduled, 4);
        let game = |unit: u64, a_wins: bool| RatedGame {
            group: 0,
            unit,
            results: vec![reports::ratings::Pairwise { a: 0, b: 1, score: if a_wins { 1.0 } else { 0.0 } }],
            plays: 1,
        };
        live(vec![game(0, true), game(1, true), game(2, false)], 3);
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(changes.wait_for(|s| s.games == 3)).unwrap();
        let s = changes.borrow().clone();
        assert_eq!((s.rated_games, s.lists.len()), (3, 1));
        let rows = &s.lists[0].rows;
        assert_eq!(rows[0].agent, "a", "two wins in three: first");
        assert!(rows[0].lower < rows[0].rating && rows[0].rating < rows[0].upper);
        // Three results are fewer than a history point needs; twenty-four make one each.
        assert!(feed.history.lock().unwrap().iter().all(Vec::is_empty));
        live((0..24).map(|u| game(u, u % 3 != 0)).collect(), 24);
        rt.block_on(changes.wait_for(|s| s.games == 24)).unwrap();
        let history = feed.history.lock().unwrap().clone();
        assert_eq!(history.iter().map(Vec::len).collect::<Vec<_>>(), vec![1, 1]);
        assert_eq!(history[0][0].rated_games, 24);
        assert!(history[0][0].rating > history[1][0].rating);
    }
}
