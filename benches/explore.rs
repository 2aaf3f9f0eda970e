//! The explorer: states explored per second on the bundled readiness scenarios and on a
//! scenario with many interleavings, and the whole bundled suite explored exhaustively under
//! every named profile.
//!
//! `cargo bench --bench explore -- --warm-up-time 1 --measurement-time 5`
//!
//! And, side by side, the reduced search, merging alone (the explorer without partial-order
//! reduction) and the naive enumeration on the subtest of N cross-origin frames, each waiting
//! for a promise it resolves from a 0 ms timer, with an observation of the page and a
//! registration in it, for N = 1 to 8 (merging and naive only where they end in reasonable
//! time): distinct states, the traces explored (complete schedules of the reduced search),
//! time, bytes per stored state and units of work per second, as a table. The figures
//! measured are in docs/explorer.md.
//!
//! A state is a distinct state met at a choice point (the explorer's `states`); states met
//! again and merged by the reduction are counted apart, and so are the units of work run.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use webmcp_ref::engine::profile::{Profile, NAMED_PROFILES};
use webmcp_ref::explore::{explore_all, explore_subtest, Exploration, ExploreOptions, Progress};
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::scenario::ast::ScenarioFile;
use webmcp_ref::scenario::parse_file;
use webmcp_ref::scenario::suite::{discover, load};

/// The allocator the `webmcp-ref` binary uses, so that the figures are the command's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

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

/// The subtest of `n` cross-origin frames (see the module's comment).
fn n_frames(n: usize) -> ScenarioFile {
    let names: Vec<String> = (0..n).map(|i| format!("f{i}")).collect();
    let mut text = format!(
        "title: n frames\nsubtest \"{n} frames, an observation and a registration\"\n  page top https://a.test/\n"
    );
    for f in &names {
        text += &format!("  frame {f} in top https://{f}.test/ allow=\"tools *\"\n");
    }
    for f in &names {
        text += &format!("  promise p{f} in {f}\n");
    }
    for f in &names {
        text += &format!(
            "  task in {f}:\n    {f}.waitForToolsUntil(p{f})\n    after 0ms: resolve p{f}\n"
        );
    }
    text += "  observe top as o\n  task in top: top.registerTool({name: \"x\", description: \"d\", execute: returns(1)})\n  run\n";
    parse_file("n-frames.scn", &text).expect("parses")
}

/// One search of the N-frame subtest: a row of the table.
fn n_frames_row(n: usize, label: &str, options: ExploreOptions) -> String {
    let file = n_frames(n);
    let start = Instant::now();
    let e = explore_subtest(&file, &file.subtests[0], &options, &Progress::default());
    let secs = start.elapsed().as_secs_f64();
    let more = if e.complete { "" } else { "> " };
    format!(
        "| {n} | {label} | {more}{} | {more}{} | {} | {secs:.3} s{} | {} | {:.2} M |",
        e.states,
        e.schedules,
        e.outcomes.len(),
        if e.complete { "" } else { " (stopped)" },
        e.bytes_per_state,
        e.units as f64 / secs / 1e6,
    )
}

fn n_frames_table() {
    let budget = |reduce: bool, partial_order: bool| ExploreOptions {
        reduce,
        partial_order,
        max_seconds: Some(30.0),
        ..ExploreOptions::default()
    };
    println!("[explore] N frames, one core:");
    println!("| N | search | distinct states | schedules (reduced: traces explored) | outcomes | time | bytes per state | units/s |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for n in 1..=8 {
        println!("{}", n_frames_row(n, "reduced", budget(true, true)));
        if n <= 3 {
            println!("{}", n_frames_row(n, "merging", budget(true, false)));
        }
        if n <= 2 {
            println!("{}", n_frames_row(n, "naive", budget(false, false)));
        }
    }
}

fn bench_explore(c: &mut Criterion) {
    n_frames_table();

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

    let mut group = c.benchmark_group("n frames");
    group.sample_size(10);
    for n in 1..=4 {
        let file = n_frames(n);
        for (label, partial_order) in [("reduced", true), ("merging", false)] {
            if !partial_order && n > 2 {
                continue;
            }
            let options = ExploreOptions {
                partial_order,
                ..ExploreOptions::default()
            };
            group.bench_function(format!("{n} frames, {label} (one core)"), |b| {
                b.iter(|| {
                    black_box(explore_subtest(
                        &file,
                        &file.subtests[0],
                        &options,
                        &Progress::default(),
                    ))
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_explore);
criterion_main!(benches);
