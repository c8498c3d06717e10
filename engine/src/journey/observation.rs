//! What a traveller may know, and states sampled from it.
//!
//! `journey` is cooperative with a shared purse: satchels, the Discard, Wreckage, caches and
//! the companion are open to every traveller. Hidden are the orders of the Journey deck, the
//! Supply (but for the cards everyone saw slid under it), the Ruins, the set-aside Supply,
//! and where the Shadows and the Joker lie on the way home. Their contents are known by
//! counting, so observations list them sorted.

use super::params::HideForm;
use super::{
    CARD_COUNT, CacheSpot, Card, Due, FightState, Journey, JourneyParams, Phase, Status, Suit, companions,
    return_journey,
};
use crate::core::{Detail, DrawPile, Pile, SmallRng, fresh_chance, redraw_shuffle};
use rand::RngExt;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TravellerView {
    pub seat: u8,
    pub status: Status,
    pub satchel: Vec<Card>,
}

/// This round of a fight: its actors, front first, and how many have acted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoundView {
    pub actors: Vec<u8>,
    pub acted: u8,
}

/// Everything a traveller may know: every public fact of the position, exactly (a full state
/// can be rebuilt from it with [`from_observation`], the hidden orders drawn afresh).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JourneyObservation {
    /// Whose observation this is (0 in a watcher's).
    pub seat: u8,
    /// A watcher's observation ([`crate::core::Game::public_observation`]): a traveller's
    /// without its seat (the journey hides nothing from one traveller that another sees).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub watcher: bool,
    pub to_move: Option<u8>,
    pub front: u8,
    pub turns: u16,
    /// The step of play.
    pub phase: Phase,
    /// What is being decided, in words.
    pub doing: String,
    pub travellers: Vec<TravellerView>,
    pub satchel_limit: usize,
    pub refuge: Option<Card>,
    pub refuge_actions_left: Option<u8>,
    /// Travellers who passed the current refuge action on in a row.
    pub refuge_passes: Option<u8>,
    pub adversary: Option<Card>,
    pub adversary_health: Option<i16>,
    pub adversary_attack: Option<i16>,
    pub counter_reduction: Option<i16>,
    /// Reveal-chain Hide: the next reveal must rank below this.
    pub hide_bar: Option<u8>,
    /// A Hide failed in this encounter: no more hiding.
    pub hide_failed: Option<bool>,
    /// Classic Hide: still open (the front's first decision of the encounter).
    pub hide_open: Option<bool>,
    /// Travellers this round's counter spares (they hid successfully).
    pub spared: Vec<u8>,
    /// In a fight: this round's actors and how many have acted.
    pub round: Option<RoundView>,
    /// The stop of the way home being visited (its cache, the Joker, its Ruin, its tolls).
    pub stop: Option<Card>,
    /// Journey deck: size, contents (sorted), and the cards whose place is known.
    pub journey_count: usize,
    pub journey_cards: Vec<Card>,
    /// Shown by the Witness.
    pub journey_top: Option<Card>,
    /// dunwich: A♥ lies at the bottom.
    pub journey_bottom: Option<Card>,
    pub supply_count: usize,
    /// Supply contents above the known bottom, sorted.
    pub supply_unknown: Vec<Card>,
    /// The bottom of the Supply, bottom card first: cards everyone saw slid under it.
    pub supply_bottom: Vec<Card>,
    pub discard: Vec<Card>,
    pub wreckage: Vec<Card>,
    pub score: i32,
    /// Points banked by tolls on the way home (part of the score).
    pub points: i32,
    pub passed: Vec<Card>,
    pub caches: Vec<CacheSpot>,
    pub companion: Option<Card>,
    /// A companion has joined at some time (with `first_only`, no other will).
    pub companion_joined: bool,
    pub destination: Option<Card>,
    /// The destination was reached; stops whose tolls were paid since.
    pub reached_destination: bool,
    pub stops_paid: u8,
    pub boxed: Vec<Card>,
    pub set_aside: Vec<Card>,
    /// The way home: stops still ahead, next first, and the other cards shuffled among them.
    pub way_stops: Vec<Card>,
    pub way_hidden: Vec<Card>,
    pub ruins: Vec<Card>,
    pub offer: Option<(Card, i16)>,
    pub joker_active: bool,
    /// Dues being paid, the first first.
    pub dues: Vec<Due>,
}

pub(super) fn status_name(s: Status) -> &'static str {
    match s {
        Status::Journeying => "journeying",
        Status::Fallen => "fallen",
        Status::Stopped => "stopped on the way home",
        Status::Arrived => "arrived",
    }
}

fn phase_text(g: &Journey) -> String {
    if let Some(d) = g.dues.first() {
        return format!("traveller {} pays: {}, {} still owed", d.seat, format!("{:?}", d.kind).to_lowercase(), d.owed);
    }
    match g.phase {
        Phase::Refuge { refuge, left, actor, .. } => {
            format!("refuge {refuge}: traveller {actor} acts, {}", count(left as usize, "action", "left"))
        }
        Phase::Fight { actor } => format!("fight: traveller {actor} acts"),
        Phase::Take { seat, .. } => format!("traveller {seat} takes a Discard card"),
        Phase::HideBonus { seat } => format!("traveller {seat} hid: a bonus Forage or Regroup"),
        Phase::Stop { stop, .. } => format!("way home, stop {stop}: the Joker takes a card unless bought off"),
        Phase::Offer { card, .. } => format!("way home: {card} offered for {}", return_journey::price(g, card)),
        Phase::Over => "over".into(),
        p => format!("{p:?}"),
    }
}

/// "1 card", "3 cards", with an optional word after.
fn count(n: usize, noun: &str, after: &str) -> String {
    let s = if n == 1 { "" } else { "s" };
    if after.is_empty() { format!("{n} {noun}{s}") } else { format!("{n} {noun}{s} {after}") }
}

/// The stop being visited, if any: its steps, a Ruin offered there, or its tolls.
fn current_stop(g: &Journey) -> Option<Card> {
    match g.phase {
        Phase::Stop { stop, .. } | Phase::Offer { stop: Some(stop), .. } => Some(stop),
        _ => None,
    }
}

pub(super) fn observe(g: &Journey, seat: u8, detail: Detail) -> JourneyObservation {
    let mut o = blank();
    observe_into(g, seat, detail, &mut o);
    o
}

/// An observation with every list empty, for [`observe_into`] to write over.
pub(super) fn blank() -> JourneyObservation {
    JourneyObservation {
        seat: 0,
        watcher: false,
        to_move: None,
        front: 0,
        turns: 0,
        phase: Phase::Over,
        doing: String::new(),
        travellers: Vec::new(),
        satchel_limit: 0,
        refuge: None,
        refuge_actions_left: None,
        refuge_passes: None,
        adversary: None,
        adversary_health: None,
        adversary_attack: None,
        counter_reduction: None,
        hide_bar: None,
        hide_failed: None,
        hide_open: None,
        spared: Vec::new(),
        round: None,
        stop: None,
        journey_count: 0,
        journey_cards: Vec::new(),
        journey_top: None,
        journey_bottom: None,
        supply_count: 0,
        supply_unknown: Vec::new(),
        supply_bottom: Vec::new(),
        discard: Vec::new(),
        wreckage: Vec::new(),
        score: 0,
        points: 0,
        passed: Vec::new(),
        caches: Vec::new(),
        companion: None,
        companion_joined: false,
        destination: None,
        reached_destination: false,
        stops_paid: 0,
        boxed: Vec::new(),
        set_aside: Vec::new(),
        way_stops: Vec::new(),
        way_hidden: Vec::new(),
        ruins: Vec::new(),
        offer: None,
        joker_active: false,
        dues: Vec::new(),
    }
}

/// `v` holding `items`, its allocation kept.
fn refill<T>(v: &mut Vec<T>, items: impl IntoIterator<Item = T>) {
    v.clear();
    v.extend(items);
}

/// `v` holding `cards`, sorted (their order hidden), its allocation kept.
fn refill_sorted(v: &mut Vec<Card>, cards: impl IntoIterator<Item = Card>) {
    refill(v, cards);
    v.sort_unstable();
}

/// `seat`'s observation written over `o`, whose lists keep their allocations: a learner's
/// tensors are built from an observation each step, and an observation is some twenty lists.
pub(super) fn observe_into(g: &Journey, seat: u8, detail: Detail, o: &mut JourneyObservation) {
    let n = g.travellers();
    let fight = g.fight.as_ref();
    let (refuge, left, passes) = match g.phase {
        Phase::Refuge { refuge, left, passes, .. } => (Some(refuge), Some(left), Some(passes)),
        _ => (None, None, None),
    };
    let ace_at_bottom = g.destination_at_bottom();
    o.seat = seat;
    o.watcher = false;
    o.to_move = crate::core::Game::to_move(g).map(|s| s.0);
    o.front = g.front;
    o.turns = g.turns;
    o.phase = g.phase;
    o.doing.clear();
    if detail == Detail::Full {
        o.doing.push_str(&phase_text(g));
    }
    o.travellers.resize_with(n, || TravellerView { seat: 0, status: Status::Journeying, satchel: Vec::new() });
    for (s, view) in o.travellers.iter_mut().enumerate() {
        view.seat = s as u8;
        view.status = g.status[s];
        refill(&mut view.satchel, g.satchels[s].as_slice().iter().copied());
    }
    o.satchel_limit = g.satchel_limit();
    o.refuge = refuge;
    o.refuge_actions_left = left;
    o.refuge_passes = passes;
    o.adversary = fight.map(|f| f.adversary);
    o.adversary_health = fight.map(|f| f.health);
    o.adversary_attack = fight.map(|f| f.attack);
    o.counter_reduction = fight.map(|f| f.reduction);
    o.hide_bar = fight.filter(|_| g.p.hide == HideForm::RevealChain).map(|f| f.hide_bar);
    o.hide_failed = fight.filter(|_| g.p.hide == HideForm::RevealChain).map(|f| f.hide_failed);
    o.hide_open = fight
        .filter(|_| g.p.hide == HideForm::Nominate)
        .map(|f| f.nominate_open && super::hide::nominate_allowed_against(g, f.adversary));
    refill(&mut o.spared, fight.into_iter().flat_map(|f| (0..n as u8).filter(|&s| f.spared[s as usize])));
    match (fight, &mut o.round) {
        (Some(f), Some(round)) => {
            refill(&mut round.actors, f.order[..f.order_len as usize].iter().copied());
            round.acted = f.pos;
        }
        (Some(f), None) => o.round = Some(RoundView { actors: f.order[..f.order_len as usize].to_vec(), acted: f.pos }),
        (None, _) => o.round = None,
    }
    o.stop = current_stop(g);
    o.journey_count = g.journey.len();
    refill_sorted(&mut o.journey_cards, g.journey.as_slice().iter().copied());
    o.journey_top = if companions::witness(g) { g.journey.top() } else { None };
    o.journey_bottom = if ace_at_bottom { g.journey.as_slice().first().copied() } else { None };
    o.supply_count = g.supply.len();
    refill_sorted(&mut o.supply_unknown, g.supply.unknown().iter().copied());
    refill(&mut o.supply_bottom, g.supply.known_bottom().iter().copied());
    refill(&mut o.discard, g.discard.as_slice().iter().copied());
    refill(&mut o.wreckage, g.wreckage.as_slice().iter().copied());
    o.score = g.score();
    o.points = g.points;
    refill(&mut o.passed, g.passed.as_slice().iter().copied());
    refill(&mut o.caches, g.caches.as_slice().iter().copied());
    o.companion = g.companion;
    o.companion_joined = g.companion_joined;
    o.destination = g.destination;
    o.reached_destination = g.reached;
    o.stops_paid = g.stops_paid;
    refill_sorted(&mut o.boxed, g.boxed.as_slice().iter().copied());
    refill_sorted(&mut o.set_aside, g.set_aside.as_slice().iter().copied());
    refill(&mut o.way_stops, g.way.iter().rev().copied().filter(|c| c.is(Suit::Hearts)));
    refill_sorted(&mut o.way_hidden, g.way.iter().copied().filter(|c| !c.is(Suit::Hearts)));
    refill_sorted(&mut o.ruins, g.ruins.as_slice().iter().copied());
    o.offer = match g.phase {
        Phase::Offer { card, .. } => Some((card, return_journey::price(g, card))),
        _ => None,
    };
    o.joker_active = g.joker_active;
    refill(&mut o.dues, g.dues.as_slice().iter().copied());
}

/// Whether hiding is open in this encounter, and if not, the rule that closes it (the first
/// that applies, in the order the rules doc gives them), as the seat's text says it.
fn hide_notes(g: &Journey, o: &JourneyObservation, adversary: Card) -> Option<String> {
    let p = &g.p;
    if p.hide == HideForm::None {
        return None;
    }
    let nemesis = g.is_nemesis(adversary);
    let nemesis_forbidden = match p.hide {
        HideForm::Nominate => true,
        _ => !p.nemesis_hide,
    };
    if nemesis && nemesis_forbidden {
        return Some(format!("hiding from {} is forbidden", p.theme.nemesis()));
    }
    if p.hide == HideForm::Nominate && !super::hide::nominate_allowed_against(g, adversary) {
        let what = if (11..=13).contains(&adversary.rank()) { "a face card (J/Q/K)" } else { "this adversary" };
        return Some(format!("not against {what}: only against an adversary of rank 2–10"));
    }
    if companions::burden(g) && p.burden_blocks_hide {
        return Some("not while the Burden (J♥) travels with the group".into());
    }
    match p.hide {
        HideForm::Nominate => match o.hide_open {
            Some(false) => Some("no longer: a Hide is only the front's first decision of an encounter".into()),
            _ if g.supply.is_empty() => Some("the Supply is empty: no card to reveal".into()),
            _ => {
                let front = &g.satchels[g.front as usize];
                if front.iter().any(|c| (2..=10).contains(&c.rank())) {
                    Some("the front may still hide".into())
                } else {
                    Some("the front has no card of rank 2–10 to nominate".into())
                }
            }
        },
        _ => {
            if o.hide_failed == Some(true) {
                return Some("a hide failed: no more hiding this encounter".into());
            }
            if g.supply.is_empty() {
                return Some("the Supply is empty: no card to reveal".into());
            }
            let ace = if p.ace_rank == super::params::AceRank::Low { " (an Ace always does)" } else { "" };
            let bar = o.hide_bar.unwrap_or_else(|| g.rank(adversary));
            let room = if o.watcher || g.has_room(o.seat) { "" } else { "; you may not: your satchel is at its limit" };
            Some(format!("the next reveal must rank below {bar}{ace}{room}"))
        }
    }
}

fn list(cards: &[Card]) -> String {
    if cards.is_empty() {
        return "—".into();
    }
    cards.iter().map(Card::to_string).collect::<Vec<_>>().join(" ")
}

/// The observation as text, one fact per line.
pub(super) fn render(g: &Journey, o: &JourneyObservation) -> String {
    let mut t = String::new();
    let who = if o.watcher { "a watcher".to_string() } else { format!("traveller {}", o.seat) };
    let _ = writeln!(t, "{who} sees — turn {}, front: traveller {} — {}", o.turns, o.front, o.doing);
    for v in &o.travellers {
        let you = if v.seat == o.seat && !o.watcher { " (you)" } else { "" };
        let _ = writeln!(
            t,
            "  traveller {}{you} [{}]: satchel {} (limit {})",
            v.seat,
            status_name(v.status),
            list(&v.satchel),
            o.satchel_limit
        );
    }
    if let (Some(r), Some(l)) = (o.refuge, o.refuge_actions_left) {
        let passed_on = match o.refuge_passes {
            Some(p) if p > 0 => format!(" (passed on by {})", count(p as usize, "traveller", "")),
            _ => String::new(),
        };
        let _ = writeln!(t, "  refuge {r}: {}{passed_on}", count(l as usize, "action", "left"));
    }
    let theme = g.p.theme;
    if let (Some(a), Some(h), Some(k)) = (o.adversary, o.adversary_health, o.adversary_attack) {
        let name = if g.is_nemesis(a) { format!(" ({})", theme.nemesis()) } else { String::new() };
        let _ = writeln!(
            t,
            "  adversary {a}{name}: health {h}, attack {k} (counter −{})",
            o.counter_reduction.unwrap_or(0)
        );
        let mut hide: Vec<String> = hide_notes(g, o, a).into_iter().collect();
        if !o.spared.is_empty() {
            let who: Vec<String> = o.spared.iter().map(|s| format!("traveller {s}")).collect();
            hide.push(format!("this round's counter spares {}", who.join(", ")));
        }
        if !hide.is_empty() {
            let _ = writeln!(t, "  hide: {}", hide.join("; "));
        }
    }
    if let Some(d) = o.destination {
        let _ = writeln!(t, "  destination: {d} ({})", theme.destination());
    }
    let top = o.journey_top.map(|c| format!(", top {c} (the Witness)")).unwrap_or_default();
    let bottom = o.journey_bottom.map(|c| format!(", {c} ({}) at the bottom", theme.destination())).unwrap_or_default();
    let _ =
        writeln!(t, "  journey deck: {}{top}{bottom}: {}", count(o.journey_count, "card", ""), list(&o.journey_cards));
    let known_bottom = if o.supply_bottom.is_empty() {
        String::new()
    } else {
        format!("; known at the bottom, bottom card first: {}", list(&o.supply_bottom))
    };
    let _ = writeln!(t, "  supply: {}: {}{known_bottom}", count(o.supply_count, "card", ""), list(&o.supply_unknown));
    let _ = writeln!(t, "  discard: {}", list(&o.discard));
    let _ = writeln!(t, "  wreckage: {} — score {}", list(&o.wreckage), o.score);
    if let Some(c) = o.companion {
        let _ = writeln!(t, "  companion: {c}");
    }
    if !o.caches.is_empty() {
        let c: Vec<_> = o.caches.iter().map(|s| format!("{} at {}", s.card, s.refuge)).collect();
        let _ = writeln!(t, "  cached: {}", c.join(", "));
    }
    if !o.boxed.is_empty() {
        let _ = writeln!(t, "  out of the game: {}", list(&o.boxed));
    }
    if !o.set_aside.is_empty() {
        let _ = writeln!(t, "  supply set aside: {}", list(&o.set_aside));
    }
    if g.p.return_journey.is_on() {
        let _ = writeln!(t, "  passed refuges: {}", list(&o.passed));
        if o.reached_destination {
            let _ = writeln!(t, "  way home: {} paid", count(o.stops_paid as usize, "stop", ""));
        }
        if let Some(stop) = o.stop {
            let _ = writeln!(t, "  at the stop {stop} (toll {})", g.rank(stop));
        }
        if !o.way_stops.is_empty() || !o.way_hidden.is_empty() {
            let _ = writeln!(
                t,
                "  way home ahead: stops {} with {} among them ({}), then {}",
                list(&o.way_stops),
                count(o.way_hidden.len(), "face-down card", ""),
                list(&o.way_hidden),
                theme.home()
            );
        }
        if !o.ruins.is_empty() {
            let _ = writeln!(t, "  ruins: {} face down ({})", o.ruins.len(), list(&o.ruins));
        }
        if o.joker_active {
            let _ = writeln!(t, "  the Joker is with you");
        }
    }
    t
}

/// A full state with exactly the public facts of `o`: the hidden orders are laid out in a
/// fixed arrangement (sorted), and the generator is seeded from nothing; [`redraw`] then
/// draws them. An observation that names a card twice, or misses one, is an error.
pub(super) fn from_observation(p: &JourneyParams, o: &JourneyObservation) -> Result<Journey, String> {
    let n = p.travellers();
    if o.travellers.len() != n {
        return Err(format!("the observation shows {} travellers; the parameters say {n}", o.travellers.len()));
    }
    let mut g = super::setup::empty(p, 0);
    // The Journey deck: a known bottom (A♥), the rest, a known top (the Witness); top last.
    let mut middle = o.journey_cards.clone();
    for known in [o.journey_bottom, o.journey_top].into_iter().flatten() {
        let at =
            middle.iter().position(|&c| c == known).ok_or(format!("journey: {known} shown but not in the deck"))?;
        middle.remove(at);
    }
    o.journey_bottom.iter().chain(&middle).chain(&o.journey_top).for_each(|&c| g.journey.push(c));
    g.supply = DrawPile::with_known_bottom(&o.supply_bottom, &o.supply_unknown);
    o.discard.iter().for_each(|&c| g.discard.push(c));
    o.boxed.iter().for_each(|&c| g.boxed.push(c));
    o.set_aside.iter().for_each(|&c| g.set_aside.push(c));
    g.destination = o.destination;
    for v in &o.travellers {
        let s = v.seat as usize;
        if s >= n {
            return Err(format!("travellers: seat {s} is not a traveller"));
        }
        v.satchel.iter().for_each(|&c| g.satchels[s].push(c));
        g.status[s] = v.status;
    }
    o.wreckage.iter().for_each(|&c| g.wreckage.push(c));
    o.passed.iter().for_each(|&c| g.passed.push(c));
    o.caches.iter().for_each(|&spot| g.caches.push(spot));
    g.companion = o.companion;
    g.companion_joined = o.companion_joined;
    g.reached = o.reached_destination;
    g.stops_paid = o.stops_paid;
    g.front = o.front;
    g.turns = o.turns;
    g.phase = o.phase;
    g.fight = match (o.adversary, o.adversary_health, o.adversary_attack, &o.round) {
        (Some(adversary), Some(health), Some(attack), Some(round)) => {
            let mut order = [0u8; 4];
            order[..round.actors.len().min(4)].copy_from_slice(&round.actors[..round.actors.len().min(4)]);
            let mut spared = [false; 4];
            o.spared.iter().filter(|&&s| (s as usize) < 4).for_each(|&s| spared[s as usize] = true);
            Some(FightState {
                adversary,
                health,
                attack,
                reduction: o.counter_reduction.unwrap_or(0),
                spared,
                hide_bar: o.hide_bar.unwrap_or_else(|| g.rank(adversary)),
                hide_failed: o.hide_failed.unwrap_or(false),
                nominate_open: o.hide_open.unwrap_or(false),
                order,
                order_len: round.actors.len().min(4) as u8,
                pos: round.acted,
            })
        }
        (None, ..) => None,
        _ => return Err("adversary: a fight needs its health, attack and round".into()),
    };
    for (i, d) in o.dues.iter().enumerate() {
        d.check(i)?;
        g.dues.push(*d);
    }
    g.points = o.points;
    // The way home, top last: the stops in order, the face-down cards on top of them (where
    // they lie is hidden; `redraw` places them).
    o.way_stops.iter().rev().chain(&o.way_hidden).for_each(|&c| g.way.push(c));
    o.ruins.iter().for_each(|&c| g.ruins.push(c));
    g.joker_active = o.joker_active;
    let census = g.census();
    if let Some(i) = census.iter().position(|&k| k != 1) {
        let card = Card::from_index(i as u8).expect("a card index");
        return Err(format!("the observation places {card} {} times", census[i]));
    }
    debug_assert_eq!(census.len(), CARD_COUNT);
    Ok(g)
}

/// A state `seat` cannot tell from `g`: every hidden order redrawn from `rng` — the Journey
/// deck (but a top shown by the Witness and a dunwich A♥ at the bottom), the Supply above its
/// known bottom, the Ruins, the set-aside Supply, where the face-down cards of the way home
/// lie among the stops — and the generator of future chance. Nothing is hidden from one
/// traveller and shown to another, so `seat` changes nothing.
/// `g` with every hidden fact redrawn from `rng`. With `loose`, the Journey deck's and the
/// Supply's face-down cards are left loose instead of shuffled: each is drawn at random as
/// play reaches it (a state to be played once, see `Game::redraw_to_play`).
pub(super) fn redraw(g: &Journey, _seat: u8, rng: &mut SmallRng, loose: bool) -> Journey {
    let mut d = g.clone();
    // Journey deck: keep a top shown by the Witness and a bottom A♥.
    let keep_top = usize::from(companions::witness(g) && !g.journey.is_empty());
    let lo = usize::from(g.destination_at_bottom());
    let hi = d.journey.len().saturating_sub(keep_top).max(lo);
    if loose {
        d.journey.loosen(lo..hi);
        d.supply.loosen_unknown();
    } else {
        redraw_shuffle(&mut d.journey.as_mut_slice()[lo..hi], rng);
        redraw_shuffle(d.supply.unknown_mut(), rng);
    }
    redraw_shuffle(d.ruins.as_mut_slice(), rng);
    redraw_shuffle(d.set_aside.as_mut_slice(), rng);
    // Way home: the stops keep their order; the face-down cards go anywhere among them.
    if g.way.iter().any(|c| !c.is(Suit::Hearts)) {
        let mut way: Pile<Card, 32> = Pile::new();
        g.way.iter().filter(|c| c.is(Suit::Hearts)).for_each(|&c| way.push(c));
        for &c in g.way.iter().filter(|c| !c.is(Suit::Hearts)) {
            let at = rng.random_range(0..=way.len());
            way.insert(at, c);
        }
        d.way = way;
    }
    d.rng = fresh_chance(rng);
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Bounded, Game};
    use crate::journey::params::ReturnJourney;
    use crate::journey::{DueKind, Status};
    use rand::SeedableRng;

    /// An observation no position shows: every fact set, to a value none has (a new field
    /// must be set here too, or this does not build).
    fn poisoned() -> JourneyObservation {
        let c = Card::JOKER;
        JourneyObservation {
            seat: 9,
            watcher: true,
            to_move: Some(9),
            front: 9,
            turns: 9999,
            phase: Phase::Arrive,
            doing: "stale".into(),
            travellers: vec![TravellerView { seat: 9, status: Status::Fallen, satchel: vec![c; 9] }; 5],
            satchel_limit: 99,
            refuge: Some(c),
            refuge_actions_left: Some(99),
            refuge_passes: Some(99),
            adversary: Some(c),
            adversary_health: Some(-99),
            adversary_attack: Some(-99),
            counter_reduction: Some(-99),
            hide_bar: Some(99),
            hide_failed: Some(true),
            hide_open: Some(true),
            spared: vec![9; 5],
            round: Some(RoundView { actors: vec![9; 5], acted: 99 }),
            stop: Some(c),
            journey_count: 999,
            journey_cards: vec![c; 99],
            journey_top: Some(c),
            journey_bottom: Some(c),
            supply_count: 999,
            supply_unknown: vec![c; 99],
            supply_bottom: vec![c; 99],
            discard: vec![c; 99],
            wreckage: vec![c; 99],
            score: -9999,
            points: -9999,
            passed: vec![c; 99],
            caches: vec![CacheSpot { refuge: c, card: c, seat: 9 }; 9],
            companion: Some(c),
            companion_joined: true,
            destination: Some(c),
            reached_destination: true,
            stops_paid: 99,
            boxed: vec![c; 99],
            set_aside: vec![c; 99],
            way_stops: vec![c; 99],
            way_hidden: vec![c; 99],
            ruins: vec![c; 99],
            offer: Some((c, -99)),
            joker_active: true,
            dues: vec![Due { seat: 9, kind: DueKind::DiscardAny, owed: -99, card: Some(c) }; 9],
        }
    }

    /// An observation written over another (a poisoned one, then those of other editions,
    /// seat counts and positions, their lists longer or shorter) is the one built afresh: no
    /// fact of the old one stays.
    #[test]
    fn an_observation_written_over_another_is_the_one_built_afresh() {
        let mut rng = SmallRng::seed_from_u64(5);
        let (mut legal, mut positions, mut scratch) = (Vec::new(), 0, poisoned());
        for (k, mut p) in [JourneyParams::classic(), JourneyParams::martian(), JourneyParams::dunwich()]
            .into_iter()
            .cycle()
            .take(24)
            .enumerate()
        {
            // Every module on in most games, so that every fact varies.
            p.travellers = Bounded::new(1 + (k % 4) as i64);
            p.cache = k % 2 == 0;
            p.allies = k % 5 != 0;
            p.companions = k % 5 != 1;
            p.return_journey = [ReturnJourney::Ruins, ReturnJourney::Shadows, ReturnJourney::Off][k % 3];
            let mut g = Journey::new(&p, k as u64);
            loop {
                positions += 1;
                for seat in 0..g.travellers() as u8 {
                    for detail in [Detail::Ids, Detail::Full] {
                        let fresh = observe(&g, seat, detail);
                        let mut o = poisoned();
                        observe_into(&g, seat, detail, &mut o);
                        assert_eq!(o, fresh, "over a poisoned observation");
                        observe_into(&g, seat, detail, &mut scratch);
                        assert_eq!(scratch, fresh, "over the last one");
                    }
                }
                legal.clear();
                g.legal_actions(&mut legal);
                let Some(&a) = legal.get(rng.random_range(0..legal.len().max(1))) else { break };
                g.apply(a).unwrap();
            }
        }
        assert!(positions > 200, "{positions} positions");
    }
}
