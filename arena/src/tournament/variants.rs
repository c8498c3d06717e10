//! What the dice change: two game entries of one game and table — the dice game and the
//! no-dice variant — compared on the same participants from their two-player games, deal by
//! deal (the games of one deal share its cards, so a deal is the unit of every interval).

use crate::record::MatchRecord;
use reports::sprt::elo_of;
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

/// `a`'s score against `b` per deal of `games` (both seat orders pooled), and how many games.
fn pair_scores(games: &[&MatchRecord], a: usize, b: usize) -> (Vec<f64>, usize) {
    let met: Vec<&MatchRecord> =
        games.iter().copied().filter(|r| r.place().seats.contains(&a) && r.place().seats.contains(&b)).collect();
    let scores = per_deal(&met, |r| {
        let seats = &r.place().seats;
        let (sa, sb) =
            (seats.iter().position(|&p| p == a).unwrap_or(0), seats.iter().position(|&p| p == b).unwrap_or(1));
        versus(&r.outcome.result.ranks, sa, sb)
    });
    (scores, met.len())
}

/// The Elo gap from per-deal scores, with its interval and standard error (in Elo, by the
/// delta method; infinite at a perfect score).
fn gap(scores: &[f64]) -> (Estimate, f64) {
    let (m, se) = mean_se(scores);
    let slope = 400.0 / (std::f64::consts::LN_10 * (m * (1.0 - m)).max(1e-12));
    let elo = |x: f64| {
        if x >= 1.0 {
            f64::INFINITY
        } else if x <= 0.0 {
            f64::NEG_INFINITY
        } else {
            elo_of(x)
        }
    };
    (Estimate::from_mean(m, se, elo), if m <= 0.0 || m >= 1.0 { f64::INFINITY } else { slope * se })
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
            let ((sl, nl), (sr, nr)) = (pair_scores(&l, a, b), pair_scores(&r, a, b));
            if nl == 0 || nr == 0 {
                continue;
            }
            // Orient the pair so that the first is the stronger over both variants.
            let pooled = (sl.iter().sum::<f64>() + sr.iter().sum::<f64>()) / (sl.len() + sr.len()) as f64;
            let (a, b, sl, sr) = if pooled >= 0.5 {
                (a, b, sl, sr)
            } else {
                (b, a, sl.iter().map(|x| 1.0 - x).collect(), sr.iter().map(|x| 1.0 - x).collect())
            };
            let ((el, sel), (er, ser)) = (gap(&sl), gap(&sr));
            let d = el.value - er.value;
            let se = (sel * sel + ser * ser).sqrt();
            let difference = if d.is_finite() && se.is_finite() {
                Estimate { value: d, lo: d - 1.96 * se, hi: d + 1.96 * se }
            } else {
                // A perfect score in either variant: no finite gap to compare.
                Estimate { value: f64::NAN, lo: f64::NEG_INFINITY, hi: f64::INFINITY }
            };
            gaps.push(Gap {
                a: names[a].clone(),
                b: names[b].clone(),
                games: (nl, nr),
                left: el,
                right: er,
                difference,
                significant: difference.excludes(0.0),
            });
        }
    }
    let (ml, sel) = mean_se(&per_deal(&l, |r| versus(&r.outcome.result.ranks, 0, 1)));
    let (mr, ser) = mean_se(&per_deal(&r, |r| versus(&r.outcome.result.ranks, 0, 1)));
    let se = (sel * sel + ser * ser).sqrt();
    let first_seat_difference = Estimate { value: ml - mr, lo: ml - mr - 1.96 * se, hi: ml - mr + 1.96 * se };
    let mut c = VariantComparison {
        caption: caption.to_string(),
        left: fl,
        right: fr,
        gaps,
        first_seat_significant: first_seat_difference.excludes(0.0),
        first_seat_difference,
        summary: String::new(),
    };
    c.summarise();
    c
}
