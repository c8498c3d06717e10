//! Scenario tests of `expedition`: one rule at a time, from precise positions written in YAML.

use engine::core::{ActionError, Game, GameParams, ParamSource, Seat, resolve_params};
use engine::expedition::{
    Action, Content, ContentRef, DiscoveryRule, Expedition, ExpeditionParams, Face, Returning, Scenario, Step,
    TileKind, Tool,
};
use engine::find_game;

// ---- helpers ---------------------------------------------------------------------------------

fn dice(players: usize) -> ExpeditionParams {
    ExpeditionParams::dice_game().with_players(players)
}

fn no_dice(players: usize) -> ExpeditionParams {
    ExpeditionParams::no_dice().with_players(players)
}

fn scenario(params: &ExpeditionParams, yaml: &str) -> Expedition {
    let sc: Scenario = serde_yaml::from_str(yaml).unwrap_or_else(|e| panic!("scenario YAML: {e}\n{yaml}"));
    Expedition::from_scenario(params, 7, sc).unwrap_or_else(|e| panic!("scenario: {e}\n{yaml}"))
}

fn scenario_err(params: &ExpeditionParams, yaml: &str) -> String {
    let sc: Scenario = serde_yaml::from_str(yaml).expect("scenario YAML");
    Expedition::from_scenario(params, 7, sc).expect_err("the scenario is refused")
}

fn tile(g: &Expedition, name: &str) -> u8 {
    g.content().tile_id(name).unwrap_or_else(|| panic!("no tile {name}"))
}

fn card(g: &Expedition, name: &str) -> u8 {
    g.content().cards.iter().position(|c| c.name == name).unwrap_or_else(|| panic!("no card {name}")) as u8
}

fn legal(g: &Expedition) -> Vec<Action> {
    let mut v = Vec::new();
    g.legal_actions(&mut v);
    v.into_iter().map(|id| Action::from_id(id, g.content().tiles.len()).expect("a legal id decodes")).collect()
}

fn act(g: &mut Expedition, a: Action) {
    if let Err(e) = g.apply(a.id()) {
        panic!("{a:?} refused: {e}; legal: {:?}", legal(g));
    }
}

fn complete(g: &Expedition, name: &str, torch: Option<Tool>) -> Action {
    Action::Complete { tile: tile(g, name), torch }
}

fn complete_tile(g: &mut Expedition, name: &str, torch: Option<Tool>) {
    let a = complete(g, name, torch);
    act(g, a);
}

fn tools(g: &Expedition, seat: usize) -> [u8; 4] {
    g.player(seat).tools
}

fn torches(g: &Expedition) -> Vec<bool> {
    (0..g.seats()).map(|s| g.player(s).torch_lit).collect()
}

fn hands(g: &Expedition, seat: usize) -> u32 {
    g.player(seat).cards.count_ones()
}

/// A Headquarters that uses compass 3, rope 2, map 2, shovel 1.
const HQ: &str = "
hq:
  - { tile: Golden Idol, tools: [compass, rope] }
  - { tile: Jade Mask, tools: [map, shovel] }
  - { tile: Temple of Dawn, tools: [compass, compass] }
  - { tile: Star Chart, tools: [rope, map] }
";

// ---- the die ----------------------------------------------------------------------------------

#[test]
fn the_three_die_faces_are_equally_likely() {
    let mut counts = [0u32; 3];
    for seed in 0..3000 {
        let mut g = Expedition::new(&dice(2), seed);
        assert_eq!(legal(&g), vec![Action::Roll], "the roll is mandatory and comes first");
        act(&mut g, Action::Roll);
        counts[g.die().expect("the die shows a face") as usize] += 1;
    }
    for c in counts {
        assert!((880..=1120).contains(&c), "faces {counts:?} are not equally likely");
    }
}

#[test]
fn die_tool_draws_a_token_into_the_backpack() {
    let mut g = scenario(
        &dice(2),
        &format!(
            "first_player: 0\nstep: rolled\ndie: tool\nbag: {{shovel: 4}}\nplayers: [{{tools: {{compass: 2}}}}, {{}}]\n{HQ}"
        ),
    );
    assert_eq!(tools(&g, 0), [2, 0, 0, 0], "the face acts once the roller keeps it");
    act(&mut g, Action::KeepRoll);
    assert_eq!(tools(&g, 0), [2, 0, 0, 1]);
    assert_eq!(g.bag(), [0, 0, 0, 3]);
    assert_eq!(g.step(), Step::Action);
}

#[test]
fn die_tool_with_a_full_backpack_lets_the_player_choose_what_goes_back() {
    let yaml = format!(
        "first_player: 0\nstep: rolled\ndie: tool\nbag: {{shovel: 4}}\nplayers: [{{tools: {{compass: 3, rope: 3}}}}, {{}}]\n{HQ}"
    );
    let mut g = scenario(&dice(2), &yaml);
    act(&mut g, Action::KeepRoll);
    assert_eq!(tools(&g, 0), [3, 3, 0, 1], "the token is drawn first");
    assert_eq!(
        legal(&g),
        vec![Action::ReturnTool(Tool::Compass), Action::ReturnTool(Tool::Rope), Action::ReturnTool(Tool::Shovel)]
    );
    assert_eq!(g.observation(Seat(0)).returning, Some(Returning::Tool));
    // The token just drawn may go back...
    let mut a = g.clone();
    act(&mut a, Action::ReturnTool(Tool::Shovel));
    assert_eq!(tools(&a, 0), [3, 3, 0, 0]);
    assert_eq!(a.bag(), [0, 0, 0, 4]);
    assert_eq!(a.step(), Step::Action);
    assert!(legal(&a).contains(&Action::TakeColumn(0)));
    // ...or any other.
    let mut b = g.clone();
    act(&mut b, Action::ReturnTool(Tool::Compass));
    assert_eq!(tools(&b, 0), [2, 3, 0, 1]);
    assert_eq!(b.bag(), [1, 0, 0, 3]);
}

#[test]
fn die_torch_flips_every_torch_including_the_roller() {
    let mut g = scenario(
        &dice(3),
        "first_player: 0\nto_move: 1\nstep: rolled\ndie: torch\nplayers: [{torch: true}, {torch: false}, {torch: true}]",
    );
    act(&mut g, Action::KeepRoll);
    assert_eq!(torches(&g), vec![false, true, false]);
    assert_eq!(g.step(), Step::Action);
}

#[test]
fn die_coin_is_one_more_point_for_every_tile_completed_this_turn() {
    let base = "first_player: 0
players:
  - { character: Dario the Digger, tiles: [Golden Idol, Jade Mask], tools: {compass: 2, rope: 1, map: 1} }
  - {}
";
    let mut with_coin = scenario(&dice(2), &format!("{base}step: rolled\ndie: coin\n"));
    act(&mut with_coin, Action::KeepRoll);
    assert_eq!(with_coin.observation(Seat(0)).coin_bonus, 1);
    act(&mut with_coin, Action::TakeTop);
    complete_tile(&mut with_coin, "Golden Idol", None);
    assert_eq!(with_coin.player(0).score, 5);
    complete_tile(&mut with_coin, "Jade Mask", None);
    assert_eq!(with_coin.player(0).score, 10);

    let mut without = scenario(&dice(2), &format!("{base}step: rolled\ndie: torch\n"));
    // The torch face puts the torch out; complete with tokens.
    act(&mut without, Action::KeepRoll);
    act(&mut without, Action::TakeTop);
    complete_tile(&mut without, "Golden Idol", None);
    complete_tile(&mut without, "Jade Mask", None);
    assert_eq!(without.player(0).score, 8);
}

#[test]
fn base_game_dice_card_may_set_any_face_right_after_the_roll() {
    let yaml = format!(
        "first_player: 0\nstep: rolled\ndie: tool\nbag: {{shovel: 4}}\nplayers: [{{cards: [Dice card]}}, {{}}]\n{HQ}"
    );
    let g = scenario(&dice(2), &yaml);
    assert_eq!(g.step(), Step::Rolled, "the holder decides before the face acts");
    assert_eq!(tools(&g, 0), [0, 0, 0, 0]);
    assert_eq!(legal(&g), vec![Action::KeepRoll, Action::SetFace(Face::Torch), Action::SetFace(Face::Coin)]);
    let deck = g.deck().len();

    let mut set = g.clone();
    act(&mut set, Action::SetFace(Face::Coin));
    assert_eq!(set.die(), Some(Face::Coin));
    assert_eq!(set.observation(Seat(0)).coin_bonus, 1);
    assert_eq!(tools(&set, 0), [0, 0, 0, 0], "the tool face no longer acts");
    assert_eq!(hands(&set, 0), 0);
    assert_eq!(set.deck().len(), deck + 1, "the discarded card is shuffled back into the deck");
    assert!(set.deck().contains(&card(&set, "Dice card")));

    let mut keep = g.clone();
    act(&mut keep, Action::KeepRoll);
    assert_eq!(tools(&keep, 0), [0, 0, 0, 1]);
    assert_eq!(hands(&keep, 0), 1, "a kept Dice card stays in hand (1 point at the end)");
}

#[test]
fn base_game_dice_card_is_only_used_after_the_holders_roll() {
    let g = scenario(&dice(2), "first_player: 0\nstep: action\nplayers: [{cards: [Dice card]}, {}]");
    let l = legal(&g);
    assert!(!l.iter().any(|a| matches!(a, Action::DiceDraw | Action::DiceRelight | Action::DiceCoin)));
}

#[test]
fn forgotten_roll_is_an_option_that_puts_a_lit_torch_out() {
    let g = scenario(&dice(2), "first_player: 0\nstep: roll");
    assert_eq!(legal(&g), vec![Action::Roll], "off by default");
    let mut p = dice(2);
    p.forgotten_roll = true;
    let mut g = scenario(&p, "first_player: 0\nstep: roll");
    assert_eq!(legal(&g), vec![Action::Roll, Action::SkipRoll]);
    act(&mut g, Action::SkipRoll);
    assert!(!g.player(0).torch_lit);
    assert!(g.player(1).torch_lit, "only the own torch goes out");
    assert_eq!(g.die(), None);
    assert_eq!(g.step(), Step::Action);
}

// ---- preparing an expedition: columns, restock, limits -----------------------------------------

#[test]
fn taking_a_column_takes_tile_and_tools_then_restocks_from_pile_and_bag() {
    let mut g = scenario(
        &dice(2),
        &format!("first_player: 0\nstep: action\npile: [Sunken City, Moon Oasis]\nbag: {{map: 3}}\n{HQ}"),
    );
    assert_eq!(g.action_label(Action::TakeColumn(1).id()), "take column 2 (Jade Mask, map+shovel)");
    act(&mut g, Action::TakeColumn(1));
    let p = g.player(0);
    assert_eq!(p.tiles.as_slice(), &[tile(&g, "Jade Mask")]);
    assert_eq!(p.tools, [0, 0, 1, 1]);
    let hq = g.hq();
    assert_eq!(hq[1].0, Some(tile(&g, "Sunken City")), "the top tile of the pile");
    assert_eq!(hq[1].1, [Some(Tool::Map), Some(Tool::Map)], "two tokens drawn from the bag");
    assert_eq!(g.bag(), [0, 0, 1, 0]);
    assert_eq!(g.pile(), &[tile(&g, "Moon Oasis")]);
    assert_eq!(g.observation(Seat(1)).pile_top_is_place, Some(true), "the back of the top tile shows");
    assert_eq!((g.current(), g.step()), (1, Step::Roll), "preparing ends the turn");
}

#[test]
fn restock_with_an_empty_pile_leaves_the_tile_space_empty() {
    let mut g = scenario(&dice(2), &format!("first_player: 0\nstep: action\npile: []\nbag: {{rope: 2}}\n{HQ}"));
    assert_eq!(g.observation(Seat(0)).pile_top_is_place, None);
    act(&mut g, Action::TakeColumn(1));
    let hq = g.hq();
    assert_eq!(hq[1].0, None);
    assert_eq!(hq[1].1, [Some(Tool::Rope), Some(Tool::Rope)]);
    // Seat 1 may still take the tools of that column.
    act(&mut g, Action::Roll);
    while g.step() != Step::Action || g.current() != 1 {
        let a = legal(&g)[0];
        act(&mut g, a);
    }
    assert!(legal(&g).contains(&Action::TakeColumn(1)));
}

#[test]
fn restock_with_an_empty_bag_leaves_the_tool_spaces_empty() {
    let mut g = scenario(&no_dice(2), &format!("first_player: 0\nstep: action\npile: [Sunken City]\nbag: {{}}\n{HQ}"));
    act(&mut g, Action::TakeColumn(1));
    let hq = g.hq();
    assert_eq!(hq[1], (Some(tile(&g, "Sunken City")), [None, None]));
    // With both empty, the column is empty and cannot be taken.
    let mut g = scenario(&no_dice(2), &format!("first_player: 0\nstep: action\npile: []\nbag: {{}}\n{HQ}"));
    act(&mut g, Action::TakeColumn(1));
    assert_eq!(g.hq()[1], (None, [None, None]));
    act(&mut g, Action::EndTurn);
    assert_eq!(g.current(), 1);
    assert!(!legal(&g).contains(&Action::TakeColumn(1)));
    assert!(legal(&g).contains(&Action::TakeColumn(0)));
}

#[test]
fn over_the_limits_tiles_go_under_the_pile_and_tools_to_the_bag_chosen_by_the_player() {
    let yaml = format!(
        "first_player: 0\nstep: action\npile: [Sunken City, Lost Library]\nbag: {{map: 5}}
players:
  - {{ tiles: [Moon Oasis, Serpent Staff, Ruby Scarab], tools: {{shovel: 5}} }}
  - {{}}
{HQ}"
    );
    let mut g = scenario(&dice(2), &yaml);
    act(&mut g, Action::TakeColumn(2)); // Temple of Dawn, compass+compass
    assert_eq!(g.current(), 0, "the excess goes back before the turn ends");
    let temple = tile(&g, "Temple of Dawn");
    assert_eq!(
        legal(&g),
        ["Moon Oasis", "Serpent Staff", "Ruby Scarab", "Temple of Dawn"]
            .iter()
            .map(|n| Action::ReturnTile(tile(&g, n)))
            .collect::<Vec<_>>(),
        "tiles first, any of the four, the one just taken included"
    );
    assert_eq!(g.observation(Seat(0)).returning, Some(Returning::Tile));
    act(&mut g, Action::ReturnTile(temple));
    assert_eq!(g.pile()[0], temple, "to the bottom of the pile");
    assert_eq!(g.pile(), &[temple, tile(&g, "Lost Library")], "the next tile stays on top");
    assert_eq!(g.player(0).tiles.len(), 3);
    assert_eq!(tools(&g, 0), [2, 0, 0, 5]);
    assert_eq!(legal(&g), vec![Action::ReturnTool(Tool::Compass), Action::ReturnTool(Tool::Shovel)]);
    act(&mut g, Action::ReturnTool(Tool::Shovel));
    assert_eq!(g.current(), 1, "back within the limits: the turn passes");
    assert_eq!(tools(&g, 0), [2, 0, 0, 4]);
    assert_eq!(g.bag(), [0, 0, 3, 1], "two maps went to the column, the shovel came back");
}

#[test]
fn a_tile_put_under_the_pile_stays_known_there() {
    let yaml = format!(
        "first_player: 0\nstep: action\npile: [Sunken City, Lost Library, Moon Oasis]\nbag: {{map: 5}}
players:
  - {{ tiles: [Ruby Scarab, Serpent Staff, Crystal Skull] }}
  - {{}}
{HQ}"
    );
    let mut g = scenario(&dice(2), &yaml);
    act(&mut g, Action::TakeColumn(2));
    let temple = tile(&g, "Temple of Dawn");
    act(&mut g, Action::ReturnTile(temple));
    assert_eq!(
        g.observation(Seat(1)).pile_bottom.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
        vec!["Temple of Dawn"]
    );
    let mut rng = <engine::core::SmallRng as rand::SeedableRng>::seed_from_u64(1);
    for _ in 0..20 {
        let d = g.determinize(Seat(1), &mut rng);
        assert_eq!(d.pile()[0], temple, "a determinization keeps what all saw");
    }
}

// ---- going on an expedition: cards ---------------------------------------------------------------

#[test]
fn a_face_up_card_is_replaced_from_the_deck_and_the_top_card_can_be_taken_instead() {
    let yaml = "first_player: 0\nstep: action
face_up: [Three Beacons, Cloud Walkers, Dice card, Field Journal]
deck: [Fire and Ivory, Charts of the Sun]";
    let mut g = scenario(&dice(2), yaml);
    assert_eq!(
        g.action_label(Action::TakeFaceUp(1).id()),
        "take face-up card 2: Mission \"Cloud Walkers\" (Cloud Monastery, Frozen Citadel, Whispering Caves: 6 coins)"
    );
    act(&mut g, Action::TakeFaceUp(1));
    assert_eq!(g.player(0).cards, 1 << card(&g, "Cloud Walkers"));
    assert_eq!(g.face_up()[1], Some(card(&g, "Fire and Ivory")));
    assert_eq!(g.deck(), &[card(&g, "Charts of the Sun")]);
    assert_eq!(g.current(), 1, "nothing to complete: the turn ends");
    act(&mut g, Action::Roll);
    while g.step() != Step::Action {
        let a = legal(&g)[0];
        act(&mut g, a);
    }
    act(&mut g, Action::TakeTop);
    assert_eq!(g.player(1).cards, 1 << card(&g, "Charts of the Sun"));
    assert!(g.deck().is_empty());
    assert_eq!(g.observation(Seat(0)).seats[1].cards, None, "others see only how many");
    assert_eq!(g.observation(Seat(0)).seats[1].cards_held, 1);
    assert_eq!(g.observation(Seat(1)).seats[1].cards.as_ref().map(|c| c[0].name.as_str()), Some("Charts of the Sun"));
}

#[test]
fn a_card_taken_face_up_is_known_to_all_and_kept_by_determinization() {
    let yaml = "first_player: 0\nstep: action
face_up: [Three Beacons, Cloud Walkers, Dice card, Field Journal]
deck: [Fire and Ivory, Charts of the Sun, Dice card]";
    let mut g = scenario(&dice(2), yaml);
    act(&mut g, Action::TakeFaceUp(1));
    let seen = &g.observation(Seat(1)).seats[0].cards_seen_taken;
    assert_eq!(seen.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["Cloud Walkers"]);
    let mut rng = <engine::core::SmallRng as rand::SeedableRng>::seed_from_u64(2);
    for _ in 0..20 {
        let d = g.determinize(Seat(1), &mut rng);
        assert_eq!(d.player(0).cards, 1 << card(&g, "Cloud Walkers"), "seat 1 saw it taken");
    }
    // A card from the top of the deck is not seen.
    act(&mut g, Action::Roll);
    while g.step() != Step::Action {
        let a = legal(&g)[0];
        act(&mut g, a);
    }
    act(&mut g, Action::TakeTop);
    assert!(g.observation(Seat(0)).seats[1].cards_seen_taken.is_empty());
}

#[test]
fn the_card_is_mandatory_and_without_cards_one_may_still_go() {
    let g = scenario(&dice(2), "first_player: 0\nstep: action");
    let l = legal(&g);
    assert!(!l.contains(&Action::GoWithoutCard));
    assert!(l.contains(&Action::TakeTop));
    assert!(l.iter().all(|a| matches!(a, Action::TakeColumn(_) | Action::TakeFaceUp(_) | Action::TakeTop)));

    let yaml = "first_player: 0\nstep: action\nface_up: []\ndeck: []
players:
  - { tiles: [Golden Idol], tools: {compass: 1, rope: 1} }
  - {}";
    let mut g = scenario(&dice(2), yaml);
    assert!(legal(&g).contains(&Action::GoWithoutCard));
    assert!(!legal(&g).contains(&Action::TakeTop));
    act(&mut g, Action::GoWithoutCard);
    assert_eq!(g.step(), Step::Complete);
    assert!(legal(&g).contains(&complete(&g, "Golden Idol", None)));
}

// ---- completing tiles: the Torch and scoring -------------------------------------------------------

#[test]
fn the_lit_torch_replaces_one_token_and_goes_out() {
    let yaml = "first_player: 0\nstep: complete
players:
  - { character: Chiara the Cartographer, tiles: [Temple of Dawn], tools: {compass: 1, rope: 1} }
  - {}";
    let mut g = scenario(&dice(2), yaml);
    let with_torch = complete(&g, "Temple of Dawn", Some(Tool::Map));
    assert_eq!(legal(&g), vec![Action::EndTurn, with_torch]);
    assert_eq!(g.action_label(with_torch.id()), "complete Temple of Dawn with compass+rope+torch");
    let bag = g.bag();
    act(&mut g, with_torch);
    assert!(!g.player(0).torch_lit);
    assert_eq!(tools(&g, 0), [0, 0, 0, 0]);
    assert_eq!(g.bag(), [bag[0] + 1, bag[1] + 1, bag[2], bag[3]], "tokens spent go back to the bag");
    assert_eq!(g.player(0).score, 5, "4 printed + the Place's own coin, no favourite point for the torch");
    assert_eq!(g.player(0).done.as_slice(), &[tile(&g, "Temple of Dawn")]);
}

#[test]
fn the_favourite_tool_scores_only_when_a_token_of_it_is_spent() {
    let yaml = "first_player: 0\nstep: complete
players:
  - { character: Chiara the Cartographer, tiles: [Jade Mask], tools: {compass: 1, map: 1} }
  - {}";
    let g = scenario(&dice(2), yaml);
    let tokens = complete(&g, "Jade Mask", None);
    let torch_map = complete(&g, "Jade Mask", Some(Tool::Map));
    let torch_compass = complete(&g, "Jade Mask", Some(Tool::Compass));
    assert_eq!(legal(&g), vec![Action::EndTurn, tokens, torch_compass, torch_map]);
    let score = |a| {
        let mut h = g.clone();
        act(&mut h, a);
        h.player(0).score
    };
    assert_eq!(score(tokens), 5, "4 + the map token");
    assert_eq!(score(torch_compass), 5, "the map token still spent");
    assert_eq!(score(torch_map), 4, "the torch stood in for the map");
    // A spent torch is no wild card.
    let g = scenario(&dice(2), &yaml.replace("tiles: [Jade Mask]", "torch: false, tiles: [Jade Mask]"));
    assert_eq!(legal(&g), vec![Action::EndTurn, tokens]);
}

#[test]
fn scoring_counts_the_coins_visible_after_the_tile_is_laid() {
    let two = "first_player: 0\nstep: complete
players:
  - { character: Dario the Digger, tiles: [Temple of Dawn, Golden Idol], tools: {compass: 2, rope: 2, map: 1} }
  - {}";
    let mut g = scenario(&dice(2), two);
    complete_tile(&mut g, "Golden Idol", None);
    assert_eq!(g.player(0).score, 4, "an Artifact first: the four printed coins");
    let mut g = scenario(&dice(2), two);
    complete_tile(&mut g, "Temple of Dawn", None);
    assert_eq!(g.player(0).score, 5, "a Place counts its own back");
    complete_tile(&mut g, "Golden Idol", None);
    assert_eq!(g.player(0).score, 10, "and every later discovery's: two tiles in one turn");
    assert_eq!(g.current(), 1, "nothing more to complete: the turn ends");

    let sixth = "first_player: 0\nstep: complete
players:
  - character: Dario the Digger
    discoveries: [Crystal Skull, Sunken City, Sun Disc, Moon Oasis, Feathered Crown]
    tiles: [Golden Idol, Temple of Dawn]
    tools: {compass: 1, rope: 1, map: 1}
    score: 30
  - {}";
    let mut g = scenario(&dice(2), sixth);
    complete_tile(&mut g, "Golden Idol", None);
    assert_eq!(g.player(0).score, 30 + 3 + 2, "the sixth space covers a printed coin; two Places");
    let mut g = scenario(&dice(2), sixth);
    complete_tile(&mut g, "Temple of Dawn", Some(Tool::Rope));
    assert_eq!(g.player(0).score, 30 + 3 + 3, "a Place in the sixth space still shows its own coin");
    assert_eq!(g.observation(Seat(1)).seats[0].coins_visible, 6);
}

#[test]
fn favourite_tokens_each_add_a_point() {
    let yaml = "first_player: 0\nstep: complete
players:
  - { character: Ada the Navigator, tiles: [Golden Idol], tools: {compass: 1, rope: 1} }
  - {}";
    let mut g = scenario(&dice(2), yaml);
    complete_tile(&mut g, "Golden Idol", None);
    assert_eq!(g.player(0).score, 5);
}

#[test]
fn at_most_three_tiles_per_expedition() {
    let yaml = "first_player: 0\nstep: complete\ncompleted_this_turn: 3
players:
  - { tiles: [Golden Idol], tools: {compass: 1, rope: 1} }
  - {}";
    let g = scenario(&dice(2), yaml);
    assert_eq!(g.current(), 1, "three completed: nothing left to do, the turn ended");
}

// ---- the end ---------------------------------------------------------------------------------------

#[test]
fn the_round_is_finished_after_a_sixth_discovery_so_all_play_equally() {
    let yaml = "first_player: 1\nto_move: 1\nstep: complete
players:
  - {}
  - { discoveries: [Crystal Skull, Sunken City, Sun Disc, Moon Oasis, Feathered Crown], tiles: [Golden Idol], tools: {compass: 1, rope: 1} }
  - {}";
    let mut g = scenario(&dice(3), yaml);
    assert!(!g.is_last_round());
    complete_tile(&mut g, "Golden Idol", None);
    assert!(g.is_last_round());
    assert_eq!((g.current(), g.step()), (2, Step::Roll), "seat 2 still plays");
    let mut guard = 0;
    while g.current() == 2 && !g.is_terminal() {
        let a = *legal(&g).iter().find(|a| matches!(a, Action::Roll | Action::TakeTop)).unwrap_or(&legal(&g)[0]);
        act(&mut g, a);
        guard += 1;
        assert!(guard < 50);
    }
    assert_eq!(g.current(), 0, "then seat 0, the last in turn order");
    assert!(!g.is_terminal());
    while !g.is_terminal() {
        let a = *legal(&g).iter().find(|a| matches!(a, Action::Roll | Action::TakeTop)).unwrap_or(&legal(&g)[0]);
        act(&mut g, a);
        guard += 1;
        assert!(guard < 100);
        assert_ne!(g.current(), 1, "no one plays again");
    }
    assert!(g.to_move().is_none());
    assert!(legal(&g).is_empty());
    assert_eq!(g.apply(Action::Roll.id()), Err(ActionError::GameOver));
    assert_eq!(g.outcome().expect("an outcome").scores.len(), 3);
}

#[test]
fn the_last_player_in_turn_order_ends_the_game_at_once() {
    let yaml = "first_player: 1\nto_move: 0\nstep: complete
players:
  - { discoveries: [Crystal Skull, Sunken City, Sun Disc, Moon Oasis, Feathered Crown], tiles: [Golden Idol], tools: {compass: 1, rope: 1} }
  - {}";
    let mut g = scenario(&dice(2), yaml);
    complete_tile(&mut g, "Golden Idol", None);
    assert!(g.is_terminal());
}

#[test]
fn up_to_eight_discoveries_off_the_board_places_still_count() {
    let yaml = "first_player: 0\nstep: complete\nlast_round: true
players:
  - character: Dario the Digger
    discoveries: [Crystal Skull, Ruby Scarab, Sun Disc, Moon Oasis, Feathered Crown]
    tiles: [Golden Idol, Temple of Dawn, Serpent Staff]
    tools: {compass: 2, rope: 2, map: 2}
  - {}";
    let mut g = scenario(&dice(2), yaml);
    complete_tile(&mut g, "Golden Idol", None);
    assert_eq!(g.player(0).score, 3 + 1, "6th: a printed coin covered, one Place");
    complete_tile(&mut g, "Temple of Dawn", None);
    assert_eq!(g.player(0).score, 4 + 3 + 2, "7th, off the board: its Place coin counts");
    complete_tile(&mut g, "Serpent Staff", Some(Tool::Shovel));
    assert_eq!(g.player(0).score, 9 + 3 + 2, "8th");
    assert_eq!(g.player(0).done.len(), 8);
    assert_eq!(g.current(), 1);
}

#[test]
fn missions_discovery_cards_and_kept_dice_cards_score_at_the_end() {
    let yaml = "first_player: 0\nto_move: 1\nstep: complete\nlast_round: true
players:
  - discoveries: [Jade Mask, Jaguar Falls, Silver Chalice, Moon Oasis, Serpent Bridge, Golden Idol]
    cards: [The Jaguar's Treasure, The Oasis Bridge, Ash and Water, Dice card]
    score: 20
  - discoveries: [Ember Volcano, Obsidian Pyramid]
    cards: [Field Journal, Empires of Fire, Old Photograph, The Sun Library]
    score: 10";
    let g = scenario(&dice(2), yaml);
    assert!(g.is_terminal(), "seat 1 had nothing to do: the last turn ended");
    let b0 = g.breakdown(0);
    assert_eq!(b0.missions, 4 + 5, "Jade Mask serves two Missions; Ash and Water is unmet");
    assert_eq!(b0.dice_cards, 1);
    assert_eq!(b0.total, 30);
    let b1 = g.breakdown(1);
    assert_eq!(b1.missions, 6, "the Discovery card counts as the Sunken City it names");
    assert_eq!(b1.total, 16);
    assert_eq!(g.outcome().unwrap().scores, vec![30, 16]);
    assert_eq!(g.outcome().unwrap().ranks, vec![0, 1]);
    // At the end everyone's cards are revealed.
    let o = g.observation(Seat(0));
    assert_eq!(o.seats[1].cards.as_ref().map(|c| c.len()), Some(4));
    assert!(g.observation_text(Seat(0)).contains("Final scores"));

    // Wild Discovery cards: each counts as the best missing tile.
    let mut wild = dice(2);
    wild.discovery_cards = DiscoveryRule::Wild;
    let g = scenario(&wild, yaml);
    let b1 = g.breakdown(1);
    assert_eq!(b1.missions, 6, "two wild cards: Sunken City for Empires of Fire, and one tile short elsewhere");
    let yaml2 = yaml.replace("The Sun Library", "Fire and Ivory").replace(
        "discoveries: [Ember Volcano, Obsidian Pyramid]",
        "discoveries: [Ember Volcano, Obsidian Pyramid, Golden Idol]",
    );
    let g = scenario(&wild, &yaml2.replace("Golden Idol]\n    cards: [The Jag", "Crystal Skull]\n    cards: [The Jag"));
    assert_eq!(g.breakdown(1).missions, 6 + 4, "Sunken City and Ivory Dagger");
    let mut named = dice(2);
    named.discovery_cards = DiscoveryRule::Named;
    let g =
        scenario(&named, &yaml2.replace("Golden Idol]\n    cards: [The Jag", "Crystal Skull]\n    cards: [The Jag"));
    assert_eq!(g.breakdown(1).missions, 6, "named: only the Sunken City");
}

#[test]
fn ties_go_to_the_player_who_played_last_in_turn_order() {
    for first in 0..2u8 {
        let yaml = format!(
            "first_player: {first}\nto_move: {}\nstep: complete\nlast_round: true\nplayers: [{{score: 12}}, {{score: 12}}]",
            1 - first
        );
        let g = scenario(&dice(2), &yaml);
        let o = g.outcome().expect("over");
        assert_eq!(o.scores, vec![12, 12]);
        let last = 1 - first as usize;
        assert_eq!(o.ranks[last], 0, "first player {first}: seat {last} played last and wins");
        assert_eq!(o.ranks[1 - last], 1);
    }
    // Three players: the tie is between two of them; the third scored less.
    let yaml = "first_player: 2\nto_move: 1\nstep: complete\nlast_round: true
players: [{score: 12}, {score: 12}, {score: 11}]";
    let g = scenario(&dice(3), yaml);
    assert_eq!(g.outcome().unwrap().ranks, vec![1, 0, 2], "order 2, 0, 1: seat 1 is last");
}

// ---- the no-dice variant ------------------------------------------------------------------------------

#[test]
fn no_dice_turns_start_with_the_action() {
    let g = Expedition::new(&no_dice(3), 5);
    assert_eq!(g.step(), Step::Action);
    assert!(!legal(&g).contains(&Action::Roll));
}

#[test]
fn no_dice_dice_card_relights_only_the_own_torch_and_goes_back_into_the_deck() {
    let yaml = "first_player: 0\nstep: action
players: [{torch: false, cards: [Dice card]}, {torch: false}, {torch: true}]";
    let mut g = scenario(&no_dice(3), yaml);
    let deck = g.deck().len();
    assert!(legal(&g).contains(&Action::DiceRelight));
    act(&mut g, Action::DiceRelight);
    assert_eq!(torches(&g), vec![true, false, true]);
    assert_eq!(hands(&g, 0), 0);
    assert_eq!(g.deck().len(), deck + 1);
    assert!(g.deck().contains(&card(&g, "Dice card")));
    assert_eq!((g.current(), g.step()), (0, Step::Action), "the turn goes on");
    // A lit torch cannot be relit.
    let g = scenario(&no_dice(3), &yaml.replace("{torch: false, cards", "{torch: true, cards"));
    assert!(!legal(&g).contains(&Action::DiceRelight));
}

#[test]
fn no_dice_dice_card_refills_an_empty_face_up_space_when_the_deck_was_empty() {
    let yaml = "first_player: 0\nstep: action\ndeck: []\nface_up: [Three Beacons, ~, ~, ~]
players: [{cards: [Dice card]}, {}]";
    let mut g = scenario(&no_dice(2), yaml);
    act(&mut g, Action::DiceCoin);
    assert_eq!(g.face_up()[1], Some(card(&g, "Dice card")));
    assert!(g.deck().is_empty());
}

#[test]
fn no_dice_dice_card_gives_one_point_per_tile_completed_this_turn_before_or_after() {
    let yaml = "first_player: 0\nstep: complete
players:
  - { character: Dario the Digger, cards: [Dice card], tiles: [Golden Idol, Jade Mask], tools: {compass: 2, rope: 1, map: 1} }
  - {}";
    let mut g = scenario(&no_dice(2), yaml);
    complete_tile(&mut g, "Golden Idol", None);
    assert_eq!(g.player(0).score, 4);
    assert_eq!(g.current(), 0, "the holder may still use the card");
    act(&mut g, Action::DiceCoin);
    assert_eq!(g.player(0).score, 5, "+1 for the tile already completed this turn");
    complete_tile(&mut g, "Jade Mask", None);
    assert_eq!(g.player(0).score, 10, "+1 for the next one");
    assert_eq!((g.current(), g.step()), (0, Step::Complete), "the no-dice turn waits for `end turn`");
    act(&mut g, Action::EndTurn);
    assert_eq!(g.current(), 1);
}

#[test]
fn no_dice_dice_card_draws_two_tools_then_the_limit_applies() {
    let yaml = format!(
        "first_player: 0\nstep: action\nbag: {{rope: 5}}\nplayers: [{{cards: [Dice card], tools: {{map: 5}}}}, {{}}]\n{HQ}"
    );
    let mut g = scenario(&no_dice(2), &yaml);
    act(&mut g, Action::DiceDraw);
    assert_eq!(tools(&g, 0), [0, 2, 5, 0]);
    assert_eq!(g.bag(), [0, 3, 0, 0]);
    assert_eq!(legal(&g), vec![Action::ReturnTool(Tool::Rope), Action::ReturnTool(Tool::Map)]);
    act(&mut g, Action::ReturnTool(Tool::Map));
    assert_eq!(g.step(), Step::Action);
}

#[test]
fn no_dice_dice_card_may_be_used_after_preparing_an_expedition() {
    let yaml = format!("first_player: 0\nstep: action\nplayers: [{{cards: [Dice card]}}, {{}}]\n{HQ}");
    let mut g = scenario(&no_dice(2), &yaml);
    act(&mut g, Action::TakeColumn(0));
    assert_eq!((g.current(), g.step()), (0, Step::Finish));
    assert_eq!(legal(&g), vec![Action::EndTurn, Action::DiceDraw, Action::DiceCoin]);
    act(&mut g, Action::DiceDraw);
    assert_eq!(g.player(0).tool_count(), 4);
    assert_eq!(legal(&g), vec![Action::EndTurn], "no Dice card left: only the end of the turn");
    act(&mut g, Action::EndTurn);
    assert_eq!(g.current(), 1);
    // Kept to the end it is worth a point, as in the dice game.
    let end =
        "first_player: 0\nto_move: 1\nstep: complete\nlast_round: true\nplayers: [{cards: [Dice card, Dice card]}, {}]";
    let mut g = scenario(&no_dice(2), end);
    act(&mut g, Action::EndTurn);
    assert!(g.is_terminal());
    assert_eq!(g.breakdown(0).dice_cards, 2);
}

// ---- actions, observations ----------------------------------------------------------------------------

#[test]
fn unknown_and_illegal_ids_change_nothing() {
    let g0 = scenario(&dice(2), "first_player: 0\nstep: roll");
    let mut g = g0.clone();
    assert_eq!(g.apply(100_000), Err(ActionError::Unknown(100_000)));
    assert!(matches!(g.apply(Action::TakeTop.id()), Err(ActionError::Illegal { .. })));
    let tiles = g.content().tiles.len() as u8;
    assert_eq!(g.apply(Action::ReturnTile(tiles).id()), Err(ActionError::Unknown(Action::ReturnTile(tiles).id())));
    assert_eq!(g, g0);
}

#[test]
fn action_ids_are_stable_and_round_trip() {
    let n = 28;
    for id in 0..engine::expedition::actions::NUM_ACTIONS {
        if let Some(a) = Action::from_id(id, n) {
            assert_eq!(a.id(), id);
        }
    }
    assert_eq!(Action::Roll.id(), 0);
    let g = Expedition::new(&dice(2), 1);
    assert_eq!(g.action_label(Action::Roll.id()), "roll");
    assert_eq!(
        g.action_label(Action::TakeColumn(1).id()).split(' ').take(3).collect::<Vec<_>>(),
        ["take", "column", "2"]
    );
}

#[test]
fn observations_show_public_facts_and_only_the_own_cards() {
    let yaml =
        "first_player: 0\nstep: action\nplayers: [{cards: [Three Beacons, Dice card]}, {cards: [Cloud Walkers]}]";
    let g = scenario(&dice(2), yaml);
    let o0 = g.observation(Seat(0));
    let o1 = g.observation(Seat(1));
    assert_eq!(o0.seats[0].cards.as_ref().unwrap().len(), 2);
    assert_eq!(o0.seats[1].cards, None);
    assert_eq!(o0.seats[1].cards_held, 1);
    assert_eq!(o1.seats[0].cards, None);
    assert_eq!(o1.seats[0].cards_held, 2);
    assert_eq!(o0.bag.total() as usize + 8, 36, "the bag by count; eight tokens in the Headquarters");
    assert_eq!(o0.pile_count, 24);
    assert_eq!(o0.hq.len(), 4);
    let text = g.observation_text(Seat(0));
    for needle in ["Headquarters", "column 1", "Pile: 24 tiles", "Three Beacons", "cards: 1 (hidden)", "You are seat 0"]
    {
        assert!(text.contains(needle), "{needle:?} missing from:\n{text}");
    }
    assert!(!text.contains("Cloud Walkers"), "another player's card leaked:\n{text}");
}

#[test]
fn new_games_follow_the_setup() {
    for players in 2..=4 {
        let g = Expedition::new(&dice(players), 42 + players as u64);
        assert_eq!(g.seats(), players);
        assert_eq!(g.pile().len(), 24);
        assert!(g.hq().iter().all(|c| c.0.is_some() && c.1.iter().all(|t| t.is_some())));
        assert_eq!(g.bag().iter().map(|&x| x as u32).sum::<u32>(), 28);
        assert_eq!(g.deck().len(), 32 - 4);
        assert!(g.face_up().iter().all(|c| c.is_some()));
        assert!(torches(&g).iter().all(|&t| t), "torches start lit");
        assert_eq!(g.current(), g.first_player());
        let mut chars: Vec<u8> = (0..players).map(|s| g.player(s).character).collect();
        chars.sort();
        chars.dedup();
        assert_eq!(chars.len(), players, "one character each");
    }
    // Characters dealt from the seed, or in order.
    let firsts: std::collections::BTreeSet<u8> =
        (0..40).map(|s| Expedition::new(&dice(2), s).player(0).character).collect();
    assert!(firsts.len() > 1);
    let mut p = dice(4);
    p.characters = engine::expedition::CharacterDeal::InOrder;
    let g = Expedition::new(&p, 3);
    assert_eq!((0..4).map(|s| g.player(s).character).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
}

#[test]
fn scenarios_refuse_impossible_positions_naming_the_field() {
    assert!(
        scenario_err(&dice(2), "players: [{tiles: [Nowhere]}, {}]")
            .contains("players[0].tiles: unknown tile \"Nowhere\"")
    );
    assert!(
        scenario_err(&dice(2), "players: [{tiles: [Golden Idol]}, {discoveries: [Golden Idol]}]")
            .contains("placed twice")
    );
    assert!(scenario_err(&dice(2), "players: [{tools: {map: 7}}, {}]").contains("over the limit"));
    assert!(scenario_err(&dice(2), "players: [{tools: {map: 6}}, {tools: {map: 4}}]").contains("more map tokens"));
    assert!(scenario_err(&no_dice(2), "step: roll").contains("no-dice"));
    assert!(
        scenario_err(&dice(2), "players: [{cards: [Dice card, Dice card, Dice card, Dice card, Dice card]}, {}]")
            .contains("more times than the deck holds")
    );
}

// ---- content and parameters --------------------------------------------------------------------------

#[test]
fn the_default_content_matches_the_rules() {
    let c = Content::default_set();
    assert_eq!(c.tiles.len(), 28);
    let artifacts: Vec<_> = c.tiles.iter().filter(|t| t.kind == TileKind::Artifact).collect();
    let places: Vec<_> = c.tiles.iter().filter(|t| t.kind == TileKind::Place).collect();
    assert_eq!((artifacts.len(), places.len()), (14, 14));
    assert!(artifacts.iter().all(|t| t.tools.len() == 2));
    assert!(places.iter().all(|t| t.tools.len() == 3), "a Place needs one more tool");
    let mut per_tool = [0; 4];
    for t in &c.tiles {
        for x in &t.tools {
            per_tool[x.index()] += 1;
        }
    }
    // 70 tool spaces: as even as four kinds allow.
    assert_eq!(per_tool.iter().sum::<i32>(), 70);
    assert!(per_tool.iter().max().unwrap() - per_tool.iter().min().unwrap() <= 1, "{per_tool:?}");
    assert_eq!(c.characters.len(), 4);
    let mut favs: Vec<_> = c.characters.iter().map(|ch| ch.favourite).collect();
    favs.sort();
    assert_eq!(favs, Tool::ALL.to_vec(), "one character per favourite tool");
    let (mut missions, mut discoveries, mut dice_cards) = (0, 0, 0);
    for k in &c.cards {
        match k.kind {
            engine::expedition::CardKind::Mission { tiles, coins } => {
                missions += 1;
                assert!((2..=6).contains(&coins));
                // Coins rise with difficulty: tools needed - 4, +1 per kind needed 3+ times, at most 6.
                let mut need = [0; 4];
                for &t in &tiles {
                    for x in &c.tiles[t as usize].tools {
                        need[x.index()] += 1;
                    }
                }
                let total: i32 = need.iter().sum();
                let heavy = need.iter().filter(|&&n| n >= 3).count() as i32;
                assert_eq!(coins as i32, (total - 4 + heavy).min(6), "{}", k.name);
            }
            engine::expedition::CardKind::Discovery { .. } => discoveries += 1,
            engine::expedition::CardKind::Dice => dice_cards += 1,
        }
    }
    assert_eq!((missions, discoveries, dice_cards), (24, 4, 4));
}

fn bad(yaml: &str) -> String {
    Content::from_yaml("bad.yaml", yaml).expect_err("the content is refused")
}

const SMALL: &str = "
tiles:
  - { name: A, kind: artifact, tools: [compass, rope] }
  - { name: B, kind: artifact, tools: [map, shovel] }
  - { name: C, kind: place, tools: [compass, map, rope] }
  - { name: D, kind: place, tools: [rope, map, shovel] }
  - { name: E, kind: place, tools: [shovel, shovel, compass] }
characters:
  - { name: Ann, favourite: compass }
  - { name: Bob, favourite: map }
missions:
  - { name: M1, discoveries: [A, B, C], coins: 3 }
  - { name: M2, discoveries: [C, D, E], coins: 5 }
discovery_cards:
  - { name: Clue, tile: E }
dice_cards: 3
";

#[test]
fn bad_content_is_refused_naming_the_entry() {
    assert!(Content::from_yaml("small.yaml", SMALL).is_ok());
    let e = bad(&SMALL.replace("[A, B, C]", "[A, B, Zed]"));
    assert!(e.contains("bad.yaml") && e.contains("mission \"M1\"") && e.contains("unknown tile \"Zed\""), "{e}");
    let e = bad(&SMALL.replace("tools: [map, shovel]", "tools: []"));
    assert!(e.contains("tile \"B\" needs no tools"), "{e}");
    let e = bad(&SMALL.replace("name: D,", "name: A,"));
    assert!(e.contains("duplicate tile name \"A\""), "{e}");
    let e = bad(&SMALL.replace("name: M2,", "name: M1,"));
    assert!(e.contains("duplicate card name \"M1\""), "{e}");
    let e = bad(&SMALL.replace("tile: E", "tile: Q"));
    assert!(e.contains("discovery card \"Clue\"") && e.contains("\"Q\""), "{e}");
    let e = bad(&SMALL.replace("tools: [compass, rope] }", "tools: [compass, hammer] }"));
    assert!(e.contains("tiles[0].tools[1]"), "{e}");
    // A deck too small for the player count: 6 cards, 4 face up + one per player.
    let c = Content::from_yaml("small.yaml", SMALL).unwrap();
    assert!(c.check_for_players(2).is_ok());
    let e = c.check_for_players(3).unwrap_err();
    assert!(e.contains("Expedition deck holds 6 cards") && e.contains("3 players"), "{e}");
}

#[test]
fn content_files_load_through_the_parameters() {
    let loader = |path: &str| -> Result<String, String> {
        match path {
            "small.yaml" => Ok(SMALL.to_string()),
            "broken.yaml" => Ok(SMALL.replace("[A, B, C]", "[A, B, Zed]")),
            _ => Err(format!("no file {path}")),
        }
    };
    let src = |text: &str| ParamSource::Yaml { name: "params.yaml".into(), text: text.into() };
    let mut p: ExpeditionParams = resolve_params(None, &[src("content: small.yaml")]).unwrap();
    assert_eq!(p.content.name(), "small.yaml");
    p.load_assets(&loader).unwrap();
    assert!(p.content.is_loaded());
    let g = Expedition::new(&p, 1);
    assert_eq!(g.content().tiles.len(), 5);
    assert_eq!(g.pile().len(), 1);
    // Loaded, the set travels inline: the parameters name no file, and read back with a loader
    // that opens nothing they give the same set.
    let written = serde_yaml::to_string(&p).unwrap();
    assert!(!written.contains("small.yaml") && written.contains("tiles:"), "{written}");
    let mut back: ExpeditionParams = resolve_params(None, &[src(&written)]).unwrap();
    back.load_assets(&|name: &str| Err(format!("asked to open {name}"))).unwrap();
    assert_eq!(back.content.get(), p.content.get());
    assert_eq!(back.content.name(), ContentRef::INLINE);
    // An inline set that is wrong is refused naming the field, before any loader is asked.
    let e = resolve_params::<ExpeditionParams>(None, &[src("content: {tiles: 3, characters: []}")])
        .unwrap_err()
        .to_string();
    assert!(e.contains("content") && e.contains("tiles"), "{e}");

    let mut p: ExpeditionParams = resolve_params(None, &[src("content: broken.yaml")]).unwrap();
    let e = p.load_assets(&loader).unwrap_err().to_string();
    assert!(e.contains("broken.yaml") && e.contains("Zed"), "{e}");
    let mut p: ExpeditionParams = resolve_params(None, &[src("content: small.yaml\nplayers: 3")]).unwrap();
    let e = p.load_assets(&loader).unwrap_err().to_string();
    assert!(e.contains("too few for 3 players"), "{e}");
    let e = resolve_params::<ExpeditionParams>(None, &[src("players: 5")]).unwrap_err().to_string();
    assert!(e.contains("players") && e.contains("out of range"), "{e}");

    let entry = find_game("expedition").unwrap();
    let spec = (entry.spec)(Some("no-dice"), &[src("players: 3\ncontent: default")], &loader).unwrap();
    assert_eq!(spec.seats(), 3);
    let g = spec.new_game(9);
    assert_eq!(g.seats(), 3);
    assert!(spec.describe().iter().any(|i| i.name == "dice" && i.value == "false"));
    let scen = spec.scenario(1, "first_player: 2\nstep: action").unwrap();
    assert_eq!(scen.to_move(), Some(Seat(2)));
    assert_eq!(ContentRef::default_set(), ContentRef::named("default"));
}

// ---- a held card does not show in the flow of play ------------------------------------------------

/// The first action among `prefer` that is legal, else the first legal action.
fn pick(g: &Expedition, prefer: &[Action]) -> Action {
    let l = legal(g);
    *prefer.iter().find(|a| l.contains(a)).unwrap_or(&l[0])
}

#[test]
fn every_roll_is_followed_by_the_rollers_decision_dice_card_or_not() {
    for cards in ["[]", "[Dice card]", "[Three Beacons]"] {
        let yaml = format!("first_player: 0\nstep: roll\nplayers: [{{cards: {cards}}}, {{}}]\n{HQ}");
        let mut g = scenario(&dice(2), &yaml);
        act(&mut g, Action::Roll);
        assert_eq!((g.current(), g.step()), (0, Step::Rolled), "cards {cards}: the roller decides");
        let face = g.die().expect("rolled");
        let l = legal(&g);
        assert_eq!(l[0], Action::KeepRoll, "cards {cards}");
        let set_faces: Vec<Action> = Face::ALL.into_iter().filter(|&f| f != face).map(Action::SetFace).collect();
        if cards == "[Dice card]" {
            assert_eq!(l[1..], set_faces[..], "a holder may change the face");
        } else {
            assert_eq!(l, vec![Action::KeepRoll], "cards {cards}: without a Dice card only keep");
        }
        let before = (tools(&g, 0), torches(&g));
        act(&mut g, Action::KeepRoll);
        assert_eq!(g.step(), Step::Action);
        match face {
            Face::Tool => assert_eq!(tools(&g, 0).iter().sum::<u8>(), 1, "the face acts once kept"),
            Face::Torch => assert_ne!(torches(&g), before.1),
            Face::Coin => assert_eq!(g.observation(Seat(0)).coin_bonus, 1),
        }
    }
}

#[test]
fn changing_the_die_needs_a_dice_card_even_in_a_determinized_state() {
    // A scenario at `rolled` without a Dice card: the roller is asked, and only to keep.
    let yaml = format!("first_player: 0\nstep: rolled\ndie: tool\nbag: {{shovel: 4}}\nplayers: [{{}}, {{}}]\n{HQ}");
    let g = scenario(&dice(2), &yaml);
    assert_eq!((g.current(), g.step()), (0, Step::Rolled));
    assert_eq!(tools(&g, 0), [0, 0, 0, 0], "the face waits for the decision");
    assert_eq!(legal(&g), vec![Action::KeepRoll]);
    let mut h = g.clone();
    assert!(matches!(h.apply(Action::SetFace(Face::Coin).id()), Err(ActionError::Illegal { .. })));
    assert_eq!(h, g);

    // Seat 0 holds a Dice card drawn face down; seat 1 cannot tell it from any other card, so
    // its determinizations sometimes give seat 0 none: then the die cannot be changed.
    let yaml = "first_player: 0\nstep: rolled\ndie: torch
players: [{cards: [Dice card, Three Beacons]}, {cards: [Cloud Walkers]}]";
    let g = scenario(&dice(2), yaml);
    assert!(legal(&g).contains(&Action::SetFace(Face::Coin)));
    let dice_cards = g.content().dice_cards;
    let mut rng = <engine::core::SmallRng as rand::SeedableRng>::seed_from_u64(3);
    let (mut with, mut without) = (0, 0);
    for _ in 0..300 {
        let d = g.determinize(Seat(1), &mut rng);
        assert_eq!(d.step(), Step::Rolled);
        let l = legal(&d);
        assert_eq!(l[0], Action::KeepRoll);
        if d.player(0).cards & dice_cards == 0 {
            without += 1;
            assert_eq!(l, vec![Action::KeepRoll], "no Dice card, no change of face: {l:?}");
        } else {
            with += 1;
            assert_eq!(l.len(), 3);
        }
    }
    assert!(with > 0 && without > 0, "{with} with, {without} without");
}

/// Two no-dice positions that seat 1 cannot tell apart: seat 0 holds a Dice card in one and
/// a Mission in the other (whichever is not held is out of play).
fn no_dice_pair(step: &str, seat0: &str) -> [Expedition; 2] {
    ["Dice card", "Three Beacons"].map(|held| {
        let yaml = format!(
            "first_player: 0\nstep: {step}\nface_up: [Cloud Walkers, Fire and Ivory, Charts of the Sun, The Sun Library]
deck: [Ash and Water, Empires of Fire, The Glass Lagoon]
players: [{{cards: [{held}], {seat0}}}, {{}}]\n{HQ}"
        );
        scenario(&no_dice(2), &yaml)
    })
}

fn same_for_seat_1(pair: &[Expedition; 2], when: &str) {
    assert_eq!(pair[0].to_move(), pair[1].to_move(), "{when}: to move");
    assert_eq!(pair[0].step(), pair[1].step(), "{when}: step");
    assert_eq!(pair[0].observation(Seat(1)), pair[1].observation(Seat(1)), "{when}: seat 1's view");
    assert_eq!(pair[0].observation_text(Seat(1)), pair[1].observation_text(Seat(1)), "{when}: seat 1's text");
}

#[test]
fn no_dice_turns_pause_the_same_with_or_without_a_dice_card() {
    // After preparing an Expedition.
    let mut pair = no_dice_pair("action", "tools: {}");
    same_for_seat_1(&pair, "start");
    for g in &mut pair {
        act(g, Action::TakeColumn(0));
    }
    same_for_seat_1(&pair, "after preparing");
    assert_eq!((pair[1].current(), pair[1].step()), (0, Step::Finish), "the turn waits for `end turn`");
    assert_eq!(legal(&pair[1]), vec![Action::EndTurn]);
    assert_eq!(legal(&pair[0]), vec![Action::EndTurn, Action::DiceDraw, Action::DiceCoin]);
    for g in &mut pair {
        act(g, Action::EndTurn);
    }
    same_for_seat_1(&pair, "after end turn");
    assert_eq!(pair[0].current(), 1);

    // On an Expedition with nothing to complete.
    let mut pair = no_dice_pair("action", "tools: {}");
    for g in &mut pair {
        act(g, Action::TakeTop);
    }
    same_for_seat_1(&pair, "after taking a card");
    assert_eq!((pair[1].current(), pair[1].step()), (0, Step::Complete));
    assert_eq!(legal(&pair[1]), vec![Action::EndTurn]);

    // After completing the last tile that can be paid for.
    let mut pair = no_dice_pair("complete", "tiles: [Crystal Skull], tools: {compass: 1, rope: 1}");
    for g in &mut pair {
        complete_tile(g, "Crystal Skull", None);
    }
    same_for_seat_1(&pair, "after completing");
    assert_eq!((pair[1].current(), pair[1].step()), (0, Step::Complete));
    assert_eq!(legal(&pair[1]), vec![Action::EndTurn]);
    for g in &mut pair {
        act(g, Action::EndTurn);
    }
    same_for_seat_1(&pair, "after end turn");
}

#[test]
fn a_dice_card_seen_taken_is_discarded_before_one_drawn_face_down() {
    // No-dice: seat 0 holds a Dice card drawn face down and takes another face up.
    let yaml = "first_player: 0\nstep: action
face_up: [Three Beacons, Dice card, Cloud Walkers, Fire and Ivory]
deck: [Charts of the Sun, The Sun Library]
players: [{cards: [Dice card]}, {}]";
    let mut g = scenario(&no_dice(2), yaml);
    act(&mut g, Action::TakeFaceUp(1));
    let seen = |g: &Expedition| g.observation(Seat(1)).seats[0].cards_seen_taken.len();
    assert_eq!(seen(&g), 1);
    act(&mut g, Action::DiceCoin);
    assert_eq!(hands(&g, 0), 1);
    assert_eq!(seen(&g), 0, "the card everyone saw taken went back, the hidden one stays hidden");
    assert_eq!(g.player(0).known, 0);
    assert_eq!(g.player(0).cards & g.content().dice_cards, g.player(0).cards, "still a Dice card");

    // The dice game: the same when the die is changed.
    let mut g = scenario(&dice(2), yaml);
    act(&mut g, Action::TakeFaceUp(1));
    let mut guard = 0;
    while !(g.current() == 0 && g.step() == Step::Rolled) {
        let a = pick(&g, &[Action::Roll, Action::KeepRoll, Action::TakeTop, Action::EndTurn]);
        act(&mut g, a);
        guard += 1;
        assert!(guard < 20);
    }
    assert_eq!(seen(&g), 1);
    let other = Face::ALL.into_iter().find(|&f| Some(f) != g.die()).unwrap();
    act(&mut g, Action::SetFace(other));
    assert_eq!(seen(&g), 0, "the card everyone saw taken went back");
    assert_eq!(hands(&g, 0), 1);
}

#[test]
fn identical_face_up_cards_are_offered_once() {
    let yaml = "first_player: 0\nstep: action
face_up: [Three Beacons, Dice card, Dice card, Cloud Walkers]";
    let g = scenario(&dice(2), yaml);
    let l = legal(&g);
    assert!(l.contains(&Action::TakeFaceUp(1)), "the first Dice card");
    assert!(!l.contains(&Action::TakeFaceUp(2)), "not the second: the same card in effect");
    assert!(l.contains(&Action::TakeFaceUp(0)) && l.contains(&Action::TakeFaceUp(3)));
    let mut h = g.clone();
    assert!(matches!(h.apply(Action::TakeFaceUp(2).id()), Err(ActionError::Illegal { .. })));
    // Wild Discovery cards are identical too; named ones are not.
    let yaml = "first_player: 0\nstep: action
face_up: [Three Beacons, Field Journal, Dice card, Old Photograph]";
    let mut wild = dice(2);
    wild.discovery_cards = DiscoveryRule::Wild;
    let l = legal(&scenario(&wild, yaml));
    assert!(l.contains(&Action::TakeFaceUp(1)) && l.contains(&Action::TakeFaceUp(2)));
    assert!(!l.contains(&Action::TakeFaceUp(3)), "a second wild Discovery card: {l:?}");
    let mut named = dice(2);
    named.discovery_cards = DiscoveryRule::Named;
    let l = legal(&scenario(&named, yaml));
    assert!(l.contains(&Action::TakeFaceUp(3)), "named Discovery cards differ");
}

// ---- the Discovery card counts as any one tile -------------------------------------------------------

#[test]
fn discovery_cards_are_wild_by_default_and_complete_a_mission_missing_any_one_tile() {
    use engine::core::GameParams;
    assert_eq!(ExpeditionParams::dice_game().discovery_cards, DiscoveryRule::Wild);
    assert_eq!(ExpeditionParams::no_dice().discovery_cards, DiscoveryRule::Wild);
    for preset in ExpeditionParams::PRESETS {
        assert_eq!(ExpeditionParams::preset(preset).unwrap().discovery_cards, DiscoveryRule::Wild, "{preset}");
    }
    // The Jaguar's Treasure: Jade Mask, Jaguar Falls, Silver Chalice; the card names Lost Library.
    for missing in ["Jade Mask", "Jaguar Falls", "Silver Chalice"] {
        let done: Vec<&str> =
            ["Jade Mask", "Jaguar Falls", "Silver Chalice"].into_iter().filter(|&t| t != missing).collect();
        let yaml = format!(
            "first_player: 0\nto_move: 1\nstep: complete\nlast_round: true
players:
  - {{ discoveries: [{}], cards: [The Jaguar's Treasure, Old Photograph] }}
  - {{}}",
            done.join(", ")
        );
        let g = scenario(&dice(2), &yaml);
        assert!(g.is_terminal());
        assert_eq!(g.breakdown(0).missions, 4, "the card stands for {missing}");
        assert_eq!(g.breakdown(0).discovery_tiles, vec![tile(&g, missing)]);
    }
    // The card's text says so, and names no tile.
    let g = scenario(&dice(2), "first_player: 0\nstep: action\nplayers: [{cards: [Old Photograph]}, {}]");
    let o = g.observation(Seat(0));
    let view = &o.seats[0].cards.as_ref().unwrap()[0];
    assert!(view.tiles.is_empty(), "{view:?}");
    let text = g.observation_text(Seat(0));
    assert!(text.contains("counts as any one tile"), "{text}");
    assert!(!text.contains("counts as Lost Library"), "{text}");
}

// ---- a game always ends -------------------------------------------------------------------------------

/// Nothing left anywhere: no tile, token or card to take, nothing to complete.
const BLOCKED: &str = "first_player: 0\npile: []\nbag: {}\ndeck: []\nface_up: [~, ~, ~, ~]
hq: [{}, {}, {}, {}]\nplayers: [{score: 3}, {score: 3}]";

#[test]
fn a_blocked_game_ends_after_the_round_limit_and_is_scored() {
    for params in [dice(2), no_dice(2)] {
        let mut g = scenario(&params, BLOCKED);
        let mut guard = 0;
        while !g.is_terminal() {
            let a = pick(&g, &[Action::Roll, Action::KeepRoll, Action::GoWithoutCard, Action::EndTurn]);
            act(&mut g, a);
            guard += 1;
            assert!(guard < 20_000, "the game does not end");
        }
        assert_eq!(g.round(), 200, "the default limit");
        let o = g.outcome().expect("scored as usual");
        assert_eq!(o.scores, vec![3, 3]);
        assert_eq!(o.ranks, vec![1, 0], "the tie-break as usual: seat 1 played last");
        let m = g.metrics();
        let cut = m.iter().find(|m| m.name == "cut_at_max_rounds").expect("the metric");
        assert_eq!(cut.value, 1.0);
        assert_eq!(cut.kind, engine::core::MetricKind::Rate);
    }
    // A game that ends normally was not cut.
    let yaml = "first_player: 1\nto_move: 0\nstep: complete\nlast_round: true\nplayers: [{}, {}]";
    let g = scenario(&dice(2), yaml);
    assert!(g.is_terminal());
    let cut = g.metrics().into_iter().find(|m| m.name == "cut_at_max_rounds").expect("the metric");
    assert_eq!(cut.value, 0.0);
}

#[test]
fn the_round_limit_is_a_parameter_shown_to_every_seat() {
    let src = |text: &str| ParamSource::Yaml { name: "params.yaml".into(), text: text.into() };
    let p: ExpeditionParams = resolve_params(Some("no-dice"), &[src("max_rounds: 3")]).unwrap();
    assert_eq!(p.max_rounds(), 3);
    let e = resolve_params::<ExpeditionParams>(None, &[src("max_rounds: 0")]).unwrap_err().to_string();
    assert!(e.contains("max_rounds") && e.contains("out of range"), "{e}");

    let mut g = scenario(&p, BLOCKED);
    let o = g.observation(Seat(1));
    assert_eq!((o.round, o.max_rounds), (1, 3));
    assert!(g.observation_text(Seat(1)).contains("Round 1 of at most 3"));
    while !g.is_terminal() {
        let a = pick(&g, &[Action::GoWithoutCard, Action::EndTurn]);
        act(&mut g, a);
    }
    assert_eq!(g.round(), 3);
    assert!(g.observation_text(Seat(0)).contains("the round limit"));
    // The last round allowed is played to its end, like any round.
    let mut g = scenario(&p, &format!("{BLOCKED}\nround: 3\nto_move: 1\nstep: action"));
    act(&mut g, Action::GoWithoutCard);
    act(&mut g, Action::EndTurn);
    assert!(g.is_terminal());
    // A scenario cannot start past the limit.
    assert!(scenario_err(&p, "round: 4").contains("max_rounds"));
}

// ---- the text view and the parameter checks ------------------------------------------------------------

#[test]
fn the_text_shows_the_pile_bottom_the_put_back_step_and_discoveries_off_the_board() {
    // Tiles put under the pile are printed.
    let yaml = format!(
        "first_player: 0\nstep: action\npile: [Sunken City, Lost Library, Moon Oasis]\nbag: {{map: 5}}
players:
  - {{ tiles: [Ruby Scarab, Serpent Staff, Crystal Skull] }}
  - {{}}
{HQ}"
    );
    let mut g = scenario(&dice(2), &yaml);
    act(&mut g, Action::TakeColumn(2));
    // The put-back step of the dice game offers no Dice card.
    let text = g.observation_text(Seat(1));
    let step_line = text.lines().find(|l| l.contains("to move")).expect("a step line");
    assert!(step_line.contains("put a tile back"), "{text}");
    assert!(!step_line.contains("Dice card"), "{text}");
    let temple = tile(&g, "Temple of Dawn");
    act(&mut g, Action::ReturnTile(temple));
    let text = g.observation_text(Seat(1));
    let pile_line = text.lines().find(|l| l.starts_with("Pile:")).expect("a pile line");
    assert!(pile_line.contains("Temple of Dawn"), "{text}");

    // Eight discoveries: six on the board, two off it.
    let yaml = "first_player: 0\nstep: action
players:
  - discoveries: [Crystal Skull, Ruby Scarab, Sun Disc, Moon Oasis, Feathered Crown, Golden Idol, Temple of Dawn, Serpent Staff]
  - {}";
    let text = scenario(&dice(2), yaml).observation_text(Seat(1));
    assert!(!text.contains("8/6"), "{text}");
    assert!(text.contains("8 discoveries, 6 on the board"), "{text}");
}

#[test]
fn the_forgotten_roll_needs_the_dice_game() {
    use engine::core::GameParams;
    let mut p = no_dice(2);
    p.forgotten_roll = true;
    let e = p.validate().expect_err("forgotten_roll without dice is refused");
    assert!(e.contains("forgotten_roll") && e.contains("dice"), "{e}");
    let mut p = dice(2);
    p.forgotten_roll = true;
    assert!(p.validate().is_ok());
}
