//! A playground link: a URL whose fragment carries a scenario's text, the profiles and switches
//! it runs under and the subtest shown, so that a link in an issue opens the playground
//! (`webmcp-ref playground`) in that state.
//!
//! The fragment is `application/x-www-form-urlencoded` pairs: `v=1`, `f` the scenario's path,
//! `s` its text as raw DEFLATE (what a page's `CompressionStream("deflate-raw")` writes) in
//! URL-safe base64 without padding, `p` the profiles comma-separated, one `set` per switch
//! assignment, `t` the subtest and `do` what the page shows once open. The page decodes it with the same code, built for
//! WebAssembly.

use base64::Engine as _;
use thiserror::Error;

/// The fragment format's version; a link of another version is refused, not misread.
const VERSION: &str = "1";

/// Where the playground is when nothing else is said: `webmcp-ref playground --serve`'s
/// default address.
pub const DEFAULT_BASE: &str = "http://127.0.0.1:8737/";

/// What a playground link says.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Link {
    /// The scenario's path, as reports and exports name it.
    pub path: String,
    pub text: String,
    pub profiles: Vec<String>,
    pub sets: Vec<String>,
    pub subtest: Option<String>,
    /// What the page shows once open: `run`, `timeline`, `explore`, `markdown` or `export`
    /// (`do` in the fragment); `None`: the scenario alone.
    pub view: Option<String>,
}

/// Why a fragment is not a playground link.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum LinkError {
    #[error("the link is of version {0:?}; this playground reads version {VERSION}")]
    Version(String),
    #[error("the link has no scenario (its `s` part is missing)")]
    NoScenario,
    #[error("the link's scenario is not URL-safe base64: {0}")]
    Base64(String),
    #[error("the link's scenario is not raw DEFLATE, or is larger than {max} bytes once inflated")]
    Inflate { max: usize },
    #[error("the link's scenario is not UTF-8 text")]
    NotText,
}

impl Link {
    /// The fragment, without its `#`.
    pub fn fragment(&self) -> String {
        let packed = miniz_oxide::deflate::compress_to_vec(self.text.as_bytes(), 9);
        let mut out = url::form_urlencoded::Serializer::new(String::new());
        out.append_pair("v", VERSION);
        out.append_pair("f", &self.path);
        out.append_pair("p", &self.profiles.join(","));
        for s in &self.sets {
            out.append_pair("set", s);
        }
        if let Some(t) = &self.subtest {
            out.append_pair("t", t);
        }
        if let Some(d) = &self.view {
            out.append_pair("do", d);
        }
        out.append_pair(
            "s",
            &base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(packed),
        );
        out.finish()
    }

    /// The whole link: `base` (the playground's address) and the fragment.
    pub fn url(&self, base: &str) -> String {
        let base = base.split('#').next().unwrap_or(base);
        format!("{base}#{}", self.fragment())
    }

    /// Reads a fragment (with or without its `#`, or a whole link), inflating no more than
    /// `max` bytes of scenario text.
    pub fn parse(link: &str, max: usize) -> Result<Link, LinkError> {
        let fragment = match link.split_once('#') {
            Some((_, f)) => f,
            None => link,
        };
        let mut out = Link::default();
        let mut packed = None;
        for (k, v) in url::form_urlencoded::parse(fragment.as_bytes()) {
            match &*k {
                "v" if v != VERSION => return Err(LinkError::Version(v.into_owned())),
                "f" => out.path = v.into_owned(),
                "p" => {
                    out.profiles = v
                        .split(',')
                        .filter(|p| !p.is_empty())
                        .map(str::to_string)
                        .collect()
                }
                "set" => out.sets.push(v.into_owned()),
                "t" => out.subtest = Some(v.into_owned()),
                "do" => out.view = Some(v.into_owned()),
                "s" => packed = Some(v.into_owned()),
                // A part of a newer version's link that this one does not know is left out.
                _ => {}
            }
        }
        let packed = packed.ok_or(LinkError::NoScenario)?;
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(packed.trim_end_matches('='))
            .map_err(|e| LinkError::Base64(e.to_string()))?;
        let text = miniz_oxide::inflate::decompress_to_vec_with_limit(&bytes, max)
            .map_err(|_| LinkError::Inflate { max })?;
        out.text = String::from_utf8(text).map_err(|_| LinkError::NotText)?;
        if out.path.is_empty() {
            out.path = "scenario.scn".into();
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Link {
        Link {
            path: "webmcp/readiness/a b.https.html.scn".into(),
            text: "title: t\n\nsubtest \"x & y\":\n  run\n".repeat(20),
            profiles: vec!["spec".into(), "chromium-156".into()],
            sets: vec!["registry-toolchange=per-call".into()],
            subtest: Some("x & y#1".into()),
            view: Some("timeline".into()),
        }
    }

    #[test]
    fn a_link_reads_back_as_written_and_is_shorter_than_its_text() {
        let l = sample();
        let url = l.url("http://127.0.0.1:8737/index.html#old");
        assert!(url.starts_with("http://127.0.0.1:8737/index.html#v=1&"));
        assert_eq!(Link::parse(&url, 1 << 20), Ok(l.clone()));
        assert!(l.fragment().len() < l.text.len() / 3, "{}", l.fragment());
    }

    #[test]
    fn a_hostile_fragment_is_refused_with_why() {
        assert_eq!(
            Link::parse("v=2&s=AA", 100),
            Err(LinkError::Version("2".into()))
        );
        assert_eq!(Link::parse("v=1", 100), Err(LinkError::NoScenario));
        assert!(matches!(
            Link::parse("s=%%%", 100),
            Err(LinkError::Base64(_))
        ));
        // A bomb: a megabyte of one letter, inflated no further than the limit.
        let bomb = Link {
            text: "a".repeat(1 << 20),
            ..sample()
        };
        assert_eq!(
            Link::parse(&bomb.fragment(), 1000),
            Err(LinkError::Inflate { max: 1000 })
        );
    }
}
