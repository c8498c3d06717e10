//! What the dice change: two game entries of one game and table — the dice game and the
//! no-dice variant — compared on the same participants from their two-player games, deal by
//! deal (the games of one deal share its cards, so a deal is the unit of every interval).

use crate::record::MatchRecord;
use reports::variants::{Estimate, Gap, VariantComparison, VariantFigures, mean_se};
use std::collections::BTreeMap;

/// A's score against B in a game: 1 won, ½ drawn, 0 lost (by rank).
fn versus(ranks: &[u8], a: usize, b: usize) -> f64 {
    match ranks[a].cmp(&ranks[b]) {
        std::cmp::Ordering::Less => 1.0,
        std::cmp::Ordering::Equal => 0.5,
        std::cmp::Ordering::Greater => 0.0,
    }
}

/// Per deal, the mean of `f` over its games: the units of the intervals.
fn per_deal(games: &[&MatchRecord], f: impl Fn(&MatchRecord) -> f64) -> Vec<f64> {
    let mut deals: BTreeMap<u32, (f64, f64)> = BTreeMap::new();
    for r in games {
        let e = deals.entry(r.place().deal).or_default();
        e.0 += f(r);
        e.1 += 1.0;
    }
    deals.values().map(|(sum, n)| sum / n).collect()
}

fn estimate(xs: &[f64]) -> Estimate {
    let (m, se) = mean_se(xs);
    Estimate::from_mean(m, se, |x| x)
}

fn figures(label: &str, games: &[&MatchRecord]) -> VariantFigures {
    let first = per_deal(games, |r| versus(&r.outcome.result.ranks, 0, 1));
    let draws = games.iter().filter(|r| r.outcome.result.ranks[0] == r.outcome.result.ranks[1]).count();
    let spread = |r: &MatchRecord| f64::from((r.outcome.result.scores[0] - r.outcome.result.scores[1]).abs());
    VariantFigures {
        label: label.to_string(),
        games: games.len(),
        first_seat_score: estimate(&first),
        draws: if games.is_empty() { 0.0 } else { draws as f64 / games.len() as f64 },
        length: estimate(&per_deal(games, |r| r.game.actions.len() as f64)),
        score_spread: estimate(&per_deal(games, spread)),
    }
}

/// How many of `games` `a` and `b` played against each other.
fn games_between(games: &[&MatchRecord], a: usize, b: usize) -> usize {
    games.iter().filter(|r| r.place().seats.contains(&a) && r.place().seats.contains(&b)).count()
}

/// The two entries `left` and `right` side by side, over every pair of `names` that met in both.
pub fn compare(
    records: &[MatchRecord],
    names: &[String],
    (left, right): (usize, usize),
    (left_label, right_label): (&str, &str),
    caption: &str,
) -> VariantComparison {
    let of = |g: usize| -> Vec<&MatchRecord> {
        records.iter().filter(|r| r.place().group == g && r.place().seats.len() == 2).collect()
    };
    let (l, r) = (of(left), of(right));
    let (fl, fr) = (figures(left_label, &l), figures(right_label, &r));
    let mut gaps = Vec::new();
    for a in 0..names.len() {
        for b in a + 1..names.len() {
            let (nl, nr) = (games_between(&l, a, b), games_between(&r, a, b));
            if nl == 0 || nr == 0 {
                continue;
            }
            // The gaps themselves are read off the two variants' rating lists when the report
            // rates them ([`VariantComparison::rate_gaps`]): until then, unknown.
            let unknown = Estimate { value: f64::NAN, lo: f64::NEG_INFINITY, hi: f64::INFINITY };
            gaps.push(Gap {
                a: names[a].clone(),
                b: names[b].clone(),
                games: (nl, nr),
                left: unknown,
                right: unknown,
                difference: unknown,
                significant: false,
            });
        }
    }
    let (ml, sel) = mean_se(&per_deal(&l, |r| versus(&r.outcome.result.ranks, 0, 1)));
    let (mr, ser) = mean_se(&per_deal(&r, |r| versus(&r.outcome.result.ranks, 0, 1)));
    let se = (sel * sel + ser * ser).sqrt();
    let first_seat_difference = Estimate { value: ml - mr, lo: ml - mr - 1.96 * se, hi: ml - mr + 1.96 * se };
    // The sentence is written once the gaps are rated.
    VariantComparison {
        caption: caption.to_string(),
        left: fl,
        right: fr,
        gaps,
        first_seat_significant: first_seat_difference.excludes(0.0),
        first_seat_difference,
        summary: String::new(),
    }
}
