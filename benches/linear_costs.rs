//! Paths a hostile scenario or source can make long, each at three sizes, doubling: the time
//! per iteration should double with the size (linear cost), not quadruple.
//!
//! `cargo bench --bench linear_costs -- --warm-up-time 1 --measurement-time 5`
//!
//! - `register_tools/N`: one task registering N tools.
//! - `get_tools_again/N`: N awaited `getTools()` over 1,000 tools.
//! - `trace_frames/N`: a run with the step trace on, over a world of N frames observed.
//! - `rearming_units/N`: a page tool that calls itself, stopped by `--max-units N` (each unit
//!   does constant work).
//! - `value_growth/N`: a string doubled until the value budget (N) stops it.
//! - `page_timers/N`: one task setting N timers, each running a statement when it fires.
//! - `spec_check_parse/N`: spec-check's parser on a Bikeshed source of N algorithms.
//! - `spec_check_nesting/N`: spec-check's parser on N `<div>`, nested 500 deep.
//!
//! Pages and sources are built once, outside the measurement; each iteration parses and runs.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use webmcp_ref::host::budget::Budgets;
use webmcp_ref::scenario::{parse_file, run_file, RunOptions};

const HEAD: &str = "title: linear costs\n\nsubtest \"s\"\n  page top https://a.test/\n";

fn register_tools(n: usize) -> String {
    let mut text = format!("{HEAD}  task in top:\n");
    for i in 0..n {
        text.push_str(&format!(
            "    top.registerTool({{name: \"t{i}\", description: \"d\", execute: returns(1)}})\n"
        ));
    }
    text.push_str("  run\n");
    text
}

fn get_tools_again(n: usize) -> String {
    let mut text = format!("{HEAD}  task in top:\n");
    for i in 0..1000 {
        text.push_str(&format!(
            "    top.registerTool({{name: \"t{i}\", description: \"d\", execute: returns(1)}})\n"
        ));
    }
    text.push_str("  run\n  task in top:\n");
    for _ in 0..n {
        text.push_str("    ts = await top.getTools()\n");
    }
    text.push_str("  run\n");
    text
}

fn frames(n: usize) -> String {
    let mut text = String::from(HEAD);
    for i in 0..n {
        text.push_str(&format!("  frame f{i} in top https://a.test/f{i}.html\n"));
    }
    text.push_str("  observe top as o\n  run\n  expect o => ready\n");
    text
}

const SELF_CALL: &str = "  script again:\n    ts = await top.getTools()\n    x = await top.executeTool(ts[0])\n    return x\n  task in top: top.registerTool({name: \"self\", description: \"d\", execute: again})\n  run\n  task in top:\n    ts = await top.getTools()\n    r = top.executeTool(ts[0])\n  run\n";

fn doubling() -> String {
    let mut text = format!("{HEAD}  task in top:\n    x = \"ab\"\n");
    for _ in 0..40 {
        text.push_str("    x = `${x}${x}`\n");
    }
    text.push_str("  run\n");
    text
}

fn page_timers(n: usize) -> String {
    let mut text = format!("{HEAD}  task in top:\n");
    for i in 0..n {
        text.push_str(&format!("    after {}ms:\n      x = {i}\n", i % 1000 + 1));
    }
    text.push_str("  run\n");
    text
}

fn run(text: &str, options: &RunOptions, passes: bool) -> u64 {
    let file = parse_file("linear.scn", text).expect("parses");
    let result = run_file(&file, options);
    assert_eq!(result.passed(), passes, "{:?}", result.subtests[0].messages);
    black_box(result.subtests[0].units)
}

fn bench_linear_costs(c: &mut Criterion) {
    let plain = RunOptions::default();
    let mut g = c.benchmark_group("register_tools");
    for n in [2_000, 4_000, 8_000] {
        let text = register_tools(n);
        g.bench_with_input(BenchmarkId::from_parameter(n), &text, |b, t| {
            b.iter(|| run(t, &plain, true))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("get_tools_again");
    g.sample_size(10);
    for n in [1_000, 2_000, 4_000] {
        let text = get_tools_again(n);
        g.bench_with_input(BenchmarkId::from_parameter(n), &text, |b, t| {
            b.iter(|| run(t, &plain, true))
        });
    }
    g.finish();

    let traced = RunOptions {
        trace: true,
        ..RunOptions::default()
    };
    let mut g = c.benchmark_group("trace_frames");
    g.sample_size(10);
    for n in [2_000, 4_000, 8_000] {
        let text = frames(n);
        g.bench_with_input(BenchmarkId::from_parameter(n), &text, |b, t| {
            b.iter(|| run(t, &traced, true))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("rearming_units");
    g.sample_size(10);
    let text = format!("{HEAD}{SELF_CALL}");
    for n in [20_000u64, 40_000, 80_000] {
        let options = RunOptions {
            budgets: Budgets {
                max_units: n,
                ..Budgets::default()
            },
            ..RunOptions::default()
        };
        g.bench_with_input(BenchmarkId::from_parameter(n), &options, |b, o| {
            b.iter(|| run(&text, o, false))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("value_growth");
    let text = doubling();
    for n in [250_000u64, 500_000, 1_000_000] {
        let options = RunOptions {
            budgets: Budgets {
                max_value_size: n,
                ..Budgets::default()
            },
            ..RunOptions::default()
        };
        g.bench_with_input(BenchmarkId::from_parameter(n), &options, |b, o| {
            b.iter(|| run(&text, o, false))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("page_timers");
    g.sample_size(10);
    for n in [10_000, 20_000, 40_000] {
        let text = page_timers(n);
        g.bench_with_input(BenchmarkId::from_parameter(n), &text, |b, t| {
            b.iter(|| run(t, &plain, true))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("spec_check_parse");
    g.sample_size(10);
    for n in [2_000, 4_000, 8_000] {
        let mut src = String::from("<pre class=metadata>\nTitle: T\nIndent: 2\n</pre>\n\n");
        for i in 0..n {
            src.push_str(&format!(
                "<div algorithm>\nTo <dfn>step {i}</dfn>:\n\n1. Take |x{i}|.\n\n1. Return it.\n</div>\n\n"
            ));
        }
        g.bench_with_input(BenchmarkId::from_parameter(n), &src, |b, s| {
            b.iter(|| {
                let spec = webmcp_ref::speccheck::parse_bs(s).expect("parses");
                black_box(spec.algorithms.len())
            })
        });
    }
    g.finish();

    let mut g = c.benchmark_group("spec_check_nesting");
    g.sample_size(10);
    for n in [20_000, 40_000, 80_000] {
        let mut src = String::from("<pre class=metadata>\nTitle: T\nIndent: 2\n</pre>\n\n");
        // Towers of 500 (the parser refuses more than 512 levels), one algorithm inside each.
        for i in 0..n / 500 {
            src.push_str(&"<div>\n".repeat(500));
            src.push_str(&format!(
                "<div algorithm>\nTo <dfn>go {i}</dfn>:\n\n1. Return.\n</div>\n"
            ));
            src.push_str(&"</div>\n".repeat(500));
        }
        g.bench_with_input(BenchmarkId::from_parameter(n), &src, |b, s| {
            b.iter(|| {
                let spec = webmcp_ref::speccheck::parse_bs(s).expect("parses");
                assert_eq!(spec.algorithms.len(), s.matches("<div algorithm>").count());
                black_box(spec.algorithms.len())
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_linear_costs);
criterion_main!(benches);
