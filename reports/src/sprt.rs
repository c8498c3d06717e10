//! The generalized sequential probability ratio test of engine testers (fishtest, fastchess):
//! is A stronger than B by `elo1` rather than `elo0`? Games come in units — a seat-swapped pair
//! of games on one deal (two players: the pentanomial model), one deal played by both (a
//! cooperative game: A better, equal or worse on it, the trinomial model), or every seat
//! arrangement of the two on one deal (3–4 players) — each scored for A on the grid
//! 0, 1/m, ..., 1 (m = 4 for a pair, 2 for a single comparison, 2k for k comparisons).
//!
//! The log-likelihood ratio is the exact GSPRT's: the counts of each grid score, regularised
//! as fastchess does (an empty score counts 0.001), give an empirical distribution p̂; under each
//! hypothesis the maximum-likelihood distribution p with that hypothesis' expected score is
//! found (Van den Bergh, "Comparing the approximations for the generalized log likelihood ratio
//! of a multinomial distribution", Prop. 1.1: pᵢ = p̂ᵢ / (1 + θ(aᵢ − s)), θ solved by the ITP
//! method), and LLR = N · Σ p̂ᵢ ln(p1ᵢ / p0ᵢ). Two Elo models say what "stronger by x" means:
//! - **logistic** (the default, the Elo of the arena's rating lists): expected score
//!   1 / (1 + 10^(−x/400));
//! - **normalized** (fastchess's default): (μ − ½) / σ = x · √k / (800 / ln 10) with k the
//!   comparisons per unit (√2 for a pair, as fastchess's pentanomial), solved iteratively
//!   (Van den Bergh, "Comments on normalized Elo", §4.1).
//!
//! The arithmetic follows fastchess's `sprt.cpp` step for step (the root finder's constants,
//! its iteration counts), so the LLRs agree with it on the same counts (a test holds a table of
//! counts and fastchess's LLRs). The test ends when the LLR leaves
//! (ln(β / (1 − α)), ln((1 − β) / α)); `arena bench-sprt` measures the error rates this gives.

use serde::Serialize;

/// What "stronger by x Elo" means to the test.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EloModel {
    /// Expected score 1 / (1 + 10^(−x/400)).
    #[default]
    Logistic,
    /// Normalized Elo: the mean score's distance from ½ in standard deviations.
    Normalized,
}

/// The hypotheses and error rates.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SprtSpec {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub model: EloModel,
}

impl Default for SprtSpec {
    fn default() -> Self {
        SprtSpec { elo0: 0.0, elo1: 10.0, alpha: 0.05, beta: 0.05, model: EloModel::Logistic }
    }
}

impl SprtSpec {
    /// Read `elo0=0,elo1=10,alpha=0.05,beta=0.05,model=logistic` (any subset; the rest default).
    pub fn parse(text: &str) -> Result<SprtSpec, String> {
        let mut s = SprtSpec::default();
        for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').ok_or_else(|| format!("--sprt: expected key=value, got `{pair}`"))?;
            let (k, v) = (k.trim(), v.trim());
            if k == "model" {
                s.model = match v {
                    "logistic" => EloModel::Logistic,
                    "normalized" | "normalised" => EloModel::Normalized,
                    other => {
                        return Err(format!("--sprt: `model` is `logistic` or `normalized`, got `{other}`"));
                    }
                };
                continue;
            }
            let x: f64 = v.parse().map_err(|_| format!("--sprt: `{k}` expects a number, got `{v}`"))?;
            if !x.is_finite() {
                return Err(format!("--sprt: `{k}` expects a finite number, got `{v}`"));
            }
            match k {
                "elo0" => s.elo0 = x,
                "elo1" => s.elo1 = x,
                "alpha" => s.alpha = x,
                "beta" => s.beta = x,
                other => {
                    return Err(format!("--sprt: unknown key `{other}`; the keys are elo0, elo1, alpha, beta, model"));
                }
            }
        }
        if s.elo1 <= s.elo0 {
            return Err(format!("--sprt: elo1 ({}) must be above elo0 ({})", s.elo1, s.elo0));
        }
        for (name, p) in [("alpha", s.alpha), ("beta", s.beta)] {
            if !(p > 0.0 && p < 0.5) {
                return Err(format!("--sprt: `{name}` is an error rate between 0 and 0.5, got {p}"));
            }
        }
        if s.model == EloModel::Logistic && s.elo0.abs().max(s.elo1.abs()) >= 2000.0 {
            return Err("--sprt: logistic elo0 and elo1 must lie within ±2000".into());
        }
        Ok(s)
    }

    /// The (lower, upper) bounds of the LLR.
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The spec as `parse` reads it.
    pub fn describe(&self) -> String {
        let model = match self.model {
            EloModel::Logistic => "logistic",
            EloModel::Normalized => "normalized",
        };
        format!("elo0 {}, elo1 {}, alpha {}, beta {}, {model} Elo", self.elo0, self.elo1, self.alpha, self.beta)
    }
}

/// The expected score of a player `elo` stronger.
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference of an expected score (±∞ at 1 and 0).
pub fn elo_of(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// 800 / ln 10: normalized Elo per standard deviation.
const NELO_SCALE: f64 = 800.0 / std::f64::consts::LN_10;

/// Unit scores counted on the grid 0, 1/m, ..., 1.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Tally {
    /// How many units scored k/m, for k = 0..=m.
    pub counts: Vec<u64>,
}

/// What the test says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// H1 accepted: the LLR crossed the upper bound (A is stronger than elo0; see
    /// [`Decision::sentence`]).
    H1,
    /// H0 accepted: the LLR crossed the lower bound (A is not elo1 stronger).
    H0,
    /// Neither bound yet.
    Continue,
}

impl Decision {
    /// The test's end in fastchess's words ("H1 accepted", "H0 accepted"), with one sentence
    /// on what it means and what it does not: a test accepts H1 wrongly (A no more than elo0
    /// stronger) at most `alpha` of the time, and H0 wrongly (A elo1 stronger or more) at most
    /// `beta` of the time; between elo0 and elo1 either end is likely.
    pub fn sentence(self, spec: &SprtSpec, a: &str) -> String {
        let pct = |p: f64| format!("{}%", (p * 1000.0).round() / 10.0);
        match self {
            Decision::H1 => format!(
                "H1 accepted: {a} is stronger than elo0 = {} (a test of players elo0 apart ends so at most {} of the \
                 time); by how much, the Elo estimate's interval says",
                spec.elo0,
                pct(spec.alpha)
            ),
            Decision::H0 => format!(
                "H0 accepted: {a} is not elo1 = {} stronger (a test of players elo1 apart ends so at most {} of the \
                 time); a smaller gain, between elo0 and elo1, is not ruled out",
                spec.elo1,
                pct(spec.beta)
            ),
            Decision::Continue => "inconclusive: neither bound was crossed".into(),
        }
    }
}

/// A's strength as the counts show it, with no prior: the mean unit score and what it says.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Estimate {
    pub units: u64,
    /// A's mean score, in [0, 1].
    pub score: f64,
    /// Logistic Elo of that score, and the ends of its 95% interval (±∞ where the score's
    /// interval reaches 0 or 1; equal to it when every unit scored alike).
    pub elo: f64,
    pub elo_ci95: (f64, f64),
    /// Normalized Elo and its 95% half-width (±∞ and 0 when the scores do not vary).
    pub nelo: f64,
    pub nelo_ci95: f64,
    /// The likelihood of superiority: the chance A is the stronger, in [0, 1].
    pub los: f64,
}

impl Tally {
    /// An empty tally on the grid of step 1/`m`.
    pub fn new(m: usize) -> Tally {
        Tally { counts: vec![0; m.max(1) + 1] }
    }

    /// Count a unit's score (rounded to the grid).
    pub fn add(&mut self, score: f64) {
        let m = (self.counts.len() - 1) as f64;
        let k = (score.clamp(0.0, 1.0) * m).round() as usize;
        self.counts[k] += 1;
    }

    pub fn units(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The grid's scores, 0, 1/m, ..., 1.
    fn scores(&self) -> Vec<f64> {
        let m = (self.counts.len() - 1) as f64;
        (0..self.counts.len()).map(|k| k as f64 / m).collect()
    }

    /// Comparisons of A with B per unit: m / 2.
    fn comparisons(&self) -> f64 {
        (self.counts.len() - 1) as f64 / 2.0
    }

    /// The mean score of A (½ before any unit).
    pub fn mean(&self) -> f64 {
        let n = self.units();
        if n == 0 {
            return 0.5;
        }
        let scores = self.scores();
        self.counts.iter().zip(&scores).map(|(&c, a)| c as f64 * a).sum::<f64>() / n as f64
    }

    /// The variance of the unit scores (as observed: divided by n).
    fn variance(&self) -> f64 {
        let n = self.units();
        if n == 0 {
            return 0.0;
        }
        let mu = self.mean();
        let scores = self.scores();
        self.counts.iter().zip(&scores).map(|(&c, a)| c as f64 * (a - mu) * (a - mu)).sum::<f64>() / n as f64
    }

    /// The log-likelihood ratio of `spec`'s hypotheses (0 before any unit).
    pub fn llr(&self, spec: &SprtSpec) -> f64 {
        if self.units() == 0 {
            return 0.0;
        }
        let regularised: Vec<f64> = self.counts.iter().map(|&c| if c == 0 { 1e-3 } else { c as f64 }).collect();
        let total: f64 = regularised.iter().sum();
        let probs: Vec<f64> = regularised.iter().map(|c| c / total).collect();
        let scores = self.scores();
        let (p0, p1) = match spec.model {
            EloModel::Logistic => (
                mle_logistic(&scores, &probs, expected_score(spec.elo0)),
                mle_logistic(&scores, &probs, expected_score(spec.elo1)),
            ),
            EloModel::Normalized => {
                let per_sd = self.comparisons().sqrt() / NELO_SCALE;
                (
                    mle_normalized(&scores, &probs, 0.5, per_sd * spec.elo0),
                    mle_normalized(&scores, &probs, 0.5, per_sd * spec.elo1),
                )
            }
        };
        let mean_lpr: f64 = probs.iter().zip(p0.iter().zip(&p1)).map(|(p, (a, b))| (b.ln() - a.ln()) * p).sum();
        total * mean_lpr
    }

    pub fn decide(&self, spec: &SprtSpec) -> Decision {
        let (lower, upper) = spec.bounds();
        let llr = self.llr(spec);
        if llr >= upper {
            Decision::H1
        } else if llr <= lower {
            Decision::H0
        } else {
            Decision::Continue
        }
    }

    /// A's strength from the counts as observed (fastchess's Elo, nElo and LOS of a pentanomial
    /// or trinomial sample): score μ, its 95% interval μ ± 1.96·√(σ²/n), and their Elo.
    pub fn estimate(&self) -> Estimate {
        let n = self.units();
        let score = self.mean();
        let var = self.variance();
        let half = if n == 0 { 0.5 } else { 1.96 * (var / n as f64).sqrt() };
        let elo_at = |s: f64| elo_of(s.clamp(0.0, 1.0));
        let unit_sd = (self.comparisons() * var).sqrt();
        // Scores that never vary put any mean but ½ infinitely many deviations away.
        let nelo_at =
            |s: f64| if unit_sd > 0.0 { (s - 0.5) / unit_sd * NELO_SCALE } else { (s - 0.5).signum() * f64::INFINITY };
        let los = if n == 0 {
            0.5
        } else if var == 0.0 {
            match score.partial_cmp(&0.5) {
                Some(std::cmp::Ordering::Greater) => 1.0,
                Some(std::cmp::Ordering::Less) => 0.0,
                _ => 0.5,
            }
        } else {
            (1.0 - libm::erf(-(score - 0.5) / (2.0 * var / n as f64).sqrt())) / 2.0
        };
        Estimate {
            units: n,
            score,
            elo: elo_at(score),
            elo_ci95: (elo_at(score - half), elo_at(score + half)),
            nelo: if n == 0 || score == 0.5 { 0.0 } else { nelo_at(score) },
            nelo_ci95: if unit_sd > 0.0 { (nelo_at(score + half) - nelo_at(score - half)) / 2.0 } else { 0.0 },
            los,
        }
    }
}

/// The distribution nearest (in likelihood) to `probs` on `scores` whose mean is `s`
/// (fastchess's `getLLR_logistic` closure; Van den Bergh, Prop. 1.1).
fn mle_logistic(scores: &[f64], probs: &[f64], s: f64) -> Vec<f64> {
    const THETA_EPSILON: f64 = 1e-3;
    let last = scores.len() - 1;
    let min_theta = -1.0 / (scores[last] - s);
    let max_theta = -1.0 / (scores[0] - s);
    let theta = itp(
        |x| scores.iter().zip(probs).map(|(a, p)| p * (a - s) / (1.0 + x * (a - s))).sum(),
        (min_theta, f64::INFINITY),
        (max_theta, f64::NEG_INFINITY),
        THETA_EPSILON,
    );
    scores.iter().zip(probs).map(|(a, p)| p / (1.0 + theta * (a - s))).collect()
}

/// The distribution nearest to `probs` on `scores` with (μ − `mu_ref`) / σ = `t_star`
/// (fastchess's `getLLR_normalized` closure; Van den Bergh, "Comments on normalized Elo", §4.1).
fn mle_normalized(scores: &[f64], probs: &[f64], mu_ref: f64, t_star: f64) -> Vec<f64> {
    const THETA_EPSILON: f64 = 1e-7;
    const MLE_EPSILON: f64 = 1e-4;
    let n = scores.len();
    let mut p = vec![1.0 / n as f64; n];
    let mut phi = vec![0.0; n];
    for _ in 0..10 {
        let mu: f64 = scores.iter().zip(&p).map(|(a, p)| a * p).sum();
        let var: f64 = scores.iter().zip(&p).map(|(a, p)| p * (a - mu) * (a - mu)).sum();
        let sigma = var.sqrt();
        for (f, a) in phi.iter_mut().zip(scores) {
            *f = a - mu_ref - 0.5 * t_star * sigma * (1.0 + ((a - mu) / sigma) * ((a - mu) / sigma));
        }
        let u = phi.iter().copied().fold(f64::INFINITY, f64::min);
        let v = phi.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let theta = itp(
            |x| probs.iter().zip(&phi).map(|(p, f)| p * f / (1.0 + x * f)).sum(),
            (-1.0 / v, f64::INFINITY),
            (-1.0 / u, f64::NEG_INFINITY),
            THETA_EPSILON,
        );
        let mut max_diff: f64 = 0.0;
        for ((old, p_hat), f) in p.iter_mut().zip(probs).zip(&phi) {
            let new = p_hat / (1.0 + theta * f);
            max_diff = max_diff.max((new - *old).abs());
            *old = new;
        }
        if max_diff < MLE_EPSILON {
            break;
        }
    }
    p
}

/// A root of `f` between `a` and `b` by the ITP method (Oliveira and Takahashi, ACM TOMS 47(1),
/// 2020) with fastchess's constants k₁ = 0.1, k₂ = 2, n₀ = 0.99; each end comes with the value
/// `f` is taken to have there.
fn itp(f: impl Fn(f64) -> f64, (mut a, mut f_a): (f64, f64), (mut b, mut f_b): (f64, f64), epsilon: f64) -> f64 {
    const K1: f64 = 0.1;
    const K2: f64 = 2.0;
    const N0: f64 = 0.99;
    if f_a > 0.0 {
        std::mem::swap(&mut a, &mut b);
        std::mem::swap(&mut f_a, &mut f_b);
    }
    let n_half = ((b - a).abs() / (2.0 * epsilon)).log2().ceil();
    let n_max = n_half + N0;
    let mut i = 0.0;
    while (b - a).abs() > 2.0 * epsilon {
        let x_half = (a + b) / 2.0;
        let r = epsilon * 2f64.powf(n_max - i) - (b - a) / 2.0;
        let delta = K1 * (b - a).powf(K2);
        // At the start both values are infinite and this is NaN: the step is then a bisection.
        let x_f = (f_b * a - f_a * b) / (f_b - f_a);
        let sigma = (x_half - x_f) / (x_half - x_f).abs();
        let x_t = if delta <= (x_half - x_f).abs() { x_f + sigma * delta } else { x_half };
        let x_itp = if (x_t - x_half).abs() <= r { x_t } else { x_half - sigma * r };
        let f_itp = f(x_itp);
        if f_itp == 0.0 {
            a = x_itp;
            b = x_itp;
        } else if f_itp.is_sign_negative() {
            a = x_itp;
            f_a = f_itp;
        } else {
            b = x_itp;
            f_b = f_itp;
        }
        i += 1.0;
    }
    (a + b) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_and_parsing() {
        let s = SprtSpec::parse("elo0=0,elo1=10,alpha=0.05,beta=0.05").unwrap();
        let (lo, hi) = s.bounds();
        assert!((lo + 2.944).abs() < 1e-3 && (hi - 2.944).abs() < 1e-3, "{lo} {hi}");
        assert_eq!(s.model, EloModel::Logistic);
        assert_eq!(SprtSpec::parse("model=normalized").unwrap().model, EloModel::Normalized);
        assert!(SprtSpec::parse("model=bayes").unwrap_err().contains("`bayes`"));
        assert!(SprtSpec::parse("elo0=5,elo1=5").unwrap_err().contains("above"));
        assert!(SprtSpec::parse("gamma=1").unwrap_err().contains("`gamma`"));
        assert!(SprtSpec::parse("alpha=0.7").unwrap_err().contains("alpha"));
        assert!(SprtSpec::parse("elo1=inf").unwrap_err().contains("finite"));
    }

    #[test]
    fn the_root_finder_starts_by_bisecting_and_meets_its_tolerance() {
        let root = itp(|x| x * x * x - 2.0, (0.0, f64::NEG_INFINITY), (2.0, f64::INFINITY), 1e-9);
        assert!((root - 2f64.cbrt()).abs() < 1e-9, "{root}");
    }

    #[test]
    fn the_estimate_is_the_counts_as_observed() {
        // 3 pairs lost, 1 split, 4 won twice: mean (0 + 0.5 + 4) / 8 = 0.5625.
        let mut t = Tally::new(4);
        for s in [0.0, 0.0, 0.0, 0.5, 1.0, 1.0, 1.0, 1.0] {
            t.add(s);
        }
        let e = t.estimate();
        assert!((e.score - 0.5625).abs() < 1e-12);
        assert!((e.elo - elo_of(0.5625)).abs() < 1e-9 && e.elo_ci95.0 < e.elo && e.elo < e.elo_ci95.1);
        assert!(e.los > 0.5 && e.los < 1.0, "{}", e.los);
        let mut wins = Tally::new(4);
        (0..12).for_each(|_| wins.add(1.0));
        let e = wins.estimate();
        assert_eq!((e.elo, e.elo_ci95), (f64::INFINITY, (f64::INFINITY, f64::INFINITY)));
        assert_eq!(e.los, 1.0);
        assert_eq!(Tally::new(4).estimate().elo, 0.0);
    }

    #[test]
    fn elo_and_score_are_inverse() {
        for e in [-300.0, -10.0, 0.0, 35.0, 400.0] {
            assert!((elo_of(expected_score(e)) - e).abs() < 1e-9);
        }
    }
}
