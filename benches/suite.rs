//! One full pass of the bundled wpt-mirror suite: every scenario file under every named
//! profile, as `cargo test --test wpt_mirror` runs it.
//!
//! `cargo bench --bench suite -- --warm-up-time 1 --measurement-time 3`
//!
//! Target: under one second per pass. The files are found and parsed once, outside the
//! measurement; the suite is whatever wpt-mirror/ holds when the bench starts.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion};
use webmcp_ref::engine::profile::{Profile, NAMED_PROFILES};
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::scenario::ast::ScenarioFile;
use webmcp_ref::scenario::suite::{discover, load};
use webmcp_ref::scenario::{run_file, RunOptions, Status};

/// Runs every file under every profile; returns (subtests run, subtests passed).
fn full_pass(files: &[ScenarioFile], options: &[RunOptions]) -> (usize, usize) {
    let (mut run, mut passed) = (0, 0);
    for file in files {
        for o in options {
            let result = run_file(file, o);
            run += result.subtests.len();
            passed += result
                .subtests
                .iter()
                .filter(|s| s.status == Status::Pass)
                .count();
            black_box(result);
        }
    }
    (run, passed)
}

fn bench_suite(c: &mut Criterion) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("wpt-mirror");
    let paths = discover(&[root]).expect("wpt-mirror/ holds scenario files");
    let mut files = Vec::new();
    for path in &paths {
        files.push(load(path).unwrap_or_else(|e| panic!("the bundled suite must parse: {e}")));
    }
    let options: Vec<RunOptions> = NAMED_PROFILES
        .iter()
        .map(|named| RunOptions {
            profile: Profile::named(named.name).expect("a named profile"),
            ..RunOptions::default()
        })
        .collect();
    let start = Instant::now();
    let (run, passed) = full_pass(&files, &options);
    println!(
        "[suite] {} files ({} parsed), {} profiles: {run} subtest runs, {passed} passed; one \
         untimed-by-criterion pass took {:.3} s",
        paths.len(),
        files.len(),
        options.len(),
        start.elapsed().as_secs_f64()
    );
    let mut group = c.benchmark_group("wpt_mirror_suite");
    group.sample_size(10);
    group.bench_function("full_pass_all_profiles", |b| {
        b.iter(|| full_pass(black_box(&files), black_box(&options)))
    });
    group.finish();
}

criterion_group!(benches, bench_suite);
criterion_main!(benches);
