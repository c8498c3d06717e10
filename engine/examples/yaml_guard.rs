//! What weighing YAML before reading it costs: `YamlBudget::check` beside `serde_yaml`'s own
//! read of the same text (expedition's content set, the largest YAML a game ships), taken in
//! turns; and how soon it refuses the attacks a server meets. Medians of many runs.
//!
//!     cargo run --release -p engine --example yaml_guard

use engine::core::yaml::{YamlBudget, YamlLimits};
use std::time::{Duration, Instant};

const WIRE: YamlLimits = YamlLimits { nodes: 10_000, bytes: 256 << 10, depth: 32 };

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let content = include_str!("../src/expedition/content.yaml");
    let (mut guard, mut read) = (Vec::new(), Vec::new());
    for _ in 0..201 {
        let t = Instant::now();
        YamlBudget::new(WIRE).check(content).unwrap();
        guard.push(t.elapsed());
        let t = Instant::now();
        let v: serde_yaml::Value = serde_yaml::from_str(content).unwrap();
        read.push(t.elapsed());
        std::hint::black_box(v);
    }
    let (g, r) = (median(guard), median(read));
    println!(
        "content set ({} bytes): weighed in {g:?}, read in {r:?}: weighing is {:.2}× a read",
        content.len(),
        g.as_secs_f64() / r.as_secs_f64()
    );

    let mut bomb = format!("a0: &a0 [{}]\n", ["lol"; 10].join(", "));
    for i in 1..10 {
        bomb += &format!("a{i}: &a{i} [{}]\n", vec![format!("*a{}", i - 1); 10].join(", "));
    }
    let attacks = [
        ("an alias bomb (10^10 nodes)", bomb),
        ("a flow mapping 50,000 deep", "{a: ".repeat(50_000)),
        ("a flow mapping 20,000 deep, closed", format!("{}1{}", "{a: ".repeat(20_000), "}".repeat(20_000))),
        ("500,000 scalars in one sequence", format!("[{}]", vec!["1"; 500_000].join(","))),
        ("one scalar of 1 MiB", "x".repeat(1 << 20)),
    ];
    for (what, text) in attacks {
        let times: Vec<Duration> = (0..21)
            .map(|_| {
                let t = Instant::now();
                let refused = YamlBudget::new(WIRE).check(&text).unwrap_err();
                std::hint::black_box(refused);
                t.elapsed()
            })
            .collect();
        let why = YamlBudget::new(WIRE).check(&text).unwrap_err();
        println!("{what} ({} bytes): refused in {:?}: {why}", text.len(), median(times));
    }
}
