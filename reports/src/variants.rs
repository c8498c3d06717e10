//! What a variant changes (the dice game beside the no-dice variant, say), on the same
//! participants: the Elo gap of every pair in each variant, the first seat's advantage,
//! draws, game length and the spread of scores, each with a 95% interval, and the difference
//! between the variants with whether it is significant. The figures come from the games
//! themselves (the caller counts them); this module holds them and writes them as text.

use crate::ratings::{RatingGap, RatingList};
use serde::{Deserialize, Serialize};

/// An estimate with its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    pub value: f64,
    pub lo: f64,
    pub hi: f64,
}

impl Estimate {
    /// From a mean, its standard error, and a map to the reported scale (monotone).
    pub fn from_mean(mean: f64, se: f64, map: impl Fn(f64) -> f64) -> Estimate {
        Estimate { value: map(mean), lo: map(mean - 1.96 * se), hi: map(mean + 1.96 * se) }
    }

    /// Does the interval leave out `x`?
    pub fn excludes(&self, x: f64) -> bool {
        x < self.lo || x > self.hi
    }
}

/// The mean of `xs` and its standard error (0 with fewer than two values).
pub fn mean_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    if n == 0.0 {
        return (0.0, 0.0);
    }
    let mean = xs.iter().sum::<f64>() / n;
    if n < 2.0 {
        return (mean, 0.0);
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, (var / n).sqrt())
}

/// One variant's figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VariantFigures {
    pub label: String,
    /// Two-player games counted.
    pub games: usize,
    /// The first seat's score share (a draw counting half).
    pub first_seat_score: Estimate,
    /// The share of drawn games.
    pub draws: f64,
    /// Actions per game.
    pub length: Estimate,
    /// The absolute difference of the two seats' scores per game.
    pub score_spread: Estimate,
}

/// A pair of participants' rating gap in both variants.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Gap {
    /// The pair (the first is the stronger over both variants).
    pub a: String,
    pub b: String,
    /// Games between them in each variant.
    pub games: (usize, usize),
    /// a's rating minus b's in each variant's rating list, with 95% bootstrap intervals
    /// (deals resampled as units); ±∞ where either rating is only a bound (a perfect score).
    pub left: Estimate,
    pub right: Estimate,
    /// left − right.
    pub difference: Estimate,
    pub significant: bool,
}

/// Two variants of one game side by side.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VariantComparison {
    pub caption: String,
    pub left: VariantFigures,
    pub right: VariantFigures,
    pub gaps: Vec<Gap>,
    /// The first seat's score share, left − right.
    pub first_seat_difference: Estimate,
    pub first_seat_significant: bool,
    /// What differs significantly and what does not, in plain words.
    pub summary: String,
}

fn signed(x: f64) -> String {
    crate::stats::signed(x, 0)
}

/// An Elo estimate as `+123 [+80, +170]`; a rating that is only a bound as `+∞ (a perfect
/// score)`; a difference that cannot be measured as `—`; without an interval, the value alone.
pub fn elo_text(e: &Estimate) -> String {
    if e.value.is_nan() {
        return "— (a perfect score: not measurable)".into();
    }
    if e.value.is_infinite() {
        return format!("{} (a perfect score: only a bound)", signed(e.value));
    }
    if e.lo.is_infinite() && e.hi.is_infinite() {
        return format!("{} (no interval)", signed(e.value));
    }
    format!("{} [{}, {}]", signed(e.value), signed(e.lo), signed(e.hi))
}

/// A share as `52.1% [49.0%, 55.2%]`.
pub fn share_text(e: &Estimate) -> String {
    format!("{:.1}% [{:.1}%, {:.1}%]", 100.0 * e.value, 100.0 * e.lo, 100.0 * e.hi)
}

/// A plain number as `84.2 [80.1, 88.3]`.
pub fn number_text(e: &Estimate) -> String {
    format!("{:.1} [{:.1}, {:.1}]", e.value, e.lo, e.hi)
}

impl VariantComparison {
    /// Read every pair's gap off the two variants' rating lists (`left`'s and `right`'s), each
    /// pair oriented so that its first is the stronger over both; a difference's interval comes
    /// from the two lists' bootstrap re-fits taken side by side (the variants' games are
    /// separate, so their resamples are independent). Then write the sentence again.
    pub fn rate_gaps(&mut self, left: &RatingList, right: &RatingList) {
        let unknown = Estimate { value: f64::NAN, lo: f64::NEG_INFINITY, hi: f64::INFINITY };
        let estimate = |g: &RatingGap| match (g.bound, g.interval) {
            (true, _) => Estimate { value: g.value.signum() * f64::INFINITY, lo: f64::NAN, hi: f64::NAN },
            (false, Some((lo, hi))) => Estimate { value: g.value, lo, hi },
            (false, None) => Estimate { value: g.value, lo: f64::NEG_INFINITY, hi: f64::INFINITY },
        };
        self.gaps.retain(|g| left.gap(&g.a, &g.b).is_some() && right.gap(&g.a, &g.b).is_some());
        for g in &mut self.gaps {
            let (Some(mut l), Some(mut r)) = (left.gap(&g.a, &g.b), right.gap(&g.a, &g.b)) else { continue };
            if l.value + r.value < 0.0 {
                std::mem::swap(&mut g.a, &mut g.b);
                for x in [&mut l, &mut r] {
                    x.value = -x.value;
                    x.interval = x.interval.map(|(lo, hi)| (-hi, -lo));
                    x.resampled.iter_mut().for_each(|d| *d = -*d);
                }
            }
            g.left = estimate(&l);
            g.right = estimate(&r);
            g.difference = if l.bound || r.bound {
                unknown
            } else if l.resampled.is_empty() || l.resampled.len() != r.resampled.len() {
                Estimate { value: l.value - r.value, lo: f64::NEG_INFINITY, hi: f64::INFINITY }
            } else {
                let d: Vec<f64> = l.resampled.iter().zip(&r.resampled).map(|(x, y)| x - y).collect();
                let (lo, hi) = crate::stats::percentile_interval(&d);
                Estimate { value: l.value - r.value, lo, hi }
            };
            g.significant = g.difference.excludes(0.0);
        }
        self.summarise();
    }

    /// The sentence: where the variants differ significantly, and where they do not.
    pub fn summarise(&mut self) {
        let (l, r) = (&self.left.label, &self.right.label);
        let mut differ = Vec::new();
        let mut same = Vec::new();
        let mut perfect = Vec::new();
        for g in &self.gaps {
            if g.difference.value.is_nan() {
                perfect.push(format!("{} over {}", g.a, g.b));
                continue;
            }
            let what = format!("the rating gap {}–{} ({} vs {})", g.a, g.b, elo_text(&g.left), elo_text(&g.right));
            if g.significant { differ.push(what) } else { same.push(what) }
        }
        let seat = format!(
            "the first seat's score ({:.0}% vs {:.0}%)",
            100.0 * self.left.first_seat_score.value,
            100.0 * self.right.first_seat_score.value
        );
        if self.first_seat_significant {
            differ.push(seat)
        } else {
            same.push(seat)
        }
        let list = |v: &[String]| v.join("; ");
        let perfect = if perfect.is_empty() {
            String::new()
        } else {
            format!(" A perfect score in a variant leaves its gap unmeasured: {}.", perfect.join(", "))
        };
        self.summary = match (differ.is_empty(), same.is_empty()) {
            (true, _) => format!("Between {l} and {r}, nothing differs significantly at 95%: {}.", list(&same)),
            (false, true) => {
                format!("Between {l} and {r}, everything measured differs significantly at 95%: {}.", list(&differ))
            }
            (false, false) => format!(
                "Between {l} and {r}: significantly different at 95% — {}; not significantly different — {}.",
                list(&differ),
                list(&same)
            ),
        };
        self.summary.push_str(&perfect);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn means_intervals_and_the_sentence() {
        let (m, se) = mean_se(&[1.0, 0.0, 1.0, 0.0]);
        assert!((m - 0.5).abs() < 1e-12 && (se - (1.0f64 / 3.0).sqrt() / 2.0).abs() < 1e-12);
        let e = Estimate::from_mean(0.5, 0.1, |x| 100.0 * x);
        assert!(e.excludes(20.0) && !e.excludes(40.0));
        let f = |label: &str, s: f64| VariantFigures {
            label: label.into(),
            games: 10,
            first_seat_score: Estimate { value: s, lo: s - 0.05, hi: s + 0.05 },
            draws: 0.0,
            length: Estimate { value: 1.0, lo: 1.0, hi: 1.0 },
            score_spread: Estimate { value: 1.0, lo: 1.0, hi: 1.0 },
        };
        let zero = Estimate { value: 0.0, lo: -1.0, hi: 1.0 };
        let mut c = VariantComparison {
            caption: "x".into(),
            left: f("dice", 0.5),
            right: f("no-dice", 0.6),
            gaps: vec![Gap {
                a: "a".into(),
                b: "b".into(),
                games: (10, 10),
                left: zero,
                right: zero,
                difference: zero,
                significant: false,
            }],
            first_seat_difference: Estimate { value: -0.1, lo: -0.2, hi: -0.02 },
            first_seat_significant: true,
            summary: String::new(),
        };
        c.summarise();
        assert!(
            c.summary.contains("significantly different at 95% — the first seat") && c.summary.contains("gap a–b"),
            "{}",
            c.summary
        );
    }
}
