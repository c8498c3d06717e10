//! `arena serve` as a real process on a free port of 127.0.0.1.

use std::io::BufRead;
use std::process::{Child, ChildStdout, Command, Stdio};

/// The server started with `flags` after `--addr 127.0.0.1:0`: the process, its URL, and the
/// rest of what it prints.
pub fn serve(flags: &[&str]) -> (Child, String, std::io::BufReader<ChildStdout>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["serve", "--addr", "127.0.0.1:0"])
        .args(flags)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let addr = line.trim().rsplit(' ').next().unwrap().to_string();
    (child, format!("http://{addr}"), out)
}
