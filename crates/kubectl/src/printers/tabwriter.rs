//! Go's `text/tabwriter`, as `kubectl describe` configures it (`tabbedString`: minwidth
//! 0, padding 2, pad with spaces, no flags).
//!
//! Text is cells separated by tabs; a column block is a run of consecutive lines that
//! all have a tab-terminated cell in that column, and every cell of a block is padded
//! to the block's widest cell plus the padding. The last cell of a line (after its
//! last tab) takes no part in alignment. Unlike [`crate::printers::table`], which lays out
//! uniform tables, this handles the ragged text `describe` writes: labels with
//! continuation lines, nested sections, lines without tabs that break the blocks.

/// Aligns `text` as a tabwriter with the given minimum cell width and padding would.
pub fn align(text: &str, min_width: usize, padding: usize) -> String {
    let mut lines: Vec<Vec<&str>> = text.split('\n').map(|l| l.split('\t').collect()).collect();
    // `split` yields a last empty line after a final newline: it is not a line.
    let ends_with_newline = text.ends_with('\n');
    if ends_with_newline {
        lines.pop();
    }
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    let mut widths: Vec<usize> = Vec::new();
    format(
        &lines,
        0,
        lines.len(),
        &mut widths,
        min_width,
        padding,
        &mut out,
    );
    if !ends_with_newline && out.ends_with('\n') {
        out.pop();
    }
    out
}

fn width(cell: &str) -> usize {
    cell.chars().count()
}

/// The recursive column-block layout of Go's `(*Writer).format`.
fn format(
    lines: &[Vec<&str>],
    mut line0: usize,
    line1: usize,
    widths: &mut Vec<usize>,
    min_width: usize,
    padding: usize,
    out: &mut String,
) {
    let column = widths.len();
    let mut this = line0;
    while this < line1 {
        if column + 1 >= lines[this].len() {
            this += 1;
            continue;
        }
        // A cell in this column: print the lines before the block, then find the block.
        write_lines(lines, line0, this, widths, out);
        line0 = this;
        let mut w = min_width;
        while this < line1 && column + 1 < lines[this].len() {
            w = w.max(width(lines[this][column]) + padding);
            this += 1;
        }
        widths.push(w);
        format(lines, line0, this, widths, min_width, padding, out);
        widths.pop();
        line0 = this;
    }
    write_lines(lines, line0, line1, widths, out);
}

fn write_lines(lines: &[Vec<&str>], from: usize, to: usize, widths: &[usize], out: &mut String) {
    for line in &lines[from..to] {
        for (j, cell) in line.iter().enumerate() {
            out.push_str(cell);
            if j < widths.len() && j + 1 < line.len() {
                let pad = widths[j].saturating_sub(width(cell));
                out.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::align;

    #[test]
    fn aligns_blocks_and_restarts_after_a_line_without_tabs() {
        let text = "Name:\tweb\nNamespace:\tdefault\nLabels:\tapp=web\n\tpod-template-hash=abc\nContainers:\n  nginx:\n    Image:\tnginx\n";
        assert_eq!(
            align(text, 0, 2),
            "Name:       web\nNamespace:  default\nLabels:     app=web\n            pod-template-hash=abc\nContainers:\n  nginx:\n    Image:  nginx\n"
        );
    }

    #[test]
    fn nested_columns_align_within_their_own_block() {
        let text = "Events:\n  Type\tReason\tAge\n  ----\t------\t---\n  Normal\tScheduled\t5s\n";
        assert_eq!(
            align(text, 0, 2),
            "Events:\n  Type    Reason     Age\n  ----    ------     ---\n  Normal  Scheduled  5s\n"
        );
    }

    #[test]
    fn a_shorter_line_ends_the_inner_block_but_not_the_outer_one() {
        // Line 2 has one tab-terminated cell; lines 1 and 3 have two.
        let text = "a\tbb\tc\nddd\te\nf\tg\th\n";
        assert_eq!(align(text, 0, 1), "a   bb c\nddd e\nf   g h\n");
    }
}
