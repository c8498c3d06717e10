//! The sequential test's LLR equals fastchess's on the same counts.
//!
//! The expected values were printed by fastchess's own `app/src/matchmaking/sprt/sprt.cpp`
//! (Disservin/fastchess at 74deac23), compiled unchanged with g++ against stub headers for its
//! logger and `Stats`, fed each row's counts through `SPRT::getLLR(stats, penta)` with
//! alpha = beta = 0.05. The first ten rows are fastchess's own test cases
//! (`app/tests/sprt_test.cpp`, which checks them to two decimals); the rest are short,
//! lopsided and sparse samples, where approximations differ most.

use reports::sprt::{Decision, EloModel, SprtSpec, Tally};

/// (model, elo0, elo1, counts by unit score 0..=1 (trinomial: L D W; pentanomial: LL LD WL+DD
/// WD WW), fastchess's LLR).
#[rustfmt::skip]
const FASTCHESS: &[(&str, f64, f64, &[u64], f64)] = &[
    ("normalized", 0.0, 2.0, &[36027, 68692, 36433], 0.9232934492206971),
    ("normalized", -1.75, 0.25, &[10650, 20431, 10871], 2.2975004095696754),
    ("normalized", 0.0, 10.0, &[0, 0, 4250], 120.54826774120362),
    ("logistic", 0.5, 2.5, &[21184, 40708, 21404], -1.5720316097592937),
    ("logistic", 0.0, 2.0, &[57030, 106593, 57433], -2.593331363950062),
    ("normalized", 0.0, 2.0, &[365, 16618, 36229, 16974, 390], 2.2503677035458534),
    ("normalized", -1.75, 0.25, &[127, 4883, 10712, 5150, 104], 3.0101542048019683),
    ("normalized", 0.0, 5.0, &[0, 0, 0, 0, 5550], 111.79755508671396),
    ("logistic", 0.5, 2.5, &[223, 9863, 21279, 10037, 246], -3.0744228597368144),
    ("logistic", 0.0, 2.0, &[871, 26175, 55983, 26678, 821], -4.979611872016541),
    ("logistic", 0.0, 10.0, &[0, 0, 0, 0, 12], 0.34047376594856055),
    ("logistic", 0.0, 10.0, &[0, 0, 0, 0, 104], 2.950344490558364),
    ("logistic", 0.0, 20.0, &[0, 0, 0, 0, 9], 0.5032866621027212),
    ("logistic", 0.0, 20.0, &[0, 0, 0, 0, 53], 2.9632693917311705),
    ("logistic", 0.0, 50.0, &[0, 0, 0, 0, 6], 0.8017972691211344),
    ("logistic", 0.0, 50.0, &[0, 0, 0, 0, 23], 3.0728586555722783),
    ("normalized", 0.0, 10.0, &[0, 0, 0, 0, 12], 0.4784022081659258),
    ("normalized", 0.0, 50.0, &[0, 0, 0, 0, 23], 4.1825700987162895),
    ("logistic", 0.0, 10.0, &[1, 0, 0, 0, 0], -0.02925544637491458),
    ("logistic", 0.0, 10.0, &[0, 0, 1, 0, 0], -0.02533139972619314),
    ("logistic", 0.0, 10.0, &[3, 1, 4, 2, 5], 0.11222839417495352),
    ("normalized", 0.0, 10.0, &[3, 1, 4, 2, 5], 0.12041220128055657),
    ("logistic", -5.0, 5.0, &[40, 120, 300, 110, 30], -2.0321978015679467),
    ("normalized", -5.0, 5.0, &[40, 120, 300, 110, 30], -1.325285932970908),
    ("logistic", 0.0, 5.0, &[10, 80, 200, 95, 15], 0.8078563971621903),
    ("normalized", 0.0, 5.0, &[10, 80, 200, 95, 15], 0.5313195610572149),
    ("logistic", 0.0, 20.0, &[5, 30, 40, 45, 20], 3.527305226170901),
    ("normalized", 0.0, 20.0, &[5, 30, 40, 45, 20], 2.8622289393136526),
    ("logistic", 0.0, 10.0, &[0, 7, 0], -0.1987895945675131),
    ("logistic", 0.0, 10.0, &[2, 0, 9], 0.19693815825306252),
    ("normalized", 0.0, 10.0, &[2, 0, 9], 0.19690274154411758),
    ("logistic", 0.0, 10.0, &[310, 820, 370], 2.441405765356528),
    ("normalized", 0.0, 10.0, &[310, 820, 370], 1.9441937964818938),
    ("logistic", -10.0, 0.0, &[500, 200, 480], -0.10467813413820723),
    ("normalized", -10.0, 0.0, &[500, 200, 480], -0.14300371629363995),
    ("logistic", 0.0, 50.0, &[12, 3, 40], 3.6697484157109983),
    ("normalized", 0.0, 50.0, &[12, 3, 40], 3.5687861976343407),
];

#[test]
fn llrs_equal_fastchess_on_a_table_of_counts() {
    let mut worst: f64 = 0.0;
    for &(model, elo0, elo1, counts, expected) in FASTCHESS {
        let model = match model {
            "logistic" => EloModel::Logistic,
            _ => EloModel::Normalized,
        };
        let spec = SprtSpec { elo0, elo1, alpha: 0.05, beta: 0.05, model };
        let tally = Tally { counts: counts.to_vec() };
        let llr = tally.llr(&spec);
        let error = (llr - expected).abs();
        assert!(error < 1e-6, "{model:?} elo0 {elo0} elo1 {elo1} counts {counts:?}: LLR {llr}, fastchess {expected}");
        worst = worst.max(error);
    }
    eprintln!("largest difference from fastchess: {worst:e}");
}

#[test]
fn the_exact_test_needs_104_all_win_pairs_at_elo1_10() {
    // The normal approximation this replaced stopped after 12.
    let spec = SprtSpec::default();
    let mut t = Tally::new(4);
    let mut pairs = 0;
    while t.decide(&spec) == reports::sprt::Decision::Continue {
        t.add(1.0);
        pairs += 1;
        assert!(pairs < 1000);
    }
    assert_eq!(pairs, 104);
    assert_eq!(t.decide(&spec), reports::sprt::Decision::H1);
    let mut even = Tally::new(4);
    for k in 0..4000 {
        even.add([0.5, 0.25, 0.75, 0.5][k % 4]);
    }
    assert_eq!(even.decide(&spec), reports::sprt::Decision::H0, "an even match is not 10 Elo stronger");
}

/// A test's end in fastchess's words, each saying what it rules out and what it does not.
#[test]
fn verdicts_say_what_the_test_accepted() {
    let spec = SprtSpec::parse("elo0=0,elo1=20,alpha=0.05,beta=0.1").unwrap();
    let h1 = Decision::H1.sentence(&spec, "mine");
    assert!(h1.starts_with("H1 accepted: mine is stronger than elo0 = 0") && h1.contains("5%"), "{h1}");
    let h0 = Decision::H0.sentence(&spec, "mine");
    assert!(h0.starts_with("H0 accepted: mine is not elo1 = 20 stronger") && h0.contains("10%"), "{h0}");
    assert!(h0.contains("not ruled out"), "{h0}");
}
