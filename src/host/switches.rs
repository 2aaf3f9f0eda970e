//! Behaviour switches: where texts, revisions, proposals and implementations disagree, the
//! engine has a switch, declared once, in the layer whose step it changes, with [`switches!`].
//!
//! One declaration gives a switch's name, where it comes from, each value with its meaning and
//! the named profiles that take it (a profile that names no value of a switch takes its first
//! value, `spec`'s). Everything else is derived from it: the field a layer reads
//! (`self.host_switches().inactive_realm_jobs`), parsing and printing of values, `--set`,
//! profile tags in scenarios, and the `profiles` command's listing.
//!
//! The host's switches are here: whether HTML drops the promise jobs of a realm whose document
//! is not fully active, and how Web IDL converts a value to a `Promise<T>`.

use thiserror::Error;

/// Errors in setting a switch.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum SwitchError {
    #[error("unknown switch `{name}`; the switches are: {known}")]
    UnknownSwitch { name: String, known: String },
    #[error("switch `{switch}` has no value `{value}`; its values are: {known}")]
    BadValue {
        switch: String,
        value: String,
        known: String,
    },
    #[error("switch `{switch}` takes a whole number from {min} to {max}, not `{value}`")]
    OutOfRange {
        switch: String,
        value: String,
        min: u64,
        max: u64,
    },
    #[error("`{0}` is not of the form name=value")]
    NotAnAssignment(String),
}

/// One value of a switch, for listings.
#[derive(Debug)]
pub struct SwitchValue {
    pub name: &'static str,
    pub meaning: &'static str,
    /// The named profiles that take this value (besides every profile that names none, for
    /// the first value).
    pub profiles: &'static [&'static str],
}

/// One switch, for listings.
#[derive(Debug)]
pub struct SwitchInfo {
    pub name: &'static str,
    pub source: &'static str,
    /// The values, spec's first; a numeric switch has one entry describing its range.
    pub values: &'static [SwitchValue],
    /// For a numeric switch: its default and its bounds.
    pub numeric: Option<(u64, u64, u64)>,
}

/// Declares a layer's switches: an enum per choice switch, a field per switch in the layer's
/// `Switches` struct, and the derived listing, parsing and profile values.
///
/// ```text
/// switches! {
///     /// The host's switches.
///     pub struct Switches;
///     choices {
///         /// doc of the field
///         field: EnumType = "switch-name", from "where it comes from" {
///             FirstValue = "first-value": "what it does (spec's)",
///             Other = "other": "what it does" ["profile-a", "profile-b"],
///         }
///     }
///     numbers {
///         field_ms = "switch-name", from "where", default 5000, unit "ms", range 0..=86400000,
///             "<milliseconds>": "what the number is" ["profile": 1000];
///     }
/// }
/// ```
#[macro_export]
macro_rules! switches {
    (
        $(#[$smeta:meta])*
        pub struct $Switches:ident;
        choices {
            $(
                $(#[$meta:meta])*
                $field:ident: $ty:ident = $name:literal, from $source:literal {
                    $( $(#[$vmeta:meta])* $variant:ident = $text:literal : $what:literal $([$($profile:literal),* $(,)?])? ),+ $(,)?
                }
            )*
        }
        $( numbers {
            $(
                $(#[$nmeta:meta])*
                $nfield:ident = $nname:literal, from $nsource:literal, default $ndefault:literal,
                    unit $nunit:literal, range $nmin:literal ..= $nmax:literal, $nshape:literal : $nwhat:literal
                    $([$($nprofile:literal : $nvalue:literal),* $(,)?])?;
            )*
        } )?
    ) => {
        $(
            $(#[$meta])*
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
            pub enum $ty { $( $(#[$vmeta])* $variant ),+ }

            impl $ty {
                pub const NAME: &'static str = $name;
                pub const ALL: &'static [$ty] = &[ $( $ty::$variant ),+ ];

                pub fn as_str(self) -> &'static str {
                    match self { $( $ty::$variant => $text ),+ }
                }

                pub fn parse(value: &str) -> Result<Self, $crate::host::switches::SwitchError> {
                    match value {
                        $( $text => Ok($ty::$variant), )+
                        _ => Err($crate::host::switches::SwitchError::BadValue {
                            switch: $name.into(),
                            value: value.into(),
                            known: [$($text),+].join(", "),
                        }),
                    }
                }

                /// The value a named profile takes.
                #[allow(unused_variables)]
                pub fn for_profile(profile: &str) -> Self {
                    $( $( if [$($profile),*].contains(&profile) { return $ty::$variant; } )? )+
                    Self::ALL[0]
                }
            }

            impl std::fmt::Display for $ty {
                fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str(self.as_str())
                }
            }
        )*

        $(#[$smeta])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
        pub struct $Switches {
            $( $(#[$meta])* pub $field: $ty, )*
            $( $( $(#[$nmeta])* pub $nfield: u64, )* )?
        }

        impl $Switches {
            /// Every switch of this layer, in declaration order.
            pub const INFO: &'static [$crate::host::switches::SwitchInfo] = &[
                $(
                    $crate::host::switches::SwitchInfo {
                        name: $name,
                        source: $source,
                        values: &[ $( $crate::host::switches::SwitchValue {
                            name: $text,
                            meaning: $what,
                            profiles: &[ $( $($profile),* )? ],
                        } ),+ ],
                        numeric: None,
                    },
                )*
                $( $(
                    $crate::host::switches::SwitchInfo {
                        name: $nname,
                        source: $nsource,
                        values: &[ $crate::host::switches::SwitchValue {
                            name: $nshape,
                            meaning: $nwhat,
                            profiles: &[ $( $($nprofile),* )? ],
                        } ],
                        numeric: Some(($ndefault, $nmin, $nmax)),
                    },
                )* )?
            ];

            /// The values a named profile takes.
            pub fn for_profile(profile: &str) -> Self {
                $Switches {
                    $( $field: $ty::for_profile(profile), )*
                    $( $( $nfield: {
                        #[allow(unused_mut)]
                        let mut v: u64 = $ndefault;
                        $( $( if profile == $nprofile { v = $nvalue; } )* )?
                        v
                    }, )* )?
                }
            }

            /// Sets a switch by name: `Ok(false)` when this layer has no switch of that name.
            pub fn set(&mut self, switch: &str, value: &str) -> Result<bool, $crate::host::switches::SwitchError> {
                match switch {
                    $( $name => { self.$field = $ty::parse(value)?; Ok(true) } )*
                    $( $( $nname => {
                        self.$nfield = $crate::host::switches::parse_number($nname, value, $nunit, $nmin, $nmax)?;
                        Ok(true)
                    } )* )?
                    _ => Ok(false),
                }
            }

            /// A switch's value by name, as text.
            pub fn get(&self, switch: &str) -> Option<String> {
                match switch {
                    $( $name => Some(self.$field.as_str().to_string()), )*
                    $( $( $nname => Some(self.$nfield.to_string()), )* )?
                    _ => None,
                }
            }

            /// Every switch and its value, in declaration order.
            pub fn values(&self) -> Vec<(&'static str, String)> {
                vec![
                    $( ($name, self.$field.as_str().to_string()), )*
                    $( $( ($nname, self.$nfield.to_string()), )* )?
                ]
            }
        }
    };
}

/// Parses a numeric switch's value within its bounds; the unit may follow the number.
pub fn parse_number(
    switch: &str,
    value: &str,
    unit: &str,
    min: u64,
    max: u64,
) -> Result<u64, SwitchError> {
    let digits = value.strip_suffix(unit).unwrap_or(value);
    match digits.parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(SwitchError::OutOfRange {
            switch: switch.into(),
            value: value.into(),
            min,
            max,
        }),
    }
}

crate::switches! {
    /// The host's switches.
    pub struct Switches;

    choices {
        /// Whether promise jobs run when their realm's document is not fully active.
        inactive_realm_jobs: InactiveRealmJobs = "inactive-realm-jobs",
        from "HTML's \"check if we can run script\" (dropped) vs the PR #373 review's bfcache case, which assumes the settle steps can run" {
            Dropped = "dropped": "a job whose realm's document is not fully active does not run (HTML)",
            Run = "run": "such jobs run anyway",
        }

        /// How Web IDL converts a value to `Promise<T>` (an operation's argument, a callback's
        /// result).
        idl_promise_conversion: IdlPromiseConversion = "idl-promise-conversion",
        from "Web IDL's current text (a new promise resolved with the value, so even a settled native promise arrives pending, and HTML made PromiseRejectionEvent's promise an `object` for that reason) vs Web IDL before that change (PromiseResolve in the callee's realm) and browsers' bindings; Chromium 156 measured passing a native promise through whatever its realm (webmcp/probes/promise-conversion)" {
            Webidl = "webidl": "always a new promise of the callee's realm, resolved with the value: a native promise, settled or not, is adopted through a PromiseResolveThenableJob (Web IDL)",
            PromiseResolve = "promise-resolve": "PromiseResolve(%Promise%, value) in the callee's realm: a native promise of that realm passes through, anything else is wrapped (Web IDL before its change; the proposal to go back to it)" ["promise-resolve"],
            PassThrough = "pass-through": "a native promise passes through whatever its realm, anything else is wrapped (Chromium 156's bindings, as measured)" ["chromium-156", "chromium-pr373"],
        }

        /// Which documents are secure contexts, where `[SecureContext]` members such as
        /// `document.modelContext` exist.
        secure_context: SecureContext = "secure-context",
        from "HTML's \"secure context\" (the top-level creation URL alone) vs the older Secure Contexts text, which also looks at the document's own origin and its ancestors' (webmcp/probes/secure-context)" {
            TopLevelCreationUrl = "top-level-creation-url": "a document is a secure context when its top-level creation URL is potentially trustworthy (HTML)",
            EveryAncestor = "every-ancestor": "a document is a secure context when its own origin and every ancestor document's origin are potentially trustworthy, a document sandboxed into an opaque origin judged by the origin it would have had (Chromium 156, as measured: probes/secure-context, imperative/opaque-origin-tools)" ["chromium-156", "chromium-pr373"],
        }
    }
}
