//! A ladder's store of a given size, filled with made-up results: what `arena bench-ladder`
//! and the restart test measure a large ladder with. Its games are results, not games: each
//! record names its players, seats and outcome, with no moves (it does not replay).
//!
//! Agents have strengths drawn once (a normal spread of 200 Elo), listed weakest first; each
//! pairing is one agent against one of the 40 next to it in strength, played twice, seats
//! swapped, won as Bradley–Terry says — as a ladder that pairs agents near in rating has it.

use super::config::LadderConfig;
use super::entry_key;
use super::store::Store;
use crate::record::{MatchRecord, TournamentGame};
use crate::referee::MatchOutcome;
use crate::tournament::config::resolve_entries;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use reports::ratings::{Pairwise, RatedGame};
use std::path::Path;

/// Fill `dir`'s store (created) with `agents` agents (the ladder's anchors first, the others
/// owned by clients of 10.0.0.0/8, a few each) and `results` games of the ladder's first entry.
pub fn fill(
    config: &LadderConfig,
    text: &str,
    dir: &Path,
    agents: usize,
    results: usize,
    seed: u64,
) -> Result<(), String> {
    let anchors: Vec<(String, String)> =
        config.anchors.iter().enumerate().map(|(i, a)| (format!("anchors[{i}].bot"), a.bot.clone())).collect();
    let resolved = resolve_entries("the ladder", text, &config.games[..1], &anchors, &crate::files::refuse_files)?;
    let entry = &resolved[0];
    let mut store = Store::open(dir)?;
    let group = store.entry(&entry_key(&config.games[0].game, entry.spec.as_ref())?, &entry.label)?;
    let mut names = Vec::with_capacity(agents);
    for a in &config.anchors {
        store.agent(&a.name, true)?;
        names.push(a.name.clone());
    }
    for k in names.len()..agents {
        let name = format!("agent-{k}");
        let owner = format!("addr:10.{}.{}.{}", (k / 3) >> 16 & 255, (k / 3) >> 8 & 255, (k / 3) & 255);
        store.agent_of(&name, false, Some(&owner))?;
        names.push(name);
    }
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut strength: Vec<f64> = (0..agents)
        .map(|_| {
            // A normal deviate from two uniforms (Box–Muller), 200 Elo wide.
            let (u, v): (f64, f64) = (rng.random::<f64>().max(1e-12), rng.random());
            200.0 * (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
        })
        .collect();
    strength.sort_by(f64::total_cmp);
    let mut next = store.next_game()?;
    let mut batch: Vec<(MatchRecord, Vec<RatedGame>)> = Vec::new();
    let mut made = 0;
    while made < results {
        let a = rng.random_range(0..agents);
        let d = rng.random_range(1..=40);
        let b = if a + d < agents { a + d } else { a.saturating_sub(d) };
        if a == b {
            continue;
        }
        let pairing = store.pairing(group)? as u32;
        for seats in [[a, b], [b, a]] {
            if made == results {
                break;
            }
            let expected = 1.0 / (1.0 + 10f64.powf((strength[seats[1]] - strength[seats[0]]) / 400.0));
            let first_wins = rng.random::<f64>() < expected;
            let ranks = if first_wins { vec![0, 1] } else { vec![1, 0] };
            let record = MatchRecord {
                game: engine::core::Record {
                    game: config.games[0].game.clone(),
                    rules_version: 0,
                    params: entry.spec.params_yaml(),
                    seed: 0,
                    scenario: None,
                    actions: Vec::new(),
                },
                players: seats.iter().map(|&s| names[s].clone()).collect(),
                outcome: MatchOutcome::played(engine::core::Outcome { scores: vec![0, 0], ranks, achieved: vec![] }),
                verdicts: Vec::new(),
                metrics: Default::default(),
                move_ms: Vec::new(),
                match_id: None,
                tournament: Some(TournamentGame {
                    job: next,
                    group,
                    label: entry.label.clone(),
                    deal: pairing,
                    seats: seats.to_vec(),
                    play_ms: 0.0,
                }),
            };
            let score = if first_wins { 1.0 } else { 0.0 };
            let rated = RatedGame {
                group,
                unit: u64::from(pairing),
                results: vec![Pairwise { a: seats[0], b: seats[1], score }],
                plays: 1,
            };
            batch.push((record, vec![rated]));
            next += 1;
            made += 1;
        }
        if batch.len() >= 10_000 {
            store.commit_all(&batch)?;
            batch.clear();
        }
    }
    store.commit_all(&batch)?;
    Ok(())
}
