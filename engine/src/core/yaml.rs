//! YAML written by someone else, weighed before anything is built from it.
//!
//! `serde_yaml` builds what a document describes with every alias expanded: a few hundred
//! bytes that name one scalar many times over describe gigabytes. It also reads a document's
//! every event into memory before it builds anything (about a hundred bytes an event, so 1 MiB
//! of `[1,1,1,…]` takes 50 MB), and a collection nested thousands deep costs its parser time
//! that grows with the square of the depth. [`YamlBudget::check`] walks the events first, one
//! at a time with nothing kept, through the same parser (libyaml, as `serde_yaml` runs it), and
//! refuses the text at the first limit passed: nodes, bytes of scalar text (both counting each
//! alias as everything it names) or nesting. libyaml looks ahead at most 1,024 characters or
//! one line for a key, so the walk stops soon after a limit's event.

use std::collections::HashMap;
use std::fmt;

/// What one document, or the documents one request carries together, may describe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct YamlLimits {
    /// Scalars, sequences and mappings, an alias counting as every node it names.
    pub nodes: u64,
    /// Bytes of scalar text, an alias counting as every byte it names.
    pub bytes: u64,
    /// Sequences and mappings inside one another.
    pub depth: u32,
}

impl YamlLimits {
    /// For the files a user names on the command line: far beyond any real tournament or
    /// content set, short of exhausting a machine's memory.
    pub const FILES: YamlLimits = YamlLimits { nodes: 2_000_000, bytes: 256 << 20, depth: 128 };
}

/// Why a document was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum YamlRefusal {
    Nodes(u64),
    Bytes(u64),
    Depth(u32),
    /// An alias inside the node its anchor names (it would name itself without end).
    AliasInsideItself {
        line: usize,
    },
    /// The text is not YAML (as this parser reads it).
    Syntax {
        message: String,
        line: usize,
        column: usize,
    },
}

impl fmt::Display for YamlRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            YamlRefusal::Nodes(limit) => {
                write!(f, "over the limit of {limit} YAML nodes (an alias counts as every node it names)")
            }
            YamlRefusal::Bytes(limit) => {
                write!(f, "over the limit of {limit} bytes of YAML scalars (an alias counts as every byte it names)")
            }
            YamlRefusal::Depth(limit) => write!(f, "nested deeper than the limit of {limit} YAML levels"),
            YamlRefusal::AliasInsideItself { line } => {
                write!(f, "an alias inside the node its anchor names, at line {line}")
            }
            YamlRefusal::Syntax { message, line, column } => {
                write!(f, "not YAML: {message} at line {line} column {column}")
            }
        }
    }
}

impl std::error::Error for YamlRefusal {}

/// Limits spent over one or more documents: what one request carries shares one budget.
#[derive(Clone, Debug)]
pub struct YamlBudget {
    limits: YamlLimits,
    nodes: u64,
    bytes: u64,
}

/// A collection not closed yet: its anchor, and the totals before it began.
struct Open {
    anchor: Option<Vec<u8>>,
    nodes: u64,
    bytes: u64,
}

impl YamlBudget {
    pub fn new(limits: YamlLimits) -> YamlBudget {
        YamlBudget { limits, nodes: 0, bytes: 0 }
    }

    pub fn limits(&self) -> YamlLimits {
        self.limits
    }

    /// Nodes and scalar bytes spent so far.
    pub fn spent(&self) -> (u64, u64) {
        (self.nodes, self.bytes)
    }

    fn spend(&mut self, nodes: u64, bytes: u64) -> Result<(), YamlRefusal> {
        self.nodes = self.nodes.saturating_add(nodes);
        self.bytes = self.bytes.saturating_add(bytes);
        if self.nodes > self.limits.nodes {
            return Err(YamlRefusal::Nodes(self.limits.nodes));
        }
        if self.bytes > self.limits.bytes {
            return Err(YamlRefusal::Bytes(self.limits.bytes));
        }
        Ok(())
    }

    /// Weigh every document of `text` (aliases expanded), spending this budget; refused at the
    /// first limit passed, or if the text is not YAML.
    pub fn check(&mut self, text: &str) -> Result<(), YamlRefusal> {
        let mut events = libyaml::Events::new(text.as_bytes());
        let mut open: Vec<Open> = Vec::new();
        // What each anchor names, once its node is complete (a later anchor of the same name
        // replaces it, as in the deserialiser).
        let mut anchors: HashMap<Vec<u8>, (u64, u64)> = HashMap::new();
        loop {
            let (event, line) = events.next()?;
            match event {
                libyaml::Event::Scalar { anchor, bytes } => {
                    self.spend(1, bytes)?;
                    if let Some(a) = anchor {
                        anchors.insert(a, (1, bytes));
                    }
                }
                libyaml::Event::Start { anchor } => {
                    if open.len() >= self.limits.depth as usize {
                        return Err(YamlRefusal::Depth(self.limits.depth));
                    }
                    open.push(Open { anchor, nodes: self.nodes, bytes: self.bytes });
                    self.spend(1, 0)?;
                }
                libyaml::Event::End => {
                    if let Some(Open { anchor: Some(a), nodes, bytes }) = open.pop() {
                        anchors.insert(a, (self.nodes - nodes, self.bytes - bytes));
                    }
                }
                libyaml::Event::Alias { anchor } => match anchors.get(&anchor) {
                    Some(&(nodes, bytes)) => self.spend(nodes, bytes)?,
                    None if open.iter().any(|o| o.anchor.as_ref() == Some(&anchor)) => {
                        return Err(YamlRefusal::AliasInsideItself { line });
                    }
                    None => {
                        return Err(YamlRefusal::Syntax { message: "an alias of no anchor".into(), line, column: 0 });
                    }
                },
                libyaml::Event::StreamEnd => return Ok(()),
                libyaml::Event::Other => {}
            }
        }
    }
}

/// Weigh a file's text under [`YamlLimits::FILES`]. Only a limit refuses it: text that is not
/// YAML passes, for the deserialiser to say what is wrong in its own words (with the field).
pub fn check_file(text: &str) -> Result<(), YamlRefusal> {
    match YamlBudget::new(YamlLimits::FILES).check(text) {
        Err(YamlRefusal::Syntax { .. }) => Ok(()),
        other => other,
    }
}

/// libyaml's event parser, as `serde_yaml` runs it, one event at a time.
mod libyaml {
    use super::YamlRefusal;
    use std::ffi::CStr;
    use std::mem::MaybeUninit;
    use unsafe_libyaml_norway as unsafe_sys;

    /// What the walk needs of an event (copied out: libyaml frees its own at once).
    pub enum Event {
        Scalar {
            anchor: Option<Vec<u8>>,
            bytes: u64,
        },
        /// A sequence or a mapping begins.
        Start {
            anchor: Option<Vec<u8>>,
        },
        End,
        Alias {
            anchor: Vec<u8>,
        },
        StreamEnd,
        Other,
    }

    pub struct Events<'a> {
        /// Initialised by `new`, deleted by `drop`; boxed, so that it never moves.
        parser: Box<MaybeUninit<unsafe_sys::yaml_parser_t>>,
        /// libyaml reads the text through a pointer: it must outlive the parser.
        _text: &'a [u8],
        done: bool,
    }

    /// A C string of libyaml's, copied; none for a null pointer.
    ///
    /// # Safety
    /// `p` is null or points to a NUL-terminated string that lives through the call.
    unsafe fn bytes(p: *const u8) -> Option<Vec<u8>> {
        (!p.is_null()).then(|| unsafe { CStr::from_ptr(p.cast()) }.to_bytes().to_vec())
    }

    impl<'a> Events<'a> {
        pub fn new(text: &'a [u8]) -> Events<'a> {
            let mut parser = Box::new(MaybeUninit::<unsafe_sys::yaml_parser_t>::uninit());
            // SAFETY: libyaml initialises the parser in place (it only fails to allocate, and
            // then aborts as any allocation would); the text outlives it (`'a`).
            unsafe {
                let p = parser.as_mut_ptr();
                if unsafe_sys::yaml_parser_initialize(p).fail {
                    std::alloc::handle_alloc_error(std::alloc::Layout::new::<unsafe_sys::yaml_parser_t>());
                }
                unsafe_sys::yaml_parser_set_encoding(p, unsafe_sys::YAML_UTF8_ENCODING);
                unsafe_sys::yaml_parser_set_input_string(p, text.as_ptr(), text.len() as u64);
            }
            Events { parser, _text: text, done: false }
        }

        /// The next event and the line it starts on (1 first).
        pub fn next(&mut self) -> Result<(Event, usize), YamlRefusal> {
            if self.done {
                return Ok((Event::StreamEnd, 0));
            }
            let p = self.parser.as_mut_ptr();
            let mut raw = MaybeUninit::<unsafe_sys::yaml_event_t>::uninit();
            // SAFETY: the parser was initialised in `new`; an event that `yaml_parser_parse`
            // filled is read (its union by its type), then deleted before it goes.
            unsafe {
                if (&*p).error != unsafe_sys::YAML_NO_ERROR || unsafe_sys::yaml_parser_parse(p, raw.as_mut_ptr()).fail {
                    self.done = true;
                    let state = &*p;
                    let text = |p: *const std::ffi::c_char| {
                        String::from_utf8_lossy(&bytes(p.cast()).unwrap_or_default()).into_owned()
                    };
                    let problem = text(state.problem);
                    let (at, opened) = (state.problem_mark, state.context_mark);
                    // A collection opened and never closed (`{` with no `}`) is found where
                    // the text goes on without it: the mistake is where it was opened.
                    if !state.context.is_null() && opened.line < at.line {
                        return Err(YamlRefusal::Syntax {
                            message: format!(
                                "{} opened here is not closed: {problem} (by line {}, column {})",
                                text(state.context).trim_start_matches("while parsing "),
                                at.line + 1,
                                at.column + 1
                            ),
                            line: opened.line as usize + 1,
                            column: opened.column as usize + 1,
                        });
                    }
                    return Err(YamlRefusal::Syntax {
                        message: problem,
                        line: at.line as usize + 1,
                        column: at.column as usize + 1,
                    });
                }
                let e = raw.as_mut_ptr();
                let line = (*e).start_mark.line as usize + 1;
                let event = match (*e).type_ {
                    unsafe_sys::YAML_SCALAR_EVENT => {
                        Event::Scalar { anchor: bytes((*e).data.scalar.anchor), bytes: (*e).data.scalar.length }
                    }
                    unsafe_sys::YAML_SEQUENCE_START_EVENT => {
                        Event::Start { anchor: bytes((*e).data.sequence_start.anchor) }
                    }
                    unsafe_sys::YAML_MAPPING_START_EVENT => {
                        Event::Start { anchor: bytes((*e).data.mapping_start.anchor) }
                    }
                    unsafe_sys::YAML_SEQUENCE_END_EVENT | unsafe_sys::YAML_MAPPING_END_EVENT => Event::End,
                    unsafe_sys::YAML_ALIAS_EVENT => {
                        Event::Alias { anchor: bytes((*e).data.alias.anchor).unwrap_or_default() }
                    }
                    unsafe_sys::YAML_STREAM_END_EVENT => {
                        self.done = true;
                        Event::StreamEnd
                    }
                    _ => Event::Other,
                };
                unsafe_sys::yaml_event_delete(e);
                Ok((event, line))
            }
        }
    }

    impl Drop for Events<'_> {
        fn drop(&mut self) {
            // SAFETY: initialised in `new`, deleted once.
            unsafe { unsafe_sys::yaml_parser_delete(self.parser.as_mut_ptr()) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: YamlLimits = YamlLimits { nodes: 1000, bytes: 10_000, depth: 8 };

    fn check(text: &str) -> Result<(u64, u64), YamlRefusal> {
        let mut b = YamlBudget::new(SMALL);
        b.check(text)?;
        Ok(b.spent())
    }

    #[test]
    fn counts_nodes_and_bytes() {
        // A mapping, two keys, a scalar value, and a sequence of two: 7 nodes, 1+3+1+1+2 bytes.
        assert_eq!(check("a: xyz\nb: [1, 22]\n"), Ok((7, 8)));
        assert_eq!(check(""), Ok((0, 0)));
    }

    #[test]
    fn an_alias_counts_as_what_it_names() {
        // &x names a sequence of three scalars (4 nodes, 3 bytes); each alias adds as much.
        assert_eq!(check("a: &x [p, q, r]\nb: *x\nc: *x\n"), Ok((1 + 3 + 4 * 3, 3 + 3 * 3)));
        // A scalar anchor.
        assert_eq!(check("a: &s hello\nb: *s\n"), Ok((5, 12)));
        assert_eq!(check("a: &x [1, *x]"), Err(YamlRefusal::AliasInsideItself { line: 1 }));
    }

    #[test]
    fn billion_laughs_is_refused_early() {
        let mut text = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for i in 1..10 {
            let refs = vec![format!("*a{}", i - 1); 10].join(", ");
            text += &format!("a{i}: &a{i} [{refs}]\n");
        }
        assert_eq!(check(&text), Err(YamlRefusal::Nodes(1000)));
        let bytes = YamlLimits { nodes: u64::MAX, ..SMALL };
        assert_eq!(YamlBudget::new(bytes).check(&text), Err(YamlRefusal::Bytes(10_000)));
    }

    #[test]
    fn depth_is_bounded_in_flow_and_block_style() {
        assert!(check(&format!("{}1{}", "[".repeat(8), "]".repeat(8))).is_ok());
        assert_eq!(check(&format!("{}1{}", "[".repeat(9), "]".repeat(9))), Err(YamlRefusal::Depth(8)));
        let deep: String = (0..9).map(|i| format!("{}a:\n", "  ".repeat(i))).collect();
        assert_eq!(check(&deep), Err(YamlRefusal::Depth(8)));
        // Past the parser's own bound, never closed.
        assert_eq!(check(&"{a: ".repeat(50_000)), Err(YamlRefusal::Depth(8)));
    }

    #[test]
    fn one_budget_over_several_documents() {
        let mut b = YamlBudget::new(YamlLimits { nodes: 5, ..SMALL });
        b.check("[a, b]").unwrap();
        assert_eq!(b.check("[c, d]"), Err(YamlRefusal::Nodes(5)));
        // Every document of a stream counts.
        assert_eq!(check("a\n---\nb\n"), Ok((2, 2)));
    }

    #[test]
    fn bad_text_is_named() {
        match check("a: [1, 2\nb: c") {
            Err(YamlRefusal::Syntax { line, .. }) => assert!(line >= 1),
            other => panic!("{other:?}"),
        }
        assert!(matches!(check("a: *nowhere"), Err(YamlRefusal::Syntax { .. })));
        // An unclosed `{` is placed where it opens, not where the text goes on without it.
        match check("a: 1\nb:\n  - { x: 1, y: 2\n  - { x: 3 }\n") {
            Err(YamlRefusal::Syntax { line: 3, column: 5, message }) => {
                assert!(message.starts_with("a flow mapping opened here is not closed"), "{message}");
                assert!(message.contains("line 4"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        // A file's syntax is left to the deserialiser; its limits are not.
        assert_eq!(check_file("a: [1, 2\nb: c"), Ok(()));
    }
}
