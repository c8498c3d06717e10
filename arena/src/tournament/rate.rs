//! From logged games to ratings: each game becomes pairwise results, then the report.
//!
//! - A competitive game gives one result per pair of seats, by rank: the better rank wins,
//!   equal ranks draw. A seat that lost by a verdict ranks last.
//! - Plays of one cooperative deal are compared pairwise by (travellers arrived, score); a
//!   play that ended by a verdict ranks below every finished play.
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
fn play_key(r: &MatchRecord) -> (f64, f64) {
    if r.outcome.forfeited_by.is_some() {
        return (-1.0, f64::NEG_INFINITY);
    }
    let arrived = r.metrics.get("travellers_arrived").copied().unwrap_or(0.0);
    (arrived, f64::from(r.outcome.result.scores.first().copied().unwrap_or(0)))
}

fn score(a: (f64, f64), b: (f64, f64)) -> f64 {
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
        keyed.push((r.job, RatedGame { group: r.group, unit: unit(r.group, r.deal), results }));
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
            keyed.push((last, RatedGame { group, unit: unit(group, deal), results }));
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
