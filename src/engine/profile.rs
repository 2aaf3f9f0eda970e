//! Profiles: a named set of switch values, one for each switch of each layer.
//!
//! A switch is declared once, in the layer whose step it changes (`crate::host::switches`,
//! `crate::webmcp::switches`), with the named profiles that take each of its values. A named
//! profile is declared here: its name, what it stands for and where it comes from. Everything
//! else (the `profiles` listing, `--set`, scenario tags) is derived from the two.

use serde::Serialize;
use thiserror::Error;

use crate::host::switches::{SwitchError, SwitchInfo, Switches as HostSwitches};
use crate::webmcp::Switches as WebmcpSwitches;

/// Errors in naming a profile or setting a switch.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ProfileError {
    #[error("unknown profile `{name}`; the profiles are: {known}")]
    UnknownProfile { name: String, known: String },
    #[error(transparent)]
    Switch(#[from] SwitchError),
}

/// A named profile and what it stands for.
pub struct NamedProfile {
    pub name: &'static str,
    pub about: &'static str,
}

/// The named profiles. Each switch's declaration says which of them take which value.
pub const NAMED_PROFILES: &[NamedProfile] = &[
    NamedProfile {
        name: "spec",
        about: "the published text (webmachinelearning/webmcp 0023abda) with PR #373's final revision on top (the default)",
    },
    NamedProfile {
        name: "text",
        about: "the published text (0023abda) alone, without PR #373: no readiness API, and an observation does not wait",
    },
    NamedProfile {
        name: "pr373-r1",
        about: "PR #373's first revision",
    },
    NamedProfile {
        name: "chromium-156",
        about: "what Chromium 156.0.8078.114 (Debian, --enable-features=WebMCP) was measured doing: no readiness API, no schema checks, its results, errors and messages, its call-time getTools() snapshot",
    },
    NamedProfile {
        name: "chromium-pr373",
        about: "PR #373's final revision with Chromium's readiness behaviour as the review describes it (a destroyed realm's promise counts as settled), on Chromium 156's registry",
    },
    NamedProfile {
        name: "coalesced-readiness",
        about: "a reviewer's proposal: readiness toolchange coalesced through a queued task",
    },
    NamedProfile {
        name: "gettools-waits",
        about: "the deferred follow-up: getTools() waits for tools to be ready",
    },
    NamedProfile {
        name: "coalesced-registry",
        about: "webmcp#374: register/unregister toolchange coalesced per task",
    },
    NamedProfile {
        name: "lifecycle-domcontentloaded",
        about: "PR #373's open question: tools presumed not ready until DOMContentLoaded",
    },
    NamedProfile {
        name: "lifecycle-load",
        about: "PR #373's open question: tools presumed not ready until load",
    },
    NamedProfile {
        name: "promise-resolve",
        about: "a proposal: Web IDL converts a Promise<any> with PromiseResolve again, so a native promise of the callee's realm passes through and PR #373's \"already settled\" check sees it",
    },
    NamedProfile {
        name: "literal",
        about: "the published text and PR #373 word for word, their slips included",
    },
];

/// A complete set of switch values, with the name it goes by.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Profile {
    pub name: String,
    pub host: HostSwitches,
    pub webmcp: WebmcpSwitches,
}

impl Default for Profile {
    fn default() -> Self {
        Profile::spec()
    }
}

/// Every switch of every layer, in the order `profiles` lists them.
pub fn switches() -> impl Iterator<Item = &'static SwitchInfo> {
    WebmcpSwitches::INFO.iter().chain(HostSwitches::INFO.iter())
}

impl Profile {
    /// PR #373's final revision on the current text: the default profile.
    pub fn spec() -> Profile {
        Profile::of("spec")
    }

    fn of(name: &str) -> Profile {
        Profile {
            name: name.into(),
            host: HostSwitches::for_profile(name),
            webmcp: WebmcpSwitches::for_profile(name),
        }
    }

    /// A named profile.
    pub fn named(name: &str) -> Result<Profile, ProfileError> {
        if !NAMED_PROFILES.iter().any(|p| p.name == name) {
            return Err(ProfileError::UnknownProfile {
                name: name.into(),
                known: NAMED_PROFILES
                    .iter()
                    .map(|p| p.name)
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        Ok(Profile::of(name))
    }

    /// Sets one switch by its name, as `--set name=value` does.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), ProfileError> {
        if self.webmcp.set(name, value)? || self.host.set(name, value)? {
            return Ok(());
        }
        Err(SwitchError::UnknownSwitch {
            name: name.into(),
            known: switches().map(|s| s.name).collect::<Vec<_>>().join(", "),
        }
        .into())
    }

    /// Applies `name=value`.
    pub fn apply_assignment(&mut self, assignment: &str) -> Result<(), ProfileError> {
        let (name, value) = assignment
            .split_once('=')
            .ok_or_else(|| SwitchError::NotAnAssignment(assignment.into()))?;
        self.set(name.trim(), value.trim())
    }

    /// A switch's value by name, as text.
    pub fn get(&self, name: &str) -> Option<String> {
        self.webmcp.get(name).or_else(|| self.host.get(name))
    }

    /// Every switch's current value, by name, in [`switches`] order.
    pub fn values(&self) -> Vec<(&'static str, String)> {
        let mut v = self.webmcp.values();
        v.extend(self.host.values());
        v
    }

    /// The switches where this profile differs from `spec`, as `name=value`.
    pub fn differences_from_spec(&self) -> Vec<String> {
        let spec = Profile::spec().values();
        self.values()
            .into_iter()
            .zip(spec)
            .filter(|(mine, theirs)| mine.1 != theirs.1)
            .map(|(mine, _)| format!("{}={}", mine.0, mine.1))
            .collect()
    }
}
