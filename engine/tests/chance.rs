//! `redraw_chance` keeps every fact, hidden ones included, and redraws only the future: every
//! seat observes the same as before, and the same play goes on to different chance.

use engine::core::{Game, Seat, SmallRng};
use engine::expedition::{Expedition, ExpeditionParams};
use engine::journey::{Journey, JourneyParams};
use rand::{RngExt, SeedableRng};

/// Plays `moves` random actions from a fresh deal of `seed`, or fewer if the game ends first.
fn midgame<G: Game>(params: &G::Params, seed: u64, moves: usize) -> G {
    let mut g = G::new(params, seed);
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut legal = Vec::new();
    for _ in 0..moves {
        legal.clear();
        g.legal_actions(&mut legal);
        if legal.is_empty() {
            break;
        }
        g.apply(legal[rng.random_range(0..legal.len())]).unwrap();
    }
    g
}

/// Plays the first legal action until the end: the same play whatever chance brings.
fn play_out<G: Game>(mut g: G) -> Vec<G::Observation> {
    let mut legal = Vec::new();
    let mut seen = Vec::new();
    loop {
        legal.clear();
        g.legal_actions(&mut legal);
        if legal.is_empty() || seen.len() > 400 {
            return seen;
        }
        g.apply(legal[0]).unwrap();
        seen.push(g.observation(Seat(0)));
    }
}

/// A mid-game state of `seed` and the same with its chance redrawn: every seat observes both
/// alike, and is asked the same decision.
fn redrawn<G: Game>(params: &G::Params, seed: u64, moves: usize) -> (G, G) {
    let g: G = midgame(params, seed, moves);
    let c = g.redraw_chance(&mut SmallRng::seed_from_u64(1000 + seed));
    for s in 0..g.seats() {
        assert_eq!(c.observation(Seat(s as u8)), g.observation(Seat(s as u8)), "seed {seed}, seat {s}");
    }
    let mut legal = (Vec::new(), Vec::new());
    g.legal_actions(&mut legal.0);
    c.legal_actions(&mut legal.1);
    assert_eq!(legal.0, legal.1, "seed {seed}: the same decision");
    (g, c)
}

#[test]
fn expedition_redraws_only_the_future() {
    for params in [ExpeditionParams::dice_game(), ExpeditionParams::no_dice()] {
        // Over 20 deals, the same play meets different chance at least once.
        let diverged = (0..20)
            .filter(|&seed| {
                let (g, c) = redrawn::<Expedition>(&params, seed, 12);
                play_out(g) != play_out(c)
            })
            .count();
        assert!(diverged > 0, "the future never changed over 20 deals (dice: {})", params.dice);
    }
}

#[test]
fn journey_keeps_every_fact() {
    for preset in ["classic", "martian", "dunwich"] {
        let params = <JourneyParams as engine::core::GameParams>::preset(preset).unwrap();
        for seed in 0..20 {
            redrawn::<Journey>(&params, seed, 6);
        }
    }
}

/// How often each sequence of the first `steps` observations of seat 0 follows from `samples`
/// states drawn by `draw`, each played by the first legal action: the distribution of play
/// that chance and the hidden cards bring.
fn play_distribution<G: Game>(
    samples: u32,
    steps: usize,
    mut draw: impl FnMut(&mut SmallRng) -> G,
    seed: u64,
) -> std::collections::HashMap<String, u32> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut seen = std::collections::HashMap::new();
    let mut legal = Vec::new();
    for _ in 0..samples {
        let mut g = draw(&mut rng);
        let mut key = String::new();
        for _ in 0..steps {
            legal.clear();
            g.legal_actions(&mut legal);
            let Some(&a) = legal.first() else { break };
            g.apply(a).unwrap();
            key += &format!("{:?}|", g.observation(Seat(0)));
        }
        *seen.entry(key).or_insert(0) += 1;
    }
    seen
}

/// The total variation distance between two histograms of `n` samples each.
fn distance(a: &std::collections::HashMap<String, u32>, b: &std::collections::HashMap<String, u32>, n: u32) -> f64 {
    let keys: std::collections::HashSet<&String> = a.keys().chain(b.keys()).collect();
    let diff: u32 = keys.into_iter().map(|k| a.get(k).unwrap_or(&0).abs_diff(*b.get(k).unwrap_or(&0))).sum();
    f64::from(diff) / f64::from(2 * n)
}

/// A sample to be played once leaves the face-down cards loose, each drawn as play reaches it:
/// play from it follows the distribution play from a fully shuffled sample follows (as close
/// as two fully shuffled sets of samples are to each other), and it is still built from the
/// seat's observation alone.
#[test]
fn journey_loose_samples_play_as_shuffled_ones() {
    let n = 3000;
    for preset in ["classic", "martian", "dunwich"] {
        let params = <JourneyParams as engine::core::GameParams>::preset(preset).unwrap();
        let mut tested = 0;
        for (seed, moves) in [(4, 3), (5, 5), (6, 1), (7, 2)] {
            let g: Journey = midgame(&params, seed, moves);
            let base = Journey::from_observation(&params, &g.observation(Seat(0))).unwrap();
            let loose = base.redraw_to_play(Seat(0), &mut SmallRng::seed_from_u64(seed));
            assert_eq!(loose.observation(Seat(0)), g.observation(Seat(0)), "{preset} seed {seed}");
            let full = play_distribution(n, 3, |r| base.redraw_hidden(Seat(0), r), 10);
            let again = play_distribution(n, 3, |r| base.redraw_hidden(Seat(0), r), 11);
            let lazy = play_distribution(n, 3, |r| base.redraw_to_play(Seat(0), r), 12);
            let (noise, gap) = (distance(&full, &again, n), distance(&full, &lazy, n));
            // Drawing the loose cards in the order they lie (no chance) would put the gap
            // near 1 wherever play reaches a hidden card.
            assert!(
                gap <= 1.15 * noise + 0.02,
                "{preset} seed {seed}: loose samples play {gap:.3} apart from shuffled ones, two shuffled sets {noise:.3} ({} kinds of play)",
                full.len()
            );
            tested += usize::from(full.len() >= 10);
        }
        assert!(tested >= 3, "{preset}: play met hidden cards in {tested} of 4 positions");
    }
}
