//! A seat's observation as numbers, for agents that learn: each game lays an observation out
//! as a vector of named fields of fixed length (the layout depends on the parameters only),
//! built from the observation alone — so a seat's tensor never depends on facts hidden from
//! it. Each game documents its fields in `docs/rules/<game>.md`.

use serde::Serialize;

/// One field of a layout: its name, its length, what it holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TensorField {
    pub name: &'static str,
    pub size: usize,
    pub doc: &'static str,
}

/// The total length of a layout.
pub fn tensor_size(layout: &[TensorField]) -> usize {
    layout.iter().map(|f| f.size).sum()
}

/// Writes an observation's fields in the layout's order, each checked against its length.
pub struct TensorWriter {
    layout: Vec<TensorField>,
    next: usize,
    data: Vec<f32>,
}

impl TensorWriter {
    pub fn new(layout: Vec<TensorField>) -> TensorWriter {
        let size = tensor_size(&layout);
        TensorWriter { layout, next: 0, data: Vec::with_capacity(size) }
    }

    fn expect(&mut self, name: &str) -> usize {
        let f = self.layout.get(self.next).unwrap_or_else(|| panic!("field `{name}` is past the layout's end"));
        assert_eq!(f.name, name, "fields written out of the layout's order");
        self.next += 1;
        f.size
    }

    /// The field `name`, its values in order (as many as the layout says).
    pub fn values(&mut self, name: &str, values: impl IntoIterator<Item = f32>) {
        let size = self.expect(name);
        let start = self.data.len();
        self.data.extend(values);
        assert_eq!(self.data.len() - start, size, "field `{name}`: its size in the layout");
    }

    /// 1 at each index given, 0 elsewhere.
    pub fn marks(&mut self, name: &str, indices: impl IntoIterator<Item = usize>) {
        let size = self.expect(name);
        let start = self.data.len();
        self.data.resize(start + size, 0.0);
        for i in indices {
            assert!(i < size, "field `{name}`: index {i} of {size}");
            self.data[start + i] = 1.0;
        }
    }

    /// The finished vector.
    pub fn finish(self) -> Vec<f32> {
        assert_eq!(self.next, self.layout.len(), "every field of the layout is written");
        self.data
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_written_in_order_with_their_sizes() {
        let layout = vec![TensorField { name: "a", size: 3, doc: "" }, TensorField { name: "b", size: 2, doc: "" }];
        assert_eq!(tensor_size(&layout), 5);
        let mut w = TensorWriter::new(layout);
        w.marks("a", [0, 2]);
        w.values("b", [0.5, 0.25]);
        assert_eq!(w.finish(), vec![1.0, 0.0, 1.0, 0.5, 0.25]);
    }
}
