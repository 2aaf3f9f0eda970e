//! The explorer: states explored per second on the bundled readiness scenarios and on a
//! scenario with many interleavings, and the whole bundled suite explored exhaustively under
//! every named profile.
//!
//! `cargo bench --bench explore -- --warm-up-time 1 --measurement-time 5`
//!
//! A state is a distinct state met at a choice point (the explorer's `states`); states met
//! again and merged by the reduction are counted apart, and so are the units of work run.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use webmcp_ref::engine::profile::{Profile, NAMED_PROFILES};
use webmcp_ref::explore::{explore_all, Exploration, ExploreOptions, Progress};
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::scenario::ast::ScenarioFile;
use webmcp_ref::scenario::parse_file;
use webmcp_ref::scenario::suite::{discover, load};

/// Three cross-origin frames each waiting for a promise they settle from a timer, an
/// observation, and a registration in the page: their units interleave in millions of ways.
const INTERLEAVINGS: &str = r#"title: many interleavings
subtest "three frames, an observation and a registration"
  page top https://a.test/
  frame b in top https://b.test/ allow="tools *"
  frame c in top https://c.test/ allow="tools *"
  frame d in top https://d.test/ allow="tools *"
  promise pb in b
  promise pc in c
  promise pd in d
  task in b:
    b.waitForToolsUntil(pb)
    after 0ms: resolve pb
  task in c:
    c.waitForToolsUntil(pc)
    after 0ms: resolve pc
  task in d:
    d.waitForToolsUntil(pd)
    after 0ms: resolve pd
  observe top as o
  task in top: top.registerTool({name: "x", description: "d", execute: returns(1)})
  run
"#;

fn load_folder(folder: &str) -> Vec<ScenarioFile> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(folder);
    discover(&[root])
        .expect("scenario files")
        .iter()
        .map(|p| load(p).unwrap_or_else(|e| panic!("the bundled suite must parse: {e}")))
        .collect()
}

fn options(names: &[&str], reduce: bool) -> Vec<ExploreOptions> {
    names
        .iter()
        .map(|n| ExploreOptions {
            profile: Profile::named(n).expect("a named profile"),
            reduce,
            ..ExploreOptions::default()
        })
        .collect()
}

fn totals(r: &[Exploration]) -> (u64, u64, u64, u128) {
    (
        r.iter().map(|e| e.states).sum(),
        r.iter().map(|e| e.merged).sum(),
        r.iter().map(|e| e.units).sum(),
        r.iter().map(|e| e.schedules).sum(),
    )
}

fn report(label: &str, files: &[ScenarioFile], opts: &[ExploreOptions], threads: usize) -> u64 {
    let start = Instant::now();
    let r = explore_all(files, opts, threads, &Progress::default());
    let secs = start.elapsed().as_secs_f64();
    let (states, merged, units, schedules) = totals(&r);
    assert!(r.iter().all(|e| e.complete), "{label}: incomplete");
    println!(
        "[explore] {label}: {} subtests, {schedules} schedules, {states} distinct states \
         ({merged} met again), {units} units, {secs:.3} s on {threads} thread(s): \
         {:.0} distinct states/s, {:.0} states visited/s, {:.0} units/s",
        r.len(),
        states as f64 / secs,
        (states + merged) as f64 / secs,
        units as f64 / secs,
    );
    states
}

fn bench_explore(c: &mut Criterion) {
    let readiness = {
        let mut f = load_folder("wpt-mirror/webmcp/readiness");
        f.extend(load_folder("wpt-mirror/webmcp/explore"));
        f
    };
    let interleavings = vec![parse_file("interleavings.scn", INTERLEAVINGS).expect("parses")];
    let spec = options(&["spec"], true);

    // The reduction's effect, on the bundled readiness scenarios and on the big one.
    let reduced = report("readiness scenarios, reduced", &readiness, &spec, 1);
    let naive = report(
        "readiness scenarios, naive",
        &readiness,
        &options(&["spec"], false),
        1,
    );
    println!("[explore] the reduction explores {reduced} states where the naive enumeration explores {naive}");
    let big = report("many interleavings, reduced", &interleavings, &spec, 1);

    // The whole bundled suite, exhaustively, under every named profile, on both cores.
    let all = load_folder("wpt-mirror");
    let every: Vec<&str> = NAMED_PROFILES.iter().map(|p| p.name).collect();
    report(
        "whole bundled suite, every profile",
        &all,
        &options(&every, true),
        2,
    );

    let mut group = c.benchmark_group("explore");
    group.sample_size(10);
    group.throughput(Throughput::Elements(reduced));
    group.bench_function("readiness scenarios (one core)", |b| {
        b.iter(|| black_box(explore_all(&readiness, &spec, 1, &Progress::default())))
    });
    group.throughput(Throughput::Elements(big));
    group.bench_function("many interleavings (one core)", |b| {
        b.iter(|| black_box(explore_all(&interleavings, &spec, 1, &Progress::default())))
    });
    group.finish();
}

criterion_group!(benches, bench_explore);
criterion_main!(benches);
