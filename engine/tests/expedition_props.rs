//! Property tests of `expedition` over many seeded random games, both variants, 2-4 players.

use engine::core::{ActionError, ActionId, Game, Seat, SmallRng};
use engine::expedition::actions::NUM_ACTIONS;
use engine::expedition::{DiscoveryRule, Expedition, ExpeditionParams, Step};
use proptest::prelude::*;
use rand::{RngExt, SeedableRng};

fn configs() -> Vec<ExpeditionParams> {
    let mut v = Vec::new();
    for dice in [true, false] {
        for players in 2..=4 {
            let base = if dice { ExpeditionParams::dice_game() } else { ExpeditionParams::no_dice() };
            v.push(base.with_players(players));
        }
    }
    v
}

/// Vary the optional rules with the seed.
fn vary(params: &ExpeditionParams, seed: u64) -> ExpeditionParams {
    let mut p = params.clone();
    p.forgotten_roll = seed % 2 == 1;
    if seed.is_multiple_of(3) {
        p.discovery_cards = DiscoveryRule::Wild;
    }
    p
}

fn legal(g: &Expedition) -> Vec<ActionId> {
    let mut v = Vec::new();
    g.legal_actions(&mut v);
    v
}

/// Every token, tile and card is in exactly one place.
fn check_conservation(g: &Expedition) {
    let c = g.content();
    let n = g.seats();
    let (boxed_tiles, boxed_cards, boxed_tools) = g.out_of_play();
    // 36 tokens, 9 of each kind.
    let mut tools = [0u32; 4];
    for k in 0..4 {
        tools[k] += g.bag()[k] as u32 + boxed_tools[k] as u32;
        for s in 0..n {
            tools[k] += g.player(s).tools[k] as u32;
        }
    }
    for (_, col) in g.hq() {
        for t in col.into_iter().flatten() {
            tools[t.index()] += 1;
        }
    }
    assert_eq!(tools, [9; 4], "tokens lost or doubled");
    // Every tile once.
    let mut tiles = vec![0u32; c.tiles.len()];
    for &t in g.pile() {
        tiles[t as usize] += 1;
    }
    for (t, _) in g.hq() {
        if let Some(t) = t {
            tiles[t as usize] += 1;
        }
    }
    for s in 0..n {
        for &t in g.player(s).tiles.iter().chain(g.player(s).done.iter()) {
            tiles[t as usize] += 1;
        }
    }
    for t in 0..c.tiles.len() {
        tiles[t] += (boxed_tiles >> t & 1) as u32;
    }
    assert!(tiles.iter().all(|&k| k == 1), "tiles lost or doubled: {tiles:?}");
    // Every card once.
    let mut cards = vec![0u32; c.cards.len()];
    for &k in g.deck() {
        cards[k as usize] += 1;
    }
    for k in g.face_up().into_iter().flatten() {
        cards[k as usize] += 1;
    }
    for k in 0..c.cards.len() {
        for s in 0..n {
            cards[k] += (g.player(s).cards >> k & 1) as u32;
        }
        cards[k] += (boxed_cards >> k & 1) as u32;
    }
    assert!(cards.iter().all(|&k| k == 1), "cards lost or doubled: {cards:?}");
    // The limits hold whenever no return is pending.
    for s in 0..n {
        let p = g.player(s);
        assert!(p.done.len() <= 8);
        if s != g.current() || g.is_terminal() {
            assert!(p.tiles.len() <= 3 && p.tool_count() <= 6, "seat {s} over the limits between turns");
        }
    }
}

/// Play one random game, checking every property along the way; returns the actions.
fn play_checked(params: &ExpeditionParams, seed: u64, determinize_every: usize) -> (Expedition, Vec<ActionId>) {
    let mut g = Expedition::new(params, seed);
    let mut rng = SmallRng::seed_from_u64(seed ^ 0xdead_beef);
    let mut actions = Vec::new();
    let mut hidden_changed = false;
    loop {
        check_conservation(&g);
        let l = legal(&g);
        assert_eq!(l.is_empty(), g.is_terminal(), "legal actions are empty exactly at the end");
        assert_eq!(g.to_move().is_none(), g.is_terminal());
        // An illegal or unknown id is refused and changes nothing.
        let bad = loop {
            let id = rng.random_range(0..NUM_ACTIONS + 8);
            if !l.contains(&id) {
                break id;
            }
        };
        let before = g.clone();
        let err = g.apply(bad).expect_err("an id that is not legal is refused");
        if g.is_terminal() {
            assert_eq!(err, ActionError::GameOver);
        } else {
            assert!(matches!(err, ActionError::Illegal { .. } | ActionError::Unknown(_)), "{err:?}");
        }
        assert_eq!(g, before, "a refused action changed the state");
        // Resampling hidden facts keeps every seat's own view.
        if determinize_every > 0 && actions.len() % determinize_every == 0 {
            for s in 0..g.seats() {
                let seat = Seat(s as u8);
                let d = g.determinize(seat, &mut rng);
                assert_eq!(d.observation(seat), g.observation(seat), "determinize changed seat {s}'s view");
                check_conservation(&d);
                if Some(seat) == g.to_move() {
                    assert_eq!(legal(&d), l, "the player to move has the same choices");
                }
                hidden_changed |= d.deck() != g.deck() || d.pile() != g.pile();
            }
        }
        if l.is_empty() {
            break;
        }
        for &a in &l {
            assert!(!g.action_label(a).is_empty());
        }
        let a = l[rng.random_range(0..l.len())];
        g.apply(a).unwrap_or_else(|e| panic!("legal action {a} refused: {e}"));
        actions.push(a);
        assert!(actions.len() < 5000, "game {seed} does not end");
    }
    if determinize_every > 0 && actions.len() > 20 {
        assert!(hidden_changed, "determinize never redrew anything in game {seed}");
    }
    // The end: scores, ranks, a winner.
    let o = g.outcome().expect("a finished game has an outcome");
    assert_eq!(o.scores.len(), g.seats());
    let mut ranks = o.ranks.clone();
    ranks.sort();
    assert_eq!(ranks, (0..g.seats() as u8).collect::<Vec<_>>(), "the tie-break always separates the players");
    assert!((0..g.seats()).any(|s| g.player(s).done.len() >= 6), "the game ends only after a sixth discovery");
    (g, actions)
}

#[test]
fn random_games_keep_every_invariant() {
    for params in configs() {
        for seed in 0..250 {
            let p = vary(&params, seed);
            play_checked(&p, seed, 9);
        }
    }
}

#[test]
fn games_replay_exactly_from_params_seed_and_actions() {
    for params in configs() {
        for seed in 1000..1060 {
            let p = vary(&params, seed);
            let (end, actions) = play_checked(&p, seed, 0);
            let mut g = Expedition::new(&p, seed);
            for &a in &actions {
                g.apply(a).expect("the replayed action is legal");
            }
            assert_eq!(g, end, "replay diverged");
            assert_eq!(g.outcome(), end.outcome());
            // And another seed gives another game.
            let other = Expedition::new(&p, seed + 1000);
            assert_ne!(other, Expedition::new(&p, seed));
        }
    }
}

#[test]
fn a_determinized_state_plays_on_to_a_legal_end() {
    let mut rng = SmallRng::seed_from_u64(77);
    for params in configs() {
        for seed in 200..215 {
            let mut g = Expedition::new(&params, seed);
            let mut buf = Vec::new();
            // Walk a random distance into the game.
            let steps = rng.random_range(0..120);
            for _ in 0..steps {
                buf.clear();
                g.legal_actions(&mut buf);
                if buf.is_empty() {
                    break;
                }
                g.apply(buf[rng.random_range(0..buf.len())]).unwrap();
            }
            let seat = Seat(rng.random_range(0..g.seats() as u8));
            let mut d = g.determinize(seat, &mut rng);
            let mut n = 0;
            while !d.is_terminal() {
                check_conservation(&d);
                buf.clear();
                d.legal_actions(&mut buf);
                d.apply(buf[rng.random_range(0..buf.len())]).unwrap();
                n += 1;
                assert!(n < 5000);
            }
            assert!(d.outcome().is_some());
        }
    }
}

#[test]
fn hands_are_private_until_the_end() {
    for params in configs() {
        let (g, _) = play_checked(&params, 300, 0);
        for s in 0..g.seats() {
            let o = g.observation(Seat(s as u8));
            assert!(o.seats.iter().all(|v| v.cards.is_some()), "everyone reveals at the end");
        }
        let mut g = Expedition::new(&params, 301);
        let mut rng = SmallRng::seed_from_u64(301);
        let mut buf = Vec::new();
        for _ in 0..40 {
            buf.clear();
            g.legal_actions(&mut buf);
            if buf.is_empty() {
                break;
            }
            g.apply(buf[rng.random_range(0..buf.len())]).unwrap();
            if g.step() == Step::Over {
                break;
            }
            for s in 0..g.seats() {
                let o = g.observation(Seat(s as u8));
                for v in &o.seats {
                    assert_eq!(v.cards.is_some(), v.seat as usize == s);
                    assert_eq!(v.cards_held as u32, g.player(v.seat as usize).cards.count_ones());
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Any sequence of ids, legal or not, never panics, and a refused id changes nothing.
    #[test]
    fn arbitrary_ids_never_panic(seed in any::<u64>(), dice in any::<bool>(), players in 2usize..=4,
                                 ids in proptest::collection::vec(0u32..800, 0..400)) {
        let base = if dice { ExpeditionParams::dice_game() } else { ExpeditionParams::no_dice() };
        let mut g = Expedition::new(&base.with_players(players), seed);
        let mut buf = Vec::new();
        for id in ids {
            // Ids from 400 pick a legal action (so games move on); below, any id at all.
            buf.clear();
            g.legal_actions(&mut buf);
            let id = if id >= 400 && !buf.is_empty() { buf[(id as usize - 400) % buf.len()] } else { id };
            let before = g.clone();
            match g.apply(id) {
                Ok(()) => check_conservation(&g),
                Err(_) => prop_assert_eq!(&g, &before),
            }
            let _ = g.observation_text(Seat(0));
        }
    }
}
