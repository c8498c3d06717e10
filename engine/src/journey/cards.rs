//! The cards: one standard 52-card deck and a Joker. ♥ and ♠ make the Journey deck
//! (refuges and adversaries), ♦ and ♣ the Supply.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Suit {
    Spades,
    Hearts,
    Diamonds,
    Clubs,
}

impl Suit {
    pub const ALL: [Suit; 4] = [Suit::Spades, Suit::Hearts, Suit::Diamonds, Suit::Clubs];
    pub fn symbol(self) -> char {
        match self {
            Suit::Spades => '♠',
            Suit::Hearts => '♥',
            Suit::Diamonds => '♦',
            Suit::Clubs => '♣',
        }
    }
}

/// A card: `suit * 13 + (rank - 2)` for the 52, and 52 for the Joker.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Card(u8);

/// Every card of the game, Joker included.
pub const CARD_COUNT: usize = 53;

impl Card {
    pub const JOKER: Card = Card(52);
    /// A♥, the Destination in every edition.
    pub const ACE_OF_HEARTS: Card = Card::new(Suit::Hearts, 14);
    /// A♠, the Nemesis.
    pub const ACE_OF_SPADES: Card = Card::new(Suit::Spades, 14);
    /// A♣, the Reckoning where the Aces carry powers.
    pub const ACE_OF_CLUBS: Card = Card::new(Suit::Clubs, 14);
    /// A♦, the Revelation where the Aces carry powers.
    pub const ACE_OF_DIAMONDS: Card = Card::new(Suit::Diamonds, 14);

    /// `rank` is 2..=14 with J 11, Q 12, K 13, A 14.
    pub const fn new(suit: Suit, rank: u8) -> Card {
        assert!(rank >= 2 && rank <= 14);
        Card(suit as u8 * 13 + rank - 2)
    }

    pub fn from_index(i: u8) -> Option<Card> {
        (i < CARD_COUNT as u8).then_some(Card(i))
    }

    pub fn index(self) -> usize {
        self.0 as usize
    }

    pub fn is_joker(self) -> bool {
        self == Card::JOKER
    }

    /// The suit; `None` for the Joker.
    pub fn suit(self) -> Option<Suit> {
        (!self.is_joker()).then(|| Suit::ALL[(self.0 / 13) as usize])
    }

    pub fn is(self, suit: Suit) -> bool {
        self.suit() == Some(suit)
    }

    /// Printed rank 2..=14 (J 11, Q 12, K 13, A 14); 0 for the Joker.
    pub fn rank(self) -> u8 {
        if self.is_joker() { 0 } else { self.0 % 13 + 2 }
    }

    pub fn is_face(self) -> bool {
        matches!(self.rank(), 11..=13)
    }

    pub fn is_ace(self) -> bool {
        self.rank() == 14
    }

    /// All 52 cards of one suit set, ranks ascending.
    pub fn of_suits(suits: &[Suit]) -> impl Iterator<Item = Card> + '_ {
        suits.iter().flat_map(|&s| (2..=14).map(move |r| Card::new(s, r)))
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_joker() {
            return f.write_str("Joker");
        }
        let r = match self.rank() {
            11 => "J".to_string(),
            12 => "Q".to_string(),
            13 => "K".to_string(),
            14 => "A".to_string(),
            n => n.to_string(),
        };
        write!(f, "{r}{}", self.suit().map(Suit::symbol).unwrap_or('?'))
    }
}

impl fmt::Debug for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl serde::Serialize for Card {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl std::str::FromStr for Card {
    type Err = String;
    /// Reads `7♦`, `10C`, `Jh`, `AS`, `Joker`: suits as symbols or S/H/D/C letters.
    fn from_str(s: &str) -> Result<Card, String> {
        let t = s.trim();
        if t.eq_ignore_ascii_case("joker") {
            return Ok(Card::JOKER);
        }
        let bad = || format!("`{s}` is not a card (write e.g. 7♦, 10C, JH, A♠ or Joker)");
        let last = t.chars().last().ok_or_else(bad)?;
        let suit = match last.to_ascii_uppercase() {
            '♠' | 'S' => Suit::Spades,
            '♥' | 'H' => Suit::Hearts,
            '♦' | 'D' => Suit::Diamonds,
            '♣' | 'C' => Suit::Clubs,
            _ => return Err(bad()),
        };
        let rank = match &t[..t.len() - last.len_utf8()].to_ascii_uppercase()[..] {
            "J" => 11,
            "Q" => 12,
            "K" => 13,
            "A" => 14,
            n => n.parse::<u8>().ok().filter(|r| (2..=10).contains(r)).ok_or_else(bad)?,
        };
        Ok(Card::new(suit, rank))
    }
}

impl<'de> serde::Deserialize<'de> for Card {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Card, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cards_print_and_parse_round_trip() {
        for i in 0..CARD_COUNT as u8 {
            let c = Card::from_index(i).unwrap();
            assert_eq!(c.to_string().parse::<Card>().unwrap(), c);
        }
        assert_eq!("10c".parse::<Card>().unwrap(), Card::new(Suit::Clubs, 10));
        assert!("11♣".parse::<Card>().is_err());
        assert!("7x".parse::<Card>().is_err());
    }
}
