//! The sequential probability ratio test of engine testers (fishtest, fastchess): is A stronger
//! than B by `elo1` rather than `elo0`? Games come in units — a seat-swapped pair of games on
//! one deal (two players: the pentanomial model), one deal played by both (a cooperative game),
//! or every seat arrangement of the two on one deal (3–4 players) — each scored for A in
//! [0, 1]. After each unit the log-likelihood ratio of the generalized SPRT under the
//! logistic Elo model,
//!
//! LLR = n · (s₁ − s₀) · (2·μ − s₀ − s₁) / (2·σ²),
//!
//! with μ and σ² the mean and variance of the unit scores and sᵢ = 1 / (1 + 10^(−eloᵢ/400)),
//! is compared with the bounds ln(β / (1 − α)) and ln((1 − β) / α). Unit scores take the
//! values k/m of a fixed grid (m = 4 for a pair of games). The moments include one virtual
//! unit spread evenly over the grid (a weak prior), so that a short run of identical results
//! — all wins, all draws — cannot end the test before the normal approximation holds; its
//! weight vanishes as units come in. The error rates this gives are measured by simulation
//! (`arena bench-sprt`).

use serde::Serialize;

/// The hypotheses and error rates.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SprtSpec {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

impl Default for SprtSpec {
    fn default() -> Self {
        SprtSpec { elo0: 0.0, elo1: 10.0, alpha: 0.05, beta: 0.05 }
    }
}

impl SprtSpec {
    /// Read `elo0=0,elo1=10,alpha=0.05,beta=0.05` (any subset; the rest default).
    pub fn parse(text: &str) -> Result<SprtSpec, String> {
        let mut s = SprtSpec::default();
        for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').ok_or_else(|| format!("--sprt: expected key=value, got `{pair}`"))?;
            let v: f64 = v.trim().parse().map_err(|_| format!("--sprt: `{k}` expects a number, got `{v}`"))?;
            match k.trim() {
                "elo0" => s.elo0 = v,
                "elo1" => s.elo1 = v,
                "alpha" => s.alpha = v,
                "beta" => s.beta = v,
                other => return Err(format!("--sprt: unknown key `{other}`; the keys are elo0, elo1, alpha, beta")),
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
        Ok(s)
    }

    /// The (lower, upper) bounds of the LLR.
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }
}

/// The expected score of a player `elo` stronger.
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference of an expected score.
pub fn elo_of(score: f64) -> f64 {
    let s = score.clamp(1e-6, 1.0 - 1e-6);
    -400.0 * (1.0 / s - 1.0).log10()
}

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
    /// A is stronger by elo1 (the LLR crossed the upper bound).
    H1,
    /// A is not stronger than by elo0 (the LLR crossed the lower bound).
    H0,
    /// Neither bound yet.
    Continue,
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

    /// (n, mean, variance) of the unit scores, with the virtual unit spread over the grid.
    fn moments(&self) -> (f64, f64, f64) {
        let m = (self.counts.len() - 1) as f64;
        let prior = 1.0 / (m + 1.0);
        let c: Vec<f64> = self.counts.iter().map(|&c| c as f64 + prior).collect();
        let n: f64 = c.iter().sum();
        let mean = c.iter().enumerate().map(|(k, &c)| c * k as f64 / m).sum::<f64>() / n;
        let var = c.iter().enumerate().map(|(k, &c)| c * (k as f64 / m - mean).powi(2)).sum::<f64>() / n;
        (n, mean, var)
    }

    /// The mean score of A (unregularised).
    pub fn mean(&self) -> f64 {
        let m = (self.counts.len() - 1) as f64;
        let n = self.units() as f64;
        if n == 0.0 {
            return 0.5;
        }
        self.counts.iter().enumerate().map(|(k, &c)| c as f64 * k as f64 / m).sum::<f64>() / n
    }

    /// The log-likelihood ratio of `spec`'s hypotheses.
    pub fn llr(&self, spec: &SprtSpec) -> f64 {
        if self.units() == 0 {
            return 0.0;
        }
        let (n, mean, var) = self.moments();
        let (s0, s1) = (expected_score(spec.elo0), expected_score(spec.elo1));
        n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var.max(1e-12))
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

    /// A's Elo advantage and its 95% interval, from the same moments as the test (with its
    /// virtual unit: a run of only wins gives a finite estimate, not an infinite one).
    pub fn elo(&self) -> (f64, f64, f64) {
        let (n, mean, var) = self.moments();
        let half = 1.96 * (var / n).sqrt();
        (elo_of(mean), elo_of(mean - half), elo_of(mean + half))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_and_parsing() {
        let s = SprtSpec::parse("elo0=0,elo1=10,alpha=0.05,beta=0.05").unwrap();
        let (lo, hi) = s.bounds();
        assert!((lo + 2.944).abs() < 1e-3 && (hi - 2.944).abs() < 1e-3, "{lo} {hi}");
        assert!(SprtSpec::parse("elo0=5,elo1=5").unwrap_err().contains("above"));
        assert!(SprtSpec::parse("gamma=1").unwrap_err().contains("`gamma`"));
        assert!(SprtSpec::parse("alpha=0.7").unwrap_err().contains("alpha"));
    }

    #[test]
    fn a_clear_winner_is_accepted_soon_and_an_even_match_is_not() {
        let spec = SprtSpec::default();
        let mut t = Tally::new(4);
        let mut units = 0;
        while t.decide(&spec) == Decision::Continue {
            t.add(1.0);
            units += 1;
            assert!(units < 50, "a run of wins decides H1");
        }
        assert_eq!(t.decide(&spec), Decision::H1);
        assert!(units >= 2, "one unit never decides: {units}");
        let mut even = Tally::new(4);
        for k in 0..400 {
            even.add([0.5, 0.25, 0.75, 0.5][k % 4]);
        }
        assert!(even.llr(&spec) < 0.0, "an even match leans to H0");
        let (elo, lo, hi) = even.elo();
        assert!(elo.abs() < 1e-9 && lo < 0.0 && hi > 0.0, "{elo} {lo} {hi}");
        let (elo, lo, hi) = t.elo();
        assert!(elo.is_finite() && lo < elo && elo < hi && hi.is_finite(), "only wins: {elo} {lo} {hi}");
    }

    #[test]
    fn elo_and_score_are_inverse() {
        for e in [-300.0, -10.0, 0.0, 35.0, 400.0] {
            assert!((elo_of(expected_score(e)) - e).abs() < 1e-9);
        }
    }
}
