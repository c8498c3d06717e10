//! A fixed-capacity stack of small `Copy` items with no heap storage, so a state made of
//! piles clones with one `memcpy`. The top of a pile is its last item. A [`DrawPile`] is a
//! face-down pile that also counts the items at its bottom every seat knows.
//!
//! A pile can hold a *loose* run of items, lying in no fixed order yet: a sampled state a
//! search plays once marks its face-down cards loose ([`Pile::loosen`]) instead of shuffling
//! them, and each is drawn at random only when the top reaches it ([`Pile::draw_from`]). Play
//! then follows the same distribution as after a full shuffle, for the price of the cards
//! drawn. A state of a real game never has a loose run, so its play is untouched.

use rand::Rng;
use rand::seq::SliceRandom;
use std::fmt;

#[derive(Clone, Copy)]
pub struct Pile<T: Copy + Default, const N: usize> {
    items: [T; N],
    len: u8,
    /// The loose run, `items[lo..hi]`: in no fixed order yet (empty: `lo == hi`).
    lo: u8,
    hi: u8,
}

impl<T: Copy + Default, const N: usize> Default for Pile<T, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy + Default, const N: usize> Pile<T, N> {
    pub fn new() -> Self {
        const { assert!(N <= 255, "a pile holds at most 255 items") };
        Pile { items: [T::default(); N], len: 0, lo: 0, hi: 0 }
    }

    pub fn from_slice(items: &[T]) -> Self {
        let mut p = Self::new();
        for &x in items {
            p.push(x);
        }
        p
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn as_slice(&self) -> &[T] {
        &self.items[..self.len as usize]
    }

    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.items[..self.len as usize]
    }

    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.as_slice().iter()
    }

    /// Put on top. Capacities are chosen to hold every item of a game, so a full pile is a
    /// bug in the rules code.
    #[inline]
    pub fn push(&mut self, x: T) {
        assert!((self.len as usize) < N, "pile capacity {N} exceeded");
        self.items[self.len as usize] = x;
        self.len += 1;
    }

    /// Take from the top (the top is not loose: see [`Pile::draw_from`]).
    #[inline]
    pub fn pop(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        debug_assert!(!self.top_is_loose(), "pop of a loose top: draw_from");
        self.len -= 1;
        self.hi = self.hi.min(self.len);
        self.lo = self.lo.min(self.hi);
        Some(self.items[self.len as usize])
    }

    /// Take from the top; a loose top is one of the loose items drawn at random from `rng`
    /// (a pile without a loose run draws nothing from it).
    #[inline]
    pub fn draw_from<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Option<T> {
        if self.top_is_loose() {
            let top = self.len as usize - 1;
            let lo = self.lo as usize;
            let pick = lo + below(rng, (top + 1 - lo) as u32) as usize;
            self.items.swap(pick, top);
            self.hi -= 1;
        }
        self.pop()
    }

    /// Mark `items[range]` loose: their order is drawn only as the top reaches them.
    pub fn loosen(&mut self, range: std::ops::Range<usize>) {
        assert!(range.start <= range.end && range.end <= self.len(), "loosen out of range");
        (self.lo, self.hi) = if range.len() > 1 { (range.start as u8, range.end as u8) } else { (0, 0) };
    }

    /// Whether the pile holds a loose run.
    pub fn is_loose(&self) -> bool {
        self.lo < self.hi
    }

    #[inline]
    fn top_is_loose(&self) -> bool {
        self.lo < self.hi && self.hi == self.len
    }

    /// The top item.
    #[inline]
    pub fn top(&self) -> Option<T> {
        self.as_slice().last().copied()
    }

    /// The bottom item.
    #[inline]
    pub fn first(&self) -> Option<&T> {
        self.as_slice().first()
    }

    /// Insert at `index` (0 is the bottom).
    pub fn insert(&mut self, index: usize, x: T) {
        let len = self.len as usize;
        assert!(len < N && index <= len, "pile insert out of range");
        self.items.copy_within(index..len, index + 1);
        self.items[index] = x;
        self.len += 1;
        // An item put among loose ones joins them (what it is when `index` was drawn
        // uniformly, as the rules do); one put below moves them up.
        if self.lo < self.hi {
            if index < self.lo as usize {
                self.lo += 1;
                self.hi += 1;
            } else if index <= self.hi as usize {
                self.hi += 1;
            }
        }
    }

    /// Slide under the bottom.
    pub fn put_under(&mut self, x: T) {
        self.insert(0, x);
    }

    /// Remove the item at `index`, keeping the order of the rest.
    pub fn remove(&mut self, index: usize) -> T {
        let len = self.len as usize;
        assert!(index < len, "pile remove out of range");
        let x = self.items[index];
        self.items.copy_within(index + 1..len, index);
        self.len -= 1;
        if self.lo < self.hi {
            if index < self.lo as usize {
                self.lo -= 1;
                self.hi -= 1;
            } else if index < self.hi as usize {
                self.hi -= 1;
            }
        }
        x
    }

    pub fn clear(&mut self) {
        self.len = 0;
        (self.lo, self.hi) = (0, 0);
    }

    /// Shuffle every item (a loose run is shuffled with the rest and is loose no more).
    pub fn shuffle<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        self.as_mut_slice().shuffle(rng);
        (self.lo, self.hi) = (0, 0);
    }
}

impl<T: Copy + Default + PartialEq, const N: usize> Pile<T, N> {
    pub fn contains(&self, x: T) -> bool {
        self.as_slice().contains(&x)
    }

    pub fn position(&self, x: T) -> Option<usize> {
        self.as_slice().iter().position(|&y| y == x)
    }

    /// Remove one `x`; false if it was not there.
    pub fn remove_item(&mut self, x: T) -> bool {
        match self.position(x) {
            Some(i) => {
                self.remove(i);
                true
            }
            None => false,
        }
    }
}

impl<T: Copy + Default + PartialEq, const N: usize> PartialEq for Pile<T, N> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Copy + Default + Eq, const N: usize> Eq for Pile<T, N> {}

impl<T: Copy + Default + fmt::Debug, const N: usize> fmt::Debug for Pile<T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<T: Copy + Default + serde::Serialize, const N: usize> serde::Serialize for Pile<T, N> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(s)
    }
}

impl<'a, T: Copy + Default, const N: usize> IntoIterator for &'a Pile<T, N> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// A face-down pile drawn from the top, under which items are slid where every seat sees
/// them go: it counts how many items at its bottom are known to all. The rest, above them,
/// lie in an order no seat knows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DrawPile<T: Copy + Default, const N: usize> {
    items: Pile<T, N>,
    known: u8,
}

impl<T: Copy + Default, const N: usize> DrawPile<T, N> {
    pub fn new() -> Self {
        DrawPile { items: Pile::new(), known: 0 }
    }

    /// A pile of `known_bottom` (bottom first), known to all, under `rest` (top last).
    pub fn with_known_bottom(known_bottom: &[T], rest: &[T]) -> Self {
        let mut p = Self::new();
        known_bottom.iter().chain(rest).for_each(|&x| p.items.push(x));
        p.known = known_bottom.len() as u8;
        p
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.items.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Every item, bottom first (top last).
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        self.items.as_slice()
    }

    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.items.iter()
    }

    /// The top item.
    #[inline]
    pub fn top(&self) -> Option<T> {
        self.items.top()
    }

    /// The items at the bottom known to every seat, bottom first.
    #[inline]
    pub fn known_bottom(&self) -> &[T] {
        &self.as_slice()[..self.known as usize]
    }

    /// The items above the known bottom, whose order no seat knows (top last).
    #[inline]
    pub fn unknown(&self) -> &[T] {
        &self.as_slice()[self.known as usize..]
    }

    /// The items above the known bottom, to redraw their order.
    #[inline]
    pub fn unknown_mut(&mut self) -> &mut [T] {
        let known = self.known as usize;
        &mut self.items.as_mut_slice()[known..]
    }

    /// Put on top, unseen.
    #[inline]
    pub fn push(&mut self, x: T) {
        self.items.push(x);
    }

    /// Take the top item; drawing into the known bottom leaves fewer known. A loose top is
    /// drawn at random from `rng` ([`Pile::draw_from`]).
    #[inline]
    pub fn draw<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Option<T> {
        let x = self.items.draw_from(rng)?;
        self.known = self.known.min(self.items.len() as u8);
        Some(x)
    }

    /// Mark the items above the known bottom loose ([`Pile::loosen`]): in a sampled state,
    /// instead of shuffling them.
    pub fn loosen_unknown(&mut self) {
        self.items.loosen(self.known as usize..self.items.len());
    }

    /// Slide under the bottom, where every seat sees it go.
    pub fn put_under(&mut self, x: T) {
        self.items.put_under(x);
        self.known += 1;
    }

    /// Shuffle every item: none is known any more.
    pub fn shuffle<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        self.items.shuffle(rng);
        self.known = 0;
    }
}

impl<T: Copy + Default + PartialEq, const N: usize> DrawPile<T, N> {
    /// Remove one `x`; false if it was not there.
    pub fn remove_item(&mut self, x: T) -> bool {
        match self.items.position(x) {
            Some(i) => {
                self.items.remove(i);
                self.known -= u8::from(i < self.known as usize);
                true
            }
            None => false,
        }
    }
}

/// A uniform random index below `n` (`n` > 0): one 32-bit draw, multiplied and shifted
/// (Lemire), a rare second draw keeping it exactly uniform.
#[inline]
fn below<R: Rng + ?Sized>(rng: &mut R, n: u32) -> u32 {
    let mut m = u64::from(rng.next_u32()) * u64::from(n);
    if (m as u32) < n {
        let threshold = n.wrapping_neg() % n;
        while (m as u32) < threshold {
            m = u64::from(rng.next_u32()) * u64::from(n);
        }
    }
    (m >> 32) as u32
}

/// Shuffle `items` uniformly (Fisher–Yates, one 32-bit draw per item): the redraw of hidden
/// facts, which samplers run once per search iteration. The rules' own shuffles (the deal,
/// a fled adversary's place) stay as the rules version pins them.
pub fn redraw_shuffle<T, R: Rng + ?Sized>(items: &mut [T], rng: &mut R) {
    for i in (1..items.len()).rev() {
        items.swap(i, below(rng, i as u32 + 1) as usize);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::SmallRng;

    #[test]
    fn a_loose_run_is_drawn_uniformly_and_nothing_else_moves() {
        // 0 at the bottom and 9 on top stay put; 1..=4 lie loose between them.
        let mut counts = [[0u32; 5]; 4];
        let mut rng = SmallRng::seed_from_u64(7);
        for _ in 0..8000 {
            let mut p: Pile<u8, 8> = Pile::from_slice(&[0, 1, 2, 3, 4, 9]);
            p.loosen(1..5);
            assert!(p.is_loose());
            assert_eq!(p.draw_from(&mut rng), Some(9), "a fixed top is drawn as it lies");
            let drawn: Vec<u8> = (0..4).map(|_| p.draw_from(&mut rng).unwrap()).collect();
            for (k, &c) in drawn.iter().enumerate() {
                counts[k][c as usize] += 1;
            }
            let mut sorted = drawn.clone();
            sorted.sort();
            assert_eq!(sorted, [1, 2, 3, 4], "each loose item once");
            assert!(!p.is_loose());
            assert_eq!(p.as_slice(), &[0]);
        }
        // Each of the 4 draws meets each item about 2000 times (sd ≈ 39).
        for row in &counts {
            assert_eq!(row[0], 0);
            for &n in &row[1..] {
                assert!((1800..2200).contains(&n), "{counts:?}");
            }
        }
    }

    #[test]
    fn items_put_among_loose_ones_join_them_and_those_below_move_them_up() {
        let mut p: Pile<u8, 8> = Pile::from_slice(&[0, 1, 2, 3]);
        p.loosen(2..4);
        p.put_under(7); // below: the run moves up to 3..5
        p.insert(4, 8); // among them: the run is 3..6
        assert_eq!(p.as_slice(), &[7, 0, 1, 2, 8, 3]);
        assert!(p.remove_item(0)); // below: 2..5
        let mut rng = SmallRng::seed_from_u64(1);
        let mut rest: Vec<u8> = (0..3).map(|_| p.draw_from(&mut rng).unwrap()).collect();
        rest.sort();
        assert_eq!(rest, [2, 3, 8]);
        assert!(!p.is_loose());
        assert_eq!(p.as_slice(), &[7, 1]);
        // A shuffle leaves nothing loose; so does a run of one.
        p.loosen(0..2);
        p.shuffle(&mut rng);
        assert!(!p.is_loose());
        p.loosen(1..2);
        assert!(!p.is_loose());
    }

    #[test]
    fn a_draw_pile_loosens_what_no_seat_knows() {
        let mut p: DrawPile<u8, 8> = DrawPile::with_known_bottom(&[5, 6], &[1, 2, 3]);
        p.loosen_unknown();
        let mut rng = SmallRng::seed_from_u64(3);
        let mut top: Vec<u8> = (0..3).map(|_| p.draw(&mut rng).unwrap()).collect();
        top.sort();
        assert_eq!(top, [1, 2, 3]);
        assert_eq!((p.draw(&mut rng), p.draw(&mut rng)), (Some(6), Some(5)), "the known bottom last, in order");
    }

    #[test]
    fn push_pop_insert_remove_keep_order() {
        let mut p: Pile<u8, 8> = Pile::from_slice(&[1, 2, 3]);
        p.put_under(0);
        assert_eq!(p.as_slice(), &[0, 1, 2, 3]);
        assert_eq!(p.pop(), Some(3));
        p.insert(1, 9);
        assert_eq!(p.as_slice(), &[0, 9, 1, 2]);
        assert!(p.remove_item(9));
        assert!(!p.remove_item(9));
        assert_eq!(p.remove(0), 0);
        assert_eq!(p.as_slice(), &[1, 2]);
        assert_eq!(p.top(), Some(2));
    }

    #[test]
    fn a_draw_pile_knows_what_was_slid_under_until_it_is_drawn() {
        let mut p: DrawPile<u8, 8> = DrawPile::with_known_bottom(&[], &[1, 2]);
        p.put_under(0);
        assert_eq!((p.known_bottom(), p.unknown()), (&[0][..], &[1, 2][..]));
        let rng = &mut rand::rngs::SmallRng::seed_from_u64(0);
        assert_eq!((p.draw(rng), p.draw(rng), p.draw(rng)), (Some(2), Some(1), Some(0)));
        assert!(p.known_bottom().is_empty() && p.is_empty());
        p.put_under(5);
        p.put_under(4);
        assert!(p.remove_item(4));
        assert_eq!(p.known_bottom(), &[5]);
    }

    #[test]
    fn the_redraw_shuffle_deals_every_order_alike() {
        use rand::SeedableRng;
        let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
        // The 24 orders of four items, 24,000 shuffles: each order about 1,000 times.
        let mut seen = std::collections::HashMap::new();
        for _ in 0..24_000 {
            let mut v = [0u8, 1, 2, 3];
            redraw_shuffle(&mut v, &mut rng);
            *seen.entry(v).or_insert(0u32) += 1;
        }
        assert_eq!(seen.len(), 24);
        assert!(seen.values().all(|&n| (850..1150).contains(&n)), "{seen:?}");
        assert_eq!(below(&mut rng, 1), 0);
    }
}
