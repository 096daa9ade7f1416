//! Resource quantities (`500m`, `2`, `128Mi`, `1G`, `1e3`), parsed and printed as
//! apimachinery's `resource.Quantity` does: exact arithmetic (here in nano-units), a
//! format remembered from the suffix, and the canonical form the apiserver writes back
//! (`1024Mi` → `1Gi`, `0.5` → `500m`, `1000` → `1k`).

use std::cmp::Ordering;
use std::fmt;

/// How a quantity prints: the family of its suffix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `m`, ``, `k`, `M`, `G`, ... (powers of 1000).
    DecimalSI,
    /// `Ki`, `Mi`, `Gi`, ... (powers of 1024).
    BinarySI,
    /// `e3`, `e6`, ...
    DecimalExponent,
}

/// An exact quantity in nano-units (10⁻⁹), with the format it prints in. Two
/// quantities are equal when their values are, whatever their formats (upstream
/// `Quantity.Cmp`).
#[derive(Clone, Copy, Debug)]
pub struct Quantity {
    nanos: i128,
    format: Format,
}

const NANO: i128 = 1_000_000_000;
/// The longest quantity string parsed; a bound that keeps the arithmetic in range.
const MAX_LEN: usize = 64;
/// The most significant digits kept; more would overflow the nano-unit arithmetic.
const MAX_DIGITS: usize = 27;

impl Quantity {
    /// Zero, printed as `0` (upstream's zero value is DecimalSI).
    pub const ZERO: Quantity = Quantity {
        nanos: 0,
        format: Format::DecimalSI,
    };

    /// `n` whole units in the given format (`from_units(1, DecimalSI)` is `1`).
    pub fn from_units(n: i64, format: Format) -> Quantity {
        Quantity {
            nanos: n as i128 * NANO,
            format,
        }
    }

    /// `milli` thousandths of a unit, printed in DecimalSI (`NewMilliQuantity`).
    pub fn from_milli(milli: i64) -> Quantity {
        Quantity {
            nanos: milli as i128 * (NANO / 1000),
            format: Format::DecimalSI,
        }
    }

    /// Parses a quantity as upstream's `ParseQuantity`: an optionally signed decimal
    /// number and a suffix. Precision finer than nano-units rounds up.
    pub fn parse(s: &str) -> Option<Quantity> {
        let s = s.trim();
        if s.is_empty() || s.len() > MAX_LEN {
            return None;
        }
        let b = s.as_bytes();
        let mut i = 0;
        let negative = match b[0] {
            b'-' => {
                i = 1;
                true
            }
            b'+' => {
                i = 1;
                false
            }
            _ => false,
        };
        let int_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let int_part = &s[int_start..i];
        let mut frac_part = "";
        if i < b.len() && b[i] == b'.' {
            i += 1;
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            frac_part = &s[start..i];
        }
        if int_part.is_empty() && frac_part.is_empty() {
            return None;
        }
        let (exp10, pow1024, format) = match &s[i..] {
            "" => (0, 0, Format::DecimalSI),
            "n" => (-9, 0, Format::DecimalSI),
            "u" => (-6, 0, Format::DecimalSI),
            "m" => (-3, 0, Format::DecimalSI),
            "k" => (3, 0, Format::DecimalSI),
            "M" => (6, 0, Format::DecimalSI),
            "G" => (9, 0, Format::DecimalSI),
            "T" => (12, 0, Format::DecimalSI),
            "P" => (15, 0, Format::DecimalSI),
            "E" => (18, 0, Format::DecimalSI),
            "Ki" => (0, 1, Format::BinarySI),
            "Mi" => (0, 2, Format::BinarySI),
            "Gi" => (0, 3, Format::BinarySI),
            "Ti" => (0, 4, Format::BinarySI),
            "Pi" => (0, 5, Format::BinarySI),
            "Ei" => (0, 6, Format::BinarySI),
            suffix => {
                let exp = suffix
                    .strip_prefix('e')
                    .or_else(|| suffix.strip_prefix('E'))?;
                let digits = exp.strip_prefix(['+', '-']).unwrap_or(exp);
                if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
                    return None;
                }
                let e: i32 = exp.parse().ok()?;
                if !(-30..=30).contains(&e) {
                    return None;
                }
                (e, 0, Format::DecimalExponent)
            }
        };
        let digits: String = format!("{int_part}{frac_part}")
            .trim_start_matches('0')
            .to_string();
        let mut scale = exp10 - frac_part.len() as i32 + 9;
        let mut digits = digits.as_str();
        // Digits beyond what nano-units can hold only round the value up.
        let mut round_up = false;
        if digits.len() > MAX_DIGITS {
            let (kept, dropped) = digits.split_at(MAX_DIGITS);
            round_up = dropped.bytes().any(|c| c != b'0');
            scale += dropped.len() as i32;
            digits = kept;
        }
        let mantissa: i128 = if digits.is_empty() {
            0
        } else {
            digits.parse().ok()?
        };
        let mut v = mantissa.checked_mul(1024i128.checked_pow(pow1024)?)?;
        if scale >= 0 {
            v = v.checked_mul(10i128.checked_pow(scale as u32)?)?;
        } else {
            v = match 10i128.checked_pow((-scale) as u32) {
                Some(d) => {
                    let exact = v % d == 0 && !round_up;
                    v / d + i128::from(!exact)
                }
                None => i128::from(v != 0 || round_up),
            };
        }
        Some(Quantity {
            nanos: if negative { -v } else { v },
            format,
        })
    }

    pub fn format(&self) -> Format {
        self.format
    }

    pub fn is_zero(&self) -> bool {
        self.nanos == 0
    }

    pub fn is_negative(&self) -> bool {
        self.nanos < 0
    }

    /// The value in thousandths, rounded up (upstream `MilliValue`).
    pub fn milli_value(&self) -> i128 {
        ceil_div(self.nanos, 1_000_000)
    }

    /// The value in whole units, rounded up (upstream `Value`).
    pub fn value(&self) -> i128 {
        ceil_div(self.nanos, NANO)
    }

    /// Adds `other`. The sum keeps this quantity's format unless this one is zero
    /// (upstream `Quantity.Add`).
    pub fn add(&mut self, other: Quantity) {
        if self.nanos == 0 {
            self.format = other.format;
        }
        self.nanos = self.nanos.saturating_add(other.nanos);
    }

    /// As a k8s-openapi quantity, in canonical form.
    pub fn to_k8s(&self) -> k8s_openapi::apimachinery::pkg::api::resource::Quantity {
        k8s_openapi::apimachinery::pkg::api::resource::Quantity(self.to_string())
    }
}

/// The canonical form of a quantity string, or `None` if it does not parse.
pub fn canonical(s: &str) -> Option<String> {
    Quantity::parse(s).map(|q| q.to_string())
}

fn ceil_div(n: i128, d: i128) -> i128 {
    let q = n.div_euclid(d);
    if n.rem_euclid(d) != 0 {
        q + 1
    } else {
        q
    }
}

impl PartialEq for Quantity {
    fn eq(&self, other: &Self) -> bool {
        self.nanos == other.nanos
    }
}

impl Eq for Quantity {}

impl PartialOrd for Quantity {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Quantity {
    fn cmp(&self, other: &Self) -> Ordering {
        self.nanos.cmp(&other.nanos)
    }
}

impl fmt::Display for Quantity {
    /// The canonical form (upstream `Quantity.String` / `CanonicalizeBytes`): the
    /// smallest integer mantissa with a suffix of the quantity's format; binary
    /// quantities below 1024 or with a fractional part print in decimal.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.nanos == 0 {
            return f.write_str("0");
        }
        let sign = if self.nanos < 0 { "-" } else { "" };
        let abs = self.nanos.unsigned_abs();
        let binary = self.format == Format::BinarySI
            && abs >= 1024 * NANO as u128
            && abs.is_multiple_of(NANO as u128);
        if binary {
            const SUFFIXES: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
            let mut units = abs / NANO as u128;
            let mut power = 0;
            while power < 6 && units.is_multiple_of(1024) {
                units /= 1024;
                power += 1;
            }
            return write!(f, "{sign}{units}{}", SUFFIXES[power]);
        }
        let mut mantissa = abs;
        let mut exponent: i32 = -9;
        while mantissa.is_multiple_of(10) {
            mantissa /= 10;
            exponent += 1;
        }
        // The exponent goes down to a multiple of three.
        let r = exponent.rem_euclid(3);
        mantissa *= 10u128.pow(r as u32);
        exponent -= r;
        if self.format == Format::DecimalExponent {
            return if exponent == 0 {
                write!(f, "{sign}{mantissa}")
            } else {
                write!(f, "{sign}{mantissa}e{exponent}")
            };
        }
        if exponent > 18 {
            mantissa *= 10u128.pow((exponent - 18) as u32);
            exponent = 18;
        }
        let suffix = match exponent {
            -9 => "n",
            -6 => "u",
            -3 => "m",
            0 => "",
            3 => "k",
            6 => "M",
            9 => "G",
            12 => "T",
            15 => "P",
            _ => "E",
        };
        write!(f, "{sign}{mantissa}{suffix}")
    }
}

/// Parses a CPU quantity into millicores, rounding up (`250m` → 250, `2` → 2000,
/// `0.5` → 500). Negative quantities are refused.
pub fn cpu_millis(q: &str) -> Option<u64> {
    let q = Quantity::parse(q)?;
    let m = q.milli_value();
    (0..=1_000_000_000_000).contains(&m).then_some(m as u64)
}

/// Parses a memory quantity into bytes, rounding up (`128Mi`, `1Gi`, `500M`, `1e9`,
/// `1024`). Negative quantities are refused.
pub fn bytes(q: &str) -> Option<u64> {
    let q = Quantity::parse(q)?;
    let v = q.value();
    (0..=u64::MAX as i128).contains(&v).then_some(v as u64)
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
        assert_eq!(bytes("500m"), Some(1));
    }

    fn canon(s: &str) -> String {
        canonical(s).unwrap_or_else(|| panic!("{s} does not parse"))
    }

    #[test]
    fn prints_the_canonical_form_as_apimachinery_does() {
        for (input, want) in [
            ("0", "0"),
            ("500m", "500m"),
            ("0.5", "500m"),
            ("1.5", "1500m"),
            ("2000m", "2"),
            ("1000", "1k"),
            ("1500000", "1500k"),
            ("1024Mi", "1Gi"),
            ("1536Mi", "1536Mi"),
            ("0.5Gi", "512Mi"),
            ("1.5Gi", "1536Mi"),
            ("600Mi", "600Mi"),
            ("512", "512"),
            ("1Ki", "1Ki"),
            ("1023Ki", "1023Ki"),
            ("0.5Ki", "512"),
            ("1e3", "1e3"),
            ("1E6", "1e6"),
            ("100u", "100u"),
            ("1n", "1n"),
            ("0.1n", "1n"),
            ("-500m", "-500m"),
            ("+2", "2"),
            ("1E", "1E"),
            (".5", "500m"),
            ("5.", "5"),
        ] {
            assert_eq!(canon(input), want, "{input}");
        }
        for bad in ["", "Mi", "1Zi", "1.2.3", "1e", "e3", "--1", "1 Mi"] {
            assert_eq!(canonical(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn sums_keep_the_format_of_the_first_non_zero_term() {
        let mut used = Quantity::ZERO;
        used.add(Quantity::parse("600Mi").unwrap());
        used.add(Quantity::parse("700Mi").unwrap());
        assert_eq!(used.to_string(), "1300Mi");
        let mut cpu = Quantity::parse("500m").unwrap();
        cpu.add(Quantity::parse("1").unwrap());
        assert_eq!(cpu.to_string(), "1500m");
        assert!(Quantity::parse("1Gi").unwrap() > Quantity::parse("1000Mi").unwrap());
        assert_eq!(
            Quantity::parse("1Gi").unwrap(),
            Quantity::parse("1024Mi").unwrap()
        );
    }
}
