//! The rule parameters of `journey` and the three editions as presets.

use crate::core::{Bounded, GameParams};
use crate::{game_params, param_enum};

param_enum! {
    /// Whose names the cards carry (text only).
    pub enum Theme { Classic = "classic", Martian = "martian", Dunwich = "dunwich", }
}
impl Theme {
    /// A♠.
    pub fn nemesis(self) -> &'static str {
        match self {
            Theme::Classic => "the Nemesis",
            Theme::Martian => "the Fighting Machine",
            Theme::Dunwich => "Yog-Sothoth",
        }
    }
    /// A♥.
    pub fn destination(self) -> &'static str {
        match self {
            Theme::Classic => "the Destination",
            Theme::Martian => "Primrose Hill",
            Theme::Dunwich => "Sentinel Hill",
        }
    }
    /// The last stop of the way home.
    pub fn home(self) -> &'static str {
        match self {
            Theme::Classic => "home",
            Theme::Martian => "Woking",
            Theme::Dunwich => "The Orne Library",
        }
    }
    /// A♣ with its power.
    pub fn reckoning(self) -> &'static str {
        match self {
            Theme::Martian => "Terrestrial Bacteria",
            _ => "the Reckoning",
        }
    }
}

param_enum! {
    /// How adversaries are sized: by rank index (J/Q/K 11/12/13) or by value (J/Q/K 10, A 11).
    pub enum AdversaryScale { Rank = "rank", Value = "value", }
}
param_enum! {
    /// The two forms of Hide.
    pub enum HideForm { Nominate = "nominate", RevealChain = "reveal_chain", None = "none", }
}
param_enum! {
    /// The rank of an Ace in comparisons: low (1, and an Ace always reveals lower) or high (14).
    pub enum AceRank { Low = "low", High = "high", }
}
param_enum! {
    /// What A♣ and A♦ are: Reckoning and Revelation, or ordinary cards worth 11.
    pub enum Aces { Powers = "powers", Ordinary = "ordinary", }
}
param_enum! {
    /// Where A♥ lies: set aside and turned when the Journey deck empties, or the last Journey card.
    pub enum Destination { SetAside = "set_aside", LastRefuge = "last_refuge", }
}
param_enum! {
    /// What being rid of the Burden through an adversary costs.
    pub enum Riddance {
        /// The fleeing traveller discards one card plus one further card.
        FleePlusOne = "flee_plus_one",
        /// Every traveller discards one card, plus one further card from any one traveller.
        EveryonePlusOne = "everyone_plus_one",
    }
}
param_enum! {
    /// Which ♥ faces join as companions.
    pub enum CompanionJoin {
        /// Only the first ♥ face met ever joins (classic: "The first ♥ face joins").
        FirstOnly = "first_only",
        /// A ♥ face joins whenever no companion travels ("One at a time").
        OneAtATime = "one_at_a_time",
    }
}
param_enum! {
    /// The way home: none, through Ruins (martian), or through Shadows (dunwich).
    pub enum ReturnJourney { Off = "off", Ruins = "ruins", Shadows = "shadows", }
}

impl ReturnJourney {
    pub fn is_on(self) -> bool {
        self != ReturnJourney::Off
    }
}

game_params! {
    /// Every rule of `journey` that differs between editions or is a number the seeds leave open.
    pub struct JourneyParams, patch JourneyPatch {
        /// travellers (seats), cooperative
        pub travellers: Bounded<1, 4>,
        /// cards a satchel holds (before companions)
        pub satchel_limit: Bounded<1, 20>,
        /// names on the cards: classic, martian or dunwich
        pub theme: Theme,
        /// Cache is a refuge action
        pub cache: bool,
        /// adversary size: rank (J/Q/K 11/12/13) or value (J/Q/K 10, A 11)
        pub adversary_scale: AdversaryScale,
        /// adversary health = this x its rank or value
        pub adversary_health_factor: Bounded<1, 5>,
        /// Nemesis (A♠) health
        pub nemesis_health: Bounded<1, 200>,
        /// Nemesis health added per traveller beyond the first
        pub nemesis_health_per_extra_traveller: Bounded<0, 50>,
        /// Nemesis attack
        pub nemesis_attack: Bounded<1, 50>,
        /// the Nemesis may be fled
        pub nemesis_flee: bool,
        /// the Nemesis may be hidden from
        pub nemesis_hide: bool,
        /// Hide: nominate (classic), reveal_chain (martian, dunwich) or none
        pub hide: HideForm,
        /// rank of an Ace in comparisons: low or high
        pub ace_rank: AceRank,
        /// A♣ and A♦: powers (Reckoning, Revelation) or ordinary cards worth 11
        pub aces: Aces,
        /// value of A♣/A♦ with powers when spent or discarded
        pub spent_ace_value: Bounded<0, 11>,
        /// A♥: set_aside (turned when the deck empties) or last_refuge (an 11-action refuge)
        pub destination: Destination,
        /// the Burden (J♥) also forbids hiding
        pub burden_blocks_hide: bool,
        /// being rid of the Burden through an adversary: flee_plus_one (the flee discard plus one further card) or everyone_plus_one (every traveller discards one, plus one further card from any one traveller)
        pub burden_riddance: Riddance,
        /// optional module: allies (♦/♣ faces)
        pub allies: bool,
        /// optional module: companions (♥ faces)
        pub companions: bool,
        /// which ♥ faces join: first_only (only the first ever) or one_at_a_time (whenever none travels)
        pub companion_joins: CompanionJoin,
        /// optional module: the way home (off, ruins, shadows)
        pub return_journey: ReturnJourney,
    }
}

impl JourneyParams {
    pub fn classic() -> Self {
        JourneyParams {
            travellers: Bounded::new(1),
            satchel_limit: Bounded::new(6),
            theme: Theme::Classic,
            cache: false,
            adversary_scale: AdversaryScale::Rank,
            adversary_health_factor: Bounded::new(2),
            nemesis_health: Bounded::new(40),
            nemesis_health_per_extra_traveller: Bounded::new(0),
            nemesis_attack: Bounded::new(20),
            nemesis_flee: false,
            nemesis_hide: false,
            hide: HideForm::Nominate,
            ace_rank: AceRank::Low,
            aces: Aces::Powers,
            spent_ace_value: Bounded::new(0),
            destination: Destination::SetAside,
            burden_blocks_hide: false,
            burden_riddance: Riddance::FleePlusOne,
            allies: false,
            companions: false,
            companion_joins: CompanionJoin::FirstOnly,
            return_journey: ReturnJourney::Off,
        }
    }

    pub fn martian() -> Self {
        JourneyParams {
            theme: Theme::Martian,
            cache: true,
            nemesis_health_per_extra_traveller: Bounded::new(10),
            nemesis_flee: true,
            hide: HideForm::RevealChain,
            spent_ace_value: Bounded::new(1),
            burden_blocks_hide: true,
            burden_riddance: Riddance::EveryonePlusOne,
            companion_joins: CompanionJoin::OneAtATime,
            ..Self::classic()
        }
    }

    pub fn dunwich() -> Self {
        JourneyParams {
            theme: Theme::Dunwich,
            adversary_scale: AdversaryScale::Value,
            adversary_health_factor: Bounded::new(3),
            nemesis_health: Bounded::new(33),
            nemesis_health_per_extra_traveller: Bounded::new(0),
            nemesis_attack: Bounded::new(11),
            nemesis_flee: true,
            nemesis_hide: true,
            ace_rank: AceRank::High,
            aces: Aces::Ordinary,
            destination: Destination::LastRefuge,
            return_journey: ReturnJourney::Shadows,
            ..Self::martian()
        }
    }

    pub fn travellers(&self) -> usize {
        self.travellers.get() as usize
    }
}

impl GameParams for JourneyParams {
    const PRESETS: &'static [&'static str] = &["classic", "martian", "dunwich"];
    const DEFAULT_PRESET: &'static str = "dunwich";

    fn preset(name: &str) -> Option<Self> {
        match name {
            "classic" => Some(Self::classic()),
            "martian" => Some(Self::martian()),
            "dunwich" => Some(Self::dunwich()),
            _ => None,
        }
    }
    fn validate(&self) -> Result<(), String> {
        if self.return_journey == ReturnJourney::Shadows && self.destination != Destination::LastRefuge {
            return Err("return_journey: shadows needs destination: last_refuge (the A♥ refuge is the stock-up)".into());
        }
        Ok(())
    }
}
