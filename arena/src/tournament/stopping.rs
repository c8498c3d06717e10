//! Tournaments that stop when the answer is known. The schedule is played deal by deal, and
//! before each deal the games already logged decide what is still needed:
//!
//! - `sprt:` (with a gauntlet) — every pairing of a gauntlet participant with an opponent,
//!   in each competitive game entry, runs the sequential test of `arena compare` over its
//!   deals (a deal's games are one unit); once it decides, that pairing plays no more;
//! - `until_error_elo: X` — games go where the intervals are widest. A participant is
//!   *precise* after a deal when both ends of its overall 95% interval lie within X Elo of its
//!   rating (the wider side decides: the intervals are not symmetric), over at least 10 deals,
//!   and its rating is not a bound. Precise after two played deals in a row, it *settles*: it
//!   plays only against participants not settled (a game of settled participants alone is not
//!   played); one check that finds it imprecise unsettles it, and it plays again. Two checks
//!   in a row, each with its own resamples (the data differ), keep one lucky bootstrap from
//!   stopping a run. Once every rated participant is settled at once, no more deals. The
//!   intervals are the report's own (the same anchor, resamples and seed over the same games),
//!   so the report's final list shows every rating within X on both sides.
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

/// Are both ends of the interval `[lo, hi]` within `x` of `rating`?
fn within(rating: f64, lo: f64, hi: f64, x: f64) -> bool {
    (rating - lo).max(hi - rating) <= x
}

/// A pairing of one game entry: (entry, gauntlet participant, opponent).
pub type Pairing = (usize, usize, usize);

/// What the logged games decided.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Decided {
    /// Pairings whose test ended, and how (with the deal it ended after).
    pub pairings: BTreeMap<Pairing, (Decision, u32, f64)>,
    /// Pairings whose test has not ended: the deals it has seen, its LLR.
    pub open: BTreeMap<Pairing, (u32, f64)>,
    /// What `until_error_elo` decided.
    pub precision: Precision,
}

/// What `until_error_elo` decided, check by check.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Precision {
    /// The deal after which every rating was settled, if any.
    pub precise_after: Option<u32>,
    /// Every time a participant was settled: `(after, until)`, the deals after which it
    /// settled and unsettled (`None`: still settled). A game of a deal `d` with
    /// `after < d <= until` was not needed by it.
    pub spans: BTreeMap<usize, Vec<(u32, Option<u32>)>>,
    /// The participants precise at the last check.
    pub precise: Vec<usize>,
}

impl Precision {
    /// Was `p` settled when the games of `deal` were dealt?
    pub fn settled_for(&self, p: usize, deal: u32) -> bool {
        self.spans.get(&p).is_some_and(|spans| spans.iter().any(|&(a, u)| a < deal && u.is_none_or(|u| deal <= u)))
    }

    /// Each participant settled now, and the deal after which it settled (its open span).
    pub fn settled(&self) -> BTreeMap<usize, u32> {
        self.spans.iter().filter_map(|(&p, spans)| spans.last().filter(|s| s.1.is_none()).map(|s| (p, s.0))).collect()
    }

    /// The check after `deal` found `precise` of `rated` precise: settle those precise at the
    /// check before too, unsettle the others; and the whole run once every rated participant
    /// is settled.
    fn check(&mut self, deal: u32, precise: Vec<usize>, rated: &[usize]) {
        for &p in self.precise.iter().filter(|p| precise.contains(p)) {
            let spans = self.spans.entry(p).or_default();
            if spans.last().is_none_or(|s| s.1.is_some()) {
                spans.push((deal, None));
            }
        }
        for (p, spans) in &mut self.spans {
            if !precise.contains(p)
                && let Some(last) = spans.last_mut()
                && last.1.is_none()
            {
                last.1 = Some(deal);
            }
        }
        self.precise = precise;
        let settled = self.settled();
        if !rated.is_empty() && rated.iter().all(|p| settled.contains_key(p)) {
            self.precise_after = Some(deal);
        }
    }
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
            .filter(|e| e.bound.is_none() && e.interval.is_some_and(|(lo, hi)| within(e.rating, lo, hi, x)))
            .map(|e| e.participant)
            .collect();
        (precise, list.entries.iter().map(|e| e.participant).collect())
    }

    /// The check after `deal`, a played deal (see the module doc).
    pub fn settle(&self, t: &Tournament, records: &[MatchRecord], deal: u32, precision: &mut Precision) {
        if self.until_error_elo.is_none() || precision.precise_after.is_some() {
            return;
        }
        let (precise, rated) = self.precise_at(t, records, deal);
        precision.check(deal, precise, &rated);
    }

    /// Everything the logged games decide: the tests of deals before `deal`, and the checks
    /// after each played deal before it.
    pub fn decide(&self, t: &Tournament, records: &[MatchRecord], deal: u32) -> Decided {
        let mut decided = self.tests(t, records, deal);
        let played: std::collections::BTreeSet<u32> = records.iter().map(|r| r.place().deal).collect();
        for d in 0..deal {
            // A deal with no games is no check: it changes no interval.
            if played.contains(&d) {
                self.settle(t, records, d, &mut decided.precision);
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
                let seen = deals.len() as u32;
                for (d, (sum, n)) in deals {
                    tally.add(sum / n);
                    let verdict = tally.decide(spec);
                    if verdict != Decision::Continue {
                        decided.pairings.insert(p, (verdict, d, tally.llr(spec)));
                        break;
                    }
                }
                if !decided.pairings.contains_key(&p) {
                    decided.open.insert(p, (seen, tally.llr(spec)));
                }
            }
        }
        decided
    }

    /// Is `job` still needed, given what was decided?
    pub fn needed(t: &Tournament, decided: &Decided, job: &super::Job) -> bool {
        let precision = &decided.precision;
        if precision.precise_after.is_some_and(|d| job.deal > d) {
            return false;
        }
        if job.seats.iter().all(|&p| precision.settled_for(p, job.deal)) {
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
            let sentence = self.sprt.as_ref().map_or_else(String::new, |s| verdict.sentence(s, &names[*g]));
            notes.push(format!(
                "{label}: {} vs {}: the sequential test ended after {} deals (LLR {llr:.2}): {sentence}",
                names[*g],
                names[*o],
                deal + 1
            ));
        }
        for ((group, g, o), (deals, llr)) in &decided.open {
            let label = t.games.get(*group).map_or("?", |g| g.label.as_str());
            notes.push(format!(
                "{label}: {} vs {}: the sequential test was undecided after {deals} deals (LLR {llr:.2}): the schedule ran out first",
                names[*g], names[*o]
            ));
        }
        let precision = &decided.precision;
        let settled = precision.settled();
        if let Some(x) = self.until_error_elo
            && !settled.is_empty()
        {
            let each: Vec<String> =
                settled.iter().map(|(p, d)| format!("{} from {} deals on", names[*p], d + 1)).collect();
            notes.push(format!(
                "ratings within {x} Elo on both sides at the end: {} (while settled, each played only those not settled)",
                each.join(", ")
            ));
            if let Some(d) = precision.precise_after {
                notes.push(format!(
                    "every rating was within {x} Elo on both sides after {} deals: no more were played",
                    d + 1
                ));
            }
        }
        notes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A participant settles after two precise checks in a row, unsettles at the first
    /// imprecise one and settles again; a game skipped while it was settled stays not needed
    /// after it unsettles (the run's own skips are never "missing" at the merge).
    #[test]
    fn settling_twice_keeps_what_the_first_settling_skipped() {
        let mut p = Precision::default();
        let rated = [0, 1];
        p.check(10, vec![0], &rated);
        assert!(p.settled().is_empty(), "one precise check is not enough");
        p.check(11, vec![0], &rated);
        assert_eq!(p.settled().get(&0), Some(&11));
        p.check(12, vec![0], &rated);
        p.check(13, vec![], &rated);
        assert!(p.settled().is_empty());
        p.check(14, vec![0], &rated);
        p.check(15, vec![0, 1], &rated);
        assert_eq!(p.settled().get(&0), Some(&15));
        assert_eq!(p.spans[&0], vec![(11, Some(13)), (15, None)]);
        // Deals 12 and 13 came while it was settled; 14 and 15 after it unsettled; 16 on.
        let settled: Vec<u32> = (10..18).filter(|&d| p.settled_for(0, d)).collect();
        assert_eq!(settled, vec![12, 13, 16, 17]);
        assert_eq!(p.precise_after, None, "participant 1 has been precise once");
        p.check(16, vec![0, 1], &rated);
        assert_eq!(p.precise_after, Some(16));
    }

    /// Precise means both ends of the interval within the target, not its half-width.
    #[test]
    fn the_wider_side_decides() {
        // random −477.5 [−559.9, −420.3]: half-width 69.8, but 82.4 below.
        assert!(!within(-477.5, -559.9, -420.3, 70.0));
        assert!(within(-477.5, -559.9, -420.3, 82.5));
        assert!(within(0.0, -10.0, 10.0, 10.0));
    }
}
