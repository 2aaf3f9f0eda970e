//! The origins a scenario may use, and how the exported test maps them to real ones when it
//! runs (see the module's documentation).

use crate::script::js;

/// The origins a scenario may use, in the order the exported test maps them: the test page's
/// own origin, WPT's `HTTPS_REMOTE_ORIGIN`, WPT's `HTTPS_OTHER_NOTSAMESITE_ORIGIN`, and WPT's
/// `HTTP_REMOTE_ORIGIN` (plain HTTP on a host that is not potentially trustworthy).
pub const SCENARIO_ORIGINS: [&str; 4] = [
    "https://a.test",
    "https://b.test",
    "https://c.test",
    "http://b.test",
];

/// The scenario origin a string literal names, if it is one of the mapped origins or a URL on
/// one of them.
pub fn scenario_origin_of(s: &str) -> Option<&'static str> {
    SCENARIO_ORIGINS.iter().copied().find(|o| {
        s == *o
            || s.strip_prefix(o)
                .is_some_and(|rest| rest.starts_with('/') || rest.starts_with('?'))
    })
}

/// A string literal that may name a scenario origin: origins (and URLs on them) become
/// `w.origin("https://a.test")`, which the test maps to a real origin when it runs.
pub fn string_mapped(s: &str) -> String {
    if scenario_origin_of(s).is_some() {
        format!("w.origin({})", js::string(s))
    } else {
        js::string(s)
    }
}

/// The scenario origin of a URL, if it is one the export maps.
pub fn mapped_origin(url: &str) -> Option<&'static str> {
    let parsed = url::Url::parse(url).ok()?;
    let origin = parsed.origin().ascii_serialization();
    SCENARIO_ORIGINS.iter().copied().find(|o| *o == origin)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_and_urls_on_them_are_mapped() {
        assert_eq!(
            string_mapped("https://a.test"),
            "w.origin(\"https://a.test\")"
        );
        assert_eq!(
            string_mapped("https://b.test/x.html"),
            "w.origin(\"https://b.test/x.html\")"
        );
        assert_eq!(string_mapped("https://a.testing"), "\"https://a.testing\"");
        assert_eq!(string_mapped("http://c.test"), "\"http://c.test\"");
    }
}
