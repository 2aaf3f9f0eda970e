//! Readiness benchmarks: `waitForToolsUntil()` + settle pairs, "wait for tools to be ready"
//! on a 10,000-document tree, and the heap cost of a pending promise.
//!
//! `cargo bench --bench readiness -- --warm-up-time 1 --measurement-time 3`
//!
//! Targets: at least 1,000,000 pairs per second; a waiting observation whose cost does not
//! grow with the number of settles; under 256 live heap bytes per pending promise.
//!
//! The counting allocator below is installed for the whole binary; it adds one relaxed atomic
//! add per allocation and per free to every figure (a few nanoseconds each).

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use webmcp_ref::host::navigable::DocumentOptions;
use webmcp_ref::host::promise::{Handler, Promise, PromiseReaction, PromiseState};
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::webmcp::steps::Steps;
use webmcp_ref::webmcp::PendingPromise;
use webmcp_ref::{DocumentKey, ObservationKey, Profile, PromiseKey, Value, WaitOutcome, World};

// ---------------------------------------------------------------------------------------------
// A global allocator that counts live heap bytes.

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            LIVE.fetch_add(new_size, Ordering::Relaxed);
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn live_bytes() -> usize {
    LIVE.load(Ordering::Relaxed)
}

// ---------------------------------------------------------------------------------------------
// Worlds.

/// A page whose top-level document holds `iframes` same-origin iframes (all on one event
/// loop). Returns the world, the top document and the iframes' documents.
fn page(iframes: usize) -> (World, DocumentKey, Vec<DocumentKey>) {
    let mut world = World::new(Profile::spec());
    world.set_tracing(false);
    let top = world.open_page("top", "https://a.test/").unwrap();
    let docs: Vec<DocumentKey> = (0..iframes)
        .map(|i| {
            world
                .add_iframe(
                    top,
                    &format!("f{i}"),
                    &format!("https://a.test/f{i}"),
                    None,
                    DocumentOptions::default(),
                )
                .unwrap()
        })
        .collect();
    world.flush().unwrap();
    assert!(world.is_quiescent());
    (world, top, docs)
}

/// One pair per document: `waitForToolsUntil()` a fresh pending promise of the document,
/// resolve it, and let the settle microtask run.
fn pairs(world: &mut World, docs: &[DocumentKey]) {
    for &d in docs {
        let p = world.new_promise(d);
        world.wait_for_tools_until(d, Value::Promise(p));
        world.resolve_promise(p, Value::Undefined);
        world.flush().unwrap();
    }
}

/// `n` pairs cycling over `docs`.
fn pairs_cycling(world: &mut World, docs: &[DocumentKey], n: usize) {
    for &d in docs.iter().cycle().take(n) {
        let p = world.new_promise(d);
        world.wait_for_tools_until(d, Value::Promise(p));
        world.resolve_promise(p, Value::Undefined);
        world.flush().unwrap();
    }
}

/// Checks once that a pair does what the benchmark says: the promise is added (tools-ready
/// goes false), and one microtask (the settle steps) removes it again.
fn check_pair(world: &mut World, d: DocumentKey) {
    let p = world.new_promise(d);
    world.wait_for_tools_until(d, Value::Promise(p));
    assert_eq!(world.pending_tool_readiness_promises(d), 1);
    assert!(!world.tools_ready(d));
    world.resolve_promise(p, Value::Undefined);
    let units = world.units_run();
    world.flush().unwrap();
    assert_eq!(
        world.units_run() - units,
        1,
        "one settle microtask per pair"
    );
    assert_eq!(world.pending_tool_readiness_promises(d), 0);
    assert!(world.tools_ready(d));
    assert!(world.is_quiescent());
}

// ---------------------------------------------------------------------------------------------
// 1. waitForToolsUntil + settle pairs per second.

/// How many pairs the `refreshed_world` variant runs on one world before replacing it.
const REFRESH_PAIRS: usize = 100_000;

fn bench_pairs(c: &mut Criterion) {
    let mut group = c.benchmark_group("wait_for_tools_until_settle_pairs");
    for &n in &[1usize, 100, 10_000] {
        let (mut template, _top, docs) = page(n);
        check_pair(&mut template, docs[0]);
        group.throughput(Throughput::Elements(n as u64));
        if n >= 10_000 {
            group.sample_size(10);
        }
        // Every measured call starts from a clone of the built page: world construction is
        // outside the measurement, and the promise arena starts at the same size each time.
        let batch = if n >= 10_000 {
            BatchSize::LargeInput
        } else {
            BatchSize::SmallInput
        };
        group.bench_function(BenchmarkId::new("fresh_world", n), |b| {
            b.iter_batched(
                || template.clone(),
                |mut w| {
                    pairs(&mut w, &docs);
                    w
                },
                batch,
            )
        });
        // One world reused for up to REFRESH_PAIRS pairs, then replaced by a fresh clone
        // outside the timed region: warm caches, and the arena stays bounded.
        group.bench_function(BenchmarkId::new("refreshed_world", n), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                let mut w = template.clone();
                let mut since_refresh = 0;
                let mut left = iters;
                while left > 0 {
                    if since_refresh >= REFRESH_PAIRS {
                        w = template.clone();
                        since_refresh = 0;
                    }
                    let chunk = left.min(((REFRESH_PAIRS / n) as u64).max(1));
                    let start = Instant::now();
                    for _ in 0..chunk {
                        pairs(&mut w, black_box(&docs));
                    }
                    total += start.elapsed();
                    since_refresh += chunk as usize * n;
                    left -= chunk;
                }
                total
            })
        });
        // One world reused across every iteration: settled promises stay in the arena.
        let mut reused = template.clone();
        group.bench_function(BenchmarkId::new("reused_world", n), |b| {
            b.iter(|| pairs(&mut reused, &docs))
        });
    }
    group.finish();
}

/// How much heap a settled pair leaves behind in a reused world (the promise arena never
/// frees a settled promise).
fn report_arena_growth() {
    let (mut world, _top, docs) = page(1);
    let d = docs[0];
    pairs_cycling(&mut world, &docs, 1_000);
    let k = 200_000;
    let before = live_bytes();
    let p0 = world.new_promise(d);
    world.wait_for_tools_until(d, Value::Promise(p0));
    world.resolve_promise(p0, Value::Undefined);
    world.flush().unwrap();
    pairs_cycling(&mut world, &docs, k - 1);
    let after = live_bytes();
    // The first promise of the run is still in the arena, settled, after k pairs.
    let still_there = matches!(world.promise(p0).state, PromiseState::Fulfilled(_));
    println!(
        "[arena] reused world, {k} settled pairs: live heap grew by {} bytes = {:.1} bytes/pair \
         retained; first settled promise still in the arena: {still_there}",
        after - before,
        (after - before) as f64 / k as f64
    );
}

// ---------------------------------------------------------------------------------------------
// 2. Wait for tools to be ready on a 10,000-document tree.

const TREE_DOCS: usize = 10_000;

fn bench_are_all_ready(c: &mut Criterion) {
    // The top-level document and 9,999 iframes: 10,000 documents.
    let start = Instant::now();
    let (mut world, top, docs) = page(TREE_DOCS - 1);
    println!(
        "[tree] building the {TREE_DOCS}-document page took {:.3} s (untimed setup)",
        start.elapsed().as_secs_f64()
    );
    let mut group = c.benchmark_group("are_all_ready_10k_docs");
    group.throughput(Throughput::Elements(TREE_DOCS as u64));
    assert!(world.are_all_ready(top));
    group.bench_function("all_ready", |b| {
        b.iter(|| black_box(world.are_all_ready(black_box(top))))
    });
    // The last document in tree order is not ready: the loop still walks the whole tree.
    let last = *docs.last().unwrap();
    let p = world.new_promise(last);
    world.wait_for_tools_until(last, Value::Promise(p));
    assert!(!world.are_all_ready(top));
    group.bench_function("last_not_ready", |b| {
        b.iter(|| black_box(world.are_all_ready(black_box(top))))
    });
    group.finish();
}

/// A 10,000-document tree whose iframe `docs[0]` has a pending promise, and (with `observe`)
/// an observation waiting for it.
struct Blocked {
    world: World,
    blocker: PromiseKey,
    observation: Option<ObservationKey>,
    others: Vec<DocumentKey>,
}

fn blocked_tree(observe: bool) -> Blocked {
    let (mut world, top, docs) = page(TREE_DOCS - 1);
    let blocker_doc = docs[0];
    let blocker = world.new_promise(blocker_doc);
    world.wait_for_tools_until(blocker_doc, Value::Promise(blocker));
    world.flush().unwrap();
    let observation = observe.then(|| {
        let o = world.observe(top, "o");
        world.flush().unwrap();
        assert!(
            world.observation_result(o).is_none(),
            "the observation waits"
        );
        assert_eq!(world.live_waiters(), 1);
        o
    });
    Blocked {
        world,
        blocker,
        observation,
        others: docs[1..].to_vec(),
    }
}

/// Settles the blocking promise and checks that the observation ends "ready".
fn finish(world: &mut World, blocker: PromiseKey, observation: Option<ObservationKey>) {
    world.resolve_promise(blocker, Value::Undefined);
    world.flush().unwrap();
    if let Some(o) = observation {
        let result = world.observation_result(o).expect("the observation ended");
        assert_eq!(result.outcome, WaitOutcome::Ready);
        assert_eq!(world.live_waiters(), 0);
    }
}

fn bench_waiting_observation(c: &mut Criterion) {
    let with_waiter = blocked_tree(true);
    let without_waiter = blocked_tree(false);
    {
        // Once, untimed: N settles then the blocker end the observation.
        let mut w = with_waiter.world.clone();
        pairs_cycling(&mut w, &with_waiter.others, 100);
        assert!(w
            .observation_result(with_waiter.observation.unwrap())
            .is_none());
        finish(&mut w, with_waiter.blocker, with_waiter.observation);
    }
    let mut group = c.benchmark_group("waiting_observation_10k_docs");
    group.sample_size(10);
    for &n in &[1usize, 100, 10_000] {
        group.throughput(Throughput::Elements(n as u64));
        for (name, tree) in [("waiter", &with_waiter), ("no_waiter", &without_waiter)] {
            // Times only the N settle pairs made while the observation waits; the clone of the
            // tree, one priming pair (the first pair on a fresh clone pays for cold caches and
            // the allocator's consolidation of the previous clone's frees, ~15 us, nothing the
            // engine does), the final settle of the blocker and the drop are untimed.
            group.bench_function(BenchmarkId::new(format!("settles_{name}"), n), |b| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        let mut w = tree.world.clone();
                        pairs_cycling(&mut w, &tree.others[tree.others.len() - 1..], 1);
                        let start = Instant::now();
                        pairs_cycling(&mut w, &tree.others, n);
                        total += start.elapsed();
                        finish(&mut w, tree.blocker, tree.observation);
                        drop(black_box(w));
                    }
                    total
                })
            });
        }
    }
    // The end of the wait: the blocker settles, the waiter wakes, and the observation builds
    // its tool map of 10,000 documents.
    group.throughput(Throughput::Elements(1));
    group.bench_function("blocker_settles_and_observation_completes", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let mut w = with_waiter.world.clone();
                let start = Instant::now();
                finish(&mut w, with_waiter.blocker, with_waiter.observation);
                total += start.elapsed();
                drop(black_box(w));
            }
            total
        })
    });
    group.finish();
}

// ---------------------------------------------------------------------------------------------
// 3. Memory per pending promise.

fn report_memory_per_pending_promise() {
    let n = 100_000;
    let (mut world, _top, docs) = page(1);
    let d = docs[0];
    let mut keys: Vec<PromiseKey> = Vec::with_capacity(n);
    let start_bytes = live_bytes();
    for _ in 0..n {
        keys.push(world.new_promise(d));
    }
    let after_new = live_bytes();
    let start = Instant::now();
    for &p in &keys {
        world.wait_for_tools_until(d, Value::Promise(p));
    }
    let add_time = start.elapsed();
    let after_add = live_bytes();
    assert_eq!(world.pending_tool_readiness_promises(d), n);
    // `keys` was allocated before `start_bytes`: the growth is the world's alone.
    let promise_bytes = after_new - start_bytes;
    let wfu_bytes = after_add - after_new;
    println!(
        "[memory] {n} pending promises on one document: {:.1} live heap bytes per pending \
         promise ({:.1} for the promise in the arena + {:.1} added by waitForToolsUntil); \
         target < 256",
        (promise_bytes + wfu_bytes) as f64 / n as f64,
        promise_bytes as f64 / n as f64,
        wfu_bytes as f64 / n as f64,
    );
    println!(
        "[memory] sizes: Promise {} B, PromiseReaction {} B (Handler {} B), PendingPromise {} B",
        std::mem::size_of::<Promise<Steps>>(),
        std::mem::size_of::<PromiseReaction<Steps>>(),
        std::mem::size_of::<Handler<Steps>>(),
        std::mem::size_of::<PendingPromise>(),
    );
    println!(
        "[memory] adding those {n} promises took {:.3} s ({:.0} ns per add on average)",
        add_time.as_secs_f64(),
        add_time.as_nanos() as f64 / n as f64
    );
}

fn bench_add_pending(c: &mut Criterion) {
    // The one-off reports run (once) when this group's first benchmark is selected, outside
    // its timed routine.
    let reports = std::sync::Once::new();
    let mut group = c.benchmark_group("add_pending_promise");
    // Adds `k` pending promises to one document whose set starts empty; the world and the
    // promises are made outside the measurement.
    for &k in &[1_000usize, 10_000] {
        let (template, _top, docs) = page(1);
        let d = docs[0];
        group.throughput(Throughput::Elements(k as u64));
        if k >= 10_000 {
            group.sample_size(10);
        }
        group.bench_function(BenchmarkId::new("wait_for_tools_until", k), |b| {
            reports.call_once(|| {
                report_memory_per_pending_promise();
                report_arena_growth();
            });
            b.iter_batched(
                || {
                    let mut w = template.clone();
                    let keys: Vec<PromiseKey> = (0..k).map(|_| w.new_promise(d)).collect();
                    (w, keys)
                },
                |(mut w, keys)| {
                    for &p in &keys {
                        w.wait_for_tools_until(d, Value::Promise(p));
                    }
                    (w, keys)
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    bench_pairs,
    bench_are_all_ready,
    bench_waiting_observation,
    bench_add_pending
);
criterion_main!(benches);
