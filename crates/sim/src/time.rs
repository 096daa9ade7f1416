//! Simulated time. The simulation never reads a wall clock: time only moves when the
//! caller says `advance`.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// Milliseconds since the simulated cluster started.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct SimTime(pub u64);

/// A span of simulated time, in milliseconds.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct SimDuration(pub u64);

/// The wall-clock instant the simulated cluster starts at. Fixed, so that every
/// timestamp in a transcript is the same on every run.
pub const EPOCH_UNIX_MS: i64 = 1_767_225_600_000; // 2026-01-01T00:00:00Z

/// The latest instant a Kubernetes timestamp can hold here, in Unix seconds:
/// 9999-12-30T22:00:00Z, the end of the range of the timestamp type (jiff's
/// `Timestamp::MAX`; Go's RFC 3339 encoding also stops at the year 9999).
const LATEST_UNIX_SECOND: i64 = 253_402_207_200;

impl SimDuration {
    pub const ZERO: SimDuration = SimDuration(0);
    /// The longest span: saturating arithmetic stops here.
    pub const MAX: SimDuration = SimDuration(u64::MAX);

    pub const fn millis(ms: u64) -> Self {
        SimDuration(ms)
    }
    /// `s` seconds, saturating at [`SimDuration::MAX`].
    pub const fn secs(s: u64) -> Self {
        SimDuration(s.saturating_mul(1000))
    }
    /// A number of seconds a user wrote (a grace period, a deadline, a toleration):
    /// negative counts as zero, as the controllers read it, and a huge one saturates
    /// instead of overflowing.
    pub const fn from_secs_i64(s: i64) -> Self {
        if s <= 0 {
            SimDuration::ZERO
        } else {
            SimDuration::secs(s as u64)
        }
    }
    pub fn as_millis(self) -> u64 {
        self.0
    }
    pub fn as_secs(self) -> u64 {
        self.0 / 1000
    }
}

impl std::ops::Add for SimDuration {
    type Output = SimDuration;
    fn add(self, rhs: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_add(rhs.0))
    }
}

/// An instant plus a span, saturating at [`SimTime::MAX`]: a deadline a user's
/// number puts past the year 9999 stays there, the far future.
impl std::ops::Add<SimDuration> for SimTime {
    type Output = SimTime;
    fn add(self, rhs: SimDuration) -> SimTime {
        SimTime(self.0.saturating_add(rhs.0).min(SimTime::MAX.0))
    }
}

/// An instant minus a span, saturating at the cluster's start.
impl std::ops::Sub<SimDuration> for SimTime {
    type Output = SimTime;
    fn sub(self, rhs: SimDuration) -> SimTime {
        SimTime(self.0.saturating_sub(rhs.0))
    }
}

impl SimTime {
    /// The latest simulated instant: the last one a Kubernetes timestamp can hold
    /// (9999-12-30T22:00:00Z). Time arithmetic saturates here, so every instant the
    /// simulation computes can be written as a timestamp.
    pub const MAX: SimTime = SimTime((LATEST_UNIX_SECOND * 1000 - EPOCH_UNIX_MS) as u64);

    /// Time elapsed since `earlier` (zero if `earlier` is later).
    pub fn since(self, earlier: SimTime) -> SimDuration {
        SimDuration(self.0.saturating_sub(earlier.0))
    }

    /// This instant as a Kubernetes timestamp (RFC 3339, whole seconds when printed).
    /// Instants past [`SimTime::MAX`] print as that latest timestamp.
    pub fn to_k8s(self) -> Time {
        let ms = EPOCH_UNIX_MS + self.0.min(SimTime::MAX.0) as i64;
        // Kubernetes metav1.Time serialises with second precision; keep the
        // milliseconds out so `-o yaml` prints what a real cluster prints.
        let secs = ms.div_euclid(1000);
        Time(Timestamp::from_second(secs).unwrap_or(Timestamp::MAX))
    }

    /// The simulated instant of a Kubernetes timestamp (zero for times before the start).
    pub fn from_k8s(t: &Time) -> SimTime {
        let ms = t.0.as_millisecond() - EPOCH_UNIX_MS;
        SimTime(ms.max(0) as u64)
    }
}

/// The longest span one `parse_duration` accepts: 30 days. A limit keeps a typo such as
/// `sim advance 99999999h` from freezing a browser tab.
pub const MAX_DURATION: SimDuration = SimDuration(30 * 24 * 3600 * 1000);

/// Parses a Go-style duration as kubectl and scripts write it: `90s`, `5m`, `1h30m`,
/// `250ms`, `2.5s`. A bare number means seconds.
pub fn parse_duration(text: &str) -> Result<SimDuration, String> {
    let s = text.trim();
    if s.is_empty() {
        return Err("empty duration".into());
    }
    if let Ok(n) = s.parse::<u64>() {
        return check_limit(n.checked_mul(1000), text);
    }
    let bytes = s.as_bytes();
    let mut i = 0;
    let mut total: f64 = 0.0;
    while i < bytes.len() {
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
            i += 1;
        }
        if start == i {
            return Err(format!("invalid duration {text:?}"));
        }
        let number: f64 = s[start..i]
            .parse()
            .map_err(|_| format!("invalid duration {text:?}"))?;
        let unit_start = i;
        while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
            i += 1;
        }
        let factor = match &s[unit_start..i] {
            "ms" => 1.0,
            "s" => 1000.0,
            "m" => 60_000.0,
            "h" => 3_600_000.0,
            "" => return Err(format!("missing unit in duration {text:?}")),
            other => return Err(format!("unknown unit {other:?} in duration {text:?}")),
        };
        total += number * factor;
        if total > MAX_DURATION.0 as f64 {
            return Err(format!(
                "duration {text:?} is longer than the limit of 720h"
            ));
        }
    }
    Ok(SimDuration(total.round() as u64))
}

fn check_limit(ms: Option<u64>, text: &str) -> Result<SimDuration, String> {
    match ms {
        Some(ms) if ms <= MAX_DURATION.0 => Ok(SimDuration(ms)),
        _ => Err(format!(
            "duration {text:?} is longer than the limit of 720h"
        )),
    }
}

/// Formats a duration as Go's `time.Duration.String` does: `650ms`, `3.25s`,
/// `1m5.5s`, `2h0m0s`.
pub fn go_duration(d: SimDuration) -> String {
    let ms = d.0;
    if ms == 0 {
        return "0s".into();
    }
    if ms < 1000 {
        return format!("{ms}ms");
    }
    let h = ms / 3_600_000;
    let m = ms % 3_600_000 / 60_000;
    let s_ms = ms % 60_000;
    let mut secs = format!("{}.{:03}", s_ms / 1000, s_ms % 1000);
    while secs.ends_with('0') {
        secs.pop();
    }
    if secs.ends_with('.') {
        secs.pop();
    }
    match (h, m) {
        (0, 0) => format!("{secs}s"),
        (0, m) => format!("{m}m{secs}s"),
        (h, m) => format!("{h}h{m}m{secs}s"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn go_durations_print_like_go() {
        assert_eq!(go_duration(SimDuration(650)), "650ms");
        assert_eq!(go_duration(SimDuration(3250)), "3.25s");
        assert_eq!(go_duration(SimDuration(3000)), "3s");
        assert_eq!(go_duration(SimDuration(65_500)), "1m5.5s");
        assert_eq!(go_duration(SimDuration(7_200_000)), "2h0m0s");
    }

    use super::*;

    #[test]
    fn parses_go_style_durations() {
        assert_eq!(parse_duration("90s"), Ok(SimDuration(90_000)));
        assert_eq!(parse_duration("5m"), Ok(SimDuration(300_000)));
        assert_eq!(parse_duration("1h30m"), Ok(SimDuration(5_400_000)));
        assert_eq!(parse_duration("250ms"), Ok(SimDuration(250)));
        assert_eq!(parse_duration("2.5s"), Ok(SimDuration(2_500)));
        assert_eq!(parse_duration("10"), Ok(SimDuration(10_000)));
    }

    #[test]
    fn rejects_bad_or_huge_durations() {
        assert!(parse_duration("").is_err());
        assert!(parse_duration("5x").is_err());
        assert!(parse_duration("m").is_err());
        assert!(parse_duration("100000h").is_err());
        assert!(parse_duration("99999999999999999999").is_err());
    }

    #[test]
    fn time_arithmetic_saturates_instead_of_overflowing() {
        assert_eq!(SimDuration::secs(u64::MAX), SimDuration::MAX);
        assert_eq!(SimDuration::from_secs_i64(-5), SimDuration::ZERO);
        assert_eq!(SimDuration::from_secs_i64(90), SimDuration(90_000));
        assert_eq!(SimDuration::from_secs_i64(i64::MAX), SimDuration::MAX);
        assert_eq!(SimTime(5) + SimDuration::MAX, SimTime::MAX);
        assert_eq!(SimTime::MAX + SimDuration(1), SimTime::MAX);
        assert_eq!(SimTime(5) - SimDuration(10), SimTime(0));
        assert_eq!(SimDuration(u64::MAX) + SimDuration(1), SimDuration::MAX);
    }

    #[test]
    fn the_latest_instant_is_the_latest_timestamp() {
        assert_eq!(Timestamp::MAX.as_second(), LATEST_UNIX_SECOND);
        for t in [SimTime::MAX, SimTime(u64::MAX)] {
            assert_eq!(
                serde_json::to_string(&t.to_k8s()).unwrap(),
                "\"9999-12-30T22:00:00Z\""
            );
        }
        assert_eq!(SimTime::from_k8s(&SimTime::MAX.to_k8s()), SimTime::MAX);
        // A grace period of 10^12 seconds from the start lands past the year 9999.
        let deadline = SimTime(0) + SimDuration::from_secs_i64(1_000_000_000_000);
        assert_eq!(deadline, SimTime::MAX);
    }

    #[test]
    fn timestamps_round_trip_at_second_precision() {
        let t = SimTime(61_000);
        assert_eq!(SimTime::from_k8s(&t.to_k8s()), t);
        assert_eq!(
            serde_json::to_string(&t.to_k8s()).unwrap(),
            "\"2026-01-01T00:01:01Z\""
        );
    }
}
