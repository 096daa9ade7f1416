//! The AGE column: apimachinery's `duration.HumanDuration`, digit for digit.

use k8s_openapi::jiff::Timestamp;
use warehouse_sim::time::EPOCH_UNIX_MS;
use warehouse_sim::SimTime;

/// `duration.HumanDuration` (k8s.io/apimachinery/pkg/util/duration) for a duration
/// in milliseconds: `119s`, `3m2s`, `179m`, `5h12m`, `30h`, `2d3h`, `12d`, `2y3d`.
/// Durations down to two seconds in the future count as now (`0s`); earlier than
/// that, `<invalid>`.
pub fn human_duration(ms: i64) -> String {
    // Go's int(d.Seconds()) truncates toward zero, as Rust's integer division does.
    let seconds = ms / 1000;
    if seconds < -1 {
        return "<invalid>".into();
    } else if seconds < 0 {
        return "0s".into();
    } else if seconds < 60 * 2 {
        return format!("{seconds}s");
    }
    let minutes = ms / 60_000;
    if minutes < 10 {
        let s = seconds % 60;
        if s == 0 {
            return format!("{minutes}m");
        }
        return format!("{minutes}m{s}s");
    } else if minutes < 60 * 3 {
        return format!("{minutes}m");
    }
    let hours = ms / 3_600_000;
    if hours < 8 {
        let m = minutes % 60;
        if m == 0 {
            return format!("{hours}h");
        }
        format!("{hours}h{m}m")
    } else if hours < 48 {
        format!("{hours}h")
    } else if hours < 24 * 8 {
        let h = hours % 24;
        if h == 0 {
            return format!("{}d", hours / 24);
        }
        format!("{}d{}h", hours / 24, h)
    } else if hours < 24 * 365 * 2 {
        format!("{}d", hours / 24)
    } else if hours < 24 * 365 * 8 {
        let dy = (hours / 24) % 365;
        if dy == 0 {
            return format!("{}y", hours / 24 / 365);
        }
        format!("{}y{}d", hours / 24 / 365, dy)
    } else {
        format!("{}y", hours / 24 / 365)
    }
}

/// Milliseconds from `t` to the cluster's `now` (negative if `t` is later).
pub fn millis_since(now: SimTime, t: &Timestamp) -> i64 {
    (EPOCH_UNIX_MS + now.0 as i64) - t.as_millisecond()
}

/// kubectl's `translateTimestampSince`: the age of a timestamp, or `<unknown>`.
pub fn age(now: SimTime, t: Option<&Timestamp>) -> String {
    match t {
        Some(t) => human_duration(millis_since(now, t)),
        None => "<unknown>".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::human_duration;

    const S: i64 = 1000;
    const M: i64 = 60 * S;
    const H: i64 = 60 * M;
    const D: i64 = 24 * H;

    #[test]
    fn seconds_up_to_two_minutes() {
        assert_eq!(human_duration(0), "0s");
        assert_eq!(human_duration(999), "0s");
        assert_eq!(human_duration(59 * S), "59s");
        assert_eq!(human_duration(119 * S + 999), "119s");
        assert_eq!(human_duration(120 * S), "2m");
    }

    #[test]
    fn small_clock_skew_counts_as_now_and_larger_is_invalid() {
        assert_eq!(human_duration(-1500), "0s");
        assert_eq!(human_duration(-1999), "0s");
        assert_eq!(human_duration(-2000), "<invalid>");
    }

    #[test]
    fn minutes_and_seconds_below_ten_minutes() {
        assert_eq!(human_duration(3 * M + 2 * S), "3m2s");
        assert_eq!(human_duration(9 * M + 59 * S), "9m59s");
        assert_eq!(human_duration(5 * M), "5m");
        assert_eq!(human_duration(10 * M), "10m");
        assert_eq!(human_duration(10 * M + 30 * S), "10m");
    }

    #[test]
    fn minutes_below_three_hours() {
        assert_eq!(human_duration(179 * M + 59 * S), "179m");
        assert_eq!(human_duration(3 * H), "3h");
    }

    #[test]
    fn hours_and_minutes_below_eight_hours() {
        assert_eq!(human_duration(5 * H + 12 * M), "5h12m");
        assert_eq!(human_duration(7 * H + 59 * M), "7h59m");
        assert_eq!(human_duration(8 * H), "8h");
    }

    #[test]
    fn hours_below_two_days() {
        assert_eq!(human_duration(30 * H), "30h");
        assert_eq!(human_duration(47 * H + 59 * M), "47h");
        assert_eq!(human_duration(48 * H), "2d");
    }

    #[test]
    fn days_and_hours_below_eight_days() {
        assert_eq!(human_duration(2 * D + 3 * H), "2d3h");
        assert_eq!(human_duration(7 * D + 23 * H), "7d23h");
        assert_eq!(human_duration(8 * D), "8d");
        assert_eq!(human_duration(8 * D + 5 * H), "8d");
    }

    #[test]
    fn days_then_years() {
        assert_eq!(human_duration(729 * D), "729d");
        assert_eq!(human_duration(730 * D), "2y");
        assert_eq!(human_duration(733 * D), "2y3d");
        assert_eq!(human_duration(8 * 365 * D - D), "7y364d");
        assert_eq!(human_duration(8 * 365 * D), "8y");
        assert_eq!(human_duration(20 * 365 * D + 100 * D), "20y");
    }
}
