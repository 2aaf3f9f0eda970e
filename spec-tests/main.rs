//! The spec-tests, as one test binary: every file of spec-tests/ is a module of it (the build
//! script lists them, so a new file's tests run with no Cargo.toml edit), with the helpers in
//! common/ that they share. `cargo test --test spec-tests -- NAME` runs the tests whose path
//! contains NAME: `register_tool::`, `browser:: --ignored`.
//!
//! The tests of all files run on the same threads of one process: none changes the process's
//! current directory, environment or standard output (a test that runs the binary gives the
//! child its own), and each file's scratch files have a name of their own.

mod common;

include!(concat!(env!("OUT_DIR"), "/spec_tests.rs"));
