//! `arena sandbox-relay`: the arena's server inside a sandbox without a network. A sandboxed
//! agent has a network namespace of its own, with nothing but its loopback; the relay, the
//! first process in it, listens on that loopback (`127.0.0.1:50051`, the sandbox's own) and
//! carries every connection made there to the arena's Unix socket, bound into the sandbox.
//! The agent connects to `http://127.0.0.1:50051` as it would to any server: every gRPC
//! library does (some send a Unix socket's path as the `:authority`, which the server's HTTP/2
//! refuses), and nothing else is reachable.
//!
//! It runs the agent's command as its child and exits as the child does (its exit code, or
//! 128 + the signal that killed it). What it relays is bounded: [`MAX_CONNECTIONS`] at once.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Connections relayed at once (more wait to be accepted).
pub const MAX_CONNECTIONS: usize = 16;

/// The relay's command line.
#[derive(clap::Args, Debug)]
pub struct RelayArgs {
    /// The arena's Unix socket.
    #[arg(long)]
    pub socket: PathBuf,
    /// Where to listen (in the sandbox's own network).
    #[arg(long)]
    pub listen: SocketAddr,
    /// The agent's command and its arguments.
    #[arg(last = true, required = true)]
    pub command: Vec<String>,
}

/// Listen, start the command, relay until it exits; its exit code.
pub fn run(args: &RelayArgs) -> Result<i32, String> {
    let listener = TcpListener::bind(args.listen).map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
    let mut child = Command::new(&args.command[0])
        .args(&args.command[1..])
        .spawn()
        .map_err(|e| format!("cannot run `{}`: {e}", args.command[0]))?;
    let socket = args.socket.clone();
    std::thread::spawn(move || accept(&listener, &socket));
    let status = child.wait().map_err(|e| format!("cannot wait for `{}`: {e}", args.command[0]))?;
    use std::os::unix::process::ExitStatusExt;
    Ok(status.code().unwrap_or_else(|| 128 + status.signal().unwrap_or(0)))
}

fn accept(listener: &TcpListener, socket: &Path) {
    let open = Arc::new(AtomicUsize::new(0));
    for conn in listener.incoming() {
        let Ok(conn) = conn else { continue };
        while open.load(Ordering::Acquire) >= MAX_CONNECTIONS {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let up = match UnixStream::connect(socket) {
            Ok(up) => up,
            Err(e) => {
                eprintln!("arena sandbox-relay: cannot reach the arena at {}: {e}", socket.display());
                continue;
            }
        };
        let _ = conn.set_nodelay(true);
        let (Ok(conn2), Ok(up2)) = (conn.try_clone(), up.try_clone()) else { continue };
        open.fetch_add(1, Ordering::AcqRel);
        let done = open.clone();
        std::thread::spawn(move || {
            let other = std::thread::spawn(move || pipe(up2, conn2, |t: &TcpStream| t.shutdown(Shutdown::Write)));
            pipe(conn, up, |u: &UnixStream| u.shutdown(Shutdown::Write));
            let _ = other.join();
            done.fetch_sub(1, Ordering::AcqRel);
        });
    }
}

/// Copy `from` to `to` until `from` ends, then end `to`'s writing side.
fn pipe<R: Read, W: Write>(mut from: R, mut to: W, end: impl Fn(&W) -> std::io::Result<()>) {
    let _ = std::io::copy(&mut from, &mut to);
    let _ = end(&to);
}
