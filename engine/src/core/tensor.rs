//! A seat's observation as numbers, for agents that learn: each game lays an observation out
//! as a vector of named fields of fixed length (the layout depends on the parameters only),
//! built from the observation alone — so a seat's tensor never depends on facts hidden from
//! it. Each game documents its fields in `docs/rules/<game>.md`, and declares with each field
//! the range its numbers keep to (what a learner's observation space is bounded by).

use serde::Serialize;

/// How much of an observation is built: all of it for a seat, or for a tensor (which reads
/// ids and numbers) without the names and texts its ids give, to spare their copies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// The observation as sent to a seat.
    Full,
    /// The ids and numbers alone; names, texts and what a content set prints on a tile or a
    /// card left empty.
    Ids,
}

/// One field of a layout: its name, its length, what it holds, and the range of its numbers.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TensorField {
    pub name: &'static str,
    pub size: usize,
    pub doc: &'static str,
    /// No number of the field is below this, in any position of a game played by the rules
    /// with the parameters the layout was made for.
    pub low: f32,
    /// No number of the field is above this (likewise); always above `low`, since a range of
    /// no width makes a poor observation space (Gymnasium warns of one).
    pub high: f32,
}

/// The total length of a layout.
pub fn tensor_size(layout: &[TensorField]) -> usize {
    layout.iter().map(|f| f.size).sum()
}

/// The least and the greatest value of each number of a tensor laid out by `layout`: each
/// field's range, repeated over its numbers (an observation space's bounds).
pub fn tensor_bounds(layout: &[TensorField]) -> (Vec<f32>, Vec<f32>) {
    let each = |bound: fn(&TensorField) -> f32| {
        layout.iter().flat_map(|f| std::iter::repeat_n(bound(f), f.size)).collect::<Vec<f32>>()
    };
    (each(|f| f.low), each(|f| f.high))
}

/// Writes an observation's fields into a caller's buffer, in the layout's order, each checked
/// against its length.
pub struct TensorWriter<'a> {
    layout: &'a [TensorField],
    next: usize,
    data: &'a mut [f32],
    at: usize,
}

impl<'a> TensorWriter<'a> {
    /// A writer of `layout` into `out`, whose length is the layout's size: every number is
    /// zeroed first (one pass, rather than a fill per field), then written field by field.
    pub fn new(layout: &'a [TensorField], out: &'a mut [f32]) -> TensorWriter<'a> {
        assert_eq!(out.len(), tensor_size(layout), "a tensor's buffer holds the layout's size");
        out.fill(0.0);
        TensorWriter { layout, next: 0, data: out, at: 0 }
    }

    /// The next field, which must be `name`: its place in the buffer.
    #[inline]
    fn field(&mut self, name: &str) -> &mut [f32] {
        let f = self.layout.get(self.next).unwrap_or_else(|| panic!("field `{name}` is past the layout's end"));
        // Every tensor of every position the conformance suite meets is written with this on.
        debug_assert_eq!(f.name, name, "fields written out of the layout's order");
        self.next += 1;
        let start = self.at;
        self.at += f.size;
        &mut self.data[start..self.at]
    }

    /// The field `name`, its values in order (as many as the layout says).
    #[inline]
    pub fn values(&mut self, name: &str, values: impl IntoIterator<Item = f32>) {
        let field = self.field(name);
        let size = field.len();
        let mut written = 0;
        for v in values {
            assert!(written < size, "field `{name}`: more values than its size in the layout, {size}");
            field[written] = v;
            written += 1;
        }
        assert_eq!(written, size, "field `{name}`: its size in the layout");
    }

    /// 1 at each index given, 0 elsewhere (as zeroed by [`TensorWriter::new`]).
    #[inline]
    pub fn marks(&mut self, name: &str, indices: impl IntoIterator<Item = usize>) {
        let field = self.field(name);
        let size = field.len();
        for i in indices {
            assert!(i < size, "field `{name}`: index {i} of {size}");
            field[i] = 1.0;
        }
    }

    /// The field `name` as blocks of `stride` numbers, a mark in block `b` at each id of the
    /// bit set `ids`, for each `(b, ids)` of `blocks` (ids of a set of tiles or cards, per
    /// seat, say): [`marks`](Self::marks) without an iterator per block.
    #[inline]
    pub fn bit_sets(&mut self, name: &str, stride: usize, blocks: impl IntoIterator<Item = (usize, u64)>) {
        let field = self.field(name);
        let size = field.len();
        for (block, mut ids) in blocks {
            while ids != 0 {
                let i = block * stride + ids.trailing_zeros() as usize;
                assert!(i < size, "field `{name}`: index {i} of {size}");
                field[i] = 1.0;
                ids &= ids - 1;
            }
        }
    }

    /// Every field written.
    pub fn finish(self) {
        assert_eq!(self.next, self.layout.len(), "every field of the layout is written");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A field of `size` numbers in [0, 1].
    fn field(name: &'static str, size: usize) -> TensorField {
        TensorField { name, size, doc: "", low: 0.0, high: 1.0 }
    }

    #[test]
    fn fields_are_written_in_order_with_their_sizes() {
        let layout = vec![field("a", 3), field("b", 2)];
        assert_eq!(tensor_size(&layout), 5);
        let mut out = [7.0; 5];
        let mut w = TensorWriter::new(&layout, &mut out);
        w.marks("a", [0, 2]);
        w.values("b", [0.5, 0.25]);
        w.finish();
        assert_eq!(out, [1.0, 0.0, 1.0, 0.5, 0.25]);
    }

    #[test]
    fn bit_sets_mark_each_id_in_its_block() {
        let layout = vec![field("a", 6)];
        let mut out = [7.0; 6];
        let mut w = TensorWriter::new(&layout, &mut out);
        w.bit_sets("a", 3, [(0, 0b101), (1, 0b010)]);
        w.finish();
        assert_eq!(out, [1.0, 0.0, 1.0, 0.0, 1.0, 0.0]);
    }

    #[test]
    #[should_panic(expected = "field `a`: index 6 of 6")]
    fn a_bit_past_its_field_is_refused() {
        let layout = vec![field("a", 6)];
        let mut out = [0.0; 6];
        TensorWriter::new(&layout, &mut out).bit_sets("a", 3, [(1, 0b1000)]);
    }

    #[test]
    fn bounds_repeat_each_fields_range_over_its_numbers() {
        let layout = vec![
            TensorField { name: "a", size: 2, doc: "", low: 0.0, high: 1.0 },
            TensorField { name: "b", size: 0, doc: "", low: 5.0, high: 6.0 },
            TensorField { name: "c", size: 3, doc: "", low: -1.0, high: 0.5 },
        ];
        let (low, high) = tensor_bounds(&layout);
        assert_eq!(low, [0.0, 0.0, -1.0, -1.0, -1.0]);
        assert_eq!(high, [1.0, 1.0, 0.5, 0.5, 0.5]);
    }
}
