//! Expectations: `expect ...` lines, their tags, and what they compare.

use super::ast::*;
use super::parser::SubtestParser;
use crate::engine::profile::{Profile, NAMED_PROFILES};
use crate::host::value::Value;
use crate::script::ast::Expr;
use crate::script::lexer::{shown, Tok, Token};
use crate::script::syntax::{Cursor, ParseError};

impl SubtestParser {
    /// A trailing `[spec, chromium]` or `[settle-updates-tools-ready=if-fully-active]`.
    pub(crate) fn tags(&self, p: &mut Cursor) -> Result<Vec<Tag>, ParseError> {
        let mut tags = Vec::new();
        if !p.eat_punct("[") {
            return Ok(tags);
        }
        loop {
            let mut all = vec![self.tag(p)?];
            while p.eat_punct("&") {
                all.push(self.tag(p)?);
            }
            tags.push(if all.len() == 1 {
                all.remove(0)
            } else {
                Tag::All(all)
            });
            if p.eat_punct("]") {
                break;
            }
            p.punct(",")?;
        }
        Ok(tags)
    }

    /// One tag: a profile name or `switch=value`.
    pub(crate) fn tag(&self, p: &mut Cursor) -> Result<Tag, ParseError> {
        {
            let name = p.ident("a profile name or `switch=value`")?;
            if p.eat_punct("=") {
                let value = match p.next_token().map(|t| t.tok.clone()) {
                    Some(Tok::Ident(v)) => v,
                    Some(Tok::Number(n)) => crate::host::value::number_to_js_string(n),
                    Some(Tok::Duration(ms)) => ms.to_string(),
                    _ => return Err(p.error_prev("expected the switch's value".into())),
                };
                Profile::spec().set(&name, &value).map_err(|e| {
                    // The error quotes the tag; a message quotes at most a little of it.
                    let message = e
                        .to_string()
                        .replace(&value, &shown(&value))
                        .replace(&name, &shown(&name));
                    p.error_prev(message)
                })?;
                Ok(Tag::Switch(name, value))
            } else {
                if !NAMED_PROFILES.iter().any(|n| n.name == name) {
                    return Err(p.error_prev(format!(
                        "unknown profile `{}` in the tag list; the profiles are: {}",
                        shown(&name),
                        NAMED_PROFILES
                            .iter()
                            .map(|n| n.name)
                            .collect::<Vec<_>>()
                            .join(", ")
                    )));
                }
                Ok(Tag::Profile(name))
            }
        }
    }

    pub(crate) fn expectation(&self, p: &mut Cursor) -> Result<Expectation, ParseError> {
        let sometimes = p.eat_keyword("sometimes");
        let kind = self.expect_kind(p)?;
        let tags = self.tags(p)?;
        Ok(Expectation {
            tags,
            sometimes,
            kind,
        })
    }

    /// `["a", "b"]`: a list of logged lines.
    pub(crate) fn string_list(&self, p: &mut Cursor) -> Result<Vec<String>, ParseError> {
        p.punct("[")?;
        let mut lines = Vec::new();
        if !p.eat_punct("]") {
            loop {
                lines.push(p.string("a logged line in quotes")?);
                if p.eat_punct("]") {
                    break;
                }
                p.punct(",")?;
                if p.eat_punct("]") {
                    break;
                }
            }
        }
        Ok(lines)
    }

    pub(crate) fn expect_kind(&self, p: &mut Cursor) -> Result<ExpectKind, ParseError> {
        let first = p.peek().cloned();
        if let Some(Token {
            tok: Tok::Ident(w), ..
        }) = &first
        {
            match w.as_str() {
                "no" => {
                    p.next_token();
                    p.keyword("findings")?;
                    return Ok(ExpectKind::NoFindings);
                }
                "finding" => {
                    p.next_token();
                    let anchor =
                        p.ident("the algorithm's anchor, such as perform-an-observation")?;
                    if !crate::engine::algorithms().any(|a| a.anchor == anchor) {
                        let mut anchors: Vec<&str> =
                            crate::engine::algorithms().map(|a| a.anchor).collect();
                        anchors.sort();
                        anchors.dedup();
                        return Err(p.error_prev(format!(
                            "unknown algorithm `{}`; the anchors are: {}",
                            shown(&anchor),
                            anchors.join(", ")
                        )));
                    }
                    let step = match p.next_token().map(|t| t.tok.clone()) {
                        Some(Tok::Number(n)) => crate::host::value::number_to_js_string(n),
                        Some(Tok::Ident(s)) | Some(Tok::Str(s)) => s,
                        _ => return Err(p.error_prev("expected the step number".into())),
                    };
                    return Ok(ExpectKind::Finding { anchor, step });
                }
                "uncaught" => {
                    p.next_token();
                    let name = p.ident("the error's name, such as TypeError")?;
                    return Ok(ExpectKind::Uncaught(name));
                }
                "time" => {
                    p.next_token();
                    p.punct("==")?;
                    let ms = p.duration()?;
                    return Ok(ExpectKind::Time(ms));
                }
                "log" => {
                    p.next_token();
                    if p.eat_keyword("contains") {
                        return Ok(ExpectKind::Log(LogExpect::Contains(
                            p.string("the text in quotes")?,
                        )));
                    }
                    if p.eat_keyword("lacks") {
                        return Ok(ExpectKind::Log(LogExpect::Lacks(
                            p.string("the text in quotes")?,
                        )));
                    }
                    if p.eat_keyword("in") {
                        p.punct("[")?;
                        let mut orders = Vec::new();
                        loop {
                            orders.push(self.string_list(p)?);
                            if p.eat_punct("]") {
                                break;
                            }
                            p.punct(",")?;
                            if p.eat_punct("]") {
                                break;
                            }
                        }
                        return Ok(ExpectKind::Log(LogExpect::OneOf(orders)));
                    }
                    if !p.peek_punct("==") {
                        return Err(p.error_expected("`==`, `in`, `contains` or `lacks`"));
                    }
                    p.punct("==")?;
                    return Ok(ExpectKind::Log(LogExpect::Exactly(self.string_list(p)?)));
                }
                _ => {}
            }
            // An observation: `o pending`, `o started at 100ms`, `o ended at 5100ms`.
            let next = |k: usize| match p.toks.get(p.pos + k) {
                Some(Token {
                    tok: Tok::Ident(t), ..
                }) => Some(t.as_str()),
                _ => None,
            };
            if matches!(next(1), Some("started" | "ended")) && next(2) == Some("at") {
                let name = p.ident("an observation's name")?;
                self.check_name(p, &name)?;
                let which = if p.eat_keyword("started") {
                    ObservationMoment::Started
                } else {
                    p.keyword("ended")?;
                    ObservationMoment::Ended
                };
                p.keyword("at")?;
                let ms = p.duration()?;
                return Ok(ExpectKind::ObservationTime { name, which, ms });
            }
            // `o => outcome` or `o.tools == {...}` / `== none`.
            if matches!(
                p.toks.get(p.pos + 1),
                Some(Token {
                    tok: Tok::Punct("=>"),
                    ..
                })
            ) {
                let name = p.ident("an observation's name")?;
                self.check_name(p, &name)?;
                p.punct("=>")?;
                let outcome = self.outcome(p)?;
                let after = if p.eat_keyword("after") {
                    Some(p.duration()?)
                } else {
                    None
                };
                return Ok(ExpectKind::Observation {
                    name: name.clone(),
                    outcome,
                    after,
                });
            }
            // `o.origins == {top: "https://a.test"}`.
            let punct_at = |k: usize, want: &str| matches!(p.toks.get(p.pos + k), Some(Token { tok: Tok::Punct(t), .. }) if *t == want);
            if punct_at(1, ".")
                && next(2) == Some("origins")
                && punct_at(3, "==")
                && punct_at(4, "{")
            {
                let name = p.ident("an observation's name")?;
                self.check_name(p, &name)?;
                p.punct(".")?;
                p.keyword("origins")?;
                p.punct("==")?;
                p.punct("{")?;
                let mut origins = Vec::new();
                if !p.eat_punct("}") {
                    loop {
                        let doc = self.document_name(p)?;
                        p.punct(":")?;
                        origins.push((doc, p.string("the origin in quotes, as serialized")?));
                        if p.eat_punct("}") {
                            break;
                        }
                        p.punct(",")?;
                    }
                }
                return Ok(ExpectKind::ObservationOrigins { name, origins });
            }
            // `o.tools == {` or `o.tools == none`.
            let punct = |k: usize, want: &str| matches!(p.toks.get(p.pos + k), Some(Token { tok: Tok::Punct(t), .. }) if *t == want);
            let is_tools = punct(1, ".")
                && next(2) == Some("tools")
                && punct(3, "==")
                && (punct(4, "{") || next(4) == Some("none"));
            if is_tools {
                let name = p.ident("an observation's name")?;
                self.check_name(p, &name)?;
                p.punct(".")?;
                p.keyword("tools")?;
                p.punct("==")?;
                if p.eat_keyword("none") {
                    return Ok(ExpectKind::ObservationTools { name, tools: None });
                }
                p.punct("{")?;
                let mut tools = Vec::new();
                if !p.eat_punct("}") {
                    loop {
                        let doc = self.document_name(p)?;
                        p.punct(":")?;
                        p.punct("[")?;
                        let mut names = Vec::new();
                        if !p.eat_punct("]") {
                            loop {
                                names.push(p.string("a tool name in quotes")?);
                                if p.eat_punct("]") {
                                    break;
                                }
                                p.punct(",")?;
                            }
                        }
                        tools.push((doc, names));
                        if p.eat_punct("}") {
                            break;
                        }
                        p.punct(",")?;
                    }
                }
                return Ok(ExpectKind::ObservationTools {
                    name,
                    tools: Some(tools),
                });
            }
        }
        let mut actual = self.postfix(p)?;
        // `expect A instanceof I` (or `DOC.I`): the value is an instance of that interface
        // object (see `script::instance`); `== false` may follow.
        if p.peek_keyword("instanceof") {
            actual = self.instance_of(p, actual)?;
            if p.at_end() || p.tags_follow() {
                return Ok(ExpectKind::Value {
                    actual,
                    expected: Expr::Literal(Value::Bool(true)),
                    equal: true,
                });
            }
        }
        // `expect A === B` / `expect A !== B`: the comparison holds (IsStrictlyEqual, objects
        // by identity).
        let negated = if p.eat_punct("===") {
            Some(false)
        } else if p.eat_punct("!==") {
            Some(true)
        } else {
            None
        };
        if let Some(negated) = negated {
            self.compares_identity.set(true);
            let right = self.postfix(p)?;
            let right = if p.peek_keyword("instanceof") {
                self.instance_of(p, right)?
            } else {
                right
            };
            return Ok(ExpectKind::Value {
                actual: Expr::StrictEquals {
                    left: Box::new(actual),
                    right: Box::new(right),
                    negated,
                },
                expected: Expr::Literal(Value::Bool(true)),
                equal: true,
            });
        }
        if matches!(actual, Expr::InstanceOf { .. }) && !(p.peek_punct("==") || p.peek_punct("!="))
        {
            return Err(p.error_expected("`==` or `!=` after `instanceof X`, or the line's end"));
        }
        if p.eat_keyword("fulfilled") {
            let value = if p.eat_keyword("with") {
                Some(self.expr(p)?)
            } else {
                None
            };
            return Ok(ExpectKind::Promise {
                promise: actual,
                state: PromiseExpect::Fulfilled(value),
            });
        }
        if p.eat_keyword("rejected") {
            let name = if !p.at_end() && !p.tags_follow() {
                p.eat_keyword("with");
                Some(match p.peek().map(|t| t.tok.clone()) {
                    Some(Tok::Str(s)) => {
                        p.next_token();
                        s
                    }
                    _ => p.ident("the rejection's error name (such as AbortError) or a string")?,
                })
            } else {
                None
            };
            return Ok(ExpectKind::Promise {
                promise: actual,
                state: PromiseExpect::Rejected(name),
            });
        }
        if p.eat_keyword("pending") {
            return Ok(ExpectKind::Promise {
                promise: actual,
                state: PromiseExpect::Pending,
            });
        }
        let equal = if p.eat_punct("==") {
            true
        } else if p.eat_punct("!=") {
            false
        } else {
            return Err(
                p.error_expected("`==`, `!=`, `===`, `!==`, `fulfilled`, `rejected` or `pending`")
            );
        };
        let expected = self.expr(p)?;
        Ok(ExpectKind::Value {
            actual,
            expected,
            equal,
        })
    }
}
