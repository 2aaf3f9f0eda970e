//! Origins and sites, as HTML defines them.
//!
//! <https://html.spec.whatwg.org/multipage/browsers.html#origin>

use std::fmt;

use serde::Serialize;
use url::Url;

/// An origin: a tuple origin (scheme, host, port) or an opaque origin.
///
/// <https://w3c.github.io/webappsec-secure-contexts/#is-url-trustworthy>
pub fn is_url_potentially_trustworthy(url: &Url) -> bool {
    // 1. about:blank and about:srcdoc are.
    if url.as_str() == "about:blank" || url.as_str() == "about:srcdoc" {
        return true;
    }
    // 2. So are data: URLs.
    if url.scheme() == "data" {
        return true;
    }
    // 3. Otherwise, the URL's origin decides.
    let mut n = 0;
    Origin::of_url(url, &mut n).is_potentially_trustworthy()
}

/// <https://html.spec.whatwg.org/multipage/browsers.html#concept-origin>
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Origin {
    /// <https://html.spec.whatwg.org/multipage/browsers.html#concept-origin-tuple>
    Tuple {
        scheme: String,
        host: String,
        port: Option<u16>,
    },
    /// <https://html.spec.whatwg.org/multipage/browsers.html#concept-origin-opaque>
    /// The number only keeps distinct opaque origins distinct.
    Opaque(u32),
}

impl Origin {
    /// The origin of a URL, as the URL Standard computes it; a URL without a tuple origin
    /// (`data:`, `about:blank` outside a navigation) gets a fresh opaque origin.
    ///
    /// <https://url.spec.whatwg.org/#concept-url-origin>
    pub fn of_url(url: &Url, next_opaque: &mut u32) -> Origin {
        // The URL Standard gives `file:` URLs an opaque origin whose handling is left to the
        // user agent; registerTool step 4 names the "file" scheme, so it is kept as a tuple here.
        if url.scheme() == "file" {
            return Origin::Tuple {
                scheme: "file".into(),
                host: String::new(),
                port: None,
            };
        }
        match url.origin() {
            url::Origin::Tuple(scheme, host, port) => {
                let default = default_port(&scheme);
                Origin::Tuple {
                    scheme,
                    host: host.to_string(),
                    port: if Some(port) == default {
                        None
                    } else {
                        Some(port)
                    },
                }
            }
            url::Origin::Opaque(_) => {
                *next_opaque += 1;
                Origin::Opaque(*next_opaque)
            }
        }
    }

    /// <https://html.spec.whatwg.org/multipage/browsers.html#same-origin>
    pub fn same_origin(&self, other: &Origin) -> bool {
        self == other
    }

    pub fn scheme(&self) -> Option<&str> {
        match self {
            Origin::Tuple { scheme, .. } => Some(scheme),
            Origin::Opaque(_) => None,
        }
    }

    /// <https://w3c.github.io/webappsec-secure-contexts/#is-origin-trustworthy>
    pub fn is_potentially_trustworthy(&self) -> bool {
        match self {
            // 1. An opaque origin is not trustworthy.
            Origin::Opaque(_) => false,
            Origin::Tuple { scheme, host, .. } => {
                // 3. https and wss are.
                if scheme == "https" || scheme == "wss" {
                    return true;
                }
                // 4. Loopback addresses.
                if host == "[::1]" || is_ipv4_loopback(host) {
                    return true;
                }
                // 5. "localhost" and its subdomains.
                if host == "localhost" || host.ends_with(".localhost") {
                    return true;
                }
                // 6. file URLs.
                scheme == "file"
            }
        }
    }

    /// <https://html.spec.whatwg.org/multipage/browsers.html#obtain-a-site>
    ///
    /// The registrable domain needs the public suffix list, which the engine does not carry; it
    /// takes the last two labels of a domain instead, which is right for the `.test` hosts that
    /// scenarios use.
    pub fn site(&self) -> Origin {
        match self {
            Origin::Opaque(_) => self.clone(),
            Origin::Tuple { scheme, host, .. } => {
                let is_ip = host.starts_with('[') || host.parse::<std::net::Ipv4Addr>().is_ok();
                let site_host = if is_ip {
                    host.clone()
                } else {
                    let labels: Vec<&str> = host.split('.').collect();
                    let keep = labels.len().min(2);
                    labels[labels.len() - keep..].join(".")
                };
                Origin::Tuple {
                    scheme: scheme.clone(),
                    host: site_host,
                    port: None,
                }
            }
        }
    }

    /// <https://html.spec.whatwg.org/multipage/browsers.html#ascii-serialisation-of-an-origin>
    pub fn serialize(&self) -> String {
        match self {
            Origin::Opaque(_) => "null".into(),
            Origin::Tuple { scheme, host, port } => match port {
                Some(p) => format!("{scheme}://{host}:{p}"),
                None => format!("{scheme}://{host}"),
            },
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.serialize())
    }
}

impl Serialize for Origin {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&Origin::serialize(self))
    }
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        "ftp" => Some(21),
        _ => None,
    }
}

fn is_ipv4_loopback(host: &str) -> bool {
    host.parse::<std::net::Ipv4Addr>()
        .map(|a| a.octets()[0] == 127)
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin(s: &str) -> Origin {
        let mut n = 0;
        Origin::of_url(&Url::parse(s).unwrap(), &mut n)
    }

    #[test]
    fn default_ports_are_elided_and_same_origin_compares_tuples() {
        assert_eq!(origin("https://a.test:443/x").serialize(), "https://a.test");
        assert_eq!(
            origin("https://a.test:8443/").serialize(),
            "https://a.test:8443"
        );
        assert!(origin("https://a.test/x").same_origin(&origin("https://a.test/y")));
        assert!(!origin("https://a.test/").same_origin(&origin("http://a.test/")));
    }

    #[test]
    fn potentially_trustworthy_follows_secure_contexts() {
        assert!(origin("https://a.test/").is_potentially_trustworthy());
        assert!(origin("http://localhost:8000/").is_potentially_trustworthy());
        assert!(origin("http://127.0.0.1/").is_potentially_trustworthy());
        assert!(!origin("http://a.test/").is_potentially_trustworthy());
        assert!(!origin("data:text/plain,x").is_potentially_trustworthy());
    }

    #[test]
    fn site_keeps_scheme_and_last_two_labels() {
        assert_eq!(
            origin("https://www.a.test/").site(),
            origin("https://a.test/").site()
        );
        assert_ne!(
            origin("https://a.test/").site(),
            origin("http://a.test/").site()
        );
    }
}
