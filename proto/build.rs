//! Compile the contract with protox (a pure-Rust proto compiler: no system `protoc`), then
//! generate the messages and services with tonic-prost-build. The descriptor set is kept for
//! the reflection service.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proto = "proto/tabletop/arena/v1/arena.proto";
    println!("cargo:rerun-if-changed={proto}");
    let fds = protox::compile([proto], ["proto"])?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(out.join("arena_descriptor.bin"), protox::prost::Message::encode_to_vec(&fds))?;
    tonic_prost_build::configure().compile_fds(fds)?;
    Ok(())
}
