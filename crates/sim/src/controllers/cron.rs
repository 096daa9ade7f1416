//! CronJob schedules as the CronJob controller and the apiserver read them:
//! `cron.ParseStandard` of github.com/robfig/cron/v3 (five fields — minute, hour,
//! day of month, month, day of week — with `*`, `?`, ranges, steps, lists, month and
//! weekday names, the descriptors `@yearly`, `@annually`, `@monthly`, `@weekly`,
//! `@daily`, `@midnight`, `@hourly` and `@every DURATION`, and a leading `TZ=ZONE` or
//! `CRON_TZ=ZONE`), its error messages, and `SpecSchedule.Next` (the first second
//! after a time that matches, within five years), walked in the schedule's time zone
//! as robfig's loop walks it: a wall time skipped when clocks go forward does not
//! run that day, an hour repeated when they go back runs twice.
//!
//! Time zones are the IANA names of `cron_zones.rs`, each with the rule it follows
//! today (the simulated clock starts in the present); without a zone a schedule is in
//! UTC, the controller manager's local time.

use super::cron_zones::ZONES;
use crate::time::SimTime;
use k8s_openapi::jiff::{tz::TimeZone, Timestamp};

/// A parsed schedule: when it fires, in which time zone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    when: When,
    zone: Zone,
}

/// What a schedule's fields say.
#[derive(Clone, Debug, PartialEq, Eq)]
enum When {
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

/// A schedule's time zone: UTC, or a zone of the table with its current rule.
#[derive(Clone, Debug)]
pub struct Zone {
    name: &'static str,
    rule: Option<TimeZone>,
}

impl PartialEq for Zone {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for Zone {}

impl Zone {
    const UTC: Zone = Zone {
        name: "UTC",
        rule: None,
    };

    /// Go's `time.LoadLocation`: `""` and `"UTC"` are UTC, other names are looked
    /// up (case matters) in the time zone database.
    pub fn load(name: &str) -> Result<Zone, String> {
        if name.is_empty() || name == "UTC" {
            return Ok(Zone::UTC);
        }
        let unknown = || format!("unknown time zone {name}");
        let i = ZONES
            .binary_search_by(|(zone, _)| (*zone).cmp(name))
            .map_err(|_| unknown())?;
        let (zone, rule) = ZONES[i];
        let rule = TimeZone::posix(rule).map_err(|_| unknown())?;
        Ok(Zone {
            name: zone,
            rule: Some(rule),
        })
    }

    /// The zone's offset from UTC, in seconds, at Unix second `t`.
    fn offset(&self, t: i64) -> i64 {
        match (&self.rule, Timestamp::from_second(t)) {
            (Some(rule), Ok(at)) => i64::from(rule.to_offset(at).seconds()),
            _ => 0,
        }
    }

    /// The wall clock at Unix second `t`.
    fn wall(&self, t: i64) -> Wall {
        let local = t + self.offset(t);
        let (y, mo, d, h, mi, wd) = civil(local);
        Wall {
            y,
            mo,
            d,
            h,
            mi,
            s: local.rem_euclid(60) as u32,
            wd,
        }
    }

    /// Go's `time.Date` in this zone: the Unix second of a wall time, months and
    /// days past their end carried over; a wall time that does not exist or exists
    /// twice (clocks changing) is read with the offset Go picks.
    fn date(&self, y: i64, mo: i64, d: i64, h: i64, mi: i64, s: i64) -> i64 {
        let (y, mo) = (y + (mo - 1).div_euclid(12), (mo - 1).rem_euclid(12) + 1);
        let local = day_start((y, mo as u32, 1)) + (d - 1) * 86_400 + h * 3_600 + mi * 60 + s;
        let guess = local - self.offset(local);
        local - self.offset(guess)
    }
}

/// A wall clock reading: date, time and weekday (Sunday 0).
struct Wall {
    y: i64,
    mo: u32,
    d: u32,
    h: u32,
    mi: u32,
    s: u32,
    wd: u32,
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

/// `cron.ParseStandard`, with a leading `TZ=ZONE` or `CRON_TZ=ZONE` (the apiserver
/// refuses it in new CronJobs; `spec.timeZone` is the way to name a zone).
pub fn parse(spec: &str) -> Result<Schedule, String> {
    if spec.is_empty() {
        return Err("empty spec string".into());
    }
    let mut spec = spec.trim();
    let mut zone = Zone::UTC;
    if spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=") {
        let (tz, rest) = spec.split_once(' ').unwrap_or((spec, ""));
        let name = tz.split_once('=').map_or("", |(_, name)| name);
        zone = Zone::load(name).map_err(|e| format!("provided bad location {name}: {e}"))?;
        spec = rest.trim();
    }
    let when = if spec.starts_with('@') {
        descriptor(spec)?
    } else {
        let fields: Vec<&str> = spec.split_whitespace().collect();
        if fields.len() != 5 {
            return Err(format!(
                "expected exactly 5 fields, found {}: [{}]",
                fields.len(),
                fields.join(" ")
            ));
        }
        When::Spec {
            minute: field(fields[0], &MINUTES)?,
            hour: field(fields[1], &HOURS)?,
            dom: field(fields[2], &DOM)?,
            month: field(fields[3], &MONTHS)?,
            dow: field(fields[4], &DOW)?,
        }
    };
    Ok(Schedule { when, zone })
}

/// A CronJob's schedule as the controller reads it (`formatSchedule`): its
/// `spec.timeZone` becomes a `TZ=` prefix, unless the schedule names a zone itself
/// or the zone is unknown.
pub fn parse_for(schedule: &str, time_zone: Option<&str>) -> Result<Schedule, String> {
    match time_zone {
        Some(zone) if !schedule.contains("TZ") && Zone::load(zone).is_ok() => {
            parse(&format!("TZ={zone} {schedule}"))
        }
        _ => parse(schedule),
    }
}

fn descriptor(spec: &str) -> Result<When, String> {
    let all = |b: &Bounds| bits(b.min, b.max, 1) | STAR;
    let at = |v: u32| 1u64 << v;
    let spec_of = |minute, hour, dom, month, dow| When::Spec {
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
                When::Every((duration.as_millis() / 1000).max(1))
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
    /// such second comes within five years (`0 0 30 2 *`).
    pub fn next(&self, t: SimTime) -> Option<SimTime> {
        let secs = unix_seconds(t);
        let next = match self.when {
            When::Every(delay) => secs.checked_add(delay as i64)?,
            When::Spec {
                minute,
                hour,
                dom,
                month,
                dow,
            } => self.next_spec([minute, hour, dom, month, dow], secs)?,
        };
        let ms = next
            .checked_mul(1000)?
            .checked_sub(crate::time::EPOCH_UNIX_MS)?;
        u64::try_from(ms).ok().map(SimTime)
    }

    /// The time zone's name (`UTC` without one).
    pub fn zone(&self) -> &str {
        self.zone.name
    }

    /// robfig's `SpecSchedule.Next` loop, field by field from the month down, on
    /// Unix seconds read through the zone's wall clock. Seconds are always `0` in a
    /// standard schedule, so the seconds loop is one step to the next minute.
    fn next_spec(&self, [minute, hour, dom, month, dow]: [u64; 5], secs: i64) -> Option<i64> {
        let z = &self.zone;
        let on = |bits: u64, v: u32| bits & (1 << v) != 0;
        let day_matches = |w: &Wall| {
            let (dom_ok, dow_ok) = (on(dom, w.d), on(dow, w.wd));
            if dom & STAR != 0 || dow & STAR != 0 {
                dom_ok && dow_ok
            } else {
                dom_ok || dow_ok
            }
        };
        let mut t = secs + 1;
        let mut added = false;
        let year_limit = z.wall(t).y + 5;
        'wrap: loop {
            if z.wall(t).y > year_limit {
                return None;
            }
            while !on(month, z.wall(t).mo) {
                let w = z.wall(t);
                if !added {
                    added = true;
                    t = z.date(w.y, i64::from(w.mo), 1, 0, 0, 0);
                }
                let w = z.wall(t);
                t = z.date(
                    w.y,
                    i64::from(w.mo) + 1,
                    i64::from(w.d),
                    i64::from(w.h),
                    i64::from(w.mi),
                    i64::from(w.s),
                );
                if z.wall(t).mo == 1 {
                    continue 'wrap;
                }
            }
            while !day_matches(&z.wall(t)) {
                if !added {
                    added = true;
                    let w = z.wall(t);
                    t = z.date(w.y, i64::from(w.mo), i64::from(w.d), 0, 0, 0);
                }
                let w = z.wall(t);
                t = z.date(
                    w.y,
                    i64::from(w.mo),
                    i64::from(w.d) + 1,
                    i64::from(w.h),
                    i64::from(w.mi),
                    i64::from(w.s),
                );
                // Midnight moved by a clock change: back to the day's start.
                let h = i64::from(z.wall(t).h);
                if h > 12 {
                    t += (24 - h) * 3_600;
                } else {
                    t -= h * 3_600;
                }
                if z.wall(t).d == 1 {
                    continue 'wrap;
                }
            }
            while !on(hour, z.wall(t).h) {
                if !added {
                    added = true;
                    let w = z.wall(t);
                    t = z.date(w.y, i64::from(w.mo), i64::from(w.d), i64::from(w.h), 0, 0);
                }
                t += 3_600;
                if z.wall(t).h == 0 {
                    continue 'wrap;
                }
            }
            while !on(minute, z.wall(t).mi) {
                if !added {
                    added = true;
                    t -= t.rem_euclid(60);
                }
                t += 60;
                if z.wall(t).mi == 0 {
                    continue 'wrap;
                }
            }
            let s = z.wall(t).s;
            if s != 0 {
                // The seconds loop: one second at a time to the next minute.
                added = true;
                t += i64::from(60 - s);
                continue 'wrap;
            }
            return Some(t);
        }
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

    #[test]
    fn a_time_zone_moves_the_wall_clock() {
        let start = at(2026, 1, 1, 0, 5);
        // Moscow is UTC+3 all year: nine in the morning there is six in UTC.
        let moscow = parse_for("0 9 * * *", Some("Europe/Moscow")).unwrap();
        assert_eq!(moscow.zone(), "Europe/Moscow");
        assert_eq!(moscow.next(start), Some(at(2026, 1, 1, 6, 0)));
        // New York in winter is UTC-5, in summer (from 8 March 2026) UTC-4.
        let ny = parse("TZ=America/New_York 0 12 * * *").unwrap();
        assert_eq!(ny.next(start), Some(at(2026, 1, 1, 17, 0)));
        assert_eq!(ny.next(at(2026, 6, 1, 0, 0)), Some(at(2026, 6, 1, 16, 0)));
        // A schedule that names its own zone keeps it; an unknown timeZone is ignored.
        assert_eq!(
            parse_for("TZ=Asia/Tokyo 0 9 * * *", Some("Europe/Moscow"))
                .unwrap()
                .zone(),
            "Asia/Tokyo"
        );
        assert_eq!(
            parse_for("0 9 * * *", Some("Mars/Olympus")).unwrap().zone(),
            "UTC"
        );
    }

    #[test]
    fn clock_changes_skip_and_repeat_wall_times_as_robfig_does() {
        let ny = parse_for("30 2 * * *", Some("America/New_York")).unwrap();
        // 8 March 2026: 02:00 EST jumps to 03:00 EDT, so 02:30 never happens.
        assert_eq!(ny.next(at(2026, 3, 7, 12, 0)), Some(at(2026, 3, 9, 6, 30)));
        // 1 November 2026: 02:00 EDT falls back to 01:00 EST; 01:30 happens twice.
        let ny = parse_for("30 1 * * *", Some("America/New_York")).unwrap();
        let first = ny.next(at(2026, 11, 1, 0, 0)).unwrap();
        assert_eq!(first, at(2026, 11, 1, 5, 30));
        assert_eq!(ny.next(first), Some(at(2026, 11, 1, 6, 30)));
        assert_eq!(
            ny.next(at(2026, 11, 1, 6, 30)),
            Some(at(2026, 11, 2, 6, 30))
        );
    }

    #[test]
    fn zones_load_as_go_loads_them() {
        assert_eq!(Zone::load("UTC").unwrap().name, "UTC");
        assert_eq!(Zone::load("Etc/UTC").unwrap().name, "Etc/UTC");
        assert_eq!(
            Zone::load("AMERICA/new_york").unwrap_err(),
            "unknown time zone AMERICA/new_york"
        );
        assert_eq!(
            parse("TZ=Mars/Olympus 0 * * * *").unwrap_err(),
            "provided bad location Mars/Olympus: unknown time zone Mars/Olympus"
        );
        // Every rule of the table reads.
        for (name, _) in ZONES {
            assert!(Zone::load(name).is_ok(), "{name}");
        }
    }
}
