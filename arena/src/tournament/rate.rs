//! From logged games to ratings: each game becomes pairwise results, then the report.
//!
//! - A competitive game gives one result per pair of seats, by rank: the better rank wins,
//!   equal ranks draw. A seat that lost by a verdict ranks last.
//! - Plays of one cooperative deal are compared pairwise by the game's own key
//!   ([`engine::core::Game::play_key`], read from the outcome and figures each record keeps);
//!   a play that ended by a verdict ranks below every finished play.
//!
//! Every deal is one bootstrap unit: the games played on it (every pairing, every seat
//! order) are resampled together, since they share the cards.

use super::config::ResolvedGame;
use crate::record::MatchRecord;
use crate::referee::play_versus;
use reports::ratings::{Pairwise, RatedGame};
use std::collections::BTreeMap;

/// The bootstrap unit of deal `deal` of game entry `group`.
pub fn unit(group: usize, deal: u32) -> u64 {
    (group as u64) << 32 | u64::from(deal)
}

/// Is game entry `group` cooperative (its plays of a deal compared with one another)?
fn cooperative(games: &[ResolvedGame], group: usize) -> bool {
    games.get(group).is_some_and(|g| g.cooperative)
}

/// The rated games of a set of records (any order), in the order they completed the schedule
/// (a cooperative deal counts when its last play is in). `games[group]` is the game entry each
/// record was played in: how its games are compared.
pub fn rated_games(records: &[MatchRecord], games: &[ResolvedGame]) -> Vec<RatedGame> {
    let mut keyed: Vec<(u64, RatedGame)> = Vec::new();
    let mut deals: BTreeMap<(usize, u32), Vec<&MatchRecord>> = BTreeMap::new();
    for rec in records {
        let r = rec.place();
        if cooperative(games, r.group) {
            deals.entry((r.group, r.deal)).or_default().push(rec);
            continue;
        }
        let ranks = &rec.outcome.result.ranks;
        let mut results = Vec::new();
        for i in 0..r.seats.len() {
            for j in i + 1..r.seats.len() {
                let s = match ranks[i].cmp(&ranks[j]) {
                    std::cmp::Ordering::Less => 1.0,
                    std::cmp::Ordering::Greater => 0.0,
                    std::cmp::Ordering::Equal => 0.5,
                };
                if r.seats[i] != r.seats[j] {
                    results.push(Pairwise { a: r.seats[i], b: r.seats[j], score: s });
                }
            }
        }
        keyed.push((r.job, RatedGame { group: r.group, unit: unit(r.group, r.deal), results, plays: 1 }));
    }
    for ((group, deal), plays) in deals {
        let spec = games[group].spec.as_ref();
        let keys: Vec<Option<Vec<f64>>> = plays.iter().map(|p| p.outcome.play_key(spec, &p.metrics)).collect();
        let mut results = Vec::new();
        for (i, a) in plays.iter().enumerate() {
            for (j, b) in plays.iter().enumerate().skip(i + 1) {
                let (pa, pb) = (a.place().seats[0], b.place().seats[0]);
                if pa != pb {
                    results.push(Pairwise { a: pa, b: pb, score: play_versus(&keys[i], &keys[j]) });
                }
            }
        }
        let last = plays.iter().map(|p| p.place().job).max().unwrap_or(0);
        if !results.is_empty() {
            keyed.push((last, RatedGame { group, unit: unit(group, deal), results, plays: plays.len() as u32 }));
        }
    }
    keyed.sort_by_key(|(k, _)| *k);
    keyed.into_iter().map(|(_, g)| g).collect()
}

/// Each participant's share of the points of its pairwise results so far (for the leader).
pub fn score_shares(games: &[RatedGame], participants: usize) -> Vec<(f64, f64)> {
    let mut out = vec![(0.0, 0.0); participants];
    for g in games {
        for p in &g.results {
            out[p.a].0 += p.score;
            out[p.a].1 += 1.0;
            out[p.b].0 += 1.0 - p.score;
            out[p.b].1 += 1.0;
        }
    }
    out
}

/// Pairwise results of the cooperative game entries that were ties, and all of them.
pub fn cooperative_ties(rated: &[RatedGame], games: &[ResolvedGame]) -> (usize, usize) {
    let results = rated.iter().filter(|g| cooperative(games, g.group)).flat_map(|g| &g.results);
    results.fold((0, 0), |(ties, all), p| (ties + usize::from(p.score == 0.5), all + 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::TournamentGame;
    use crate::referee::MatchOutcome;
    use engine::core::{Outcome, Record};

    fn play(participant: usize, score: i32, arrived: f64, cleared: f64) -> MatchRecord {
        MatchRecord {
            game: Record {
                game: "journey".into(),
                rules_version: 1,
                params: Default::default(),
                seed: 1,
                scenario: None,
                actions: vec![],
            },
            players: vec![format!("p{participant}")],
            outcome: MatchOutcome::played(Outcome { scores: vec![score], ranks: vec![0], achieved: vec![] }),
            verdicts: vec![],
            metrics: [("travellers_arrived".to_string(), arrived), ("journey_cleared".to_string(), cleared)].into(),
            move_ms: vec![],
            match_id: None,
            tournament: Some(TournamentGame {
                job: participant as u64,
                group: 0,
                label: "journey".into(),
                deal: 0,
                seats: vec![participant],
                play_ms: 0.0,
            }),
        }
    }

    /// A cooperative game entry: journey solo.
    fn journey() -> Vec<ResolvedGame> {
        let entry = engine::find_game("journey").expect("journey is registered");
        let spec = (entry.spec)(None, &[], &|_| Err("no files".into())).expect("journey's default parameters");
        vec![ResolvedGame { spec: spec.into(), label: "journey".into(), cooperative: true, seats: 1, deals: None }]
    }

    #[test]
    fn journey_plays_compare_by_arrivals_then_score_then_cards_cleared() {
        let games = journey();
        // Neither arrives nor scores: the one that cleared more Journey cards is better.
        let rated = rated_games(&[play(0, 0, 0.0, 9.0), play(1, 0, 0.0, 4.0)], &games);
        assert_eq!(rated[0].results, vec![Pairwise { a: 0, b: 1, score: 1.0 }]);
        assert_eq!(cooperative_ties(&rated, &games), (0, 1));
        // Score before cards cleared, arrivals before score.
        let rated = rated_games(&[play(0, 3, 0.0, 2.0), play(1, 1, 0.0, 20.0), play(2, 0, 1.0, 1.0)], &games);
        let r = &rated[0].results;
        assert!(r.contains(&Pairwise { a: 0, b: 1, score: 1.0 }) && r.contains(&Pairwise { a: 0, b: 2, score: 0.0 }));
        // The same everywhere: a tie, and counted as one.
        let rated = rated_games(&[play(0, 0, 0.0, 5.0), play(1, 0, 0.0, 5.0)], &games);
        assert_eq!(cooperative_ties(&rated, &games), (1, 1));
    }

    #[test]
    fn a_forfeited_play_ranks_below_every_finished_one() {
        let games = journey();
        let mut forfeited = play(1, 0, 0.0, 0.0);
        forfeited.outcome = MatchOutcome::forfeit(1, 0);
        forfeited.metrics.clear();
        let rated = rated_games(&[play(0, 0, 0.0, 0.0), forfeited.clone()], &games);
        assert_eq!(rated[0].results, vec![Pairwise { a: 0, b: 1, score: 1.0 }]);
        let mut other = forfeited.clone();
        other.tournament.as_mut().expect("a tournament's record").seats = vec![2];
        let rated = rated_games(&[forfeited, other], &games);
        assert_eq!(rated[0].results, vec![Pairwise { a: 1, b: 2, score: 0.5 }], "two forfeits tie");
    }

    #[test]
    fn a_record_logged_before_the_game_ranked_its_plays_rates_as_it_did() {
        // Cooperative lines of a `games.jsonl` as the arena wrote them before the game was asked
        // for its ranking: the outcome and the figures, nothing more.
        let line = |job: u64, seat: usize, score: i32, arrived: u8, cleared: u8| {
            format!(
                r#"{{"game":"journey","rules_version":1,"params":{{}},"seed":1,"actions":[],"players":["p{seat}"],"outcome":{{"scores":[{score}],"ranks":[0]}},"metrics":{{"arrived":{a},"journey_cleared":{cleared},"travellers_arrived":{arrived},"turns":9}},"tournament":{{"job":{job},"group":0,"label":"journey","deal":0,"seats":[{seat}],"play_ms":1.5}}}}"#,
                a = arrived.min(1)
            )
        };
        let text = [line(0, 0, 2, 0, 11), line(1, 1, 0, 1, 25), line(2, 2, 2, 0, 7)].join("\n");
        let records = crate::record::parse("games.jsonl", &text).expect("the old lines read").records;
        let rated = rated_games(&records, &journey());
        let mut results = rated[0].results.clone();
        results.sort_by_key(|p| (p.a, p.b));
        assert_eq!(
            results,
            vec![
                Pairwise { a: 0, b: 1, score: 0.0 },
                Pairwise { a: 0, b: 2, score: 1.0 },
                Pairwise { a: 1, b: 2, score: 1.0 }
            ],
            "arrivals first, then score, then cards cleared"
        );
    }
}
