//! Train the journey arrival network of `bots::journey::value` and write `bots/src/journey/value/weights.rs`:
//! positions of games played by the strong rollout policy (with a few random moves), labelled
//! with whether the travellers arrived; a held-out tenth reports the log loss.
use bots::journey::value::{FEATURES, HIDDEN, Net, features};
use engine::core::{Game, SmallRng, game_seed};
use engine::journey::Journey;
use rand::{RngExt, SeedableRng};

fn main() {
    let games: u64 = std::env::args().nth(1).map_or(40_000, |s| s.parse().unwrap());
    let mut data: Vec<([f32; FEATURES], f32)> = Vec::new();
    let mut rng = SmallRng::seed_from_u64(2024);
    let mut legal = Vec::new();
    for preset in ["classic", "martian"] {
        let spec = (engine::find_game("journey").unwrap().spec)(Some(preset), &[], &|_| Err("no".into())).unwrap();
        let params = spec.as_any().downcast_ref::<engine::core::Spec<Journey>>().unwrap().params().clone();
        for i in 0..games {
            let mut g = Journey::new(&params, game_seed(0xDA7A, i));
            let mut states = Vec::new();
            while !g.is_terminal() {
                legal.clear();
                g.legal_actions(&mut legal);
                if legal.len() > 1 {
                    states.push(features(&g));
                }
                let a = if rng.random_range(0..20) == 0 {
                    legal[rng.random_range(0..legal.len())]
                } else {
                    bots::journey::rollout::policy(&g, &legal, &mut rng, &bots::journey::rollout::TUNE)
                };
                g.apply(a).unwrap();
            }
            let label = g.arrived() as f32 / g.travellers() as f32;
            // A few positions per game, so that games weigh alike.
            for _ in 0..states.len().min(8) {
                let k = rng.random_range(0..states.len());
                data.push((states.swap_remove(k), label));
            }
        }
    }
    for i in (1..data.len()).rev() {
        data.swap(i, rng.random_range(0..=i));
    }
    let test = data.split_off(data.len() * 9 / 10);
    let base = data.iter().map(|d| d.1).sum::<f32>() / data.len() as f32;
    eprintln!("{} positions to learn from, {} held out; arrival rate {base:.3}", data.len(), test.len());
    let mut net = Net { w1: [[0.0; FEATURES]; HIDDEN], b1: [0.0; HIDDEN], w2: [0.0; HIDDEN], b2: 0.0 };
    for j in 0..HIDDEN {
        for k in 0..FEATURES {
            net.w1[j][k] = (rng.random::<f32>() - 0.5) * 0.6;
        }
        net.w2[j] = (rng.random::<f32>() - 0.5) * 0.6;
    }
    let logloss = |net: &Net, set: &[([f32; FEATURES], f32)]| {
        let mut h = [0f32; HIDDEN];
        set.iter()
            .map(|(x, y)| {
                let p = net.forward(x, &mut h).clamp(1e-6, 1.0 - 1e-6);
                -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
            })
            .sum::<f32>()
            / set.len() as f32
    };
    let constant =
        test.iter().map(|(_, y)| -(y * base.ln() + (1.0 - y) * (1.0 - base).ln())).sum::<f32>() / test.len() as f32;
    eprintln!("held-out log loss of the constant {base:.3}: {constant:.4}");
    // Plain SGD with momentum.
    let (lr, mom) = (0.02f32, 0.9f32);
    let mut v1 = [[0f32; FEATURES]; HIDDEN];
    let mut vb1 = [0f32; HIDDEN];
    let mut v2 = [0f32; HIDDEN];
    let mut vb2 = 0f32;
    let batch = 64;
    for epoch in 0..6 {
        let rate = lr / (1.0 + epoch as f32);
        for chunk in data.chunks(batch) {
            let mut g1 = [[0f32; FEATURES]; HIDDEN];
            let mut gb1 = [0f32; HIDDEN];
            let mut g2 = [0f32; HIDDEN];
            let mut gb2 = 0f32;
            let mut h = [0f32; HIDDEN];
            for (x, y) in chunk {
                let p = net.forward(x, &mut h);
                let d = p - y;
                gb2 += d;
                for j in 0..HIDDEN {
                    g2[j] += d * h[j];
                    let dh = d * net.w2[j] * (1.0 - h[j] * h[j]);
                    gb1[j] += dh;
                    for k in 0..FEATURES {
                        g1[j][k] += dh * x[k];
                    }
                }
            }
            let s = rate / chunk.len() as f32;
            vb2 = mom * vb2 - s * gb2;
            net.b2 += vb2;
            for j in 0..HIDDEN {
                v2[j] = mom * v2[j] - s * g2[j];
                net.w2[j] += v2[j];
                vb1[j] = mom * vb1[j] - s * gb1[j];
                net.b1[j] += vb1[j];
                for k in 0..FEATURES {
                    v1[j][k] = mom * v1[j][k] - s * g1[j][k];
                    net.w1[j][k] += v1[j][k];
                }
            }
        }
        eprintln!("epoch {epoch}: held-out log loss {:.4}", logloss(&net, &test));
    }
    let f = |v: f32| format!("{v:.5}");
    let mut out = String::from(
        "//! The weights of [`super`]'s network, written by `cargo run --release -p bots --example train_value`.\n\nuse super::Net;\n\npub const NET: Net = Net {\n    w1: [\n",
    );
    for j in 0..HIDDEN {
        out += &format!("        [{}],\n", net.w1[j].iter().map(|&v| f(v)).collect::<Vec<_>>().join(", "));
    }
    out += &format!("    ],\n    b1: [{}],\n", net.b1.iter().map(|&v| f(v)).collect::<Vec<_>>().join(", "));
    out += &format!(
        "    w2: [{}],\n    b2: {},\n}};\n",
        net.w2.iter().map(|&v| f(v)).collect::<Vec<_>>().join(", "),
        f(net.b2)
    );
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/journey/value/weights.rs");
    std::fs::write(path, out).unwrap();
    eprintln!("wrote {path}");
}
