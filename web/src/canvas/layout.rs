//! Where everything goes: the strip, the zones, the waiting bay and the robot grids.
//! Pure arithmetic, tested natively.

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub fn bottom(&self) -> f64 {
        self.y + self.h
    }
    /// Whether `other` lies wholly inside this one.
    pub fn contains(&self, other: &Rect) -> bool {
        other.x >= self.x
            && other.y >= self.y
            && other.x + other.w <= self.x + self.w
            && other.y + other.h <= self.y + self.h
    }
    pub(super) fn inset(&self, left: f64, top: f64, right: f64, bottom: f64) -> Rect {
        Rect {
            x: self.x + left,
            y: self.y + top,
            w: (self.w - left - right).max(0.0),
            h: (self.h - top - bottom).max(0.0),
        }
    }
}

pub const PAD: f64 = 12.0;

pub const GAP: f64 = 10.0;

/// The strip's title row, and the height of one row of component boxes.
pub const STRIP_TITLE_H: f64 = 26.0;

pub const STRIP_ROW_H: f64 = 46.0;

/// Component boxes narrower than this wrap onto a second row.
pub const MIN_COMPONENT_W: f64 = 170.0;

/// The control-plane components on the strip.
pub const COMPONENTS: usize = 4;

pub const BAY_H: f64 = 72.0;

pub const MIN_WIDTH: f64 = 320.0;

/// Canvases taller than this fail to allocate in some browsers; zones shrink instead.
pub const MAX_HEIGHT: f64 = 12_000.0;

/// Where everything goes on a canvas `width` CSS pixels wide.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub width: f64,
    pub height: f64,
    pub strip: Rect,
    /// Component boxes per row on the strip.
    pub strip_cols: usize,
    pub zones: Vec<Rect>,
    pub bay: Rect,
}

pub fn layout(width: f64, zone_count: usize) -> Layout {
    layout_with(width, zone_count, 0.0)
}

/// The layout with room for the order desks (`desks_h` high) under the strip.
pub fn layout_with(width: f64, zone_count: usize, desks_h: f64) -> Layout {
    let width = width.max(MIN_WIDTH);
    let inner = width - 2.0 * PAD;
    let strip_cols = if inner / COMPONENTS as f64 >= MIN_COMPONENT_W {
        COMPONENTS
    } else {
        COMPONENTS / 2
    };
    let strip_rows = COMPONENTS.div_ceil(strip_cols);
    let strip = Rect {
        x: PAD,
        y: PAD,
        w: inner,
        h: STRIP_TITLE_H + strip_rows as f64 * STRIP_ROW_H + 8.0,
    };
    let n = zone_count.max(1);
    // Crowded floors get smaller zones so the canvas stays a sensible size.
    let (min_w, min_h, max_h) = match n {
        0..=16 => (160.0, 100.0, 170.0),
        17..=64 => (100.0, 64.0, 160.0),
        _ => (60.0, 46.0, 120.0),
    };
    let square = (n as f64).sqrt().ceil() as usize;
    let max_cols = (((inner + GAP) / (min_w + GAP)).floor() as usize).max(1);
    let cols = square.min(max_cols).min(n).max(1);
    let rows = n.div_ceil(cols);
    let zone_w = (inner - GAP * (cols as f64 - 1.0)) / cols as f64;
    let budget =
        (MAX_HEIGHT - strip.h - desks_h - BAY_H - 2.0 * PAD - 2.0 * GAP) / rows as f64 - GAP;
    let zone_h = (zone_w * 0.38).clamp(min_h, max_h).min(budget.max(12.0));
    let top = strip.bottom() + GAP + desks_h;
    let zones = (0..zone_count)
        .map(|i| Rect {
            x: PAD + (i % cols) as f64 * (zone_w + GAP),
            y: top + (i / cols) as f64 * (zone_h + GAP),
            w: zone_w,
            h: zone_h,
        })
        .collect();
    let zones_bottom = top + rows as f64 * (zone_h + GAP) - GAP;
    let bay = Rect {
        x: PAD,
        y: zones_bottom + GAP,
        w: inner,
        h: BAY_H,
    };
    Layout {
        width,
        height: bay.bottom() + PAD,
        strip,
        strip_cols,
        zones,
        bay,
    }
}

/// Largest robot cell, in CSS pixels.
pub const MAX_CELL: f64 = 32.0;

/// Smallest robot cell; below this robots no longer fit and are counted instead.
pub const MIN_CELL: f64 = 2.0;

/// A square grid of robot cells filling an area.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    pub origin_x: f64,
    pub origin_y: f64,
    pub cell: f64,
    pub cols: usize,
    pub rows: usize,
}

impl Grid {
    pub fn capacity(&self) -> usize {
        self.cols * self.rows
    }
    pub fn cell_origin(&self, i: usize) -> (f64, f64) {
        (
            self.origin_x + (i % self.cols) as f64 * self.cell,
            self.origin_y + (i / self.cols) as f64 * self.cell,
        )
    }
}

/// The biggest cells (up to [`MAX_CELL`]) that fit `n` robots into `area`; at
/// [`MIN_CELL`] it gives up and the caller draws as many as fit.
pub fn robot_grid(area: Rect, n: usize) -> Grid {
    let fits = |cell: f64| {
        let cols = (area.w / cell).floor() as usize;
        let rows = (area.h / cell).floor() as usize;
        (cols, rows)
    };
    let mut cell = if n == 0 {
        MAX_CELL
    } else {
        (area.w * area.h / n as f64)
            .sqrt()
            .clamp(MIN_CELL, MAX_CELL)
    };
    // Each step shrinks by 5 %, so at most ~55 steps from MAX_CELL to MIN_CELL.
    loop {
        let (cols, rows) = fits(cell);
        if cols * rows >= n || cell <= MIN_CELL {
            return Grid {
                origin_x: area.x,
                origin_y: area.y,
                cell,
                cols: cols.max(1),
                rows,
            };
        }
        cell = (cell * 0.95).max(MIN_CELL);
    }
}

/// The strip's height on a canvas this wide.
pub(super) fn strip_height(width: f64) -> f64 {
    layout(width, 1).strip.h
}
