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
