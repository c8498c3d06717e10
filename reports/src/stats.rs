//! Sample statistics and confidence intervals.

use serde::Serialize;

/// Mean, spread and a 95% confidence interval of the mean, computed in one pass (Welford).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Stats {
    pub n: u64,
    pub mean: f64,
    /// Sample standard deviation.
    pub sd: f64,
    pub min: f64,
    pub max: f64,
    /// Half-width of the 95% confidence interval of the mean (normal approximation).
    pub ci95: f64,
    #[serde(skip)]
    m2: f64,
}

impl Stats {
    pub fn add(&mut self, x: f64) {
        if self.n == 0 {
            self.min = x;
            self.max = x;
        }
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
        self.min = self.min.min(x);
        self.max = self.max.max(x);
        self.sd = if self.n > 1 { (self.m2 / (self.n - 1) as f64).sqrt() } else { 0.0 };
        self.ci95 = if self.n > 1 { 1.96 * self.sd / (self.n as f64).sqrt() } else { 0.0 };
    }

    pub fn of(xs: impl IntoIterator<Item = f64>) -> Stats {
        let mut s = Stats::default();
        xs.into_iter().for_each(|x| s.add(x));
        s
    }
}

/// The Wilson score interval (95%) of a proportion `k/n`: (low, high). Honest at 0 and n.
pub fn wilson(k: f64, n: f64) -> (f64, f64) {
    if n == 0.0 {
        return (0.0, 1.0);
    }
    let z = 1.96f64;
    let p = k / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The 95% percentile interval of a sample (a bootstrap's re-fits of one figure): its 2.5%
/// and 97.5% quantiles, interpolated between order statistics.
pub fn percentile_interval(samples: &[f64]) -> (f64, f64) {
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    (quantile(&s, 0.025), quantile(&s, 0.975))
}

/// Quantile `q` of sorted `xs` by linear interpolation between order statistics (type 7).
fn quantile(xs: &[f64], q: f64) -> f64 {
    let h = (xs.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(xs.len() - 1);
    xs[lo] + (h - lo as f64) * (xs[hi] - xs[lo])
}

/// A figure measured several times (a ratio per round or per pair of runs): its median and
/// its range.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl Spread {
    /// The median (the mean of the middle two of an even count) and the range of `values`;
    /// all 0 for none.
    pub fn of(mut values: Vec<f64>) -> Spread {
        values.sort_by(f64::total_cmp);
        let median = match values.len() {
            0 => 0.0,
            n if n % 2 == 1 => values[n / 2],
            n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
        };
        Spread { median, min: values.first().copied().unwrap_or(0.0), max: values.last().copied().unwrap_or(0.0) }
    }

    /// A ratio's spread as the benches print it: `1.23× (1.10–1.40)`.
    pub fn ratio_text(&self) -> String {
        format!("{:.2}× ({:.2}–{:.2})", self.median, self.min, self.max)
    }
}

/// `x` with its sign and `decimals` decimals: `+12.3`, `-4.0`, `+∞`; what rounds to zero is
/// `0` (`0.0`), never `-0` or `+0`.
pub fn signed(x: f64, decimals: usize) -> String {
    if x.is_infinite() {
        return if x > 0.0 { "+∞".into() } else { "−∞".into() };
    }
    let text = format!("{x:+.decimals$}");
    if text[1..].chars().all(|c| c == '0' || c == '.') { text[1..].to_string() } else { text }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_spread_is_the_median_and_the_range() {
        use super::Spread;
        assert_eq!(Spread::of(vec![3.0, 1.0, 2.0]), Spread { median: 2.0, min: 1.0, max: 3.0 });
        assert_eq!(Spread::of(vec![4.0, 1.0, 2.0, 3.0]), Spread { median: 2.5, min: 1.0, max: 4.0 });
        assert_eq!(Spread::of(vec![]), Spread::default());
    }

    #[test]
    fn signed_never_writes_a_signed_zero() {
        use super::signed;
        assert_eq!(signed(-0.3, 0), "0");
        assert_eq!(signed(0.04, 1), "0.0");
        assert_eq!(signed(-0.0, 1), "0.0");
        assert_eq!(signed(-0.6, 0), "-1");
        assert_eq!(signed(186.44, 1), "+186.4");
        assert_eq!(signed(f64::NEG_INFINITY, 1), "−∞");
    }

    use super::*;

    #[test]
    fn mean_spread_and_interval_match_the_textbook() {
        let s = Stats::of([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!(s.n, 8);
        assert!((s.mean - 5.0).abs() < 1e-12);
        assert!((s.sd - 2.138089935).abs() < 1e-6);
        assert!((s.ci95 - 1.96 * 2.138089935 / 8f64.sqrt()).abs() < 1e-6);
        assert_eq!((s.min, s.max), (2.0, 9.0));
    }

    #[test]
    fn wilson_interval_is_honest_at_the_edges() {
        let (lo, hi) = wilson(0.0, 100.0);
        assert_eq!(lo, 0.0);
        assert!(hi > 0.03 && hi < 0.04, "{hi}");
        let (lo, hi) = wilson(50.0, 100.0);
        assert!((lo - 0.4038).abs() < 1e-3 && (hi - 0.5962).abs() < 1e-3);
    }

    #[test]
    fn quantile_interpolates() {
        assert_eq!(quantile(&[0.0, 10.0], 0.25), 2.5);
        assert_eq!(quantile(&[1.0, 2.0, 3.0], 0.5), 2.0);
        let (lo, hi) = percentile_interval(&(0..=200).rev().map(f64::from).collect::<Vec<_>>());
        assert_eq!((lo, hi), (5.0, 195.0), "sorted first, then the 2.5% and 97.5% quantiles");
    }
}
