//! From logged games to ratings: each game becomes pairwise results, then the report.
//!
//! - A competitive game gives one result per pair of seats, by rank: the better rank wins,
//!   equal ranks draw. A seat that lost by a verdict ranks last.
//! - Plays of one cooperative deal are compared pairwise by travellers arrived, then score,
//!   then Journey cards cleared (how far the journey got: what the agents play for); a play
//!   that ended by a verdict ranks below every finished play.
//!
//! Every deal is one bootstrap unit: the games played on it (every pairing, every seat
//! order) are resampled together, since they share the cards.

use crate::record::MatchRecord;
use reports::ratings::{Pairwise, RatedGame};
use std::collections::BTreeMap;

/// The bootstrap unit of deal `deal` of game entry `group`.
pub fn unit(group: usize, deal: u32) -> u64 {
    (group as u64) << 32 | u64::from(deal)
}

/// How a cooperative play ranks against others of the same deal.
fn play_key(r: &MatchRecord) -> (f64, f64, f64) {
    if r.outcome.forfeited_by.is_some() {
        return (-1.0, f64::NEG_INFINITY, f64::NEG_INFINITY);
    }
    let metric = |name: &str| r.metrics.get(name).copied().unwrap_or(0.0);
    let score = f64::from(r.outcome.result.scores.first().copied().unwrap_or(0));
    (metric("travellers_arrived"), score, metric("journey_cleared"))
}

fn score(a: (f64, f64, f64), b: (f64, f64, f64)) -> f64 {
    match a.partial_cmp(&b) {
        Some(std::cmp::Ordering::Greater) => 1.0,
        Some(std::cmp::Ordering::Less) => 0.0,
        _ => 0.5,
    }
}

/// The rated games of a set of records (any order), in the order they completed the schedule
/// (a cooperative deal counts when its last play is in). `cooperative[group]` says how each
/// game entry is compared.
pub fn rated_games(records: &[MatchRecord], cooperative: &[bool]) -> Vec<RatedGame> {
    let mut keyed: Vec<(u64, RatedGame)> = Vec::new();
    let mut deals: BTreeMap<(usize, u32), Vec<&MatchRecord>> = BTreeMap::new();
    for rec in records {
        let r = rec.place();
        if cooperative.get(r.group).copied().unwrap_or(false) {
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
        let mut results = Vec::new();
        for (i, a) in plays.iter().enumerate() {
            for b in &plays[i + 1..] {
                let (pa, pb) = (a.place().seats[0], b.place().seats[0]);
                if pa != pb {
                    results.push(Pairwise { a: pa, b: pb, score: score(play_key(a), play_key(b)) });
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
pub fn cooperative_ties(games: &[RatedGame], cooperative: &[bool]) -> (usize, usize) {
    let results = games.iter().filter(|g| cooperative.get(g.group).copied().unwrap_or(false)).flat_map(|g| &g.results);
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

    #[test]
    fn journey_plays_compare_by_arrivals_then_score_then_cards_cleared() {
        // Neither arrives nor scores: the one that cleared more Journey cards is better.
        let games = rated_games(&[play(0, 0, 0.0, 9.0), play(1, 0, 0.0, 4.0)], &[true]);
        assert_eq!(games[0].results, vec![Pairwise { a: 0, b: 1, score: 1.0 }]);
        assert_eq!(cooperative_ties(&games, &[true]), (0, 1));
        // Score before cards cleared, arrivals before score.
        let games = rated_games(&[play(0, 3, 0.0, 2.0), play(1, 1, 0.0, 20.0), play(2, 0, 1.0, 1.0)], &[true]);
        let r = &games[0].results;
        assert!(r.contains(&Pairwise { a: 0, b: 1, score: 1.0 }) && r.contains(&Pairwise { a: 0, b: 2, score: 0.0 }));
        // The same everywhere: a tie, and counted as one.
        let games = rated_games(&[play(0, 0, 0.0, 5.0), play(1, 0, 0.0, 5.0)], &[true]);
        assert_eq!(cooperative_ties(&games, &[true]), (1, 1));
    }
}
