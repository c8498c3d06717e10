//! Bradley–Terry ratings: the estimates against independent solutions, the prior for perfect
//! scores, anchoring, bootstrap intervals, and order independence.

// Index loops read like the equations they solve.
#![allow(clippy::needless_range_loop)]

use reports::ratings::{Bound, ELO_PER_NEPER, Pairwise, RatedGame, RatingOptions, VIRTUAL_DRAWS_PER_PAIR};
use reports::{fit_elo, progression, rate};

fn names(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("p{i}")).collect()
}

/// `wins` wins of `a`, `draws` draws, `losses` losses against `b`, one game (and unit) each,
/// units numbered from `*unit`.
fn series(a: usize, b: usize, wins: u32, draws: u32, losses: u32, unit: &mut u64) -> Vec<RatedGame> {
    let mut out = Vec::new();
    for (count, score) in [(wins, 1.0), (draws, 0.5), (losses, 0.0)] {
        for _ in 0..count {
            out.push(RatedGame { group: 0, unit: *unit, results: vec![Pairwise { a, b, score }], plays: 1 });
            *unit += 1;
        }
    }
    out
}

fn opts(bootstrap: u32) -> RatingOptions {
    RatingOptions { anchor: None, bootstrap, seed: 11 }
}

fn all_results(games: &[RatedGame]) -> Vec<Pairwise> {
    games.iter().flat_map(|g| g.results.iter().copied()).collect()
}

/// Newton–Raphson on the Bradley–Terry log-likelihood (natural-log strengths, the first fixed at
/// 0, dense Gaussian elimination), written independently of the library's sparse solver.
/// Returns Elo ratings with mean 0.
fn newton(n: usize, results: &[Pairwise], virtual_draws: f64) -> Vec<f64> {
    let mut games = vec![vec![0.0; n]; n];
    let mut points = vec![vec![0.0; n]; n];
    for r in results {
        games[r.a][r.b] += 1.0;
        games[r.b][r.a] += 1.0;
        points[r.a][r.b] += r.score;
        points[r.b][r.a] += 1.0 - r.score;
    }
    for i in 0..n {
        for j in 0..n {
            if i != j && games[i][j] > 0.0 {
                games[i][j] += virtual_draws;
                points[i][j] += virtual_draws / 2.0;
            }
        }
    }
    let mut theta = vec![0.0f64; n];
    for _ in 0..100 {
        let k = n - 1;
        let mut h = vec![vec![0.0; k + 1]; k];
        for i in 1..n {
            for j in 0..n {
                if i == j || games[i][j] == 0.0 {
                    continue;
                }
                let p = 1.0 / (1.0 + (theta[j] - theta[i]).exp());
                let info = games[i][j] * p * (1.0 - p);
                h[i - 1][k] += points[i][j] - games[i][j] * p; // gradient
                h[i - 1][i - 1] += info;
                if j > 0 {
                    h[i - 1][j - 1] -= info;
                }
            }
        }
        // Solve (information) · step = gradient.
        for c in 0..k {
            let pivot = (c..k).max_by(|&x, &y| h[x][c].abs().total_cmp(&h[y][c].abs())).unwrap();
            h.swap(c, pivot);
            for r in 0..k {
                if r != c {
                    let f = h[r][c] / h[c][c];
                    for col in c..=k {
                        h[r][col] -= f * h[c][col];
                    }
                }
            }
        }
        let mut biggest = 0.0f64;
        for i in 1..n {
            let step = h[i - 1][k] / h[i - 1][i - 1];
            theta[i] += step;
            biggest = biggest.max(step.abs());
        }
        if biggest < 1e-14 {
            break;
        }
    }
    let mean = theta.iter().sum::<f64>() / n as f64;
    theta.iter().map(|t| (t - mean) * ELO_PER_NEPER).collect()
}

/// A worked example: four participants, draws, one pair that never met.
fn worked_example() -> Vec<RatedGame> {
    let mut u = 0;
    let mut g = Vec::new();
    g.extend(series(0, 1, 7, 2, 3, &mut u));
    g.extend(series(0, 2, 8, 0, 2, &mut u));
    g.extend(series(1, 2, 6, 2, 4, &mut u));
    g.extend(series(1, 3, 7, 1, 3, &mut u));
    g.extend(series(2, 3, 5, 0, 5, &mut u));
    // 0 and 3 never met.
    g
}

#[test]
fn symmetric_results_give_equal_ratings() {
    let mut u = 0;
    let mut games = Vec::new();
    for a in 0..4 {
        for b in (a + 1)..4 {
            games.extend(series(a, b, 3, 2, 3, &mut u));
        }
    }
    let list = rate(&names(4), &games, &opts(200));
    assert_eq!(list.entries.len(), 4);
    for e in &list.entries {
        assert!(e.rating.abs() < 1e-6, "{}: {}", e.name, e.rating);
        assert!((e.score - 0.5).abs() < 1e-12);
        assert_eq!(e.games, 24);
        assert!(e.bound.is_none());
        let (lo, hi) = e.interval.unwrap();
        assert!(lo < 0.0 && hi > 0.0, "{lo} {hi}");
    }
    assert!(list.notes.is_empty(), "{:?}", list.notes);
}

#[test]
fn two_participants_match_the_closed_form() {
    let mut u = 0;
    let games = series(0, 1, 30, 0, 10, &mut u);
    let pure = fit_elo(2, &all_results(&games), 0.0).unwrap();
    let expected = 400.0 * 3f64.log10(); // 75% is 3:1 odds
    assert!((pure[0] - pure[1] - expected).abs() < 1e-6, "{pure:?}");
    let list = rate(&names(2), &games, &opts(0));
    let with_prior = 400.0 * (30.5f64 / 10.5).log10();
    let gap = list.entries[0].rating - list.entries[1].rating;
    assert!((gap - with_prior).abs() < 1e-6, "{gap} vs {with_prior}");
}

#[test]
fn worked_example_matches_an_independent_newton_solution() {
    let games = worked_example();
    let results = all_results(&games);
    // The plain MLE (no prior) against Newton without prior.
    let mm = fit_elo(4, &results, 0.0).unwrap();
    let nr = newton(4, &results, 0.0);
    for i in 0..4 {
        assert!((mm[i] - nr[i]).abs() < 0.05, "participant {i}: fit_elo {} vs Newton {}", mm[i], nr[i]);
    }
    // The library's ratings (with one virtual draw per pair) against Newton with the same prior.
    let list = rate(&names(4), &games, &opts(0));
    let nr = newton(4, &results, VIRTUAL_DRAWS_PER_PAIR);
    for i in 0..4 {
        let r = list.entry(i).unwrap().rating;
        assert!((r - nr[i]).abs() < 0.05, "participant {i}: rate {r} vs Newton {}", nr[i]);
    }
    // The prior pulls towards the middle, but only a little with 10–12 games a pair.
    assert!((list.entries[0].rating - mm[0]).abs() < 25.0);
    assert!(list.entries[0].rating < mm[0]);
    assert_eq!(list.entries[0].participant, 0);
    // The likelihood equations hold: expected points = actual points for every participant.
    let r: Vec<f64> = (0..4).map(|i| list.entry(i).unwrap().rating).collect();
    let mut expected = [0.0; 4];
    let mut actual = [0.0; 4];
    for p in &results {
        let e = 1.0 / (1.0 + 10f64.powf((r[p.b] - r[p.a]) / 400.0));
        expected[p.a] += e;
        expected[p.b] += 1.0 - e;
        actual[p.a] += p.score;
        actual[p.b] += 1.0 - p.score;
    }
    // ... once the virtual draws (half a point each side per pair that met) are counted.
    for (a, b) in [(0, 1), (0, 2), (1, 2), (1, 3), (2, 3)] {
        let e = 1.0 / (1.0 + 10f64.powf((r[b] - r[a]) / 400.0));
        expected[a] += e;
        expected[b] += 1.0 - e;
        actual[a] += 0.5;
        actual[b] += 0.5;
    }
    for i in 0..4 {
        assert!((expected[i] - actual[i]).abs() < 1e-6, "{i}: {} vs {}", expected[i], actual[i]);
    }
}

/// A ladder's shape: 300 participants, each meeting only neighbours near it in strength (the
/// pairs a ladder makes), some against a strong anchor, an Elo spread of ±600: the hardest case
/// for a solver that moves one participant at a time, and a sparse one.
#[test]
fn a_ladder_shaped_pool_matches_the_independent_solution() {
    let n = 300;
    let mut x: u64 = 7;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as f64 / (1u64 << 53) as f64
    };
    let strength: Vec<f64> = (0..n).map(|i| -600.0 + 1200.0 * i as f64 / n as f64).collect();
    let mut games = Vec::new();
    for unit in 0..6000u64 {
        let a = (next() * n as f64) as usize % n;
        let b = if unit % 50 == 0 { n - 1 } else { (a + 1 + (next() * 8.0) as usize) % n };
        if a == b {
            continue;
        }
        let e = 1.0 / (1.0 + 10f64.powf((strength[b] - strength[a]) / 400.0));
        let score = if next() < e { 1.0 } else { 0.0 };
        games.push(RatedGame { group: 0, unit, results: vec![Pairwise { a, b, score }], plays: 1 });
    }
    let list = rate(&names(n), &games, &opts(0));
    assert_eq!(list.entries.len(), n);
    let nr = newton(n, &all_results(&games), VIRTUAL_DRAWS_PER_PAIR);
    for i in 0..n {
        let r = list.entry(i).unwrap().rating;
        assert!((r - nr[i]).abs() < 1e-6, "participant {i}: rate {r} vs Newton {}", nr[i]);
    }
}

#[test]
fn intervals_shrink_as_games_grow() {
    let build = |k: u32| {
        let mut u = 0;
        let mut g = Vec::new();
        g.extend(series(0, 1, 12 * k, 0, 8 * k, &mut u));
        g.extend(series(1, 2, 12 * k, 0, 8 * k, &mut u));
        g.extend(series(0, 2, 14 * k, 0, 6 * k, &mut u));
        g
    };
    let small = rate(&names(3), &build(1), &opts(400));
    let large = rate(&names(3), &build(4), &opts(400));
    for p in 0..3 {
        let w = |l: &reports::RatingList| {
            let (lo, hi) = l.entry(p).unwrap().interval.unwrap();
            hi - lo
        };
        let (ws, wl) = (w(&small), w(&large));
        // The standard error halves with four times the games.
        assert!(wl < 0.65 * ws && wl > 0.35 * ws, "participant {p}: {ws} with 20 games a pair, {wl} with 80");
        let e = large.entry(p).unwrap();
        let (lo, hi) = e.interval.unwrap();
        assert!(lo < e.rating && e.rating < hi);
    }
    // The strongest is clearly above the weakest with 80 games a pair.
    assert_eq!(large.entries[0].participant, 0);
    assert!(large.los[0][2] > 0.99, "{:?}", large.los);
    assert!(large.entries[0].los_next.unwrap() > 0.5);
    assert!(large.entries[2].los_next.is_none());
}

#[test]
fn a_participant_that_never_loses_is_finite_flagged_and_on_top() {
    let mut u = 0;
    let mut games = Vec::new();
    games.extend(series(0, 1, 10, 0, 0, &mut u));
    games.extend(series(0, 2, 10, 0, 0, &mut u));
    games.extend(series(1, 2, 6, 2, 4, &mut u));
    games.extend(series(3, 1, 0, 0, 8, &mut u));
    games.extend(series(3, 2, 0, 0, 8, &mut u));
    assert!(fit_elo(4, &all_results(&games), 0.0).is_none(), "the plain MLE does not exist");
    let list = rate(&names(4), &games, &opts(300));
    let top = &list.entries[0];
    assert_eq!(top.participant, 0);
    assert!(top.rating.is_finite() && top.rating > 200.0, "{}", top.rating);
    assert_eq!(top.bound, Some(Bound::NoLosses));
    assert_eq!(top.score, 1.0);
    let (lo, hi) = top.interval.unwrap();
    assert!(lo.is_finite() && hi.is_finite());
    let bottom = list.entries.last().unwrap();
    assert_eq!(bottom.participant, 3);
    assert_eq!(bottom.bound, Some(Bound::NoWins));
    assert!(bottom.rating.is_finite());
    for p in [1, 2] {
        assert!(list.entry(p).unwrap().bound.is_none());
        assert!(list.entry(p).unwrap().rating < top.rating);
    }
    assert!(list.notes.iter().any(|n| n.contains("{p0}") && n.contains("{p3}")), "{:?}", list.notes);
    let json = serde_json::to_string(&list).unwrap();
    assert!(json.contains("\"no losses\"") && json.contains("\"no wins\""));
}

#[test]
fn anchoring_fixes_a_participant_or_the_mean() {
    let games = worked_example();
    let mean_zero = rate(&names(4), &games, &opts(100));
    let sum: f64 = mean_zero.entries.iter().map(|e| e.rating).sum();
    assert!(sum.abs() < 1e-9, "{sum}");
    assert_eq!(mean_zero.anchor, None);
    let anchored = rate(&names(4), &games, &RatingOptions { anchor: Some(2), ..opts(100) });
    let a = anchored.entry(2).unwrap();
    assert_eq!(a.rating, 0.0);
    assert_eq!(a.interval, Some((0.0, 0.0)));
    assert_eq!(anchored.anchor.as_deref(), Some("p2"));
    // The same differences either way.
    for p in 0..4 {
        let d0 = mean_zero.entry(p).unwrap().rating - mean_zero.entry(2).unwrap().rating;
        assert!((anchored.entry(p).unwrap().rating - d0).abs() < 1e-9);
    }
    // An anchor without games falls back to the mean, with a note.
    let absent = rate(&names(5), &games, &RatingOptions { anchor: Some(4), ..opts(0) });
    assert!(absent.entries.iter().map(|e| e.rating).sum::<f64>().abs() < 1e-9);
    assert!(absent.notes.iter().any(|n| n.contains("anchor")));
}

#[test]
fn ratings_and_intervals_do_not_depend_on_the_order_of_games() {
    // Multi-player games with shared units (two games per unit).
    let mut games = Vec::new();
    let mut state = 12345u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for k in 0..120u64 {
        let order: [usize; 3] = match next() % 6 {
            0 => [0, 1, 2],
            1 => [0, 2, 1],
            2 => [1, 0, 2],
            3 => [0, 1, 3],
            4 => [3, 2, 1],
            _ => [2, 3, 0],
        };
        let results = vec![
            Pairwise { a: order[0], b: order[1], score: 1.0 },
            Pairwise { a: order[0], b: order[2], score: 1.0 },
            Pairwise { a: order[1], b: order[2], score: if next() % 3 == 0 { 0.5 } else { 1.0 } },
        ];
        games.push(RatedGame { group: 0, unit: k / 2, results, plays: 1 });
    }
    let o = RatingOptions { anchor: None, bootstrap: 300, seed: 5 };
    let a = rate(&names(4), &games, &o);
    let mut shuffled = games.clone();
    for i in (1..shuffled.len()).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        shuffled.swap(i, j);
    }
    shuffled.reverse();
    let b = rate(&names(4), &shuffled, &o);
    for p in 0..4 {
        let (x, y) = (a.entry(p).unwrap(), b.entry(p).unwrap());
        assert!((x.rating - y.rating).abs() < 1e-9);
        let ((x0, x1), (y0, y1)) = (x.interval.unwrap(), y.interval.unwrap());
        assert!((x0 - y0).abs() < 1e-9 && (x1 - y1).abs() < 1e-9);
    }
    assert_eq!(a.head_to_head, b.head_to_head);
    assert_eq!(a.units, 60);
    // The same seed gives the same list; another seed other intervals.
    assert_eq!(a, rate(&names(4), &games, &o));
    let c = rate(&names(4), &games, &RatingOptions { seed: 6, ..o });
    assert_ne!(a.entries[0].interval, c.entries[0].interval);
}

#[test]
fn participants_without_games_or_a_link_are_listed_unrated() {
    let mut u = 0;
    let mut games = Vec::new();
    games.extend(series(0, 1, 5, 1, 4, &mut u));
    games.extend(series(1, 2, 5, 1, 4, &mut u));
    games.extend(series(3, 4, 2, 0, 2, &mut u)); // a separate pool
    games.push(RatedGame { group: 0, unit: 99, results: vec![Pairwise { a: 0, b: 9, score: 1.0 }], plays: 1 });
    let list = rate(&names(6), &games, &opts(50));
    let rated: Vec<usize> = list.entries.iter().map(|e| e.participant).collect();
    assert_eq!(rated.len(), 3);
    assert!(rated.contains(&0) && rated.contains(&1) && rated.contains(&2));
    let reasons: Vec<(usize, &str)> = list.unrated.iter().map(|u| (u.participant, u.reason.as_str())).collect();
    assert_eq!(reasons.len(), 3);
    assert!(reasons.contains(&(5, "no rated game")));
    assert!(reasons.iter().any(|&(p, r)| p == 3 && r.contains("never met")));
    assert!(list.notes.iter().any(|n| n.contains("ignored")), "{:?}", list.notes);
    assert_eq!(list.results, 24);
}

#[test]
fn progression_follows_the_games_in_order() {
    let games = worked_example();
    let p = progression(&names(4), &games, None, 10);
    assert_eq!(p.games.len(), 10);
    assert_eq!(*p.games.last().unwrap(), games.len());
    let final_list = rate(&names(4), &games, &opts(0));
    for i in 0..4 {
        let last = p.ratings[i].last().unwrap().unwrap();
        assert!((last - final_list.entry(i).unwrap().rating).abs() < 1e-9);
    }
    // The first 12 games are 0 against 1 only: 2 and 3 are not yet rated.
    assert!(p.ratings[3][0].is_none());
}

/// (How long resampling takes is the benchmark's to measure, not a test's.)
#[test]
fn a_thousand_resamples_give_every_rating_its_interval() {
    let games = worked_example();
    let list = rate(&names(4), &games, &opts(1000));
    assert_eq!(list.bootstrap, 1000);
    assert_eq!(list.entries.len(), 4);
    for e in &list.entries {
        let (lo, hi) = e.interval.unwrap_or_else(|| panic!("{} has no interval", e.name));
        assert!(lo <= e.rating && e.rating <= hi && lo < hi, "{}: {} in ({lo}, {hi})", e.name, e.rating);
    }
    let again = rate(&names(4), &games, &opts(1000));
    let intervals = |l: &reports::ratings::RatingList| l.entries.iter().map(|e| e.interval).collect::<Vec<_>>();
    assert_eq!(intervals(&list), intervals(&again), "seeded");
}

/// Twins: participants whose results are the same in every unit (a cooperative team's
/// travellers, say). Every re-fit rates them equal, so the likelihood that one is above the
/// other is a half, they show the same rating, and they are listed by name.
#[test]
fn participants_equal_in_every_resample_are_equal_ties() {
    // Twins at 2, 6 and 9; the others play everyone with made-up scores in thirds.
    let n = 11;
    let twins = [9, 2, 6];
    let mut games = Vec::new();
    for unit in 0..80u64 {
        let mut results = Vec::new();
        for a in 0..n {
            for b in (a + 1)..n {
                if twins.contains(&a) && twins.contains(&b) {
                    results.push(Pairwise { a, b, score: 0.5 });
                    continue;
                }
                // A twin's score depends only on the opponent, never on which twin it is.
                let key = |x: usize| if twins.contains(&x) { 100 } else { x as u64 };
                let (lo, hi) = (key(a).min(key(b)), key(a).max(key(b)));
                // The lower key wins more often.
                let score = [1.0, 2.0 / 3.0, 0.0, 1.0 / 3.0, 1.0][((lo * 31 + hi * 17 + unit * 7) % 5) as usize];
                let score = if key(a) > key(b) { 1.0 - score } else { score };
                // Written from either side, as a game's seats happen to be.
                if unit % 2 == 0 {
                    results.push(Pairwise { a, b, score });
                } else {
                    results.push(Pairwise { a: b, b: a, score: 1.0 - score });
                }
            }
        }
        games.push(RatedGame { group: 0, unit, results, plays: 1 });
    }
    let mut names = names(n);
    names[9] = "twin-a".into();
    names[2] = "twin-b".into();
    names[6] = "twin-c".into();
    let list = rate(&names, &games, &RatingOptions { anchor: Some(0), bootstrap: 400, seed: 5 });
    let at = |n: &str| list.entries.iter().position(|e| e.name == n).unwrap();
    let (a, b, c) = (at("twin-a"), at("twin-b"), at("twin-c"));
    let shown: Vec<_> = list.entries.iter().map(|e| (&e.name, e.rating, e.los_next)).collect();
    assert_eq!((b, c), (a + 1, a + 2), "twins in name order: {shown:?}");
    for t in [b, c] {
        assert_eq!(list.entries[a].rating, list.entries[t].rating, "{shown:?}");
        assert_eq!(list.entries[a].interval, list.entries[t].interval);
        assert_eq!(list.los[a][t], 0.5);
        assert_eq!(list.los[t][a], 0.5);
    }
    assert_eq!(list.entries[a].los_next, Some(0.5));
    assert_eq!(list.entries[b].los_next, Some(0.5));
    // The others are not all equal: the twins stand apart from their neighbours.
    let distinct: std::collections::BTreeSet<u64> = list.entries.iter().map(|e| e.rating.to_bits()).collect();
    assert!(distinct.len() > 5, "{shown:?}");
}
