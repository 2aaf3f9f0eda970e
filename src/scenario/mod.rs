//! The scenario language: WPT-style files of subtests, each building a world, acting on it,
//! and stating what must hold under which profiles.

pub mod ast;
pub mod lexer;
pub mod parser;
pub mod runner;
pub mod suite;

pub use ast::ScenarioFile;
pub use parser::{parse_file, parse_script, ParseError};
pub use runner::{run_file, run_subtest, FileResult, RunOptions, Status, SubtestResult};
