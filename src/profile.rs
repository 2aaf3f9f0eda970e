//! Behaviour profiles: every place where the readiness model's known texts, proposals and
//! implementations disagree is a switch, and a named profile is a set of switch values.
//!
//! A step that a switch changes names the switch in a comment at that step.

use std::fmt;

use serde::Serialize;
use thiserror::Error;

/// Errors in naming a profile or setting a switch.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum ProfileError {
    #[error("unknown profile `{name}`; the profiles are: {known}")]
    UnknownProfile { name: String, known: String },
    #[error("unknown switch `{name}`; the switches are: {known}")]
    UnknownSwitch { name: String, known: String },
    #[error("switch `{switch}` has no value `{value}`; its values are: {known}")]
    BadValue {
        switch: String,
        value: String,
        known: String,
    },
    #[error("`{0}` is not of the form name=value")]
    NotAnAssignment(String),
}

macro_rules! switch_enum {
    (
        $(#[$meta:meta])*
        $ty:ident, $name:literal, $source:literal {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal : $what:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
        pub enum $ty { $( $(#[$vmeta])* $variant ),+ }

        impl $ty {
            pub const NAME: &'static str = $name;
            pub const SOURCE: &'static str = $source;
            pub const VALUES: &'static [(&'static str, &'static str)] = &[ $( ($text, $what) ),+ ];

            pub fn as_str(self) -> &'static str {
                match self { $( $ty::$variant => $text ),+ }
            }

            pub fn parse(value: &str) -> Result<Self, ProfileError> {
                match value {
                    $( $text => Ok($ty::$variant), )+
                    _ => Err(ProfileError::BadValue {
                        switch: $name.into(),
                        value: value.into(),
                        known: Self::VALUES.iter().map(|(v, _)| *v).collect::<Vec<_>>().join(", "),
                    }),
                }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { f.write_str(self.as_str()) }
        }
    };
}

switch_enum! {
    /// What `waitForToolsUntil()` does with a promise that has already settled.
    SettledPromiseCheck, "settled-promise-check",
    "PR #373 final revision (ignore) vs first revision (always add; Web IDL wraps `42` in a new promise)" {
        IgnoreSettled = "ignore-settled": "an already-settled promise changes nothing (final revision, Chromium)",
        AlwaysAdd = "always-add": "every promise is added to the pending set, even a settled one (first revision)",
    }
}

switch_enum! {
    /// Whether the settle steps of `waitForToolsUntil()` update tools-ready of a document that
    /// is not fully active.
    SettleUpdatesToolsReady, "settle-updates-tools-ready",
    "PR #373 final revision (always) vs first revision (only if fully active; a bfcache restore left tools-ready false)" {
        Always = "always": "settling always updates the tools-ready state (final revision)",
        IfFullyActive = "if-fully-active": "settling updates it only while the document is fully active (first revision)",
    }
}

switch_enum! {
    /// Whether a readiness change dispatches `toolchange`.
    ReadinessToolchange, "readiness-toolchange",
    "PR #373 final revision (none) / first revision (ready events) / a reviewer's proposal (coalesced)" {
        None = "none": "readiness changes fire no event (final revision defers it)",
        ReadyEvents = "ready-events": "ToolChangeEvent{ready:false} when tools become not ready, other toolchange events suppressed until ready, then ToolChangeEvent{ready:true}, to every document of the tree allowed to use \"tools\" (first revision)",
        Coalesced = "coalesced": "a queued task compares tools-ready with the last state notified and notifies only a difference (reviewer's proposal)",
    }
}

switch_enum! {
    /// What happens to a pending promise whose realm's document is destroyed.
    DestroyedRealmPromise, "destroyed-realm-promise",
    "the spec (never settles) vs Chromium's PendingWaitForTools as the PR #373 review describes it" {
        NeverSettles = "never-settles": "its jobs never run, so it stays pending and tools-ready stays false (spec)",
        SettledOnDestroy = "settled-on-destroy": "it counts as settled when the document of the realm it came from is destroyed (Chromium)",
    }
}

switch_enum! {
    /// Whether promise jobs run when their realm's document is not fully active.
    InactiveRealmJobs, "inactive-realm-jobs",
    "HTML's \"check if we can run script\" (dropped) vs the PR #373 review's bfcache case, which assumes the settle steps can run" {
        Dropped = "dropped": "a job whose realm's document is not fully active does not run (HTML)",
        Run = "run": "such jobs run anyway",
    }
}

switch_enum! {
    /// Whether `getTools()` waits for tools to be ready before it answers.
    GetToolsWaits, "gettools-waits",
    "the follow-up that PR #373 defers" {
        No = "no": "getTools() answers at once (final revision)",
        Yes = "yes": "getTools() waits for tools to be ready first (deferred follow-up)",
    }
}

switch_enum! {
    /// How `registerTool()` and unregistration notify `toolchange`.
    RegistryToolchange, "registry-toolchange",
    "today's text (one per call) vs the follow-up tracked in webmcp#374 (coalesced per task)" {
        PerCall = "per-call": "every registerTool()/unregister notifies on its own (current text)",
        PerTask = "per-task": "a change queues a task that notifies once for every change made until it runs (webmcp#374)",
    }
}

switch_enum! {
    /// Until which point of a document's life its tools are presumed not ready.
    ToolsReadyLifecycle, "tools-ready-lifecycle",
    "PR #373's open question" {
        None = "none": "tools-ready depends only on pending promises (final revision)",
        DomContentLoaded = "domcontentloaded": "tools are not ready before DOMContentLoaded",
        Load = "load": "tools are not ready before the load event",
    }
}

switch_enum! {
    /// How the spec's assertions are checked.
    Assertions, "assertions",
    "the spec snapshot's text: \"perform an observation\" step 2 asserts the active document is *not* fully active" {
        AsIntended = "as-intended": "assertions are checked as evidently intended (step 2: the active document is fully active)",
        AsWritten = "as-written": "assertions are checked word for word (literal mode)",
    }
}

switch_enum! {
    /// Which navigables "notify documents of a tool change" visits.
    NotifyTargets, "notify-targets",
    "the spec snapshot says the traversable's \"descendant navigables\", which leaves out the top-level document; WPT expects it notified" {
        Inclusive = "inclusive": "the top-level traversable and all its descendants (what WPT tests expect)",
        Descendants = "descendants": "the descendant navigables only, as written",
    }
}

switch_enum! {
    /// Whether tool input schemas are checked (WPT's `.tentative` tests; no spec text yet).
    InputSchema, "input-schema",
    "WPT webmcp/imperative/*.tentative.https.html (Chromium) vs the spec, which has no text for it" {
        Unchecked = "unchecked": "registerTool() only serializes the schema; executeTool() does not validate input (spec)",
        TentativeSubset = "tentative-subset": "registerTool() rejects schemas outside a supported JSON Schema subset with a TypeError; executeTool() rejects input that fails the schema with a DataError (WPT .tentative, Chromium)",
    }
}

switch_enum! {
    /// When registerTool() adds the abort steps of its signal.
    RegisterAbortSteps, "register-abort-steps",
    "the spec text (step 18.2, before step 20's exposedTo checks can reject) vs Chromium 156, which leaves no abort steps behind a rejected registration" {
        AsWritten = "as-written": "added at step 18.2, and left on the signal when step 20 rejects: aborting it later unregisters a later tool of the same name (spec text)",
        OnSuccess = "on-success": "added only once the registration can no longer be rejected (Chromium 156)",
    }
}

/// The implementation-defined timeout of "wait for tools to be ready", in milliseconds.
pub const DEFAULT_TOOLS_READY_TIMEOUT_MS: u64 = 5000;

/// A complete set of switch values, with the name it goes by.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Profile {
    pub name: String,
    pub settled_promise_check: SettledPromiseCheck,
    pub settle_updates_tools_ready: SettleUpdatesToolsReady,
    pub readiness_toolchange: ReadinessToolchange,
    pub destroyed_realm_promise: DestroyedRealmPromise,
    pub inactive_realm_jobs: InactiveRealmJobs,
    pub gettools_waits: GetToolsWaits,
    pub registry_toolchange: RegistryToolchange,
    pub tools_ready_lifecycle: ToolsReadyLifecycle,
    pub assertions: Assertions,
    pub notify_targets: NotifyTargets,
    pub input_schema: InputSchema,
    pub register_abort_steps: RegisterAbortSteps,
    /// The implementation-defined timeout of "wait for tools to be ready".
    pub tools_ready_timeout_ms: u64,
}

/// A named profile and what it stands for.
pub struct NamedProfile {
    pub name: &'static str,
    pub about: &'static str,
    pub switches: &'static [(&'static str, &'static str)],
}

/// The named profiles. Each one is `spec` with the listed switches changed.
pub const NAMED_PROFILES: &[NamedProfile] = &[
    NamedProfile {
        name: "spec",
        about: "PR #373's final revision on the spec snapshot (the default)",
        switches: &[],
    },
    NamedProfile {
        name: "pr373-r1",
        about: "PR #373's first revision",
        switches: &[
            ("settled-promise-check", "always-add"),
            ("settle-updates-tools-ready", "if-fully-active"),
            ("readiness-toolchange", "ready-events"),
        ],
    },
    NamedProfile {
        name: "chromium",
        about: "Chromium as the PR #373 review describes it, with the schema checks of WPT's .tentative tests",
        switches: &[
            ("destroyed-realm-promise", "settled-on-destroy"),
            ("input-schema", "tentative-subset"),
            ("register-abort-steps", "on-success"),
        ],
    },
    NamedProfile {
        name: "coalesced-readiness",
        about: "a reviewer's proposal: readiness toolchange coalesced through a queued task",
        switches: &[("readiness-toolchange", "coalesced")],
    },
    NamedProfile {
        name: "gettools-waits",
        about: "the deferred follow-up: getTools() waits for tools to be ready",
        switches: &[("gettools-waits", "yes")],
    },
    NamedProfile {
        name: "coalesced-registry",
        about: "webmcp#374: register/unregister toolchange coalesced per task",
        switches: &[("registry-toolchange", "per-task")],
    },
    NamedProfile {
        name: "lifecycle-domcontentloaded",
        about: "PR #373's open question: tools presumed not ready until DOMContentLoaded",
        switches: &[("tools-ready-lifecycle", "domcontentloaded")],
    },
    NamedProfile {
        name: "lifecycle-load",
        about: "PR #373's open question: tools presumed not ready until load",
        switches: &[("tools-ready-lifecycle", "load")],
    },
    NamedProfile {
        name: "literal",
        about: "the spec text word for word, its slips included",
        switches: &[
            ("assertions", "as-written"),
            ("notify-targets", "descendants"),
        ],
    },
];

/// One switch's description, for `webmcp-ref profiles`.
pub struct SwitchInfo {
    pub name: &'static str,
    pub source: &'static str,
    pub values: &'static [(&'static str, &'static str)],
}

/// Every switch, in the order `profiles` lists them.
pub const SWITCHES: &[SwitchInfo] = &[
    SwitchInfo {
        name: SettledPromiseCheck::NAME,
        source: SettledPromiseCheck::SOURCE,
        values: SettledPromiseCheck::VALUES,
    },
    SwitchInfo {
        name: SettleUpdatesToolsReady::NAME,
        source: SettleUpdatesToolsReady::SOURCE,
        values: SettleUpdatesToolsReady::VALUES,
    },
    SwitchInfo {
        name: ReadinessToolchange::NAME,
        source: ReadinessToolchange::SOURCE,
        values: ReadinessToolchange::VALUES,
    },
    SwitchInfo {
        name: DestroyedRealmPromise::NAME,
        source: DestroyedRealmPromise::SOURCE,
        values: DestroyedRealmPromise::VALUES,
    },
    SwitchInfo {
        name: InactiveRealmJobs::NAME,
        source: InactiveRealmJobs::SOURCE,
        values: InactiveRealmJobs::VALUES,
    },
    SwitchInfo {
        name: GetToolsWaits::NAME,
        source: GetToolsWaits::SOURCE,
        values: GetToolsWaits::VALUES,
    },
    SwitchInfo {
        name: RegistryToolchange::NAME,
        source: RegistryToolchange::SOURCE,
        values: RegistryToolchange::VALUES,
    },
    SwitchInfo {
        name: ToolsReadyLifecycle::NAME,
        source: ToolsReadyLifecycle::SOURCE,
        values: ToolsReadyLifecycle::VALUES,
    },
    SwitchInfo {
        name: Assertions::NAME,
        source: Assertions::SOURCE,
        values: Assertions::VALUES,
    },
    SwitchInfo {
        name: NotifyTargets::NAME,
        source: NotifyTargets::SOURCE,
        values: NotifyTargets::VALUES,
    },
    SwitchInfo {
        name: InputSchema::NAME,
        source: InputSchema::SOURCE,
        values: InputSchema::VALUES,
    },
    SwitchInfo {
        name: RegisterAbortSteps::NAME,
        source: RegisterAbortSteps::SOURCE,
        values: RegisterAbortSteps::VALUES,
    },
    SwitchInfo {
        name: TIMEOUT_SETTING,
        source: "the implementation-defined timeout of \"wait for tools to be ready\"",
        values: &[(
            "<milliseconds>",
            "a whole number of milliseconds (default 5000)",
        )],
    },
];

/// The name of the timeout setting.
pub const TIMEOUT_SETTING: &str = "tools-ready-timeout";

impl Default for Profile {
    fn default() -> Self {
        Profile::spec()
    }
}

impl Profile {
    /// PR #373's final revision: the default profile.
    pub fn spec() -> Profile {
        Profile {
            name: "spec".into(),
            settled_promise_check: SettledPromiseCheck::IgnoreSettled,
            settle_updates_tools_ready: SettleUpdatesToolsReady::Always,
            readiness_toolchange: ReadinessToolchange::None,
            destroyed_realm_promise: DestroyedRealmPromise::NeverSettles,
            inactive_realm_jobs: InactiveRealmJobs::Dropped,
            gettools_waits: GetToolsWaits::No,
            registry_toolchange: RegistryToolchange::PerCall,
            tools_ready_lifecycle: ToolsReadyLifecycle::None,
            assertions: Assertions::AsIntended,
            notify_targets: NotifyTargets::Inclusive,
            input_schema: InputSchema::Unchecked,
            register_abort_steps: RegisterAbortSteps::AsWritten,
            tools_ready_timeout_ms: DEFAULT_TOOLS_READY_TIMEOUT_MS,
        }
    }

    /// A named profile.
    pub fn named(name: &str) -> Result<Profile, ProfileError> {
        let named = NAMED_PROFILES
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| ProfileError::UnknownProfile {
                name: name.into(),
                known: NAMED_PROFILES
                    .iter()
                    .map(|p| p.name)
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
        let mut profile = Profile::spec();
        for (switch, value) in named.switches {
            profile.set(switch, value)?;
        }
        profile.name = name.into();
        Ok(profile)
    }

    /// Sets one switch (or the timeout) by its name, as `--set name=value` does.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), ProfileError> {
        match name {
            SettledPromiseCheck::NAME => {
                self.settled_promise_check = SettledPromiseCheck::parse(value)?
            }
            SettleUpdatesToolsReady::NAME => {
                self.settle_updates_tools_ready = SettleUpdatesToolsReady::parse(value)?
            }
            ReadinessToolchange::NAME => {
                self.readiness_toolchange = ReadinessToolchange::parse(value)?
            }
            DestroyedRealmPromise::NAME => {
                self.destroyed_realm_promise = DestroyedRealmPromise::parse(value)?
            }
            InactiveRealmJobs::NAME => self.inactive_realm_jobs = InactiveRealmJobs::parse(value)?,
            GetToolsWaits::NAME => self.gettools_waits = GetToolsWaits::parse(value)?,
            RegistryToolchange::NAME => {
                self.registry_toolchange = RegistryToolchange::parse(value)?
            }
            ToolsReadyLifecycle::NAME => {
                self.tools_ready_lifecycle = ToolsReadyLifecycle::parse(value)?
            }
            Assertions::NAME => self.assertions = Assertions::parse(value)?,
            NotifyTargets::NAME => self.notify_targets = NotifyTargets::parse(value)?,
            InputSchema::NAME => self.input_schema = InputSchema::parse(value)?,
            RegisterAbortSteps::NAME => {
                self.register_abort_steps = RegisterAbortSteps::parse(value)?
            }
            TIMEOUT_SETTING => {
                let digits = value.strip_suffix("ms").unwrap_or(value);
                self.tools_ready_timeout_ms =
                    digits.parse().map_err(|_| ProfileError::BadValue {
                        switch: TIMEOUT_SETTING.into(),
                        value: value.into(),
                        known: "a whole number of milliseconds, such as 5000".into(),
                    })?
            }
            _ => {
                return Err(ProfileError::UnknownSwitch {
                    name: name.into(),
                    known: SWITCHES
                        .iter()
                        .map(|s| s.name)
                        .collect::<Vec<_>>()
                        .join(", "),
                })
            }
        }
        Ok(())
    }

    /// Applies `name=value`.
    pub fn apply_assignment(&mut self, assignment: &str) -> Result<(), ProfileError> {
        let (name, value) = assignment
            .split_once('=')
            .ok_or_else(|| ProfileError::NotAnAssignment(assignment.into()))?;
        self.set(name.trim(), value.trim())
    }

    /// Every switch's current value, by name, in `SWITCHES` order.
    pub fn values(&self) -> Vec<(&'static str, String)> {
        vec![
            (
                SettledPromiseCheck::NAME,
                self.settled_promise_check.to_string(),
            ),
            (
                SettleUpdatesToolsReady::NAME,
                self.settle_updates_tools_ready.to_string(),
            ),
            (
                ReadinessToolchange::NAME,
                self.readiness_toolchange.to_string(),
            ),
            (
                DestroyedRealmPromise::NAME,
                self.destroyed_realm_promise.to_string(),
            ),
            (
                InactiveRealmJobs::NAME,
                self.inactive_realm_jobs.to_string(),
            ),
            (GetToolsWaits::NAME, self.gettools_waits.to_string()),
            (
                RegistryToolchange::NAME,
                self.registry_toolchange.to_string(),
            ),
            (
                ToolsReadyLifecycle::NAME,
                self.tools_ready_lifecycle.to_string(),
            ),
            (Assertions::NAME, self.assertions.to_string()),
            (NotifyTargets::NAME, self.notify_targets.to_string()),
            (InputSchema::NAME, self.input_schema.to_string()),
            (
                RegisterAbortSteps::NAME,
                self.register_abort_steps.to_string(),
            ),
            (TIMEOUT_SETTING, self.tools_ready_timeout_ms.to_string()),
        ]
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_profile_resolves_and_differs_as_listed() {
        for named in NAMED_PROFILES {
            let p = Profile::named(named.name).unwrap();
            assert_eq!(
                p.differences_from_spec().len(),
                named.switches.len(),
                "{}",
                named.name
            );
        }
    }

    #[test]
    fn unknown_names_list_what_exists() {
        let err = Profile::named("chrome").unwrap_err().to_string();
        assert!(
            err.contains("chromium") && err.contains("pr373-r1"),
            "{err}"
        );
        let err = Profile::spec()
            .set("settle", "always")
            .unwrap_err()
            .to_string();
        assert!(err.contains("settle-updates-tools-ready"), "{err}");
        let err = Profile::spec()
            .apply_assignment("inactive-realm-jobs=maybe")
            .unwrap_err()
            .to_string();
        assert!(err.contains("dropped, run"), "{err}");
    }
}
