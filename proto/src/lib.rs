//! The gRPC contract of Tabletop Arena, `tabletop.arena.v1`: the only wire format. Messages
//! and services are generated from `proto/tabletop/arena/v1/arena.proto`; [`convert`] maps
//! the engine's observations to the typed messages and back.

pub mod convert;

/// The generated code, in modules that follow the proto packages (the bench package refers
/// to the arena's messages by their paths).
pub mod tabletop {
    pub mod arena {
        /// The generated messages and services of `tabletop.arena.v1`. (Generated oneofs hold
        /// whole observations unboxed: clippy's size lint does not apply to code we do not
        /// write.)
        #[allow(clippy::large_enum_variant)]
        pub mod v1 {
            tonic::include_proto!("tabletop.arena.v1");
        }
    }
    pub mod bench {
        /// A bare echo service, for benchmarks only (the floor of a round trip on loopback).
        pub mod v1 {
            tonic::include_proto!("tabletop.bench.v1");
        }
    }
}

pub use tabletop::arena::v1;
pub use tabletop::bench::v1 as bench;

/// The encoded descriptor set of `tabletop.arena.v1` alone (for the reflection service: the
/// bench echo is never advertised).
pub const FILE_DESCRIPTOR_SET: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/arena_descriptor.bin"));
