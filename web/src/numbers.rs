//! Numbers and sizes as each language writes them: English `3,399 B` and `14.2 KB`,
//! Russian `3 399 Б` and `14,2 КБ` (a decimal comma, a no-break space before the
//! unit, a narrow no-break space between thousands), and Russian plural forms.

use crate::i18n::Lang;

/// The no-break space between a number and its unit.
pub const NBSP: char = '\u{a0}';
/// The narrow no-break space between groups of thousands in Russian.
pub const THOUSANDS_RU: char = '\u{202f}';

/// Picks the Russian plural form for `n`: 1 робот, 2 робота, 5 роботов, 11 роботов,
/// 21 робот, 104 робота.
pub fn ru_plural<'a>(n: u64, one: &'a str, few: &'a str, many: &'a str) -> &'a str {
    let (tens, units) = (n % 100, n % 10);
    if (11..=14).contains(&tens) {
        many
    } else if units == 1 {
        one
    } else if (2..=4).contains(&units) {
        few
    } else {
        many
    }
}

/// `n` and the word for it in the right form: `ru_count(3, "строка", "строки",
/// "строк")` is `3 строки`.
pub fn ru_count(n: u64, one: &str, few: &str, many: &str) -> String {
    format!("{}{NBSP}{}", int(Lang::Ru, n), ru_plural(n, one, few, many))
}

/// A whole number with its thousands grouped: `10,000` / `10 000`.
pub fn int(lang: Lang, n: u64) -> String {
    let digits = n.to_string();
    let sep = match lang {
        Lang::En => ',',
        Lang::Ru => THOUSANDS_RU,
    };
    // Russian leaves a four-digit number whole (`2000`), English does not (`2,000`).
    if lang == Lang::Ru && digits.len() <= 4 {
        return digits;
    }
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(sep);
        }
        out.push(c);
    }
    out
}

/// A number with one decimal: `14.2` / `14,2`.
pub fn one_decimal(lang: Lang, x: f64) -> String {
    let s = format!("{x:.1}");
    match lang {
        Lang::En => s,
        Lang::Ru => s.replace('.', ","),
    }
}

/// A number with three decimals (seconds to the millisecond): `52.067` / `52,067`.
pub fn three_decimals(lang: Lang, x: f64) -> String {
    let s = format!("{x:.3}");
    match lang {
        Lang::En => s,
        Lang::Ru => s.replace('.', ","),
    }
}

/// An exact byte count: `3,399 B` / `3399 Б` (what `sim stats` counts, grouped).
pub fn bytes_exact(lang: Lang, b: u64) -> String {
    let unit = match lang {
        Lang::En => "B",
        Lang::Ru => "Б",
    };
    format!("{}{NBSP}{unit}", int(lang, b))
}

/// A size for people (decimal units, as `human_bytes` always did): `812 B`, `14.2 KB`,
/// `3.1 MB`; `812 Б`, `14,2 КБ`, `3,1 МБ`.
pub fn bytes(lang: Lang, b: u64) -> String {
    let (kb, mb) = match lang {
        Lang::En => ("KB", "MB"),
        Lang::Ru => ("КБ", "МБ"),
    };
    match b {
        0..=999 => bytes_exact(lang, b),
        1_000..=999_949 => format!("{}{NBSP}{kb}", one_decimal(lang, b as f64 / 1e3)),
        _ => format!("{}{NBSP}{mb}", one_decimal(lang, b as f64 / 1e6)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn russian_plural_has_one_few_and_many() {
        let robots = |n| ru_plural(n, "робот", "робота", "роботов");
        assert_eq!(robots(1), "робот");
        assert_eq!(robots(2), "робота");
        assert_eq!(robots(4), "робота");
        assert_eq!(robots(5), "роботов");
        assert_eq!(robots(0), "роботов");
        assert_eq!(robots(11), "роботов");
        assert_eq!(robots(12), "роботов");
        assert_eq!(robots(14), "роботов");
        assert_eq!(robots(21), "робот");
        assert_eq!(robots(22), "робота");
        assert_eq!(robots(111), "роботов");
        assert_eq!(robots(101), "робот");
        assert_eq!(ru_count(3, "строка", "строки", "строк"), "3\u{a0}строки");
        assert_eq!(ru_count(5, "строка", "строки", "строк"), "5\u{a0}строк");
    }

    #[test]
    fn numbers_are_grouped_per_language() {
        assert_eq!(int(Lang::En, 999), "999");
        assert_eq!(int(Lang::En, 3_399), "3,399");
        assert_eq!(int(Lang::En, 10_000), "10,000");
        assert_eq!(int(Lang::En, 1_234_567), "1,234,567");
        assert_eq!(int(Lang::Ru, 3_399), "3399");
        assert_eq!(int(Lang::Ru, 10_000), "10\u{202f}000");
        assert_eq!(int(Lang::Ru, 1_234_567), "1\u{202f}234\u{202f}567");
        assert_eq!(three_decimals(Lang::Ru, 52.067), "52,067");
        assert_eq!(three_decimals(Lang::En, 300.0), "300.000");
    }

    #[test]
    fn sizes_read_as_each_language_writes_them() {
        assert_eq!(bytes(Lang::En, 812), "812\u{a0}B");
        assert_eq!(bytes(Lang::En, 14_200), "14.2\u{a0}KB");
        assert_eq!(bytes(Lang::En, 3_100_000), "3.1\u{a0}MB");
        assert_eq!(bytes(Lang::Ru, 20_700), "20,7\u{a0}КБ");
        assert_eq!(bytes(Lang::Ru, 3_100_000), "3,1\u{a0}МБ");
        assert_eq!(bytes(Lang::Ru, 999_960), "1,0\u{a0}МБ");
        assert_eq!(bytes_exact(Lang::En, 3_399), "3,399\u{a0}B");
        assert_eq!(bytes_exact(Lang::Ru, 13_399), "13\u{202f}399\u{a0}Б");
    }
}
