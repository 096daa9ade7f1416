//! kubectl's tables: rows of cells aligned as Go's `text/tabwriter` aligns them with
//! kubectl's settings (`printers.GetNewTabWriter`: minwidth 6, padding 3, pad with
//! spaces). Every column but the last is padded to the widest cell plus three
//! spaces (at least six characters); the last column is not padded.

/// Minimum width of a padded column (`tabwriterMinWidth`).
pub const MIN_WIDTH: usize = 6;
/// Spaces after the widest cell of a column (`tabwriterPadding`).
pub const PADDING: usize = 3;

/// Formats rows; each row must have the same number of cells (shorter rows are
/// allowed and simply end early).
pub fn format(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0usize; columns];
    for row in rows {
        // The last cell of a row is not tab-terminated, so it takes no part in the
        // column widths.
        for (i, cell) in row.iter().enumerate().take(row.len().saturating_sub(1)) {
            widths[i] = widths[i].max(cell.chars().count() + PADDING);
        }
    }
    for w in widths.iter_mut() {
        *w = (*w).max(MIN_WIDTH);
    }
    render(rows, &widths)
}

/// Lays rows out with the given column widths: every cell but a row's last is
/// padded with spaces to its column's width. `widths` must cover every column
/// that is not the last of its row.
pub(crate) fn render(rows: &[Vec<String>], widths: &[usize]) -> String {
    let mut out = String::new();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            out.push_str(cell);
            if i + 1 < row.len() {
                let pad = widths[i].saturating_sub(cell.chars().count());
                out.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::format;

    fn row(cells: &[&str]) -> Vec<String> {
        cells.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn pads_columns_to_widest_cell_plus_three_and_leaves_last_column_unpadded() {
        let out = format(&[
            row(&["NAME", "READY", "STATUS", "RESTARTS", "AGE"]),
            row(&["web-66b6c48dd5-x2x7q", "1/1", "Running", "0", "30s"]),
        ]);
        assert_eq!(
            out,
            "NAME                   READY   STATUS    RESTARTS   AGE\n\
             web-66b6c48dd5-x2x7q   1/1     Running   0          30s\n"
        );
    }

    #[test]
    fn narrow_columns_take_the_minimum_width_of_six() {
        let out = format(&[row(&["A", "B"]), row(&["cc", "d"])]);
        assert_eq!(out, "A     B\ncc    d\n");
    }

    #[test]
    fn counts_characters_not_bytes() {
        let out = format(&[row(&["ä", "x"]), row(&["abcdef", "y"])]);
        assert_eq!(out, "ä        x\nabcdef   y\n");
    }

    #[test]
    fn empty_table_prints_nothing() {
        assert_eq!(format(&[]), "");
    }
}
