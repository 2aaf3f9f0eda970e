//! The scenario language: WPT-style files of subtests, each building a world, acting on it,
//! and stating what must hold under which profiles.

pub mod ast;
pub mod bundled;
pub mod expectations;
pub mod parser;
pub mod runner;
pub mod suite;

pub use crate::script::syntax::ParseError;
pub use ast::ScenarioFile;
pub use parser::{parse_file, parse_script};
pub use runner::{
    picked_subtests, run_file, run_subtest, FileResult, RunOptions, Status, SubtestResult,
};
