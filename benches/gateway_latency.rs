//! The agent gateway in real time: the delay between the engine making a condition true and
//! `webmcp_wait_for`'s answer. Each sample serves a page whose tool registers 300 ms after
//! serving starts (an `at 300ms:` block), waits for it with `condition: tool`, and measures
//! from the end of the unit of work that registered the tool (when the driver sees the
//! condition hold) to the moment the answer arrives: through the gateway's handle, and through
//! MCP (rmcp's client and server, JSON-RPC over an in-memory pipe).
//!
//! Then, with criterion, the round trip of a request while 1, 100 and 1000 other waits are
//! pending (each for a tool that never comes): a `webmcp_wait_for` whose condition holds at
//! once, through the gateway's handle and through MCP (rmcp's client, JSON-RPC lines through
//! the gateway's own transport). The driver wakes only the waits a change concerns, so the
//! round trip should not grow with the number pending.
//!
//! `cargo bench --bench gateway_latency` prints the percentiles and criterion's figures. The
//! target is under 5 ms; the seed's wait-for tool re-read its state every 200 ms.

use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion};

use rmcp::model::CallToolRequestParams;
use rmcp::ServiceExt;
use serde_json::json;
use webmcp_ref::gateway::{Clock, Gateway, ServeOptions};
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::scenario::parse_file;
use webmcp_ref::Profile;

const PAGE: &str = r#"title: a tool that registers late
subtest "late"
  page top https://a.test/
  at 300ms:
    task in top: top.registerTool({name: "late", description: "d", execute: returns(1)})
"#;

const SAMPLES: usize = 40;

fn serve() -> Gateway {
    let file = parse_file("late.scn", PAGE).expect("parses");
    Gateway::start(
        file,
        ServeOptions {
            profile: Profile::named("spec").expect("spec"),
            subtest: None,
            clock: Clock::RealTime,
            budgets: Default::default(),
        },
    )
    .expect("serves")
}

fn arguments() -> serde_json::Map<String, serde_json::Value> {
    json!({"condition": "tool", "name": "late"})
        .as_object()
        .cloned()
        .unwrap_or_default()
}

fn report(what: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    println!(
        "{what:<40} n={:<3} min {:>9.3?}  p50 {:>9.3?}  p95 {:>9.3?}  max {:>9.3?}",
        samples.len(),
        samples[0],
        at(0.5),
        at(0.95),
        samples[samples.len() - 1]
    );
}

fn holding() -> serde_json::Map<String, serde_json::Value> {
    json!({"condition": "tool-gone", "name": "never"})
        .as_object()
        .cloned()
        .unwrap_or_default()
}

/// A served world with `pending` waits under way (30 s each, for a tool that never comes).
async fn with_pending(pending: usize) -> Gateway {
    let g = serve();
    let never = json!({"condition": "tool", "name": "never", "timeoutMs": 30000})
        .as_object()
        .cloned()
        .unwrap_or_default();
    for _ in 0..pending {
        let g = g.clone();
        let never = never.clone();
        tokio::spawn(async move { g.wait_for(&never, std::future::pending()).await });
    }
    while g.counts().await.waits < pending {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    g
}

fn pending_waits(c: &mut Criterion, runtime: &tokio::runtime::Runtime) {
    let mut group = c.benchmark_group("round trip with waits pending");
    group
        .sample_size(50)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for pending in [1usize, 100, 1000] {
        let g = runtime.block_on(with_pending(pending));
        group.bench_with_input(BenchmarkId::new("gateway", pending), &g, |b, g| {
            b.iter(|| runtime.block_on(g.wait_for(&holding(), std::future::pending())))
        });
        let client = runtime.block_on(async {
            let (server_io, client_io) = tokio::io::duplex(1 << 16);
            let (read, write) = tokio::io::split(server_io);
            let gateway = g.clone();
            tokio::spawn(async move {
                let _ = webmcp_ref::gateway::server::serve_lines(gateway, read, write).await;
            });
            ().serve(client_io).await.expect("connects")
        });
        group.bench_with_input(BenchmarkId::new("MCP", pending), &client, |b, client| {
            b.iter(|| {
                runtime.block_on(client.call_tool(
                    CallToolRequestParams::new("webmcp_wait_for").with_arguments(holding()),
                ))
            })
        });
        runtime.block_on(async {
            let _ = client.cancel().await;
        });
    }
    group.finish();
}

fn main() {
    // `cargo test --benches` runs bench binaries with no measurement wanted.
    if std::env::args().any(|a| a == "--test" || a == "--list") {
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let mut criterion = Criterion::default().configure_from_args();
    pending_waits(&mut criterion, &runtime);
    criterion.final_summary();
    runtime.block_on(async {
        let mut direct = Vec::new();
        for _ in 0..SAMPLES {
            let g = serve();
            let (reply, held) = g.wait_for_timed(&arguments(), std::future::pending()).await;
            let answered = Instant::now();
            assert!(reply.text.contains("holds"), "{}", reply.text);
            if reply.text.contains("(after 0 ms)") {
                continue;
            }
            direct.push(answered - held.expect("held"));
        }
        let mut over_mcp = Vec::new();
        for _ in 0..SAMPLES {
            let g = serve();
            let (server_io, client_io) = tokio::io::duplex(1 << 16);
            let gateway = g.clone();
            tokio::spawn(async move {
                let _ = webmcp_ref::gateway::server::serve(gateway, server_io).await;
            });
            let client = ().serve(client_io).await.expect("connects");
            let r = client
                .call_tool(
                    CallToolRequestParams::new("webmcp_wait_for").with_arguments(arguments()),
                )
                .await
                .expect("answers");
            let answered = Instant::now();
            assert_eq!(r.is_error, Some(false));
            // A sample whose set-up took longer than the page's 300 ms (the tool was there
            // when the wait started) measures nothing: it is skipped.
            if let Some(held) = g.match_instants().last().copied() {
                over_mcp.push(answered - held);
            }
            let _ = client.cancel().await;
        }
        println!("condition true -> wait-for answer, real-time clock ({SAMPLES} samples each):");
        report("through the gateway handle", direct);
        report("through MCP (rmcp client, JSON-RPC pipe)", over_mcp);
    });
}
