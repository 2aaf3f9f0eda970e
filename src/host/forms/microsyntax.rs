//! HTML's common microsyntaxes that form controls read and write: numbers, dates and times,
//! colors, e-mail addresses; and the conversions between a control's string and its number.
//!
//! <https://html.spec.whatwg.org/multipage/common-microsyntaxes.html>

use super::super::value::number_to_js_string;

/// <https://html.spec.whatwg.org/multipage/common-microsyntaxes.html#valid-floating-point-number>:
/// an optional `-`, digits and/or a fraction (`1`, `.5`, `1.5`, not `1.`), an optional
/// exponent.
pub fn is_valid_floating_point_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if b.first() == Some(&b'-') {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i > start
    };
    let int = digits(&mut i);
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return false;
        }
    } else if !int {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        if !digits(&mut i) {
            return false;
        }
    }
    i == b.len()
}

/// <https://html.spec.whatwg.org/multipage/common-microsyntaxes.html#rules-for-parsing-floating-point-number-values>:
/// leading ASCII whitespace skipped, a sign, digits, a fraction and an exponent, and
/// whatever follows ignored. `None` is an error.
pub fn parse_floating_point_number(input: &str) -> Option<f64> {
    let s = input.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let b = s.as_bytes();
    let mut i = 0;
    let mut sign = 1.0;
    match b.first() {
        Some(b'-') => {
            sign = -1.0;
            i += 1;
            if !b.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b'.') {
                return None;
            }
        }
        Some(b'+') => {
            i += 1;
            if !b.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b'.') {
                return None;
            }
        }
        _ => {}
    }
    if b.get(i) == Some(&b'.') && !b.get(i + 1).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    if !b.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b'.') {
        return None;
    }
    let start = i;
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    if b.get(i) == Some(&b'.') && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
        i += 1;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
    }
    let mut end = i;
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'-' | b'+')) {
            j += 1;
        }
        if b.get(j).is_some_and(u8::is_ascii_digit) {
            while b.get(j).is_some_and(u8::is_ascii_digit) {
                j += 1;
            }
            end = j;
        }
    }
    let value: f64 = s[start..end].parse().ok()?;
    let value = sign * value;
    // A value too large for a double is an error; a tiny one rounds to zero.
    value
        .is_finite()
        .then_some(if value == 0.0 { 0.0 } else { value })
}

/// <https://html.spec.whatwg.org/multipage/common-microsyntaxes.html#rules-for-parsing-non-negative-integers>
pub fn parse_non_negative_integer(input: &str) -> Option<u64> {
    let s = input.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let s = s.strip_prefix('+').unwrap_or(s);
    let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
    if digits.is_empty() {
        return None;
    }
    Some(digits.parse::<u64>().unwrap_or(u64::MAX))
}

/// <https://html.spec.whatwg.org/multipage/common-microsyntaxes.html#best-representation-of-the-number-as-a-floating-point-number>
pub fn best_representation(n: f64) -> String {
    number_to_js_string(n)
}

fn is_leap_year(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

/// <https://html.spec.whatwg.org/multipage/common-microsyntaxes.html#number-of-days-in-month-month-of-year-year>
pub fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap_year(y) => 29,
        _ => 28,
    }
}

/// Days from 1970-01-01 to the given date (proleptic Gregorian).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (i64::from(m) + 9) % 12;
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day number from 1970-01-01.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Reads `n` or more ASCII digits at the start; returns the number and the rest.
fn digits(s: &str, at_least: usize, at_most: Option<usize>) -> Option<(i64, &str)> {
    let count = s.bytes().take_while(u8::is_ascii_digit).count();
    if count < at_least || at_most.is_some_and(|m| count > m) || count > 18 {
        return None;
    }
    Some((s[..count].parse().ok()?, &s[count..]))
}

/// <https://html.spec.whatwg.org/multipage/common-microsyntaxes.html#parse-a-month-component>
fn month_component(s: &str) -> Option<(i64, u32, &str)> {
    let (y, rest) = digits(s, 4, None)?;
    if y <= 0 {
        return None;
    }
    let rest = rest.strip_prefix('-')?;
    let (m, rest) = digits(rest, 2, Some(2))?;
    (1..=12).contains(&m).then_some((y, m as u32, rest))
}

/// <https://html.spec.whatwg.org/multipage/common-microsyntaxes.html#parse-a-date-component>
fn date_component(s: &str) -> Option<(i64, u32, u32, &str)> {
    let (y, m, rest) = month_component(s)?;
    let rest = rest.strip_prefix('-')?;
    let (d, rest) = digits(rest, 2, Some(2))?;
    (d >= 1 && d <= i64::from(days_in_month(y, m))).then_some((y, m, d as u32, rest))
}

/// <https://html.spec.whatwg.org/multipage/common-microsyntaxes.html#parse-a-time-component>:
/// milliseconds since midnight.
fn time_component(s: &str) -> Option<(f64, &str)> {
    let (h, rest) = digits(s, 2, Some(2))?;
    let rest = rest.strip_prefix(':')?;
    let (m, mut rest) = digits(rest, 2, Some(2))?;
    if h > 23 || m > 59 {
        return None;
    }
    let mut seconds = 0.0;
    if let Some(r) = rest.strip_prefix(':') {
        let (sec, r) = digits(r, 2, Some(2))?;
        if sec > 59 {
            return None;
        }
        seconds = sec as f64;
        rest = r;
        if let Some(r) = rest.strip_prefix('.') {
            let count = r.bytes().take_while(u8::is_ascii_digit).count();
            if !(1..=3).contains(&count) {
                return None;
            }
            let frac: f64 = format!("0.{}", &r[..count]).parse().ok()?;
            seconds += frac;
            rest = &r[count..];
        }
    }
    Some((((h * 60 + m) as f64) * 60_000.0 + seconds * 1000.0, rest))
}

/// <https://html.spec.whatwg.org/multipage/common-microsyntaxes.html#valid-date-string>,
/// as days from 1970-01-01.
pub fn parse_date(s: &str) -> Option<i64> {
    let (y, m, d, rest) = date_component(s)?;
    rest.is_empty().then(|| days_from_civil(y, m, d))
}

/// <https://html.spec.whatwg.org/multipage/common-microsyntaxes.html#valid-month-string>, as
/// months since 1970-01.
pub fn parse_month(s: &str) -> Option<i64> {
    let (y, m, rest) = month_component(s)?;
    rest.is_empty().then(|| (y - 1970) * 12 + i64::from(m) - 1)
}

/// <https://html.spec.whatwg.org/multipage/common-microsyntaxes.html#weeks>: the week-year
/// has 53 weeks when it starts on a Thursday, or on a Wednesday in a leap year.
fn weeks_in_year(y: i64) -> i64 {
    let jan1 = (days_from_civil(y, 1, 1) + 3).rem_euclid(7); // 0 = Monday
    if jan1 == 3 || (jan1 == 2 && is_leap_year(y)) {
        53
    } else {
        52
    }
}

/// The Monday of week 1 of week-year `y`, in days from 1970-01-01.
fn week_one_monday(y: i64) -> i64 {
    let jan4 = days_from_civil(y, 1, 4);
    jan4 - (jan4 + 3).rem_euclid(7)
}

/// <https://html.spec.whatwg.org/multipage/common-microsyntaxes.html#valid-week-string>, as
/// the day number of the week's Monday.
pub fn parse_week(s: &str) -> Option<i64> {
    let (y, rest) = digits(s, 4, None)?;
    if y <= 0 {
        return None;
    }
    let rest = rest.strip_prefix("-W")?;
    let (w, rest) = digits(rest, 2, Some(2))?;
    if !rest.is_empty() || w < 1 || w > weeks_in_year(y) {
        return None;
    }
    Some(week_one_monday(y) + (w - 1) * 7)
}

/// <https://html.spec.whatwg.org/multipage/common-microsyntaxes.html#valid-time-string>, as
/// milliseconds since midnight.
pub fn parse_time(s: &str) -> Option<f64> {
    let (t, rest) = time_component(s)?;
    rest.is_empty().then_some(t)
}

/// <https://html.spec.whatwg.org/multipage/common-microsyntaxes.html#valid-local-date-and-time-string>,
/// as milliseconds since 1970-01-01T00:00 (a `T` or a space between date and time).
pub fn parse_local_date_time(s: &str) -> Option<f64> {
    let (y, m, d, rest) = date_component(s)?;
    let rest = rest.strip_prefix('T').or_else(|| rest.strip_prefix(' '))?;
    let (t, rest) = time_component(rest)?;
    rest.is_empty()
        .then(|| days_from_civil(y, m, d) as f64 * 86_400_000.0 + t)
}

/// A valid date string for a day number.
pub fn format_date(days: i64) -> Option<String> {
    let (y, m, d) = civil_from_days(days);
    (y > 0).then(|| format!("{y:04}-{m:02}-{d:02}"))
}

/// A valid month string for months since 1970-01.
pub fn format_month(months: i64) -> Option<String> {
    let y = 1970 + months.div_euclid(12);
    let m = months.rem_euclid(12) + 1;
    (y > 0).then(|| format!("{y:04}-{m:02}"))
}

/// A valid week string for the day number of a Monday (or any day of that week).
pub fn format_week(days: i64) -> Option<String> {
    let monday = days - (days + 3).rem_euclid(7);
    let thursday = monday + 3;
    let (y, _, _) = civil_from_days(thursday);
    let w = (monday - week_one_monday(y)) / 7 + 1;
    (y > 0).then(|| format!("{y:04}-W{w:02}"))
}

/// <https://html.spec.whatwg.org/multipage/common-microsyntaxes.html#valid-normalised-time-string>-like:
/// the shortest valid time string for milliseconds since midnight (seconds left out when
/// zero, a fraction only when there is one).
pub fn format_time(ms: f64) -> String {
    let ms = ms.rem_euclid(86_400_000.0).round() as i64;
    let (h, m, s, frac) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
    match (s, frac) {
        (0, 0) => format!("{h:02}:{m:02}"),
        (_, 0) => format!("{h:02}:{m:02}:{s:02}"),
        _ => {
            let f = format!("{frac:03}");
            format!("{h:02}:{m:02}:{s:02}.{}", f.trim_end_matches('0'))
        }
    }
}

/// <https://html.spec.whatwg.org/multipage/common-microsyntaxes.html#valid-normalised-local-date-and-time-string>
pub fn format_local_date_time(ms: f64) -> Option<String> {
    let days = (ms / 86_400_000.0).floor() as i64;
    let time = ms - days as f64 * 86_400_000.0;
    Some(format!("{}T{}", format_date(days)?, format_time(time)))
}

/// <https://html.spec.whatwg.org/multipage/common-microsyntaxes.html#valid-simple-colour>
pub fn is_valid_simple_color(s: &str) -> bool {
    s.len() == 7 && s.starts_with('#') && s[1..].bytes().all(|b| b.is_ascii_hexdigit())
}

/// <https://html.spec.whatwg.org/multipage/input.html#valid-e-mail-address>: the
/// specification's grammar (its regular expression, written out).
pub fn is_valid_email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    let local_ok = !local.is_empty()
        && local
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || ".!#$%&'*+/=?^_`{|}~-".contains(c));
    let labels_ok = !domain.is_empty()
        && domain.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        });
    local_ok && labels_ok
}

/// <https://infra.spec.whatwg.org/#strip-newlines>
pub fn strip_newlines(s: &str) -> String {
    s.chars().filter(|c| *c != '\n' && *c != '\r').collect()
}

/// <https://infra.spec.whatwg.org/#strip-leading-and-trailing-ascii-whitespace>
pub fn strip_ascii_whitespace(s: &str) -> &str {
    s.trim_matches(|c: char| matches!(c, '\t' | '\n' | '\x0c' | '\r' | ' '))
}

/// <https://infra.spec.whatwg.org/#normalize-newlines>
pub fn normalize_newlines(s: &str) -> String {
    s.replace("\r\n", "\n").replace('\r', "\n")
}

/// <https://infra.spec.whatwg.org/#strip-and-collapse-ascii-whitespace>
pub fn strip_and_collapse_ascii_whitespace(s: &str) -> String {
    s.split(['\t', '\n', '\x0c', '\r', ' '])
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The length of a string as JavaScript counts it (UTF-16 code units).
pub fn js_length(s: &str) -> usize {
    crate::text::js_string::length(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floating_point_numbers() {
        for ok in ["0", "-1", "1.5", ".5", "1e3", "-1.5E-3"] {
            assert!(is_valid_floating_point_number(ok), "{ok}");
        }
        for bad in ["", "+1", "1.", "-", "1e", "abc", " 1", "1 "] {
            assert!(!is_valid_floating_point_number(bad), "{bad}");
        }
        assert_eq!(parse_floating_point_number(" 12abc"), Some(12.0));
        assert_eq!(parse_floating_point_number("+.5"), Some(0.5));
        assert_eq!(parse_floating_point_number("x"), None);
        assert_eq!(parse_floating_point_number("1e400"), None);
    }

    #[test]
    fn dates_weeks_and_times_round_trip() {
        let d = parse_date("2024-02-29").unwrap();
        assert_eq!(format_date(d).unwrap(), "2024-02-29");
        assert!(parse_date("2023-02-29").is_none());
        assert_eq!(parse_date("1970-01-01"), Some(0));
        assert_eq!(
            format_week(parse_week("2020-W53").unwrap()).unwrap(),
            "2020-W53"
        );
        assert!(parse_week("2021-W53").is_none());
        assert_eq!(parse_week("1970-W01"), Some(-3));
        assert_eq!(
            format_time(parse_time("09:05:00.500").unwrap()),
            "09:05:00.5"
        );
        assert_eq!(format_time(parse_time("09:05:00").unwrap()), "09:05");
        assert_eq!(
            format_local_date_time(parse_local_date_time("2020-01-02 03:04").unwrap()).unwrap(),
            "2020-01-02T03:04"
        );
        assert_eq!(
            format_month(parse_month("2001-12").unwrap()).unwrap(),
            "2001-12"
        );
    }

    #[test]
    fn email_addresses() {
        assert!(is_valid_email("a.b+c@example.com"));
        assert!(is_valid_email("x@localhost"));
        assert!(!is_valid_email("a@b@c"));
        assert!(!is_valid_email("a@-b.com"));
        assert!(!is_valid_email("@b.com"));
    }
}
