//! Resource quantities (`500m`, `2`, `128Mi`, `1G`), parsed as the apiserver does for
//! the cases the scheduler needs: CPU in millicores, memory in bytes.

/// Parses a CPU quantity into millicores (`250m` → 250, `2` → 2000, `0.5` → 500).
pub fn cpu_millis(q: &str) -> Option<u64> {
    let q = q.trim();
    if let Some(m) = q.strip_suffix('m') {
        return m.parse::<u64>().ok();
    }
    let v: f64 = q.parse().ok()?;
    if !(0.0..=1e9).contains(&v) {
        return None;
    }
    Some((v * 1000.0).ceil() as u64)
}

/// Parses a memory quantity into bytes (`128Mi`, `1Gi`, `500M`, `1e9`, `1024`).
pub fn bytes(q: &str) -> Option<u64> {
    let q = q.trim();
    const SUFFIXES: [(&str, f64); 13] = [
        ("Ki", 1024.0),
        ("Mi", 1048576.0),
        ("Gi", 1073741824.0),
        ("Ti", 1099511627776.0),
        ("Pi", 1125899906842624.0),
        ("Ei", 1152921504606846976.0),
        ("k", 1e3),
        ("M", 1e6),
        ("G", 1e9),
        ("T", 1e12),
        ("P", 1e15),
        ("E", 1e18),
        ("m", 1e-3),
    ];
    for (suffix, factor) in SUFFIXES {
        if let Some(n) = q.strip_suffix(suffix) {
            let v: f64 = n.parse().ok()?;
            return finite(v * factor);
        }
    }
    finite(q.parse::<f64>().ok()?)
}

fn finite(v: f64) -> Option<u64> {
    (v.is_finite() && (0.0..1.8e19).contains(&v)).then(|| v.ceil() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_cpu_and_memory() {
        assert_eq!(cpu_millis("250m"), Some(250));
        assert_eq!(cpu_millis("2"), Some(2000));
        assert_eq!(cpu_millis("0.5"), Some(500));
        assert_eq!(cpu_millis("abc"), None);
        assert_eq!(bytes("128Mi"), Some(128 * 1024 * 1024));
        assert_eq!(bytes("1G"), Some(1_000_000_000));
        assert_eq!(bytes("1e3"), Some(1000));
        assert_eq!(bytes("-1Mi"), None);
    }
}
