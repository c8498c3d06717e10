//! Scratch space for the tests: every path a test writes lies in a directory of its own that
//! is removed, with everything in it, when the test is done with it (passed or failed).

use std::path::{Path, PathBuf};

/// A path not yet created, `name` inside a fresh temporary directory that is removed when
/// this is dropped (files made beside it, such as `with_extension("yaml")`, go with it).
pub struct Scratch {
    path: PathBuf,
    _root: tempfile::TempDir,
}

/// A scratch path called `name` (the directory's prefix names the test file, `arena-<kind>-`).
pub fn scratch(kind: &str, name: &str) -> Scratch {
    let root = tempfile::Builder::new().prefix(&format!("arena-{kind}-")).tempdir().expect("a temporary directory");
    Scratch { path: root.path().join(name), _root: root }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}
