//! One scenario test per rule of `docs/rules/journey.md`: each starts from a precise position
//! set up in YAML and plays the rule through the public API, by action label.

use engine::core::{Game, ParamSource, Seat, resolve_params};
use engine::journey::{Card, Journey, JourneyObservation, Status};

fn start(preset: &str, overrides: &[(&str, &str)], yaml: &str) -> Journey {
    let sources: Vec<ParamSource> =
        overrides.iter().map(|(k, v)| ParamSource::KeyValue { key: k.to_string(), value: v.to_string() }).collect();
    let p = resolve_params(Some(preset), &sources).unwrap();
    let g = Journey::from_scenario(&p, 7, serde_yaml::from_str(yaml).unwrap()).unwrap();
    assert_one_place(&g);
    g
}

/// Every card, and the Joker, in exactly one place.
fn assert_one_place(g: &Journey) {
    assert!(g.census().iter().all(|&n| n == 1), "census {:?}", g.census());
}

fn labels(g: &Journey) -> Vec<String> {
    let mut ids = Vec::new();
    g.legal_actions(&mut ids);
    ids.iter().map(|&a| g.action_label(a)).collect()
}

fn has(g: &Journey, label: &str) -> bool {
    labels(g).iter().any(|l| l == label)
}

fn play(g: &mut Journey, label: &str) {
    let mut ids = Vec::new();
    g.legal_actions(&mut ids);
    let id = ids
        .iter()
        .copied()
        .find(|&a| g.action_label(a) == label)
        .unwrap_or_else(|| panic!("`{label}` is not legal; legal: {:?}", labels(g)));
    g.apply(id).unwrap();
    assert_one_place(g);
}

fn obs(g: &Journey) -> JourneyObservation {
    g.observation(Seat(0))
}

/// The dues being paid, as (seat, what, still owed).
fn dues(o: &JourneyObservation) -> Vec<(u8, String, i16)> {
    o.dues.iter().map(|d| (d.seat, format!("{:?}", d.kind).to_lowercase(), d.owed)).collect()
}

fn c(s: &str) -> Card {
    s.parse().unwrap()
}

fn cards(list: &[&str]) -> Vec<Card> {
    list.iter().map(|s| c(s)).collect()
}

// ----- the turn and the refuge -------------------------------------------------------------

#[test]
fn a_refuge_gives_actions_equal_to_its_value_alternating_from_the_front() {
    let mut g = start(
        "classic",
        &[("travellers", "2")],
        "journey: [Q♥, 2♠]\nsupply: [2♦, 3♦, 4♦]\nsatchels: [[2♣], [3♣]]\nfront: 1",
    );
    assert_eq!(obs(&g).refuge, Some(c("Q♥")));
    assert_eq!(obs(&g).refuge_actions_left, Some(10), "faces give 10");
    assert_eq!(g.to_move(), Some(Seat(1)), "the front acts first");
    play(&mut g, "forage");
    assert_eq!(obs(&g).travellers[1].satchel, cards(&["3♣", "2♦"]));
    assert_eq!(g.to_move(), Some(Seat(0)), "then the next traveller");
    assert_eq!(obs(&g).refuge_actions_left, Some(9));
    assert!(!labels(&g).iter().any(|l| l.starts_with("cache")), "classic has no Cache");
    play(&mut g, "end refuge");
    assert_eq!(obs(&g).passed, cards(&["Q♥"]));
    assert_eq!(obs(&g).adversary, Some(c("2♠")), "the next traveller reveals the next card");
    assert_eq!(obs(&g).front, 0);
}

#[test]
fn forage_needs_room_and_a_supply() {
    let g = start("classic", &[], "journey: [5♥]\nsupply: [2♦]\nsatchels: [[2♣, 3♣, 4♣, 5♣, 6♣, 7♣]]");
    assert!(!has(&g, "forage"), "a full satchel (6, the default limit) cannot forage");
    let g = start("classic", &[], "journey: [5♥]\nsupply: []\nsatchels: [[2♣]]");
    assert!(!has(&g, "forage"), "an empty Supply cannot be foraged");
}

#[test]
fn recover_slides_a_discard_under_the_supply_for_all_to_see() {
    let mut g = start("classic", &[], "journey: [5♥]\nsupply: [2♦]\nsatchels: [[2♣]]\ndiscard: [7♦, 3♠]");
    assert!(!has(&g, "recover 3♠"), "spent adversaries stay in the Discard");
    play(&mut g, "recover 7♦");
    let o = obs(&g);
    assert_eq!(o.supply_bottom, cards(&["7♦"]));
    assert_eq!(o.supply_count, 2);
    assert_eq!(o.discard, cards(&["3♠"]));
    assert_eq!(o.refuge_actions_left, Some(4));
}

#[test]
fn cache_ends_the_refuge_and_the_card_is_dug_up_on_the_way_home() {
    let mut g = start(
        "martian",
        &[("return_journey", "ruins"), ("satchel_limit", "5")],
        "journey: [4♥]\nsupply: []\nsatchels: [[9♦, 2♣, 3♣, 4♣, 5♣, 6♣]]",
    );
    play(&mut g, "cache 9♦");
    // The refuge ended at once; the deck is empty: arrival, the stock-up, the way home.
    let o = obs(&g);
    assert_eq!(o.caches, vec![]);
    assert!(o.travellers[0].satchel.contains(&c("9♦")), "dug up at the 4♥ stop");
    assert_eq!(dues(&o), vec![(0, "toll".to_string(), 4)]);
    play(&mut g, "spend 9♦");
    assert!(g.is_terminal());
    assert_eq!(g.score(), 4, "a paid toll banks the stop's rank; overpayment is lost");
    assert_eq!(g.arrived(), 1);
}

#[test]
fn nothing_is_recovered_by_the_last_action_before_the_martian_stock_up() {
    // The last action of the last refuge: the stock-up that follows removes the powered Aces
    // wherever they are and shuffles the Discard into the Supply, so a recovery would only end
    // the refuge.
    let last = "journey: [A♥]\nsupply: [3♦]\ndiscard: [A♦, 5♣, 7♦]\nsatchels: [[9♦, 2♣]]";
    let g = start("martian", &[("return_journey", "ruins")], last);
    let refuge_of = |g: &engine::journey::Journey| obs(g).refuge_actions_left;
    assert_eq!(refuge_of(&g), Some(11));
    // With actions to spare it may come back by foraging, so it is offered.
    assert!(has(&g, "recover A♦") && has(&g, "recover 5♣"));
    let one_left = "journey: [2♥]\nsupply: []\ndiscard: [A♦, 5♣, 7♦]\nsatchels: [[9♦, 2♣]]";
    let mut g = start("martian", &[("return_journey", "ruins")], one_left);
    play(&mut g, "recover 5♣");
    assert_eq!(refuge_of(&g), Some(1));
    assert!(!labels(&g).iter().any(|l| l.starts_with("recover")), "{:?}", labels(&g));
    // Recovering 7♦ and ending the refuge there would have been one and the same game.
    let mut ended = g.clone();
    play(&mut ended, "end refuge");
    assert_eq!(obs(&ended).supply_count, 0, "the Supply is set aside after the stock-up");
    assert!(obs(&ended).travellers[0].satchel.contains(&c("7♦")), "shuffled in and foraged");
    // Without the way home, or with a Journey card still to come, they are offered.
    for (params, journey) in [(vec![], "[2♥]"), (vec![("return_journey", "ruins")], "[2♥, 9♠]")] {
        let yaml = format!("journey: {journey}\nsupply: []\ndiscard: [A♦, 5♣, 7♦]\nsatchels: [[9♦, 2♣]]");
        let mut g = start("martian", &params, &yaml);
        play(&mut g, "recover 5♣");
        assert_eq!(refuge_of(&g), Some(1));
        assert!(has(&g, "recover A♦") && has(&g, "recover 7♦"), "{params:?} {journey}");
    }
}

#[test]
fn a_power_ace_known_on_top_is_not_foraged_by_the_last_action_before_the_way_home() {
    // Recovered, the A♣ is the Supply's known top; the refuge's last action could forage it,
    // but arrival removes it at once: foraging would only end the refuge.
    let yaml = |supply: &str| format!("journey: [2♥]\nsupply: {supply}\ndiscard: [A♣, 5♣]\nsatchels: [[9♦, 2♣]]");
    let mut g = start("martian", &[("return_journey", "ruins")], &yaml("[]"));
    play(&mut g, "recover A♣");
    assert_eq!(obs(&g).supply_bottom, cards(&["A♣"]));
    assert_eq!(obs(&g).refuge_actions_left, Some(1));
    assert!(!has(&g, "forage"), "the known top is boxed at arrival: a twin of `end refuge`");
    assert!(has(&g, "end refuge"));
    // An unknown card above it, no way home, or a Journey card still to come: offered.
    for (params, journey, supply) in [
        (vec![("return_journey", "ruins")], "[2♥]", "[3♦]"),
        (vec![], "[2♥]", "[]"),
        (vec![("return_journey", "ruins")], "[2♥, 9♠]", "[]"),
    ] {
        let yaml = format!("journey: {journey}\nsupply: {supply}\ndiscard: [A♣, 5♣]\nsatchels: [[9♦, 2♣]]");
        let mut g = start("martian", &params, &yaml);
        play(&mut g, "recover A♣");
        assert_eq!(obs(&g).refuge_actions_left, Some(1));
        assert!(has(&g, "forage"), "{params:?} {journey} {supply}");
    }
}

#[test]
fn only_one_card_may_be_cached_at_a_location() {
    let g = start("martian", &[], "journey: [4♥]\nsupply: []\nsatchels: [[9♦, 2♣]]");
    assert!(has(&g, "cache 2♣"));
    let g2 = start("martian", &[], "journey: [4♥]\nsupply: []\nsatchels: [[9♦, 2♣]]\ncaches: [{refuge: 4♥, card: 3♣}]");
    assert!(!labels(&g2).iter().any(|l| l.starts_with("cache")));
}

// ----- fighting ----------------------------------------------------------------------------

#[test]
fn adversary_health_and_attack_per_edition() {
    let g = start("classic", &[], "journey: [K♠]\nsatchels: [[2♣]]");
    assert_eq!((obs(&g).adversary_health, obs(&g).adversary_attack), (Some(26), Some(13)));
    let g = start("dunwich", &[], "journey: [K♠]\nsatchels: [[2♣]]");
    assert_eq!((obs(&g).adversary_health, obs(&g).adversary_attack), (Some(30), Some(10)));
    let g = start("dunwich", &[], "journey: [7♠]\nsatchels: [[2♣]]");
    assert_eq!((obs(&g).adversary_health, obs(&g).adversary_attack), (Some(21), Some(7)));
}

#[test]
fn a_direct_hit_banks_wreckage_worth_its_attack() {
    let mut g = start("classic", &[], "journey: [5♠]\nsupply: []\nsatchels: [[5♦, 2♣]]");
    play(&mut g, "strike 5♦");
    assert_eq!(obs(&g).wreckage, cards(&["5♠"]));
    assert_eq!(g.score(), 5);
    assert!(g.is_terminal(), "the deck is empty: arrival");
    assert_eq!(g.arrived(), 1);
}

#[test]
fn overkill_defeats_with_nothing_banked() {
    let mut g = start("classic", &[], "journey: [5♠]\nsupply: []\nsatchels: [[6♦]]");
    play(&mut g, "strike 6♦");
    let o = obs(&g);
    assert!(o.wreckage.is_empty());
    assert!(o.discard.contains(&c("5♠")));
    assert_eq!(g.score(), 0);
}

#[test]
fn a_club_strikes_for_its_value_and_the_counter_must_be_covered_or_you_fall() {
    let mut g = start("classic", &[], "journey: [5♠]\nsupply: []\nsatchels: [[3♣, 4♦, 2♣]]");
    play(&mut g, "strike 3♣");
    assert_eq!(obs(&g).adversary_health, Some(7));
    assert_eq!(dues(&obs(&g)), vec![(0, "cover".to_string(), 5)]);
    play(&mut g, "spend 4♦");
    assert_eq!(dues(&obs(&g)), vec![(0, "cover".to_string(), 1)]);
    play(&mut g, "spend 2♣");
    assert!(dues(&obs(&g)).is_empty());
    // Nothing left to act with: pass; the counter cannot be covered: the traveller falls.
    assert_eq!(labels(&g), vec!["pass"]);
    play(&mut g, "pass");
    assert!(g.is_terminal());
    assert_eq!(obs(&g).travellers[0].status, Status::Fallen);
    assert_eq!(g.arrived(), 0);
}

#[test]
fn wreckage_covers_a_counter() {
    let mut g = start("classic", &[], "journey: [5♠]\nsupply: []\nsatchels: [[3♣]]\nwreckage: [9♠]");
    assert_eq!(g.score(), 9);
    play(&mut g, "strike 3♣");
    play(&mut g, "spend wreckage 9♠");
    let o = obs(&g);
    assert!(o.wreckage.is_empty() && dues(&o).is_empty());
    assert_eq!(g.score(), 0);
}

#[test]
fn regroup_plays_a_club_and_takes_another_discard() {
    let mut g = start("classic", &[], "journey: [5♠]\nsupply: []\nsatchels: [[4♣, 2♦]]\ndiscard: [9♦, 3♠]");
    play(&mut g, "regroup with 4♣");
    assert_eq!(labels(&g), vec!["take 9♦"], "not the club just played, not a spent adversary");
    play(&mut g, "take 9♦");
    let o = obs(&g);
    assert_eq!(o.travellers[0].satchel, cards(&["2♦", "9♦"]));
    assert_eq!(o.adversary_health, Some(10), "no damage");
    assert_eq!(dues(&o), vec![(0, "cover".to_string(), 5)]);
}

#[test]
fn flee_discards_a_card_and_reshuffles_the_adversary_with_no_counter() {
    let mut g = start("classic", &[], "journey: [5♠, 3♥]\nsupply: []\nsatchels: [[4♣, 2♦]]");
    play(&mut g, "flee, discarding 4♣");
    let o = obs(&g);
    assert!(dues(&o).is_empty());
    assert_eq!(o.discard, cards(&["4♣"]));
    assert!(o.refuge.is_some() || o.adversary == Some(c("5♠")), "the next card is revealed");
    let in_play = o.journey_cards.iter().chain(o.refuge.iter()).chain(o.adversary.iter()).copied().collect::<Vec<_>>();
    assert!(in_play.contains(&c("5♠")) && in_play.contains(&c("3♥")));
}

#[test]
fn a_fled_adversary_stays_above_the_dunwich_destination() {
    for seed in 0..30 {
        let p = resolve_params(Some("dunwich"), &[]).unwrap();
        let sc = serde_yaml::from_str("journey: [5♠, A♥]\nsupply: []\nsatchels: [[4♣]]").unwrap();
        let mut g = Journey::from_scenario(&p, seed, sc).unwrap();
        play(&mut g, "flee, discarding 4♣");
        assert_eq!(obs(&g).adversary, Some(c("5♠")), "A♥ stays last (seed {seed})");
    }
}

#[test]
fn the_nemesis_per_edition() {
    let g = start("classic", &[], "journey: [A♠]\nsupply: [3♦]\nsatchels: [[4♣, 2♦]]");
    assert_eq!((obs(&g).adversary_health, obs(&g).adversary_attack), (Some(40), Some(20)));
    assert!(!labels(&g).iter().any(|l| l.starts_with("flee") || l.starts_with("hide")), "classic: no flee, no hide");

    let g = start("martian", &[("travellers", "3")], "journey: [A♠]\nsupply: [3♦]\nsatchels: [[4♣], [5♣], [6♣]]");
    assert_eq!(
        (obs(&g).adversary_health, obs(&g).adversary_attack),
        (Some(60), Some(20)),
        "+10 per traveller beyond the first"
    );
    assert!(has(&g, "flee, discarding 4♣") && !has(&g, "hide"), "martian: flee yes, hide no");

    let g = start("dunwich", &[], "journey: [A♠]\nsupply: [3♦]\nsatchels: [[4♣]]");
    assert_eq!((obs(&g).adversary_health, obs(&g).adversary_attack), (Some(33), Some(11)));
    assert!(has(&g, "flee, discarding 4♣") && has(&g, "hide"), "dunwich: hide and flee like any other");
}

// ----- hide ------------------------------------------------------------------------------

#[test]
fn classic_hide_success_grants_a_bonus_forage_and_the_card_goes_under() {
    let mut g = start("classic", &[], "journey: [5♠]\nsupply: [3♦, 9♣]\nsatchels: [[8♣, 2♦]]");
    assert!(has(&g, "hide, nominating 8♣"));
    play(&mut g, "hide, nominating 8♣");
    assert_eq!(obs(&g).supply_bottom, cards(&["3♦"]));
    assert_eq!(labels(&g), vec!["forage", "pass"]);
    play(&mut g, "forage");
    let o = obs(&g);
    assert_eq!(o.travellers[0].satchel, cards(&["8♣", "2♦", "9♣"]));
    assert!(dues(&o).is_empty(), "no counter for the bonus");
    assert!(!labels(&g).iter().any(|l| l.starts_with("hide")), "once per encounter");
    assert!(has(&g, "strike 9♣"), "the fight proceeds with the front's action");
}

#[test]
fn classic_hide_tie_fails_into_an_ambush_on_the_hider() {
    let mut g = start("classic", &[], "journey: [5♠]\nsupply: [8♦, 9♣]\nsatchels: [[8♣, 2♦, 10♣]]");
    play(&mut g, "hide, nominating 8♣");
    let o = obs(&g);
    assert_eq!(dues(&o), vec![(0, "cover".to_string(), 5)], "the adversary strikes at once");
    assert_eq!(o.supply_bottom, cards(&["8♦"]));
    play(&mut g, "spend 10♣");
    assert!(has(&g, "strike 8♣"), "then the fight proceeds");
}

#[test]
fn classic_hide_only_against_rank_two_to_ten() {
    let g = start("classic", &[], "journey: [J♠]\nsupply: [2♦]\nsatchels: [[8♣]]");
    assert!(!labels(&g).iter().any(|l| l.starts_with("hide")));
}

#[test]
fn reveal_chain_hide_keeps_the_card_spares_the_counter_and_gets_harder() {
    let mut g = start("martian", &[], "journey: [9♠]\nsupply: [5♦, 7♣, 3♣]\nsatchels: [[2♣, 10♣, 10♦]]");
    play(&mut g, "hide");
    let o = obs(&g);
    assert!(o.travellers[0].satchel.contains(&c("5♦")), "the reward is kept");
    assert!(dues(&o).is_empty(), "no counter for the hider this round");
    assert!(has(&g, "hide"), "may hide again next round");
    play(&mut g, "hide"); // 7♣ is not below the previous 5♦: an Ambush on the front
    let o = obs(&g);
    assert_eq!(dues(&o), vec![(0, "cover".to_string(), 9)]);
    assert!(o.discard.contains(&c("7♣")));
    play(&mut g, "spend 10♣");
    // The attempt ends; then the hider still fights or flees this round.
    assert_eq!(g.to_move(), Some(Seat(0)));
    assert!(!has(&g, "hide"), "no more hiding in this encounter");
    play(&mut g, "strike 2♣");
    // The counter of this round follows: the failed hider is not spared.
    assert_eq!(dues(&obs(&g)), vec![(0, "cover".to_string(), 9)]);
    play(&mut g, "spend 10♦");
    assert!(!has(&g, "hide"), "no more hiding in this encounter");
}

#[test]
fn reveal_chain_hide_only_below_the_satchel_limit() {
    let g = start("martian", &[], "journey: [9♠]\nsupply: [2♦]\nsatchels: [[2♣, 3♣, 4♣, 5♣, 6♣, 7♣]]");
    assert!(!has(&g, "hide"));
}

#[test]
fn martian_ace_always_reveals_lower_and_dunwich_ace_never() {
    let mut g = start("martian", &[], "journey: [2♠]\nsupply: [A♦]\nsatchels: [[3♣]]");
    play(&mut g, "hide");
    assert!(obs(&g).travellers[0].satchel.contains(&c("A♦")), "martian: an Ace always is lower");
    let mut g = start("dunwich", &[], "journey: [K♠]\nsupply: [A♦]\nsatchels: [[10♣, 10♦]]");
    play(&mut g, "hide");
    assert_eq!(dues(&obs(&g)), vec![(0, "cover".to_string(), 10)], "dunwich: an Ace (14) never is");
}

#[test]
fn a_failed_reveal_chain_hide_ambushes_the_front_not_the_hider() {
    let mut g =
        start("martian", &[("travellers", "2")], "journey: [9♠]\nsupply: [9♦, 2♦]\nsatchels: [[10♣, 10♦], [2♣]]");
    play(&mut g, "strike 10♣"); // the front strikes
    play(&mut g, "hide"); // traveller 1 reveals 9♦: not below 9♠
    assert_eq!(dues(&obs(&g))[0], (0, "cover".to_string(), 9));
}

// ----- the Aces ------------------------------------------------------------------------

#[test]
fn the_reckoning_halves_remaining_health_once_as_a_free_action() {
    let mut g = start("classic", &[], "journey: [K♠]\nsupply: []\nsatchels: [[A♣, 3♣]]");
    play(&mut g, "play the Reckoning (A♣)");
    let o = obs(&g);
    assert_eq!(o.adversary_health, Some(13));
    assert!(o.boxed.contains(&c("A♣")), "once: it leaves the game");
    assert_eq!(g.to_move(), Some(Seat(0)), "free: the traveller still acts");
    assert!(has(&g, "strike 3♣") && !has(&g, "play the Reckoning (A♣)"));
    let mut g = start("classic", &[], "journey: [7♠]\nsupply: []\nsatchels: [[A♣, 3♣]]");
    play(&mut g, "play the Reckoning (A♣)");
    assert_eq!(obs(&g).adversary_health, Some(7), "14 halves to 7; odd health rounds up");
}

#[test]
fn free_actions_are_open_at_any_decision_and_do_not_use_up_the_classic_hide() {
    let mut g = start("classic", &[], "journey: [5♠]\nsupply: [3♦]\nsatchels: [[A♣, 8♣]]");
    play(&mut g, "play the Reckoning (A♣)");
    assert!(has(&g, "hide, nominating 8♣"), "the Reckoning is free: the Hide is still the first decision");
    let mut g =
        start("classic", &[("companions", "true")], "journey: [J♥, 9♠]\nsupply: []\nsatchels: [[10♣, 3♦, 10♦, 2♦]]");
    play(&mut g, "end refuge");
    play(&mut g, "strike 3♦");
    assert_eq!(dues(&obs(&g)), vec![(0, "cover".to_string(), 9)]);
    assert!(has(&g, "play the Deliverance (10♣)"), "free while paying too");
    play(&mut g, "play the Deliverance (10♣)");
    assert_eq!(obs(&g).companion, None);
    assert_eq!(dues(&obs(&g)), vec![(0, "cover".to_string(), 9)], "the due still stands");
}

#[test]
fn the_revelation_strikes_twenty_and_softens_the_counter() {
    let mut g = start("classic", &[], "journey: [K♠]\nsupply: []\nsatchels: [[A♦, 3♣]]");
    play(&mut g, "strike A♦");
    let o = obs(&g);
    assert_eq!(o.adversary_health, Some(6));
    assert_eq!(dues(&o), vec![(0, "cover".to_string(), 3)], "13 − 10");
}

#[test]
fn powered_aces_take_no_room_and_are_worth_zero_or_one_when_spent() {
    let g = start("classic", &[], "journey: [5♥]\nsupply: [2♦]\nsatchels: [[A♣, A♦, 2♣, 3♣, 4♣, 5♣]]");
    assert!(has(&g, "forage"), "four cards and two Aces: room for one more");
    let mut g = start("classic", &[], "journey: [5♠]\nsupply: []\nsatchels: [[A♦, 2♣, 9♣]]");
    play(&mut g, "strike 2♣");
    assert!(!has(&g, "spend A♦"), "classic: an Ace is worth 0 when spent");
    let mut g = start("martian", &[], "journey: [5♠]\nsupply: []\nsatchels: [[A♦, 2♣, 9♣]]");
    play(&mut g, "strike 2♣");
    assert!(has(&g, "spend A♦"), "martian: worth 1");
}

#[test]
fn dunwich_aces_are_ordinary_cards_worth_eleven() {
    let mut g = start("dunwich", &[], "journey: [K♠]\nsupply: []\nsatchels: [[A♦, A♣]]");
    assert!(!has(&g, "play the Reckoning (A♣)"));
    play(&mut g, "strike A♦");
    assert_eq!(obs(&g).adversary_health, Some(8), "30 − 22");
    let g = start("dunwich", &[], "journey: [5♥]\nsupply: [2♦]\nsatchels: [[A♦, A♣, 2♣, 3♣, 4♣, 5♣]]");
    assert!(!has(&g, "forage"), "they take room");
    assert!(has(&g, "cache A♦"), "and may be cached");
}

// ----- allies --------------------------------------------------------------------------

#[test]
fn ally_jack_retrieves_a_same_suit_discard() {
    let mut g = start(
        "classic",
        &[("allies", "true")],
        "journey: [K♠]\nsupply: []\nsatchels: [[J♦, 10♣, 10♦]]\ndiscard: [7♦, 3♣]",
    );
    play(&mut g, "strike J♦");
    assert_eq!(obs(&g).adversary_health, Some(6));
    assert_eq!(labels(&g), vec!["take 7♦"]);
    play(&mut g, "take 7♦");
    assert_eq!(obs(&g).travellers[0].satchel, cards(&["10♣", "10♦", "7♦"]));
}

#[test]
fn ally_queen_reduces_the_counter_by_five() {
    let mut g = start("classic", &[("allies", "true")], "journey: [K♠]\nsupply: []\nsatchels: [[Q♣, 10♦]]");
    play(&mut g, "strike Q♣");
    assert_eq!(dues(&obs(&g)), vec![(0, "cover".to_string(), 8)]);
}

#[test]
fn ally_king_rallies_as_any_rank_for_a_direct_hit() {
    let mut g = start("classic", &[("allies", "true")], "journey: [5♠]\nsupply: []\nsatchels: [[K♦]]");
    assert!(has(&g, "strike K♦") && has(&g, "strike K♦ as 2") && has(&g, "strike K♦ as 5"));
    assert!(
        !has(&g, "strike K♦ as 6"),
        "12 damage defeats the 10 health left with nothing banked, as `strike K♦` does"
    );
    play(&mut g, "strike K♦ as 5");
    assert_eq!(obs(&g).wreckage, cards(&["5♠"]), "5 doubled is exactly 10");
    let g = start("classic", &[], "journey: [5♠]\nsupply: []\nsatchels: [[K♦]]");
    assert!(!has(&g, "strike K♦ as 5"), "only with allies");
}

// ----- companions ----------------------------------------------------------------------

#[test]
fn the_partner_raises_the_satchel_limit() {
    let mut g = start("classic", &[("companions", "true")], "journey: [Q♥, 2♥]\nsupply: [2♦]\nsatchels: [[2♣]]");
    assert_eq!(obs(&g).satchel_limit, 6);
    play(&mut g, "end refuge");
    let o = obs(&g);
    assert_eq!(o.companion, Some(c("Q♥")));
    assert_eq!(o.satchel_limit, 7);
    assert!(o.passed.is_empty(), "a companion is not a stop on the way home");
}

#[test]
fn the_witness_shows_the_top_journey_card() {
    let mut g = start("classic", &[("companions", "true")], "journey: [K♥, 2♥, 7♠]\nsupply: []\nsatchels: [[2♣]]");
    assert_eq!(obs(&g).journey_top, None);
    play(&mut g, "end refuge");
    assert_eq!(obs(&g).refuge, Some(c("2♥")));
    assert_eq!(obs(&g).journey_top, Some(c("7♠")));
}

#[test]
fn only_one_companion_at_a_time() {
    let mut g = start("classic", &[("companions", "true")], "journey: [K♥, Q♥, 2♥]\nsupply: []\nsatchels: [[2♣]]");
    play(&mut g, "end refuge");
    play(&mut g, "end refuge");
    let o = obs(&g);
    assert_eq!(o.companion, Some(c("K♥")));
    assert_eq!(o.passed, cards(&["Q♥"]));
}

#[test]
fn the_burden_lowers_the_limit_forbids_flight_and_leaves_through_an_adversary() {
    let mut g =
        start("classic", &[("companions", "true")], "journey: [J♥, 5♠, 2♥]\nsupply: [3♦]\nsatchels: [[4♣, 2♦, 3♣]]");
    play(&mut g, "end refuge");
    assert_eq!(obs(&g).satchel_limit, 5);
    assert!(!labels(&g).iter().any(|l| l.starts_with("flee")), "no flight with the Burden");
    assert!(has(&g, "hide, nominating 4♣"), "classic: the Burden does not forbid hiding");
    play(&mut g, "be rid of the Burden");
    assert_eq!(dues(&obs(&g)), vec![(0, "discard".to_string(), 2)], "the flee discard plus one further card");
    play(&mut g, "spend 4♣");
    play(&mut g, "spend 2♦");
    let o = obs(&g);
    assert_eq!(o.companion, None);
    assert!(o.boxed.contains(&c("J♥")), "removed from the game");
    assert_eq!(o.travellers[0].satchel, cards(&["3♣"]));
    assert!(o.journey_cards.contains(&c("5♠")) || o.adversary == Some(c("5♠")), "the adversary is reshuffled");
}

#[test]
fn martian_burden_forbids_hiding_and_costs_every_traveller_a_card() {
    let mut g = start(
        "martian",
        &[("companions", "true"), ("travellers", "2")],
        "journey: [J♥, 5♠]\nsupply: [3♦]\nsatchels: [[4♣], [7♣, 8♣]]",
    );
    play(&mut g, "end refuge");
    assert_eq!(g.to_move(), Some(Seat(1)), "traveller 1 is the front now");
    assert!(!has(&g, "hide") && !labels(&g).iter().any(|l| l.starts_with("flee")));
    play(&mut g, "be rid of the Burden");
    assert_eq!(
        dues(&obs(&g)),
        vec![(1, "discard".to_string(), 1), (0, "discard".to_string(), 1), (1, "discardany".to_string(), 1)],
        "every traveller discards one card, plus one further card from any one traveller"
    );
    play(&mut g, "spend 7♣");
    play(&mut g, "spend 4♣");
    assert_eq!(labels(&g), vec!["spend 8♣"], "the further card: from any traveller who still has one");
    play(&mut g, "spend 8♣");
    assert!(obs(&g).travellers.iter().all(|t| t.satchel.is_empty()));
    assert_eq!(obs(&g).companion, None);
}

#[test]
fn the_deliverance_dismisses_the_burden_for_free() {
    let mut g = start("classic", &[("companions", "true")], "journey: [J♥, 5♥]\nsupply: []\nsatchels: [[10♣, 2♦]]");
    play(&mut g, "end refuge");
    assert!(has(&g, "play the Deliverance (10♣)"));
    play(&mut g, "play the Deliverance (10♣)");
    let o = obs(&g);
    assert_eq!(o.companion, None);
    assert_eq!(o.refuge_actions_left, Some(5), "free: no refuge action spent");
    assert!(o.discard.contains(&c("10♣")));
}

#[test]
fn a_queen_or_king_companion_covers_as_ten_and_leaves_with_its_cache() {
    let mut g = start("martian", &[("companions", "true")], "journey: [K♥, 9♠]\nsupply: []\nsatchels: [[5♣, 2♦]]");
    play(&mut g, "cache 2♦");
    assert_eq!(obs(&g).companion, Some(c("K♥")));
    play(&mut g, "strike 5♣");
    assert!(has(&g, "spend the companion as 10"));
    play(&mut g, "spend the companion as 10");
    let o = obs(&g);
    assert!(dues(&o).is_empty() && o.companion.is_none());
    assert!(o.boxed.contains(&c("K♥")) && o.boxed.contains(&c("2♦")), "what was hidden with him is lost");
}

// ----- arrival and the way home --------------------------------------------------------

#[test]
fn arrival_when_the_journey_deck_empties() {
    let g = start("classic", &[("travellers", "2")], "journey: []\nsupply: []\nsatchels: [[2♣], [3♣]]");
    assert!(g.is_terminal());
    assert_eq!(g.arrived(), 2);
    assert_eq!(g.outcome().unwrap().scores, vec![0, 0]);
    assert_eq!(obs(&g).destination, Some(c("A♥")));
}

#[test]
fn dunwich_destination_is_an_eleven_action_refuge_then_the_way_home() {
    let mut g = start("dunwich", &[], "journey: [A♥]\nsupply: [2♦]\nsatchels: [[2♣]]");
    assert_eq!(obs(&g).refuge_actions_left, Some(11));
    assert!(!labels(&g).iter().any(|l| l.starts_with("cache")), "nothing to dig up at the destination");
    play(&mut g, "end refuge");
    // The way home holds only the Joker: home, The Orne Library.
    assert!(g.is_terminal());
    assert_eq!(g.arrived(), 1);
}

#[test]
fn a_toll_per_traveller_from_one_purse_and_a_failed_toll_ends_the_journey() {
    let full = "satchels: [[2♣, 3♣, 2♦, 3♦, 4♣]]";
    let mut g = start(
        "martian",
        &[("return_journey", "ruins"), ("satchel_limit", "5")],
        &format!("journey: []\nsupply: []\npassed: [9♥, 8♥]\n{full}"),
    );
    assert_eq!(dues(&obs(&g)), vec![(0, "toll".to_string(), 8)], "the last refuge passed comes first");
    for card in ["4♣", "3♦", "2♦"] {
        play(&mut g, &format!("spend {card}"));
    }
    assert_eq!(g.score(), 8);
    // 5 left in the purse: the 9 toll cannot be paid.
    assert!(g.is_terminal());
    assert_eq!(obs(&g).travellers[0].status, Status::Stopped);
    assert_eq!(g.arrived(), 0);

    let mut g = start(
        "martian",
        &[("return_journey", "ruins"), ("travellers", "2"), ("satchel_limit", "5")],
        "journey: []\nsupply: []\npassed: [3♥]\nsatchels: [[10♣, 3♣, 2♦, 3♦, 4♣], [2♣, 4♦, 5♦, 6♦, 7♦]]",
    );
    assert_eq!(dues(&obs(&g)).len(), 2, "each traveller owes the toll");
    assert!(has(&g, "spend 7♦"), "from one shared purse");
    play(&mut g, "spend 7♦");
    play(&mut g, "spend 6♦");
    assert!(g.is_terminal());
    assert_eq!(g.arrived(), 2);
    assert_eq!(g.score(), 6);
}

#[test]
fn martian_stock_up_removes_the_spendable_aces_and_fills_satchels() {
    let g = start(
        "martian",
        &[("return_journey", "ruins")],
        "journey: []\nsupply: [2♦, 3♦, 4♦, 5♦, 6♦, 7♦]\ndiscard: [A♣, 9♣, 4♠]\npassed: [2♥]\nsatchels: [[A♦, 8♣]]",
    );
    let o = obs(&g);
    assert!(o.boxed.contains(&c("A♣")) && o.boxed.contains(&c("A♦")));
    assert_eq!(o.travellers[0].satchel.len(), 6);
    assert_eq!(o.supply_count, 0, "the Supply is set aside");
    assert_eq!(o.set_aside.len(), 7 + 1 - 5, "Discard ♦♣ and the Joker joined it");
    assert_eq!(o.discard, cards(&["4♠"]));
}

#[test]
fn ruins_may_be_stripped_for_half_their_worth() {
    let yaml = "journey: []\nsupply: []\npassed: [2♥]\nwreckage: [7♠]\nsatchels: [[10♣, 3♣, 2♦, 3♦, 4♣]]";
    let five = [("return_journey", "ruins"), ("satchel_limit", "5")];
    let mut g = start("martian", &five, yaml);
    assert_eq!(g.score(), 0, "Wreckage became face-down Ruins");
    assert_eq!(obs(&g).offer, Some((c("7♠"), 4)), "half of 7, rounded up");
    play(&mut g, "pay to bank it");
    play(&mut g, "spend 4♣");
    assert_eq!(obs(&g).wreckage, cards(&["7♠"]));
    play(&mut g, "spend 2♦"); // the toll of 2
    assert!(g.is_terminal());
    assert_eq!(g.score(), 7 + 2);

    let mut g = start("martian", &five, yaml);
    play(&mut g, "pass");
    assert!(obs(&g).boxed.contains(&c("7♠")));
    play(&mut g, "spend 2♦");
    assert_eq!(g.score(), 2);
}

#[test]
fn dunwich_shadows_and_the_joker_lie_on_the_way_home() {
    let yaml = "journey: [A♥]\nsupply: []\npassed: [2♥]\nwreckage: [6♠]\nsatchels: [[10♦, 10♣, 9♦, 9♣, J♦]]";
    let mut g = start("dunwich", &[], yaml);
    play(&mut g, "end refuge");
    let mut met_shadow = false;
    while !g.is_terminal() {
        let o = obs(&g);
        if let Some((card, price)) = o.offer {
            assert_eq!((card, price), (c("6♠"), 3));
            met_shadow = true;
            play(&mut g, "pay to bank it");
        } else if has(&g, "shed J♦ to be rid of the Joker") {
            play(&mut g, "shed J♦ to be rid of the Joker");
        } else {
            let first = labels(&g)[0].clone();
            play(&mut g, &first);
        }
    }
    assert!(met_shadow);
    assert_eq!(obs(&g).wreckage, cards(&["6♠"]));
    assert_eq!(g.score(), 6 + 2);
    assert_eq!(g.arrived(), 1);
}

#[test]
fn the_joker_steals_at_every_stop_until_a_face_card_is_shed() {
    let yaml = "journey: []\nsupply: []\npassed: [3♥, 2♥]\nsatchels: [[Joker, J♦, 9♣, 9♦, 8♦]]";
    let mut g = start("martian", &[("return_journey", "ruins")], yaml);
    assert!(obs(&g).joker_active);
    assert_eq!(labels(&g), vec!["shed J♦ to be rid of the Joker", "pass"]);
    let boxed = obs(&g).boxed.len();
    play(&mut g, "pass");
    let o = obs(&g);
    assert_eq!(o.travellers[0].satchel.len(), 4, "a card was stolen");
    assert!(o.travellers[0].satchel.contains(&c("Joker")));
    assert_eq!(o.boxed.len(), boxed + 1, "the stolen card left the game");
    assert_eq!(dues(&o).len(), 1, "then the toll");

    let mut g = start("martian", &[("return_journey", "ruins")], yaml);
    play(&mut g, "shed J♦ to be rid of the Joker");
    let o = obs(&g);
    assert!(!o.joker_active);
    assert!(!o.travellers[0].satchel.contains(&c("Joker")));
    assert_eq!(dues(&o), vec![(0, "toll".to_string(), 2)], "no Joker decision at later stops");
}

#[test]
fn the_martian_joker_robs_only_its_holder_who_alone_can_shed_it() {
    let yaml = "journey: []\nsupply: []\npassed: [2♥]\ncompanion: Q♥\nsatchels: [[K♦, 9♣, 9♦, 8♦, 7♦], [Joker, 2♣, 3♣, 4♣, 5♣]]";
    let mut g = start("martian", &[("return_journey", "ruins"), ("travellers", "2"), ("companions", "true")], yaml);
    assert_eq!(g.to_move(), Some(Seat(1)), "the holder faces the Joker: {}", g.observation_text(Seat(0)));
    assert_eq!(labels(&g), vec!["pass"], "K♦ is another traveller's; no companion buy-off in martian");
    play(&mut g, "pass");
    let o = obs(&g);
    assert_eq!(o.travellers[0].satchel.len(), 5, "the other satchel is untouched");
    assert_eq!(o.travellers[1].satchel.len(), 4);
}

#[test]
fn a_cached_spendable_ace_is_removed_before_the_martian_way_home() {
    let yaml =
        "journey: []\nsupply: []\npassed: [2♥]\ncaches: [{refuge: 2♥, card: A♦}]\nsatchels: [[9♣, 9♦, 8♦, 7♦, 6♦]]";
    let g = start("martian", &[("return_journey", "ruins")], yaml);
    let o = obs(&g);
    assert!(o.boxed.contains(&c("A♦")) && o.caches.is_empty());
    assert!(!o.travellers[0].satchel.contains(&c("A♦")));
}

/// How a finished play ranks among plays of its deal, read as a record would keep it: its
/// outcome and its figures.
fn key(g: &Journey) -> Vec<f64> {
    let outcome = g.outcome().expect("a finished play");
    Journey::play_key(&outcome, &g.metrics())
}

#[test]
fn two_plays_of_a_deal_rank_by_travellers_arrived_then_score_then_cards_cleared() {
    let home = start("classic", &[], "journey: []\nsupply: []\nsatchels: [[2♣]]");
    let rich_home = start("classic", &[], "journey: []\nsupply: []\nsatchels: [[2♣]]\nwreckage: [9♠]");
    let mut fallen = start("classic", &[], "journey: [K♠]\nsupply: []\nsatchels: [[2♣]]\nwreckage: [Q♠]");
    play(&mut fallen, "strike 2♣");
    // Fallen as early, with as much banked, but one more Journey card still ahead.
    let mut fallen_sooner = start("classic", &[], "journey: [K♠, 5♠]\nsupply: []\nsatchels: [[2♣]]\nwreckage: [Q♠]");
    play(&mut fallen_sooner, "strike 2♣");
    assert!(fallen.is_terminal() && fallen_sooner.is_terminal());
    assert_eq!(key(&home), vec![1.0, 0.0, 25.0], "(travellers arrived, score, Journey cards cleared)");
    assert!(key(&rich_home) > key(&home), "the higher score");
    assert!(key(&home) > key(&fallen), "arriving beats a higher score");
    assert_eq!(fallen.score(), fallen_sooner.score());
    assert_eq!(fallen.journey_cleared(), fallen_sooner.journey_cleared() + 1);
    assert!(key(&fallen) > key(&fallen_sooner), "nobody arrived, the same score: the journey that got further");
    assert_eq!(key(&home), key(&home.clone()), "equal keys are a draw");
    // What a record keeps: the figures by name.
    let kept: std::collections::BTreeMap<String, f64> =
        fallen.metrics().iter().map(|m| (m.name.to_string(), m.value)).collect();
    assert_eq!(Journey::play_key(&fallen.outcome().unwrap(), &kept), key(&fallen));
}

#[test]
fn theme_names_follow_the_edition() {
    let g = start("martian", &[], "journey: [A♠]\nsupply: []\nsatchels: [[A♣, 3♣]]");
    assert!(g.observation_text(Seat(0)).contains("the Fighting Machine"));
    assert!(has(&g, "play Terrestrial Bacteria (A♣)"));
    let g = start("dunwich", &[], "journey: [A♠]\nsupply: []\nsatchels: [[3♣]]");
    assert!(g.observation_text(Seat(0)).contains("Yog-Sothoth"));
}

#[test]
fn when_every_traveller_falls_the_journey_is_lost() {
    let mut g = start("classic", &[("travellers", "2")], "journey: [K♠]\nsupply: []\nsatchels: [[2♣], [3♣]]");
    play(&mut g, "strike 2♣");
    play(&mut g, "strike 3♣");
    assert!(g.is_terminal(), "neither can cover 13");
    assert_eq!(g.arrived(), 0);
    assert!(obs(&g).travellers.iter().all(|t| t.status == Status::Fallen));
}

// ----- the rules review (issue 6): each of these failed before it -------------------------

#[test]
fn a_traveller_who_cannot_act_in_a_refuge_passes_the_action_on() {
    // The front's satchel is full and nothing can be recovered: before, `end refuge` was the
    // only choice, and it threw away the other traveller's actions.
    let full = "[2♣, 3♣, 4♣, 5♣, 6♣, 7♣]";
    let mut g = start(
        "classic",
        &[("travellers", "2")],
        &format!("journey: [3♥, 9♠]\nsupply: [2♦, 3♦, 4♦]\nsatchels: [{full}, [8♣]]"),
    );
    assert_eq!(labels(&g), vec!["pass", "end refuge"]);
    play(&mut g, "pass");
    let o = obs(&g);
    assert_eq!(g.to_move(), Some(Seat(1)), "the next traveller takes the same action");
    assert_eq!(o.refuge_actions_left, Some(3), "a passed action is not spent");
    assert_eq!(o.refuge_passes, Some(1));
    assert!(!has(&g, "pass"), "passing never goes round in a circle: the other traveller just passed");
    play(&mut g, "forage");
    assert_eq!(g.to_move(), Some(Seat(0)));
    assert_eq!(obs(&g).refuge_actions_left, Some(2));
    play(&mut g, "pass");
    play(&mut g, "forage");
    play(&mut g, "pass");
    play(&mut g, "forage");
    let o = obs(&g);
    assert_eq!(o.travellers[1].satchel, cards(&["8♣", "2♦", "3♦", "4♦"]), "every action was used");
    assert_eq!(o.adversary, Some(c("9♠")), "the refuge ended with its last action");
    // A traveller who could act may pass too ("cannot or will not"); solo there is no one to
    // pass to, so `pass` would be `end refuge` again and is not offered.
    let g = start("classic", &[("travellers", "2")], "journey: [3♥]\nsupply: [2♦]\nsatchels: [[2♣], [3♣]]");
    assert!(has(&g, "forage") && has(&g, "pass"));
    let g = start("classic", &[], &format!("journey: [3♥]\nsupply: [2♦]\nsatchels: [{full}]"));
    assert_eq!(labels(&g), vec!["end refuge"]);
}

#[test]
fn a_failed_hide_does_not_use_up_the_rounds_action_in_any_edition() {
    for preset in ["martian", "dunwich"] {
        // 9♦ does not rank below 9♠: an Ambush on the front.
        let mut g = start(preset, &[], "journey: [9♠]\nsupply: [9♦]\nsatchels: [[10♣, 10♦, 3♣]]");
        play(&mut g, "hide");
        assert_eq!(dues(&obs(&g)), vec![(0, "cover".to_string(), 9)], "{preset}: the adversary strikes at once");
        play(&mut g, "spend 10♣");
        assert!(dues(&obs(&g)).is_empty(), "{preset}: the counter does not follow the ambush at once");
        assert_eq!(g.to_move(), Some(Seat(0)));
        assert!(has(&g, "strike 3♣") && has(&g, "flee, discarding 3♣"), "{preset}: then you fight or flee");
        play(&mut g, "strike 3♣");
        assert_eq!(dues(&obs(&g)), vec![(0, "cover".to_string(), 9)], "{preset}: then the round's counter");
    }
    // classic: the round proceeds as normal after the ambush, with the hider's action.
    let mut g = start("classic", &[], "journey: [5♠]\nsupply: [9♦]\nsatchels: [[8♣, 10♣, 2♦]]");
    play(&mut g, "hide, nominating 8♣");
    play(&mut g, "spend 10♣");
    assert!(dues(&obs(&g)).is_empty() && has(&g, "strike 2♦"));
}

#[test]
fn hiding_is_never_forced() {
    // An empty satchel: no Strike, Regroup or Flee. Hide is possible, and so is Pass.
    let g = start("martian", &[], "journey: [9♠]\nsupply: [2♦]\nsatchels: [[]]");
    assert_eq!(labels(&g), vec!["pass", "hide"]);
    let g = start("dunwich", &[], "journey: [9♠]\nsupply: [2♦]\nsatchels: [[]]");
    assert_eq!(labels(&g), vec!["pass", "hide"]);
}

#[test]
fn classic_successful_hide_spares_the_hider_that_rounds_counter() {
    let mut g = start("classic", &[], "journey: [5♠]\nsupply: [3♦, 9♣]\nsatchels: [[8♣, 2♦, 2♣, 10♦]]");
    play(&mut g, "hide, nominating 8♣");
    assert_eq!(obs(&g).spared, vec![0]);
    play(&mut g, "forage");
    play(&mut g, "strike 2♦");
    assert_eq!(obs(&g).adversary_health, Some(6));
    assert!(dues(&obs(&g)).is_empty(), "no counter that time");
    assert!(obs(&g).spared.is_empty(), "only that round");
    play(&mut g, "strike 2♣");
    assert_eq!(dues(&obs(&g)), vec![(0, "cover".to_string(), 5)], "the next round's counter strikes");
}

#[test]
fn classic_only_the_first_heart_face_ever_joins() {
    let yaml = "journey: [J♥, Q♥, 2♥]\nsupply: []\nsatchels: [[10♣, 2♦]]";
    for (preset, joins) in [("classic", false), ("martian", true), ("dunwich", true)] {
        let mut g = start(preset, &[("companions", "true")], yaml);
        play(&mut g, "end refuge");
        assert_eq!(obs(&g).companion, Some(c("J♥")), "{preset}: the first ♥ face joins");
        play(&mut g, "play the Deliverance (10♣)");
        play(&mut g, "end refuge");
        let o = obs(&g);
        assert!(o.companion_joined);
        assert_eq!(o.companion, joins.then(|| c("Q♥")), "{preset}");
        assert_eq!(o.passed.contains(&c("Q♥")), !joins, "{preset}: a face that does not join is passed");
    }
    // A parameter: classic with one at a time.
    let mut g = start("classic", &[("companions", "true"), ("companion_joins", "one_at_a_time")], yaml);
    play(&mut g, "end refuge");
    play(&mut g, "play the Deliverance (10♣)");
    play(&mut g, "end refuge");
    assert_eq!(obs(&g).companion, Some(c("Q♥")));
}

#[test]
fn the_satchel_limit_is_six_in_every_edition() {
    for preset in ["classic", "martian", "dunwich"] {
        let g = start(preset, &[], "journey: [5♥]");
        let o = obs(&g);
        assert_eq!(o.satchel_limit, 6, "{preset}");
        assert_eq!(o.travellers[0].satchel.len(), 6, "{preset}: setup forages until the satchel is full");
    }
    let g = start("classic", &[("satchel_limit", "4")], "journey: [5♥]");
    assert_eq!(obs(&g).travellers[0].satchel.len(), 4, "still a parameter");
}

#[test]
fn the_observation_shows_what_the_table_knows() {
    // Reveal-chain: the bar, the spared hider, then the failed hide.
    let mut g =
        start("martian", &[("travellers", "2")], "journey: [9♠]\nsupply: [5♦, 7♣]\nsatchels: [[2♣, 10♣], [3♣, 10♦]]");
    assert_eq!((obs(&g).hide_bar, obs(&g).hide_failed, obs(&g).hide_open), (Some(9), Some(false), None));
    play(&mut g, "hide");
    let o = g.observation(Seat(1));
    assert_eq!((o.hide_bar, o.spared.clone()), (Some(5), vec![0]), "the next reveal must rank below 5♦");
    assert!(g.observation_text(Seat(1)).contains("the next reveal must rank below 5"));
    assert!(g.observation_text(Seat(1)).contains("this round's counter spares traveller 0"));
    play(&mut g, "hide");
    assert_eq!(obs(&g).hide_failed, Some(true));
    // classic: whether the Hide is still open.
    let g = start("classic", &[], "journey: [5♠]\nsupply: [3♦]\nsatchels: [[8♣]]");
    assert_eq!((obs(&g).hide_open, obs(&g).hide_bar), (Some(true), None));
    // The stop being visited, during its tolls.
    let mut g = start(
        "martian",
        &[("return_journey", "ruins"), ("satchel_limit", "5")],
        "journey: []\nsupply: []\npassed: [9♥, 8♥]\nsatchels: [[2♣, 3♣, 2♦, 3♦, 4♣]]",
    );
    assert_eq!(obs(&g).stop, Some(c("8♥")));
    assert!(g.observation_text(Seat(0)).contains("at the stop 8♥ (toll 8)"));
    play(&mut g, "spend 4♣");
    assert_eq!(obs(&g).stop, Some(c("8♥")));
    // Text: the dunwich A♥ at the bottom, deck and Supply contents, the box; "1 card".
    let g = start("dunwich", &[], "journey: [7♠, A♥]\nsupply: [2♦]\nsatchels: [[3♣]]");
    let text = g.observation_text(Seat(0));
    assert!(text.contains("journey deck: 1 card, A♥ (Sentinel Hill) at the bottom: A♥"), "{text}");
    assert!(text.contains("supply: 1 card: 2♦"), "{text}");
    assert!(text.contains("out of the game:"), "{text}");
    assert!(!text.contains("1 cards"), "{text}");
    // The martian set-aside Supply.
    let g = start(
        "martian",
        &[("return_journey", "ruins")],
        "journey: []\nsupply: [2♦, 3♦]\npassed: [2♥]\nsatchels: [[9♦, 8♦, 7♦, 6♦, 5♦, 4♦]]",
    );
    assert!(g.observation_text(Seat(0)).contains("supply set aside: 2♦ 3♦ Joker"), "{}", g.observation_text(Seat(0)));
}

#[test]
fn no_two_actions_have_the_same_effect() {
    // A King rallying as 10 is the King's own strike; so is any rally past the health left.
    let g = start("classic", &[("allies", "true")], "journey: [K♠]\nsupply: []\nsatchels: [[K♣]]");
    assert!(has(&g, "strike K♣") && has(&g, "strike K♣ as 9") && !has(&g, "strike K♣ as 10"));
    let g = start("classic", &[("allies", "true")], "journey: [3♠]\nsupply: []\nsatchels: [[K♣]]");
    let strikes: Vec<String> = labels(&g).into_iter().filter(|l| l.starts_with("strike")).collect();
    assert_eq!(
        strikes,
        vec!["strike K♣", "strike K♣ as 2", "strike K♣ as 3", "strike K♣ as 4", "strike K♣ as 5", "strike K♣ as 6"]
    );
    // The nominee of a classic Hide is not spent: two 8s nominate alike.
    let g = start("classic", &[], "journey: [5♠]\nsupply: [3♦]\nsatchels: [[8♣, 8♦, 3♣]]");
    let hides: Vec<String> = labels(&g).into_iter().filter(|l| l.starts_with("hide")).collect();
    assert_eq!(hides, vec!["hide, nominating 8♣", "hide, nominating 3♣"]);
    // ... and so do an 8 and a 9 when no 8 can come up from the Supply.
    let g = start("classic", &[], "journey: [5♠]\nsupply: [3♦, 10♣]\nsatchels: [[8♣, 9♦, 3♣]]");
    let hides: Vec<String> = labels(&g).into_iter().filter(|l| l.starts_with("hide")).collect();
    assert_eq!(hides, vec!["hide, nominating 8♣", "hide, nominating 3♣"]);
    // A power Ace is never cached (removed before the way home, it would only be lost).
    let g = start("martian", &[("return_journey", "ruins")], "journey: [4♥, 5♠]\nsupply: []\nsatchels: [[A♦, 2♣]]");
    assert!(has(&g, "cache 2♣") && !has(&g, "cache A♦"));
}

#[test]
fn an_illegal_themed_action_is_named_with_its_theme() {
    let mut g = start("martian", &[], "journey: [5♥]\nsupply: []\nsatchels: [[A♣, 3♣]]");
    let id = engine::journey::Action::Reckoning.id();
    let e = g.apply(id).unwrap_err().to_string();
    assert!(e.contains("Terrestrial Bacteria"), "{e}");
    let info = engine::core::ParamFields::describe(&engine::journey::JourneyParams::martian());
    let riddance = info.iter().find(|p| p.name == "burden_riddance").unwrap();
    assert!(riddance.doc.contains("any one traveller"), "{}", riddance.doc);
}

#[test]
fn how_far_a_journey_got_is_reported() {
    let metric = |g: &Journey, name: &str| g.metrics().into_iter().find(|m| m.name == name).map(|m| m.value);
    // The destination reached, two stops paid, then stopped at the third (10) for want of a
    // purse.
    let mut g = start(
        "martian",
        &[("return_journey", "ruins"), ("satchel_limit", "5")],
        "journey: []\nsupply: []\npassed: [10♥, 3♥, 2♥]\nsatchels: [[2♣, 3♣, 2♦, 3♦, 4♣]]",
    );
    play(&mut g, "spend 2♣");
    play(&mut g, "spend 3♣");
    assert!(g.is_terminal());
    assert_eq!(metric(&g, "arrived"), Some(0.0));
    assert_eq!(metric(&g, "reached_destination"), Some(1.0));
    assert_eq!(metric(&g, "stops_paid"), Some(2.0));
    // Fallen before the destination.
    let mut g = start("dunwich", &[], "journey: [K♠, A♥]\nsupply: []\nsatchels: [[2♣]]");
    play(&mut g, "strike 2♣");
    assert_eq!((metric(&g, "reached_destination"), metric(&g, "stops_paid")), (Some(0.0), Some(0.0)));
    // No way home: only `arrived` tells.
    let g = start("classic", &[], "journey: []\nsupply: []\nsatchels: [[2♣]]");
    assert_eq!(metric(&g, "reached_destination"), None);
}

/// The `hide:` line of a seat's text, if any.
fn hide_line(g: &Journey, seat: u8) -> String {
    let text = g.observation_text(Seat(seat));
    text.lines().find(|l| l.trim_start().starts_with("hide:")).unwrap_or("").trim().to_string()
}

fn hides(g: &Journey) -> bool {
    labels(g).iter().any(|l| l.starts_with("hide"))
}

#[test]
fn the_text_says_truly_why_hiding_is_closed_in_every_edition() {
    // classic: never against J/Q/K, and nothing was spent.
    for face in ["J♠", "Q♠", "K♠"] {
        let g = start("classic", &[], &format!("journey: [{face}]\nsupply: [2♦]\nsatchels: [[8♣]]"));
        assert!(!hides(&g));
        let line = hide_line(&g, 0);
        assert_eq!(line, "hide: not against a face card (J/Q/K): only against an adversary of rank 2–10", "{face}");
    }
    // The Nemesis: forbidden in classic and martian, open in dunwich.
    let g = start("classic", &[], "journey: [A♠]\nsupply: [3♦]\nsatchels: [[4♣, 2♦]]");
    assert!(!hides(&g));
    assert_eq!(hide_line(&g, 0), "hide: hiding from the Nemesis is forbidden");
    let g = start("martian", &[], "journey: [A♠]\nsupply: [3♦]\nsatchels: [[4♣]]");
    assert!(!hides(&g));
    assert_eq!(hide_line(&g, 0), "hide: hiding from the Fighting Machine is forbidden");
    let g = start("dunwich", &[], "journey: [A♠]\nsupply: [3♦]\nsatchels: [[4♣]]");
    assert!(hides(&g));
    assert_eq!(hide_line(&g, 0), "hide: the next reveal must rank below 14");
    // martian: an Ace always reveals lower.
    let g = start("martian", &[], "journey: [9♠]\nsupply: [3♦]\nsatchels: [[4♣]]");
    assert!(hides(&g));
    assert_eq!(hide_line(&g, 0), "hide: the next reveal must rank below 9 (an Ace always does)");
    // The reveal chain only below the satchel limit.
    let g = start("martian", &[], "journey: [9♠]\nsupply: [2♦]\nsatchels: [[2♣, 3♣, 4♣, 5♣, 6♣, 7♣]]");
    assert!(!hides(&g));
    assert!(hide_line(&g, 0).ends_with("; you may not: your satchel is at its limit"), "{}", hide_line(&g, 0));
    // An empty Supply: nothing to reveal, in either form.
    for preset in ["classic", "martian", "dunwich"] {
        let g = start(preset, &[], "journey: [5♠]\nsupply: []\nsatchels: [[8♣]]");
        assert!(!hides(&g), "{preset}");
        assert_eq!(hide_line(&g, 0), "hide: the Supply is empty: no card to reveal", "{preset}");
    }
    // classic: open, then no nominee, then past the front's first decision.
    let mut g = start("classic", &[], "journey: [5♠]\nsupply: [3♦, 9♣]\nsatchels: [[8♣, 2♦]]");
    assert!(hides(&g));
    assert_eq!(hide_line(&g, 0), "hide: the front may still hide");
    play(&mut g, "strike 8♣");
    assert!(!hides(&g));
    assert_eq!(hide_line(&g, 0), "hide: no longer: a Hide is only the front's first decision of an encounter");
    let g = start("classic", &[], "journey: [5♠]\nsupply: [3♦]\nsatchels: [[J♦]]");
    assert!(!hides(&g));
    assert_eq!(hide_line(&g, 0), "hide: the front has no card of rank 2–10 to nominate");
    // martian and dunwich: the Burden forbids hiding; classic's does not.
    for preset in ["martian", "dunwich"] {
        let mut g = start(preset, &[("companions", "true")], "journey: [J♥, 5♠]\nsupply: [3♦]\nsatchels: [[4♣]]");
        play(&mut g, "end refuge");
        assert!(!hides(&g), "{preset}");
        assert_eq!(hide_line(&g, 0), "hide: not while the Burden (J♥) travels with the group", "{preset}");
    }
    // A failed reveal: no more hiding this encounter.
    let mut g = start("dunwich", &[], "journey: [5♠]\nsupply: [9♦, 2♦]\nsatchels: [[10♣, 10♦]]");
    play(&mut g, "hide");
    assert!(hide_line(&g, 0).starts_with("hide: a hide failed: no more hiding this encounter"), "{}", hide_line(&g, 0));
}
