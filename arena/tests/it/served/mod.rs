//! `arena serve` (and the other serving commands) as a real process on a free port of 127.0.0.1.
#![allow(dead_code)] // each test file uses what it needs of these

use std::io::BufRead;
use std::ops::{Deref, DerefMut};
use std::process::{Child, ChildStdout, Command, Stdio};

/// A child process killed (SIGKILL) and reaped when dropped, a test's panic included: a failed
/// test leaves no server, ladder or client running. A test that stops it itself (SIGTERM,
/// `wait`) still can, through the `Child` it derefs to.
pub struct Process(pub Child);

impl Deref for Process {
    type Target = Child;

    fn deref(&self) -> &Child {
        &self.0
    }
}

impl DerefMut for Process {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The server started with `flags` after `--addr 127.0.0.1:0`: the process, its URL, and the
/// rest of what it prints.
pub fn serve(flags: &[&str]) -> (Process, String, std::io::BufReader<ChildStdout>) {
    serving(&[&["serve"], flags].concat(), "serving tabletop.arena.v1 on ")
}

/// `arena ARGS --addr 127.0.0.1:0`, a command that serves (`serve`, `ladder`) and says so on
/// its first line (which holds `says`), ending with the address: the process, its URL, and the
/// rest of what it prints.
pub fn serving(args: &[&str], says: &str) -> (Process, String, std::io::BufReader<ChildStdout>) {
    let mut child = Process(
        Command::new(env!("CARGO_BIN_EXE_arena"))
            .args(args)
            .args(["--addr", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert!(line.contains(says), "{line}");
    let addr = line.trim().rsplit(' ').next().unwrap().to_string();
    (child, format!("http://{addr}"), out)
}

/// `arena tournament FILE --out OUT --quiet` as a real process, read up to the line that tells
/// its visitors (`connect: true` participants) where to connect: the process, that URL, and the
/// rest of its standard error (read it or drop it, so it never blocks on a full pipe).
pub fn tournament_awaiting_visitors(
    file: &std::path::Path,
    out: &std::path::Path,
) -> (Process, String, std::io::BufReader<std::process::ChildStderr>) {
    let mut child = Process(
        Command::new(env!("CARGO_BIN_EXE_arena"))
            .args(["tournament", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    let url = loop {
        line.clear();
        assert!(err.read_line(&mut line).unwrap() > 0, "the arena did not say where to connect");
        if let Some(rest) = line.split("connect to ").nth(1) {
            break rest.trim().to_string();
        }
    };
    (child, url, err)
}

/// An HTTP/1.1 request to the web face at `addr` (`host:port`): its status and body.
pub fn http(addr: &str, method: &str, path: &str, body: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, answer.split("\r\n\r\n").nth(1).unwrap_or("").to_string())
}

/// `arena ladder FILE --data DATA --http 127.0.0.1:0`: the process, its gRPC URL and its web
/// face's address (`host:port`).
pub fn ladder_with_face(file: &std::path::Path, data: &std::path::Path) -> (Process, String, String) {
    ladder_with_face_and(file, data, &[])
}

/// [`ladder_with_face`] with more flags.
pub fn ladder_with_face_and(
    file: &std::path::Path,
    data: &std::path::Path,
    flags: &[&str],
) -> (Process, String, String) {
    let args = ["ladder", file.to_str().unwrap(), "--data", data.to_str().unwrap(), "--http", "127.0.0.1:0"];
    let (server, url, mut out) = serving(&[&args[..], flags].concat(), "serving on ");
    let mut line = String::new();
    std::io::BufRead::read_line(&mut out, &mut line).unwrap();
    let web = line.trim().rsplit("http://").next().unwrap().trim_end_matches('/').to_string();
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    (server, url, web)
}

/// `arena ladder FILE --data DATA` on a free port: the process and its URL (the rest of what it
/// prints read and dropped).
pub fn ladder(file: &std::path::Path, data: &std::path::Path) -> (Process, String) {
    let args = ["ladder", file.to_str().unwrap(), "--data", data.to_str().unwrap()];
    let (child, url, mut out) = serving(&args, "serving on ");
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    (child, url)
}
