//! The bootstrap over units: resampled re-fits of the ratings, their percentile intervals and
//! the likelihoods of superiority (LOS).

use super::TIE_ELO;
use super::fit::{RESAMPLE_TOLERANCE, to_elo};
use super::pool::PoolResults;

/// A small, exactly specified generator (SplitMix64) so resamples never depend on a library
/// version.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..k` (Lemire's multiply-and-reject, no bias). `k > 0`.
    fn below(&mut self, k: usize) -> usize {
        let k = k as u64;
        let threshold = k.wrapping_neg() % k;
        loop {
            let m = u128::from(self.next_u64()) * u128::from(k);
            if (m as u64) >= threshold {
                return (m >> 64) as usize;
            }
        }
    }
}

/// `b` re-fits of the ratings (Elo scale, anchored at compact index `anchor` if any), each on
/// a resample of the units drawn from `seed`, starting from the log-strengths `logs`:
/// `samples[k]` holds member `k`'s. The resamples are drawn one after the other (the same for
/// any number of threads), and re-fitted on up to `threads` threads at once.
pub(super) fn resample(
    results: &PoolResults,
    b: usize,
    seed: u64,
    logs: &[f64],
    anchor: Option<usize>,
    threads: usize,
    cancel: Option<&std::sync::atomic::AtomicBool>,
) -> Vec<Vec<f64>> {
    let (unit_list, np) = (&results.units, results.design.pairs.len());
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(b); results.design.m];
    let mut rng = SplitMix64(seed);
    let threads = threads.clamp(1, b.max(1));
    let refit = |counts: &[u32]| {
        let mut games_r = vec![0.0; np];
        let mut points_r = vec![0.0; np];
        for (u, &c) in unit_list.iter().zip(counts) {
            if c > 0 {
                let c = f64::from(c);
                for &(p, g, w) in u {
                    games_r[p] += c * g;
                    points_r[p] += c * w;
                }
            }
        }
        to_elo(&results.design.fit_with_prior(&games_r, &points_r, Some(logs), RESAMPLE_TOLERANCE), anchor)
    };
    let mut done = 0;
    while done < b && !cancel.is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed)) {
        // A batch of resamples, one per thread, drawn in order.
        let batch: Vec<Vec<u32>> = (0..threads.min(b - done))
            .map(|_| {
                let mut counts = vec![0u32; unit_list.len()];
                for _ in 0..unit_list.len() {
                    counts[rng.below(unit_list.len())] += 1;
                }
                counts
            })
            .collect();
        let fitted: Vec<Vec<f64>> = if batch.len() == 1 {
            vec![refit(&batch[0])]
        } else {
            std::thread::scope(|scope| {
                let running: Vec<_> = batch.iter().map(|counts| scope.spawn(|| refit(counts))).collect();
                running.into_iter().map(|t| t.join().expect("a re-fit")).collect()
            })
        };
        for r in fitted {
            for (s, x) in samples.iter_mut().zip(r) {
                s.push(x);
            }
        }
        done += batch.len();
    }
    samples
}

/// Lists of at most this many members get the whole LOS table; longer ones only each member's
/// LOS over the next (a table of thousands squared is neither read nor cheap).
pub(super) const LOS_TABLE_MAX: usize = 100;

/// The share of the `b` re-fits that rate `x` above `y` (a tie, ratings less than
/// [`TIE_ELO`] apart, counts half).
fn superiority(x: &[f64], y: &[f64], b: usize) -> f64 {
    let above: f64 = x
        .iter()
        .zip(y)
        .map(|(rx, ry)| {
            if (rx - ry).abs() < TIE_ELO {
                0.5
            } else if rx > ry {
                1.0
            } else {
                0.0
            }
        })
        .sum();
    above / b as f64
}

/// Each member's LOS over the next one in `order` (`None` for the last).
pub(super) fn los_next(order: &[usize], samples: &[Vec<f64>], b: usize) -> Vec<Option<f64>> {
    (0..order.len()).map(|k| Some(superiority(&samples[order[k]], &samples[*order.get(k + 1)?], b))).collect()
}

/// `los[x][y]` for members in `order`: the share of the `b` re-fits that rate `x` above `y`
/// (a tie counts half).
pub(super) fn los(order: &[usize], samples: &[Vec<f64>], b: usize) -> Vec<Vec<f64>> {
    order.iter().map(|&x| order.iter().map(|&y| superiority(&samples[x], &samples[y], b)).collect()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generator_is_uniform_enough_and_in_range() {
        let mut r = SplitMix64(7);
        let mut hist = [0u32; 5];
        for _ in 0..50_000 {
            hist[r.below(5)] += 1;
        }
        assert!(hist.iter().all(|&h| (9_500..10_500).contains(&h)), "{hist:?}");
    }
}
