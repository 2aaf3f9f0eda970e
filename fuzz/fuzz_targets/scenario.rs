//! Arbitrary bytes as a scenario file: decoded and parsed as `webmcp-ref run` reads a file;
//! when it parses, run under the default schedule, explored on a small budget and exported
//! as WPT tests. Nothing may panic, overflow the stack or hang; a file refused names its
//! line and column.
//!
//! `cargo +nightly fuzz run scenario fuzz/corpus/scenario wpt-mirror/webmcp -- -max_len=4096`

#![no_main]

use libfuzzer_sys::fuzz_target;
use webmcp_ref::explore::{explore_subtest, ExploreOptions, Progress};
use webmcp_ref::export::export_file;
use webmcp_ref::scenario::suite::parse_bytes;
use webmcp_ref::scenario::{run_file, RunOptions};
use webmcp_ref::Profile;

fuzz_target!(|bytes: &[u8]| {
    let file = match parse_bytes("fuzz.scn", bytes) {
        Ok(file) => file,
        Err(e) => {
            assert!(e.line >= 1 && e.column >= 1, "{e}");
            assert!(e.to_string().starts_with("fuzz.scn:"), "{e}");
            return;
        }
    };
    let _ = run_file(&file, &RunOptions::default());
    if let Some(subtest) = file.subtests.first() {
        let options = ExploreOptions {
            max_schedules: Some(4),
            max_seconds: Some(1.0),
            ..ExploreOptions::default()
        };
        let _ = explore_subtest(&file, subtest, &options, &Progress::default());
    }
    let _ = export_file(&file, &Profile::spec());
});
