//! What information is worth to a search: the same search, told more than its seat may know,
//! against the honest default `mcts` (expedition, two players, seats swapped on every deal) or
//! alone (journey, solo: how often it arrives).
//!
//! ```sh
//! cargo run --release -p bots --example ceiling -- expedition dice 200 mcts:iterations=5000,rollout=rules cards
//! ```
//!
//! Arguments: the game, its preset, the deals (from `--seed 1`'s), the searching agent (`mcts`
//! or `strong` with budget keys, an iteration budget: no time limit), and what its searches
//! see: `honest` (its seat's observation, as every agent), `cards` (every card: hands, deck,
//! pile and bag, but not the future die rolls and draws) or `future` (the state itself,
//! future chance included, as long as play follows it). No agent the arena runs can see more
//! than `honest`: only this program, which holds the state, builds such a sampler.

use bots::mcts::Search;
use bots::strong::Strong;
use bots::{BotSpec, Budget, MctsConfig, Sampler, Sight};
use engine::core::{GameParams, Seat, game_seed};
use engine::expedition::Expedition;
use engine::journey::Journey;

fn main() {
    if let Err(e) = run(&std::env::args().skip(1).collect::<Vec<_>>()) {
        eprintln!(
            "ceiling: {e}\nusage: ceiling <journey|expedition> <preset> <deals> <mcts:...|strong:...> <honest|cards|future>"
        );
        std::process::exit(2);
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let [game, preset, deals, agent, sight] = args else {
        return Err(format!("5 arguments wanted, {} given", args.len()));
    };
    let deals: u64 = deals.parse().map_err(|e| format!("deals {deals:?}: {e}"))?;
    let sight = match sight.as_str() {
        "honest" => Sight::Honest,
        "cards" => Sight::Cards,
        "future" => Sight::Future,
        other => return Err(format!("what the search sees: honest, cards or future, not {other:?}")),
    };
    let spec = BotSpec::parse(agent)?;
    match game.as_str() {
        "journey" => play::<Journey>(preset, deals, &spec, sight),
        "expedition" => play::<Expedition>(preset, deals, &spec, sight),
        other => Err(format!("no game {other:?} (journey or expedition)")),
    }
}

fn play<G: Strong>(preset: &str, deals: u64, spec: &BotSpec, sight: Sight) -> Result<(), String> {
    let params = G::Params::preset(preset).ok_or_else(|| format!("{} has no preset {preset:?}", G::NAME))?;
    let searcher: Box<dyn Search<G>> = match spec {
        BotSpec::Mcts(c) if c.time.is_none() => Box::new(c.clone()),
        BotSpec::Strong(c) if c.time.is_none() => Box::new(c.clone()),
        other => return Err(format!("{other}: an mcts or strong agent with an iteration budget (no ms=) wanted")),
    };
    let honest = MctsConfig::default();
    let solo = G::new(&params, 0).seats() == 1;
    let (mut won, mut games) = (0.0, 0u32);
    let (mut legal, mut out) = (Vec::new(), [0.0; 4]);
    for deal in 0..deals {
        // Seat-swapped pairs in a game for two, one game alone in a solo one.
        for me in 0..if solo { 1 } else { 2 } {
            let mut g = G::new(&params, game_seed(1, deal));
            let mut decision = 0;
            while let Some(seat) = g.to_move() {
                legal.clear();
                g.legal_actions(&mut legal);
                decision += 1;
                let a = if legal.len() == 1 {
                    legal[0]
                } else {
                    let seed = game_seed(2 * deal + u64::from(me), decision);
                    if seat == Seat(me) {
                        searcher.decide(
                            &Sampler::seeing(g.clone(), seat, sight),
                            &legal,
                            Budget::default(),
                            std::time::Instant::now(),
                            seed,
                        )
                    } else {
                        let sampler = Sampler::<G>::new(&params, &g.observation(seat), seat)?;
                        honest.decide(&sampler, &legal, Budget::default(), std::time::Instant::now(), seed)
                    }
                };
                g.apply(a).map_err(|e| format!("deal {deal}: {e}"))?;
            }
            let seats = g.seats();
            g.rewards(&mut out[..seats]);
            // A solo journey arrives with a reward of at least one half (see `eval`).
            won += if solo { f64::from(u8::from(out[0] >= 0.5)) } else { out[usize::from(me)] };
            games += 1;
        }
    }
    let (lo, hi) = reports::stats::wilson(won, f64::from(games));
    let what = if solo { "arrived" } else { "won against mcts" };
    println!(
        "{} {preset}, {spec} seeing {sight:?}: {what} {won}/{games} = {:.1}% ({:.1}–{:.1}%)",
        G::NAME,
        100.0 * won / f64::from(games),
        100.0 * lo,
        100.0 * hi
    );
    Ok(())
}
