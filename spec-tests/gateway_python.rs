//! A real MCP client against the built binary: the Python `mcp` package runs
//! spec-tests/mcp_client.py, which serves served/shop.scn in real time. Over stdio, on protocol
//! version 2026-07-28 (what the SDK's client negotiates by default: `server/discover`, and a
//! `subscriptions/listen` stream) and on 2025-11-25 (the `initialize` handshake), it lists the
//! tools, waits for the late tool, observes the page, hears of the tool list's change, calls a
//! page tool, and has arguments that miss the tool's inputSchema refused; over streamable HTTP,
//! two clients, one on each version, share the one served world at once and see each other's
//! effects, and requests from other origins are refused.
//!
//! Ignored by default (it needs Python with `mcp` installed); `.ci/run` creates a virtual
//! environment, installs `mcp` from PyPI, and runs this test with `WEBMCP_REF_PYTHON` naming
//! the environment's interpreter:
//!
//! ```sh
//! WEBMCP_REF_PYTHON=.venv/bin/python cargo test --test spec-tests -- --ignored gateway_python::
//! ```

use std::process::Command;
#[allow(unused_imports)]
use webmcp_ref::prelude::*;

fn run_client(extra: &[&str]) {
    let python = std::env::var("WEBMCP_REF_PYTHON")
        .expect("WEBMCP_REF_PYTHON names a Python interpreter with the `mcp` package installed");
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new(&python)
        .arg(format!("{root}/spec-tests/mcp_client.py"))
        .arg(env!("CARGO_BIN_EXE_webmcp-ref"))
        .arg(format!("{root}/served/shop.scn"))
        .args(extra)
        .current_dir(root)
        .output()
        .unwrap_or_else(|e| panic!("{python} could not run: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "the Python MCP client failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
}

#[test]
#[ignore = "needs WEBMCP_REF_PYTHON: a Python with the `mcp` package (see .ci/run)"]
fn a_python_mcp_client_on_2026_07_28_lists_observes_waits_and_hears_list_changed() {
    run_client(&[]);
}

#[test]
#[ignore = "needs WEBMCP_REF_PYTHON: a Python with the `mcp` package (see .ci/run)"]
fn a_python_mcp_client_on_2025_11_25_lists_observes_waits_and_hears_list_changed() {
    run_client(&["--legacy"]);
}

#[test]
#[ignore = "needs WEBMCP_REF_PYTHON: a Python with the `mcp` package (see .ci/run)"]
fn two_python_mcp_clients_on_both_versions_over_http_share_one_world() {
    run_client(&["--http"]);
}
