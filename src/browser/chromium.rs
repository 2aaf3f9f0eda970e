//! Headless Chromium, one process group per test file: started with the flags that work
//! offline and WebMCP enabled, in real time (no `--virtual-time-budget`, which would reorder
//! the timers and promises these tests are about), and killed by its own process group id
//! (the browser's PID) once the file's results arrive or its time is up.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::server::Posted;

/// Flags for a headless run on a machine with no network beyond loopback: no first-run UI, no
/// background fetches (whose refused connections only slow things down), no GPU, no QUIC, and
/// no throttling of timers.
pub const FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-breakpad",
    "--disable-crash-reporter",
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
    "--mute-audio",
    "--enable-features=WebMCP",
    // The plain-HTTP remote origin (server::INSECURE_HOST) is served on loopback.
    "--host-resolver-rules=MAP webmcp-ref-insecure.test 127.0.0.1",
];

/// How a page's run ended.
#[derive(Debug)]
pub enum PageOutcome {
    /// The report the page POSTed.
    Reported(String),
    /// Nothing within the time: the browser was killed.
    TimedOut,
    /// The browser could not start, or exited before the page reported.
    Failed(String),
}

/// Why the browser's version could not be read.
#[derive(Debug, thiserror::Error)]
pub enum VersionError {
    #[error("{browser}: {error}")]
    NotRun {
        browser: String,
        error: std::io::Error,
    },
    #[error("{browser} --version failed: {stderr}")]
    Failed { browser: String, stderr: String },
}

/// The browser's version line (`Chromium 156.0.8078.108 ...`).
pub fn version(browser: &Path) -> Result<String, VersionError> {
    let out = Command::new(browser)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .map_err(|error| VersionError::NotRun {
            browser: browser.display().to_string(),
            error,
        })?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || text.is_empty() {
        return Err(VersionError::Failed {
            browser: browser.display().to_string(),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(text
        .lines()
        .next()
        .unwrap_or("")
        .split(" built on")
        .next()
        .unwrap_or("")
        .to_string())
}

/// Runs one page: starts the browser on `url` with a fresh profile in `scratch`, waits for the
/// page's report on `results` for at most `timeout`, and kills the browser.
pub fn run_page(
    browser: &Path,
    url: &str,
    scratch: &Path,
    timeout: Duration,
    results: &Receiver<Posted>,
) -> PageOutcome {
    // Reports of an earlier page that came too late are not this page's.
    while results.try_recv().is_ok() {}
    let profile = scratch.join("profile");
    let _ = std::fs::remove_dir_all(&profile);
    if let Err(e) = std::fs::create_dir_all(&profile) {
        return PageOutcome::Failed(format!("{}: {e}", profile.display()));
    }
    let log_path = scratch.join("browser.log");
    let log = std::fs::File::create(&log_path).ok();
    let mut command = Command::new(browser);
    command
        .args(FLAGS)
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null());
    match log {
        Some(f) => command.stderr(f),
        None => command.stderr(Stdio::null()),
    };
    // Its own process group, whose id is the browser's PID: the kill reaches its renderers.
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    let mut child = match command.spawn() {
        Ok(c) => c,
        Err(e) => return PageOutcome::Failed(format!("{}: {e}", browser.display())),
    };
    let started = Instant::now();
    let outcome = loop {
        let left = timeout.saturating_sub(started.elapsed());
        if left.is_zero() {
            break PageOutcome::TimedOut;
        }
        match results.recv_timeout(left.min(Duration::from_millis(250))) {
            Ok(posted) => break PageOutcome::Reported(posted.body),
            Err(RecvTimeoutError::Timeout) => {
                if let Ok(Some(status)) = child.try_wait() {
                    break PageOutcome::Failed(format!(
                        "the browser exited ({status}) before the page reported; its log: {}",
                        tail(&log_path)
                    ));
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                break PageOutcome::Failed("the server stopped".into())
            }
        }
    };
    kill(&mut child);
    let _ = std::fs::remove_dir_all(&profile);
    outcome
}

/// Ends the browser's process group: SIGTERM, up to two seconds to exit, then SIGKILL.
fn kill(child: &mut Child) {
    let Ok(pid) = i32::try_from(child.id()) else {
        let _ = child.kill();
        let _ = child.wait();
        return;
    };
    signal_group(pid, libc::SIGTERM);
    let deadline = Instant::now() + Duration::from_secs(2);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // Whatever of the group is left (renderers, utilities) goes now.
    signal_group(pid, libc::SIGKILL);
    let _ = child.wait();
}

fn signal_group(pgid: i32, signal: libc::c_int) {
    // SAFETY: kill(2) with a negative pid signals the process group whose id is the browser's
    // own PID, which this process started with process_group(0); it touches no memory.
    unsafe {
        libc::kill(-pgid, signal);
    }
}

fn tail(path: &PathBuf) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.contains("dbus") && !l.trim().is_empty())
        .collect();
    let start = lines.len().saturating_sub(5);
    lines[start..].join(" | ")
}
