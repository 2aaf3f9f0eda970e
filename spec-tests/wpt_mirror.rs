//! Runs every scenario file of wpt-mirror/ under every named profile: adding a case is adding
//! data. Arguments filter by substring of the file path or subtest name
//! (`cargo test --test wpt_mirror -- readiness`). A failure prints the expectation's
//! file:line, the profile, expected and actual, and the command that replays it with a trace.

use std::path::PathBuf;
use std::process::ExitCode;

use webmcp_ref::engine::profile::{Profile, NAMED_PROFILES};
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::report;
use webmcp_ref::scenario::suite::{discover, load};
use webmcp_ref::scenario::{run_file, RunOptions, Status};

fn main() -> ExitCode {
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("wpt-mirror");
    let files = match discover(&[root]) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let (mut passed, mut failed, mut not_run, mut errors) = (0, 0, 0, Vec::new());
    for path in files {
        let scenario = match load(&path) {
            Ok(s) => s,
            Err(e) => {
                errors.push(e.to_string());
                continue;
            }
        };
        for named in NAMED_PROFILES {
            let profile = match Profile::named(named.name) {
                Ok(p) => p,
                Err(e) => {
                    errors.push(e.to_string());
                    continue;
                }
            };
            let options = RunOptions {
                profile,
                ..RunOptions::default()
            };
            let result = run_file(&scenario, &options);
            for sub in &result.subtests {
                let id = format!("{} :: {} [{}]", scenario.path, sub.name, named.name);
                if !filters.is_empty() && !filters.iter().any(|f| id.contains(f.as_str())) {
                    continue;
                }
                match sub.status {
                    Status::Pass => {
                        passed += 1;
                        continue;
                    }
                    // The profile lacks what the file requires (`requires:`).
                    Status::PreconditionFailed => {
                        not_run += 1;
                        continue;
                    }
                    Status::Fail | Status::Error => {}
                }
                failed += 1;
                println!("FAILED {id}");
                for e in sub.expectations.iter().filter(|e| !e.passed) {
                    println!("    {}:{}:{}: {}", scenario.path, e.line, e.column, e.text);
                    println!("        expected: {}", e.expected);
                    println!("        actual:   {}", e.actual);
                }
                for m in &sub.messages {
                    println!("    {m}");
                }
                println!(
                    "    replay: {}",
                    report::replay_command(
                        &scenario.path,
                        &sub.name,
                        named.name,
                        &[],
                        &sub.schedule
                    )
                );
            }
        }
    }
    for e in &errors {
        println!("ERROR {e}");
    }
    println!(
        "\nwpt-mirror: {passed} passed, {failed} failed, {not_run} not run (their file's requires:), {} files with errors (every subtest under {} profiles)",
        errors.len(),
        NAMED_PROFILES.len()
    );
    if failed == 0 && errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
