//! Many `at` blocks, page timers and `when` blocks in one subtest: parsing and running them
//! costs time linear in their number.
//!
//! `cargo bench --bench triggers -- --warm-up-time 1 --measurement-time 10`
//!
//! Target: 100,000 `at Nms: resolve p` lines parsed and run in under a second. The file is
//! built once, outside the measurement; each iteration parses it and runs it.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use webmcp_ref::scenario::{parse_file, run_file, RunOptions};

const HEAD: &str =
    "title: many triggers\n\nsubtest \"s\"\n  page top https://a.test/\n  promise p in top\n";

/// `n` lines `at Nms: resolve p`, each due a millisecond after the one before.
fn at_lines(n: usize) -> String {
    let mut text = String::from(HEAD);
    for i in 1..=n {
        text.push_str(&format!("  at {i}ms: resolve p\n"));
    }
    text.push_str("  run\n  expect p fulfilled\n");
    text
}

/// One task that sets `n` timers (`after Nms:`), each logging.
fn page_timers(n: usize) -> String {
    let mut text = String::from(HEAD);
    text.push_str("  task in top:\n");
    for i in 1..=n {
        text.push_str(&format!("    after {i}ms: log \"t\"\n"));
    }
    text.push_str("  run\n");
    text
}

/// `n` frames, each created by an `at` block, and a `when` block waiting for each.
fn when_blocks(n: usize) -> String {
    let mut text = String::from(HEAD);
    for i in 1..=n {
        text.push_str(&format!("  when f{i} exists: resolve p\n"));
    }
    for i in 1..=n {
        text.push_str(&format!(
            "  at {i}ms: frame f{i} in top https://a.test/{i}\n"
        ));
    }
    text.push_str("  run\n  expect p fulfilled\n");
    text
}

fn parse_and_run(text: &str) -> usize {
    let file = parse_file("many.scn", text).expect("parses");
    let result = run_file(&file, &RunOptions::default());
    assert!(result.passed(), "{:?}", result.subtests[0].messages);
    black_box(result.subtests[0].units as usize)
}

fn bench_triggers(c: &mut Criterion) {
    let mut group = c.benchmark_group("triggers");
    group.sample_size(10);
    for n in [25_000, 50_000, 100_000] {
        let text = at_lines(n);
        group.bench_with_input(BenchmarkId::new("at_lines", n), &text, |b, text| {
            b.iter(|| parse_and_run(text))
        });
    }
    let text = page_timers(100_000);
    group.bench_function("page_timers/100000", |b| b.iter(|| parse_and_run(&text)));
    let text = when_blocks(20_000);
    group.bench_function("when_blocks/20000", |b| b.iter(|| parse_and_run(&text)));
    group.finish();
}

criterion_group!(benches, bench_triggers);
criterion_main!(benches);
