//! Writes a report from simulated games, to look at: `cargo run -p reports --example
//! demo_report -- DIR` (default `demo-report`). Six agents of known strength play two-player
//! games in two variants; "oracle" wins every game it plays.

use reports::ratings::{Pairwise, RatedGame, RatingOptions};
use reports::{ReportInput, write_report};

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| "demo-report".into());
    let names = ["mcts:iterations=2000,c=0.7", "mcts:iterations=500", "rules", "greedy", "random", "oracle"];
    // Strength on the Elo scale, per variant (dice flattens the differences).
    let elo = [[250.0, 150.0, 60.0, 0.0, -300.0, 0.0], [180.0, 120.0, 40.0, 10.0, -200.0, 0.0]];
    let mut state = 2024u64;
    let mut uniform = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut games = Vec::new();
    for k in 0..1200u64 {
        let group = (k % 2) as usize;
        let a = (uniform() * 6.0) as usize;
        let b = (a + 1 + (uniform() * 5.0) as usize) % 6;
        let score = if a == 5 {
            1.0
        } else if b == 5 {
            0.0
        } else {
            let p = 1.0 / (1.0 + 10f64.powf((elo[group][b] - elo[group][a]) / 400.0));
            let u = uniform();
            if u < 0.08 {
                0.5
            } else if u < 0.08 + 0.92 * p {
                1.0
            } else {
                0.0
            }
        };
        games.push(RatedGame { group, unit: k / 2, results: vec![Pairwise { a, b, score }], plays: 1 });
    }
    let input = ReportInput {
        title: "Expedition demo tournament".into(),
        participants: names.iter().map(|s| s.to_string()).collect(),
        groups: vec!["expedition dice, 2 players".into(), "expedition no dice, 2 players".into()],
        games,
        options: RatingOptions { anchor: None, bootstrap: 1000, seed: 1 },
        side_by_side: vec![(0, 1, "Expedition: dice against no dice".into())],
        notes: vec!["Simulated games: the true strengths are known.".into()],
        run_notes: vec![],
        to_watch: vec![],
        variants: vec![],
    };
    match write_report(std::path::Path::new(&dir), &input) {
        Ok(out) => {
            for f in out.files {
                println!("{}", f.display());
            }
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
