//! The gRPC contract of Tabletop Arena, `tabletop.arena.v1`: the only wire format. Messages
//! and services are generated from `proto/tabletop/arena/v1/arena.proto`; [`convert`] maps
//! the engine's observations to the typed messages and back.

pub mod convert;

/// The generated messages and services of `tabletop.arena.v1`. (Generated oneofs hold whole
/// observations unboxed: clippy's size lint does not apply to code we do not write.)
#[allow(clippy::large_enum_variant)]
pub mod v1 {
    tonic::include_proto!("tabletop.arena.v1");
}

/// The encoded descriptor set of the contract (for the reflection service).
pub const FILE_DESCRIPTOR_SET: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/arena_descriptor.bin"));
