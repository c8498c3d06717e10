//! Rule parameters: a named preset, then YAML documents and `KEY=VALUE` overrides on top.
//! Every error names the source, the key and (for YAML) the line.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// One parameter as `arena games` lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ParamInfo {
    pub name: &'static str,
    pub value: String,
    pub doc: &'static str,
}

/// A rule-parameter error: what was wrong, where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamError(pub String);

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParamError {}

/// Where a set of parameter values comes from.
#[derive(Clone, Debug)]
pub enum ParamSource {
    /// A YAML mapping; `name` (a file name) is quoted in errors.
    Yaml { name: String, text: String },
    /// One `KEY=VALUE` override; the value is read as a YAML scalar.
    KeyValue { key: String, value: String },
}

/// A game's parameter set. Implemented through [`game_params!`](crate::game_params).
pub trait GameParams: Clone + fmt::Debug + PartialEq + Serialize + Send + Sync + 'static {
    /// Every field optional, unknown fields refused.
    type Patch: DeserializeOwned + Default;
    const PRESETS: &'static [&'static str];
    const DEFAULT_PRESET: &'static str;
    fn preset(name: &str) -> Option<Self>;
    fn patch_preset(patch: &Self::Patch) -> Option<&str>;
    fn merge(&mut self, patch: Self::Patch);
    fn describe(&self) -> Vec<ParamInfo>;
    /// Checks across fields, after merging.
    fn validate(&self) -> Result<(), String> {
        Ok(())
    }
    /// Read what the parameters name outside themselves (e.g. a content file) through
    /// `load`, which the caller supplies: the engine itself does no I/O.
    fn load_assets(&mut self, _load: &dyn Fn(&str) -> Result<String, String>) -> Result<(), ParamError> {
        Ok(())
    }
}

fn parse_patch<P: GameParams>(source: &ParamSource) -> Result<P::Patch, ParamError> {
    match source {
        ParamSource::Yaml { name, text } => {
            if text.trim().is_empty() {
                return Ok(P::Patch::default());
            }
            let de = serde_yaml::Deserializer::from_str(text);
            serde_path_to_error::deserialize(de).map_err(|e| {
                let path = e.path().to_string();
                ParamError(format!("{name}: {}", describe_yaml_error(text, &path, &e.into_inner().to_string())))
            })
        }
        ParamSource::KeyValue { key, value } => {
            let scalar: serde_yaml::Value = serde_yaml::from_str(value)
                .map_err(|e| ParamError(format!("--param {key}={value}: cannot read the value: {e}")))?;
            let mut map = serde_yaml::Mapping::new();
            map.insert(serde_yaml::Value::String(key.clone()), scalar);
            serde_path_to_error::deserialize(serde_yaml::Value::Mapping(map))
                .map_err(|e| ParamError(format!("--param {key}={value}: {}", e.into_inner())))
        }
    }
}

/// A YAML error as `field `path`: message at line L column C`: the field named once, and a
/// line even where the error came from a value's own check (which serde_yaml leaves unplaced).
pub fn describe_yaml_error(text: &str, path: &str, message: &str) -> String {
    let bare: String = path.split('[').next().unwrap_or(path).to_string();
    let mut msg = [path, bare.as_str()]
        .iter()
        .find_map(|p| message.strip_prefix(&format!("{p}: ")))
        .unwrap_or(message)
        .to_string();
    if !msg.contains(" at line ") {
        let key = path.split('.').next_back().unwrap_or(path);
        let key = key.split('[').next().unwrap_or(key);
        if let Some(i) =
            text.lines().position(|l| l.trim_start().strip_prefix(key).is_some_and(|r| r.trim_start().starts_with(':')))
        {
            msg += &format!(" at line {}", i + 1);
        }
    }
    if path == "." || path.is_empty() { msg } else { format!("field `{path}`: {msg}") }
}

/// Build a parameter set: start from `preset` (or the first YAML document's `preset:`, or the
/// game's default), then apply every source in order, then check the whole.
pub fn resolve_params<P: GameParams>(preset: Option<&str>, sources: &[ParamSource]) -> Result<P, ParamError> {
    let patches = sources.iter().map(parse_patch::<P>).collect::<Result<Vec<_>, _>>()?;
    for (i, (source, patch)) in sources.iter().zip(&patches).enumerate() {
        if let Some(p) = P::patch_preset(patch) {
            match source {
                ParamSource::Yaml { .. } if i == 0 => {}
                ParamSource::Yaml { name, .. } => {
                    return Err(ParamError(format!(
                        "{name}: `preset: {p}` may only stand in the first parameter file (or use --preset)"
                    )));
                }
                ParamSource::KeyValue { .. } => {
                    return Err(ParamError(format!("--param preset={p}: name a preset with --preset {p}")));
                }
            }
        }
    }
    let name =
        preset.or_else(|| patches.first().and_then(|p| P::patch_preset(p))).unwrap_or(P::DEFAULT_PRESET).to_string();
    let mut params = P::preset(&name)
        .ok_or_else(|| ParamError(format!("unknown preset `{name}`; the presets are: {}", P::PRESETS.join(", "))))?;
    for patch in patches {
        params.merge(patch);
    }
    params.validate().map_err(ParamError)?;
    Ok(params)
}

/// An integer that deserialises only within `LO..=HI`, so a YAML error names its line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bounded<const LO: i64, const HI: i64>(i64);

impl<const LO: i64, const HI: i64> Bounded<LO, HI> {
    /// Panics outside the range: for constants in presets and tests.
    pub const fn new(v: i64) -> Self {
        assert!(v >= LO && v <= HI, "Bounded value out of range");
        Bounded(v)
    }
    pub fn try_new(v: i64) -> Result<Self, String> {
        if (LO..=HI).contains(&v) {
            Ok(Bounded(v))
        } else {
            Err(format!("{v} is out of range: expected an integer from {LO} to {HI}"))
        }
    }
    pub const fn get(self) -> i64 {
        self.0
    }
}

impl<const LO: i64, const HI: i64> fmt::Display for Bounded<LO, HI> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl<const LO: i64, const HI: i64> Serialize for Bounded<LO, HI> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i64(self.0)
    }
}

impl<'de, const LO: i64, const HI: i64> Deserialize<'de> for Bounded<LO, HI> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = i64::deserialize(d)?;
        Bounded::try_new(v).map_err(serde::de::Error::custom)
    }
}

/// Declare a parameter struct, its patch (every field optional, unknown fields refused),
/// merging and description in one place.
#[macro_export]
macro_rules! game_params {
    (
        $(#[$meta:meta])*
        pub struct $name:ident, patch $patch:ident {
            $( #[doc = $doc:literal] pub $field:ident : $ty:ty, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, serde::Serialize)]
        pub struct $name {
            $( #[doc = $doc] pub $field: $ty, )*
        }

        #[doc = concat!("A partial [`", stringify!($name), "`]: what a YAML document or override sets.")]
        #[derive(Default, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $patch {
            #[serde(default)]
            pub preset: Option<String>,
            $( #[serde(default)] pub $field: Option<$ty>, )*
        }

        impl $name {
            fn merge_patch(&mut self, patch: $patch) {
                $( if let Some(v) = patch.$field { self.$field = v; } )*
            }
            fn describe_fields(&self) -> Vec<$crate::core::ParamInfo> {
                vec![ $( $crate::core::ParamInfo {
                    name: stringify!($field),
                    value: self.$field.to_string(),
                    doc: $doc.trim(),
                }, )* ]
            }
        }
    };
}

/// Declare a parameter enum written in YAML and on the command line in lower case.
#[macro_export]
macro_rules! param_enum {
    ($(#[$meta:meta])* pub enum $name:ident { $( $(#[$vmeta:meta])* $variant:ident = $text:literal, )* }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        pub enum $name { $( $(#[$vmeta])* #[serde(rename = $text)] $variant, )* }
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(match self { $( $name::$variant => $text, )* })
            }
        }
    };
}
