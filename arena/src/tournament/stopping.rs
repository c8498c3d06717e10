//! Tournaments that stop when the answer is known. The schedule is played deal by deal, and
//! before each deal the games already logged decide what is still needed:
//!
//! - `sprt:` (with a gauntlet) — every pairing of a gauntlet participant with an opponent,
//!   in each competitive game entry, runs the sequential test of `arena compare` over its
//!   deals (a deal's games are one unit); once it decides, that pairing plays no more;
//! - `until_error_elo: X` — games go where the intervals are widest: while a participant's
//!   overall 95% interval is at most ±X Elo (over at least 10 deals, and not a bound), it
//!   plays only against participants whose intervals are still wider (a game of settled
//!   participants alone is not played); a participant whose interval widens again plays
//!   again. Once every interval is within ±X at once, no more deals. The intervals are the
//!   report's own (the same anchor, resamples and seed over the same games), so the report's
//!   final list shows every rating within ±X.
//!
//! The decisions follow from the logged games in deal order alone, so a stopped run resumes
//! to the same games, and a report tells which pairings stopped where.

use super::Tournament;
use super::rate::rated_games;
use crate::record::MatchRecord;
use reports::ratings::{RatingOptions, rate};
use reports::sprt::{Decision, SprtSpec, Tally};
use std::collections::BTreeMap;

/// Deals a rating's interval needs before it is trusted to stop a run.
const MIN_UNITS: usize = 10;

/// A pairing of one game entry: (entry, gauntlet participant, opponent).
pub type Pairing = (usize, usize, usize);

/// What the logged games decided.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Decided {
    /// Pairings whose test ended, and how (with the deal it ended after).
    pub pairings: BTreeMap<Pairing, (Decision, u32, f64)>,
    /// The deal after which every rating was precise enough, if any.
    pub precise_after: Option<u32>,
    /// Each participant whose interval is within ±`until_error_elo`, and the deal since which
    /// it has been.
    pub settled: BTreeMap<usize, u32>,
}

/// The stopping rules of a tournament, if it has any.
pub struct Stopping {
    sprt: Option<SprtSpec>,
    until_error_elo: Option<f64>,
}

impl Stopping {
    pub fn of(t: &Tournament) -> Result<Option<Stopping>, String> {
        let sprt = t.config.sprt.as_deref().map(SprtSpec::parse).transpose()?;
        if sprt.is_none() && t.config.until_error_elo.is_none() {
            return Ok(None);
        }
        if t.config.until_error_elo.is_some() && t.config.bootstrap == 0 {
            return Err("until_error_elo stops on the ratings' intervals: set `bootstrap` above 0".into());
        }
        Ok(Some(Stopping { sprt, until_error_elo: t.config.until_error_elo }))
    }

    /// The pairing a competitive game of the gauntlet stands for, if any.
    fn pairing(t: &Tournament, r: &MatchRecord) -> Option<Pairing> {
        let place = r.place();
        if t.games.get(place.group).is_none_or(|g| g.cooperative) || place.seats.len() != 2 {
            return None;
        }
        let gauntlet = t.config.gauntlet_indices();
        let (x, y) = (place.seats[0], place.seats[1]);
        match (gauntlet.contains(&x), gauntlet.contains(&y)) {
            (true, _) => Some((place.group, x, y)),
            (false, true) => Some((place.group, y, x)),
            _ => None,
        }
    }

    /// The participants whose overall rating is within ±`until_error_elo` on the games of
    /// deals up to `deal`, and every rated participant.
    fn precise_at(&self, t: &Tournament, records: &[MatchRecord], deal: u32) -> (Vec<usize>, Vec<usize>) {
        let Some(x) = self.until_error_elo else { return Default::default() };
        let upto: Vec<MatchRecord> = records.iter().filter(|r| r.place().deal <= deal).cloned().collect();
        // The report's options, so that its final list is the one checked here.
        let names = t.names();
        let anchor = t.config.anchor.as_ref().and_then(|a| names.iter().position(|n| n == a));
        let opts = RatingOptions { anchor, bootstrap: t.config.bootstrap, seed: t.config.seed };
        let list = rate(&names, &rated_games(&upto, &t.games), &opts);
        // A bound (a perfect score) is never precise: its interval shows only the prior; nor
        // is a bootstrap over a handful of deals.
        if list.units < MIN_UNITS {
            return Default::default();
        }
        let precise = list
            .entries
            .iter()
            .filter(|e| e.bound.is_none() && e.interval.is_some_and(|(lo, hi)| (hi - lo) / 2.0 <= x))
            .map(|e| e.participant)
            .collect();
        (precise, list.entries.iter().map(|e| e.participant).collect())
    }

    /// Settle, after `deal`, the participants precise then (keeping the deal since which each
    /// has been) and unsettle the others; and the whole run once every rated participant is
    /// precise at once.
    pub fn settle(&self, t: &Tournament, records: &[MatchRecord], deal: u32, decided: &mut Decided) {
        if self.until_error_elo.is_none() || decided.precise_after.is_some() {
            return;
        }
        let (precise, rated) = self.precise_at(t, records, deal);
        decided.settled.retain(|p, _| precise.contains(p));
        for &p in &precise {
            decided.settled.entry(p).or_insert(deal);
        }
        if !rated.is_empty() && rated.iter().all(|p| decided.settled.contains_key(p)) {
            decided.precise_after = Some(deal);
        }
    }

    /// Everything the logged games decide: the tests of deals before `deal`, and which
    /// participants were settled after which deal.
    pub fn decide(&self, t: &Tournament, records: &[MatchRecord], deal: u32) -> Decided {
        let mut decided = self.tests(t, records, deal);
        let played: std::collections::BTreeSet<u32> = records.iter().map(|r| r.place().deal).collect();
        for d in 0..deal {
            // A deal with no games changes no interval.
            if played.contains(&d) {
                self.settle(t, records, d, &mut decided);
            }
        }
        decided
    }

    /// What the sequential tests of the games of deals before `deal` decided.
    pub fn tests(&self, t: &Tournament, records: &[MatchRecord], deal: u32) -> Decided {
        let mut decided = Decided::default();
        let before: Vec<&MatchRecord> = records.iter().filter(|r| r.place().deal < deal).collect();
        if let Some(spec) = &self.sprt {
            // Per pairing, per deal: the gauntlet participant's mean score.
            let mut units: BTreeMap<Pairing, BTreeMap<u32, (f64, f64)>> = BTreeMap::new();
            for r in &before {
                let Some(p) = Self::pairing(t, r) else { continue };
                let seat = r.place().seats.iter().position(|&s| s == p.1).unwrap_or(0);
                let other = 1 - seat;
                let ranks = &r.outcome.result.ranks;
                let score = match ranks[seat].cmp(&ranks[other]) {
                    std::cmp::Ordering::Less => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Greater => 0.0,
                };
                let e = units.entry(p).or_default().entry(r.place().deal).or_default();
                e.0 += score;
                e.1 += 1.0;
            }
            for (p, deals) in units {
                let mut tally = Tally::new(4);
                for (d, (sum, n)) in deals {
                    tally.add(sum / n);
                    let verdict = tally.decide(spec);
                    if verdict != Decision::Continue {
                        decided.pairings.insert(p, (verdict, d, tally.llr(spec)));
                        break;
                    }
                }
            }
        }
        decided
    }

    /// Is `job` still needed, given what was decided?
    pub fn needed(t: &Tournament, decided: &Decided, job: &super::Job) -> bool {
        if decided.precise_after.is_some_and(|d| job.deal > d) {
            return false;
        }
        if job.seats.iter().all(|p| decided.settled.get(p).is_some_and(|&d| job.deal > d)) {
            return false;
        }
        let gauntlet = t.config.gauntlet_indices();
        if job.seats.len() == 2 && !t.games[job.group].cooperative {
            let (x, y) = (job.seats[0], job.seats[1]);
            let p = if gauntlet.contains(&x) { (job.group, x, y) } else { (job.group, y, x) };
            if let Some((_, d, _)) = decided.pairings.get(&p) {
                return job.deal <= *d;
            }
        }
        true
    }

    /// The notes a report gives: how each pairing's test ended, and when precision stopped it.
    pub fn notes(&self, t: &Tournament, decided: &Decided) -> Vec<String> {
        let names = t.names();
        let mut notes = Vec::new();
        for ((group, g, o), (verdict, deal, llr)) in &decided.pairings {
            let label = t.games.get(*group).map_or("?", |g| g.label.as_str());
            let what = match verdict {
                Decision::H1 => "H1 (stronger)",
                Decision::H0 => "H0 (not stronger)",
                Decision::Continue => "undecided",
            };
            notes.push(format!(
                "{label}: {} vs {}: the sequential test ended {what} after {} deals (LLR {llr:.2})",
                names[*g],
                names[*o],
                deal + 1
            ));
        }
        if let Some(x) = self.until_error_elo
            && !decided.settled.is_empty()
        {
            let each: Vec<String> =
                decided.settled.iter().map(|(p, d)| format!("{} from {} deals on", names[*p], d + 1)).collect();
            notes.push(format!(
                "ratings within ±{x} Elo at the end: {} (while within, each played only those whose intervals were wider)",
                each.join(", ")
            ));
            if let Some(d) = decided.precise_after {
                notes.push(format!("every rating was within ±{x} Elo after {} deals: no more were played", d + 1));
            }
        }
        notes
    }
}
