//! CronJob schedules as the CronJob controller and the apiserver read them:
//! `cron.ParseStandard` of github.com/robfig/cron/v3 (five fields — minute, hour,
//! day of month, month, day of week — with `*`, `?`, ranges, steps, lists, month and
//! weekday names, and the descriptors `@yearly`, `@annually`, `@monthly`, `@weekly`,
//! `@daily`, `@midnight`, `@hourly` and `@every DURATION`), its error messages, and
//! `SpecSchedule.Next` (the first whole minute after a time that matches, within
//! five years).
//!
//! Times are UTC: the simulated clock has no time zones.

use crate::time::SimTime;

/// A parsed schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// Five fields, each a bit set of the values it allows (bit 63: the field was
    /// `*` or `?`, which changes how day of month and day of week combine).
    Spec {
        minute: u64,
        hour: u64,
        dom: u64,
        month: u64,
        dow: u64,
    },
    /// `@every DURATION`: a constant delay, in whole seconds (at least one).
    Every(u64),
}

const STAR: u64 = 1 << 63;

struct Bounds {
    min: u32,
    max: u32,
    names: &'static [&'static str],
}

const MINUTES: Bounds = Bounds {
    min: 0,
    max: 59,
    names: &[],
};
const HOURS: Bounds = Bounds {
    min: 0,
    max: 23,
    names: &[],
};
const DOM: Bounds = Bounds {
    min: 1,
    max: 31,
    names: &[],
};
const MONTHS: Bounds = Bounds {
    min: 1,
    max: 12,
    names: &[
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ],
};
const DOW: Bounds = Bounds {
    min: 0,
    max: 6,
    names: &["sun", "mon", "tue", "wed", "thu", "fri", "sat"],
};

/// `cron.ParseStandard`. A leading `TZ=…` or `CRON_TZ=…` is read past (the
/// apiserver refuses it separately).
pub fn parse(spec: &str) -> Result<Schedule, String> {
    if spec.is_empty() {
        return Err("empty spec string".into());
    }
    let mut spec = spec.trim();
    if spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=") {
        spec = spec
            .split_once(' ')
            .map(|(_, rest)| rest.trim())
            .unwrap_or("");
    }
    if spec.starts_with('@') {
        return descriptor(spec);
    }
    let fields: Vec<&str> = spec.split_whitespace().collect();
    if fields.len() != 5 {
        return Err(format!(
            "expected exactly 5 fields, found {}: [{}]",
            fields.len(),
            fields.join(" ")
        ));
    }
    Ok(Schedule::Spec {
        minute: field(fields[0], &MINUTES)?,
        hour: field(fields[1], &HOURS)?,
        dom: field(fields[2], &DOM)?,
        month: field(fields[3], &MONTHS)?,
        dow: field(fields[4], &DOW)?,
    })
}

fn descriptor(spec: &str) -> Result<Schedule, String> {
    let all = |b: &Bounds| bits(b.min, b.max, 1) | STAR;
    let at = |v: u32| 1u64 << v;
    let spec_of = |minute, hour, dom, month, dow| Schedule::Spec {
        minute,
        hour,
        dom,
        month,
        dow,
    };
    Ok(match spec {
        "@yearly" | "@annually" => spec_of(at(0), at(0), at(1), at(1), all(&DOW)),
        "@monthly" => spec_of(at(0), at(0), at(1), all(&MONTHS), all(&DOW)),
        "@weekly" => spec_of(at(0), at(0), all(&DOM), all(&MONTHS), at(0)),
        "@daily" | "@midnight" => spec_of(at(0), at(0), all(&DOM), all(&MONTHS), all(&DOW)),
        "@hourly" => spec_of(at(0), all(&HOURS), all(&DOM), all(&MONTHS), all(&DOW)),
        _ => match spec.strip_prefix("@every ") {
            Some(d) => {
                // Go's time.ParseDuration wants a unit on every number.
                let duration = if !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()) {
                    Err(format!("time: missing unit in duration \"{d}\""))
                } else {
                    crate::time::parse_duration(d)
                }
                .map_err(|e| format!("failed to parse duration {spec}: {e}"))?;
                // A delay under a second is a second; the rest is dropped.
                Schedule::Every((duration.as_millis() / 1000).max(1))
            }
            None => return Err(format!("unrecognized descriptor: {spec}")),
        },
    })
}

/// The bits from `min` to `max`, every `step`.
fn bits(min: u32, max: u32, step: u32) -> u64 {
    (min..=max)
        .step_by(step.max(1) as usize)
        .fold(0, |b, v| b | 1 << v)
}

/// `getField`: a comma-separated list of ranges.
fn field(text: &str, b: &Bounds) -> Result<u64, String> {
    text.split(',')
        .try_fold(0u64, |acc, expr| Ok(acc | range(expr, b)?))
}

/// `getRange`: `*`, `?`, `N`, `N-M`, each optionally `/STEP` (`N/STEP` runs to the
/// field's maximum).
fn range(expr: &str, b: &Bounds) -> Result<u64, String> {
    let parts: Vec<&str> = expr.split('/').collect();
    let low_high: Vec<&str> = parts[0].split('-').collect();
    let single = low_high.len() == 1;
    let (start, mut end, mut star) = if low_high[0] == "*" || low_high[0] == "?" {
        (b.min, b.max, true)
    } else {
        let start = int_or_name(low_high[0], b.names)?;
        let end = match low_high.len() {
            1 => start,
            2 => int_or_name(low_high[1], b.names)?,
            _ => return Err(format!("too many hyphens: {expr}")),
        };
        (start, end, false)
    };
    let step = match parts.len() {
        1 => 1,
        2 => {
            let step = plain_int(parts[1])?;
            if single {
                end = b.max;
            }
            if step > 1 {
                star = false;
            }
            step
        }
        _ => return Err(format!("too many slashes: {expr}")),
    };
    if start < b.min {
        return Err(format!(
            "beginning of range ({start}) below minimum ({}): {expr}",
            b.min
        ));
    }
    if end > b.max {
        return Err(format!(
            "end of range ({end}) above maximum ({}): {expr}",
            b.max
        ));
    }
    if start > end {
        return Err(format!(
            "beginning of range ({start}) beyond end of range ({end}): {expr}"
        ));
    }
    if step == 0 {
        return Err(format!("step of range should be a positive number: {expr}"));
    }
    Ok(bits(start, end, step) | if star { STAR } else { 0 })
}

fn int_or_name(text: &str, names: &[&str]) -> Result<u32, String> {
    let lower = text.to_ascii_lowercase();
    match names.iter().position(|n| *n == lower) {
        // Months count from 1, weekdays from 0.
        Some(i) if names.len() == 12 => Ok(i as u32 + 1),
        Some(i) => Ok(i as u32),
        None => plain_int(text),
    }
}

/// `mustParseInt`: Go's `strconv.Atoi` and its error, and no negative numbers.
fn plain_int(text: &str) -> Result<u32, String> {
    let parsed: Result<i64, _> = text.parse();
    match parsed {
        Ok(n) if n < 0 => Err(format!("negative number ({n}) not allowed: {text}")),
        // Above a minute's, an hour's or a month's bound anyway: the range check
        // reports it.
        Ok(n) => Ok(u32::try_from(n).unwrap_or(u32::MAX).min(1000)),
        Err(_) => Err(format!(
            "failed to parse int from {text}: strconv.Atoi: parsing \"{text}\": invalid syntax"
        )),
    }
}

impl Schedule {
    /// `Next`: the first instant after `t` the schedule fires at, or `None` when no
    /// such minute comes within five years (`0 0 30 2 *`).
    pub fn next(&self, t: SimTime) -> Option<SimTime> {
        let secs = unix_seconds(t);
        let next = match *self {
            Schedule::Every(delay) => secs.checked_add(delay as i64)?,
            Schedule::Spec {
                minute,
                hour,
                dom,
                month,
                dow,
            } => {
                let matches = |bits: u64, v: u32| bits & (1 << v) != 0;
                let mut at = (secs.div_euclid(60) + 1) * 60;
                let limit = civil(at).0 + 5;
                loop {
                    let (y, mo, d, h, mi, wd) = civil(at);
                    if y > limit {
                        return None;
                    }
                    if !matches(month, mo) {
                        at = day_start(if mo == 12 {
                            (y + 1, 1, 1)
                        } else {
                            (y, mo + 1, 1)
                        });
                        continue;
                    }
                    let dom_ok = matches(dom, d);
                    let dow_ok = matches(dow, wd);
                    let day_ok = if dom & STAR != 0 || dow & STAR != 0 {
                        dom_ok && dow_ok
                    } else {
                        dom_ok || dow_ok
                    };
                    if !day_ok {
                        at = day_start((y, mo, d)) + 86_400;
                        continue;
                    }
                    if !matches(hour, h) {
                        at = at - i64::from(mi) * 60 + 3_600;
                        continue;
                    }
                    if !matches(minute, mi) {
                        at += 60;
                        continue;
                    }
                    break at;
                }
            }
        };
        let ms = next
            .checked_mul(1000)?
            .checked_sub(crate::time::EPOCH_UNIX_MS)?;
        u64::try_from(ms).ok().map(SimTime)
    }
}

fn unix_seconds(t: SimTime) -> i64 {
    (crate::time::EPOCH_UNIX_MS + t.0 as i64).div_euclid(1000)
}

/// Unix seconds → (year, month, day, hour, minute, weekday with Sunday 0), UTC.
fn civil(secs: i64) -> (i64, u32, u32, u32, u32, u32) {
    let days = secs.div_euclid(86_400);
    let rest = secs.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    // 1970-01-01 was a Thursday.
    let wd = (days + 4).rem_euclid(7) as u32;
    (
        y,
        m,
        d,
        (rest / 3_600) as u32,
        (rest % 3_600 / 60) as u32,
        wd,
    )
}

/// Unix seconds of a day's midnight, UTC (days_from_civil).
fn day_start((y, m, d): (i64, u32, u32)) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = i64::from(if m > 2 { m - 3 } else { m + 9 });
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    (era * 146_097 + doe - 719_468) * 86_400
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The simulated instant of a UTC wall time.
    fn at(y: i64, mo: u32, d: u32, h: i64, mi: i64) -> SimTime {
        let secs = day_start((y, mo, d)) + h * 3_600 + mi * 60;
        SimTime((secs * 1000 - crate::time::EPOCH_UNIX_MS) as u64)
    }

    fn next(spec: &str, from: SimTime) -> Option<SimTime> {
        parse(spec).unwrap().next(from)
    }

    #[test]
    fn civil_dates_round_trip() {
        for secs in [0i64, 951_782_400, 1_767_225_600, 4_102_444_800] {
            let (y, m, d, ..) = civil(secs);
            assert_eq!(day_start((y, m, d)), secs.div_euclid(86_400) * 86_400);
        }
        // 2026-01-01 is a Thursday.
        assert_eq!(civil(1_767_225_600), (2026, 1, 1, 0, 0, 4));
    }

    #[test]
    fn next_finds_the_first_matching_minute_after() {
        let start = at(2026, 1, 1, 0, 5);
        assert_eq!(next("*/15 * * * *", start), Some(at(2026, 1, 1, 0, 15)));
        assert_eq!(next("@hourly", start), Some(at(2026, 1, 1, 1, 0)));
        assert_eq!(next("30 9 * * mon-fri", start), Some(at(2026, 1, 1, 9, 30)));
        assert_eq!(next("0 0 1 */3 *", start), Some(at(2026, 4, 1, 0, 0)));
        assert_eq!(next("@weekly", start), Some(at(2026, 1, 4, 0, 0)));
        // A time on the minute is not its own next.
        assert_eq!(
            next("0 * * * *", at(2026, 1, 1, 3, 0)),
            Some(at(2026, 1, 1, 4, 0))
        );
        // Day of month or day of week when both are restricted.
        assert_eq!(next("0 0 13 * 5", start), Some(at(2026, 1, 2, 0, 0)));
        // Never within five years.
        assert_eq!(next("0 0 30 2 *", start), None);
        assert_eq!(
            parse("@every 90s").unwrap().next(start),
            Some(SimTime(start.0 + 90_000))
        );
    }

    #[test]
    fn errors_read_as_robfig_cron_writes_them() {
        let err = |s: &str| parse(s).unwrap_err();
        assert_eq!(err(""), "empty spec string");
        assert_eq!(err("* * *"), "expected exactly 5 fields, found 3: [* * *]");
        assert_eq!(
            err("x * * * *"),
            "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax"
        );
        assert_eq!(
            err("0-70 * * * *"),
            "end of range (70) above maximum (59): 0-70"
        );
        assert_eq!(
            err("5-3 * * * *"),
            "beginning of range (5) beyond end of range (3): 5-3"
        );
        assert_eq!(
            err("*/0 * * * *"),
            "step of range should be a positive number: */0"
        );
        assert_eq!(
            err("0 0 0 * *"),
            "beginning of range (0) below minimum (1): 0"
        );
        assert_eq!(err("@fortnightly"), "unrecognized descriptor: @fortnightly");
        assert_eq!(err("1/2/3 * * * *"), "too many slashes: 1/2/3");
    }
}
