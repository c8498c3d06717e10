//! Compile the contract with protox (a pure-Rust proto compiler: no system `protoc`), then
//! generate the messages and services with tonic-prost-build. The descriptor set of the arena's
//! contract alone is kept for the reflection service.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protos = ["proto/tabletop/arena/v1/arena.proto", "proto/tabletop/bench/v1/bench.proto"];
    for p in protos {
        println!("cargo:rerun-if-changed={p}");
    }
    let fds = protox::compile(protos, ["proto"])?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    // Reflection describes what `arena serve` serves: the arena's contract, not the bench echo.
    let served = protox::compile([protos[0]], ["proto"])?;
    std::fs::write(out.join("arena_descriptor.bin"), protox::prost::Message::encode_to_vec(&served))?;
    tonic_prost_build::configure().compile_fds(fds)?;
    Ok(())
}
