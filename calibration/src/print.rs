//! The printable mat: the layout drawn as SVG at its true size, in millimetres, and split
//! into pages of the user's paper with registration marks, a scale bar and instructions.
//! Turning the SVG into PDF or PNG is the app's business.

use std::fmt::Write as _;
use std::str::FromStr;

use crate::error::CalibrationError;
use crate::layout::MatLayout;
use crate::markers::MatArtwork;

/// Paper a user can print on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Paper {
    A4,
    A3,
    A2,
    Letter,
}

impl Paper {
    pub const ALL: [Paper; 4] = [Paper::A4, Paper::A3, Paper::A2, Paper::Letter];

    /// Width and height in portrait orientation, in mm.
    pub fn size_mm(self) -> [f64; 2] {
        match self {
            Paper::A4 => [210.0, 297.0],
            Paper::A3 => [297.0, 420.0],
            Paper::A2 => [420.0, 594.0],
            Paper::Letter => [215.9, 279.4],
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Paper::A4 => "A4",
            Paper::A3 => "A3",
            Paper::A2 => "A2",
            Paper::Letter => "Letter",
        }
    }
}

impl FromStr for Paper {
    type Err = CalibrationError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Paper::ALL
            .into_iter()
            .find(|paper| paper.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| CalibrationError::UnknownPaper(s.to_owned()))
    }
}

/// One sheet to print.
#[derive(Clone, Debug, PartialEq)]
pub struct PrintPage {
    pub size_mm: [f64; 2],
    pub svg: String,
}

/// The mat split into sheets of one paper size.
#[derive(Clone, Debug, PartialEq)]
pub struct PrintPlan {
    pub paper: Paper,
    pub landscape: bool,
    pub rows: usize,
    pub columns: usize,
    pub pages: Vec<PrintPage>,
    /// What could not be printed as intended (no room for the scale bar, say).
    pub warnings: Vec<String>,
}

/// The edge of a tiled sheet that printers leave blank.
pub const TILE_MARGIN_MM: f64 = 12.0;
/// How far neighbouring tiles overlap; their registration crosses lie in the overlap.
pub const TILE_OVERLAP_MM: f64 = 15.0;
/// The length of the scale bar that lets a user check the print scale with a ruler.
pub const SCALE_BAR_MM: f64 = 100.0;

const INK: &str = "#141414";
/// Grey of the zone outlines: the same as [`MatArtwork::gray_at`] draws.
const ZONE_LINE: &str = "#969696";
const ZONE_LINE_MM: f64 = 1.5;
const ZONE_LABEL: &str = "#b4b4b4";
const FONT: &str = "Ubuntu, sans-serif";

impl MatArtwork {
    /// The whole mat as one SVG document at its true size.
    pub fn svg(&self) -> String {
        let [w, h] = self.layout.size_mm;
        let (body, _) = self.body();
        document([w, h], &body)
    }

    /// The mat on sheets of `paper`, at 100 % scale: one sheet when it fits, otherwise
    /// overlapping tiles in whichever orientation needs fewer sheets.
    pub fn print(&self, paper: Paper) -> PrintPlan {
        let mat = self.layout.size_mm;
        let [pw, ph] = paper.size_mm();
        let portrait = Tiling::new(mat, [pw, ph]);
        let landscape = Tiling::new(mat, [ph, pw]);
        let prefer_landscape = landscape.pages() < portrait.pages()
            || (landscape.pages() == portrait.pages() && mat[0] > mat[1]);
        let (tiling, is_landscape) = if prefer_landscape {
            (landscape, true)
        } else {
            (portrait, false)
        };
        let (body, mut warnings) = self.body();
        let pages = if tiling.single {
            vec![single_page(mat, tiling.paper_mm, &body)]
        } else {
            let marks = self.registration_marks(&tiling);
            if marks.is_empty() {
                warnings.push("no room for registration marks between the tiles".to_owned());
            }
            let body = format!("{body}{marks}");
            let count = tiling.pages();
            (0..tiling.rows)
                .flat_map(|row| (0..tiling.columns).map(move |column| (row, column)))
                .map(|(row, column)| tiling.page(&body, &self.layout.name, row, column, count))
                .collect()
        };
        PrintPlan {
            paper,
            landscape: is_landscape,
            rows: tiling.rows,
            columns: tiling.columns,
            pages,
            warnings,
        }
    }

    /// The mat's drawing in mat millimetres, and what could not be placed on it.
    fn body(&self) -> (String, Vec<String>) {
        let layout = &self.layout;
        let [w, h] = layout.size_mm;
        let mut warnings = Vec::new();
        let mut svg = String::new();
        let _ = write!(
            svg,
            r#"<rect x="0" y="0" width="{w}" height="{h}" fill="white"/>"#
        );
        for (marker, cells) in layout.markers.iter().zip(&self.cells) {
            let half = marker.size_mm / 2.0;
            let (left, top) = (marker.center_mm[0] - half, marker.center_mm[1] - half);
            let n = self.width_at_border;
            let cell = marker.size_mm / n as f64;
            let _ = write!(
                svg,
                r#"<rect x="{left}" y="{top}" width="{s}" height="{s}" fill="{INK}"/>"#,
                s = marker.size_mm
            );
            // White cells, a run of them along a row as one rectangle.
            for row in 0..n {
                let mut column = 0;
                while column < n {
                    if !cells[row * n + column] {
                        column += 1;
                        continue;
                    }
                    let start = column;
                    while column < n && cells[row * n + column] {
                        column += 1;
                    }
                    let _ = write!(
                        svg,
                        r#"<rect x="{}" y="{}" width="{}" height="{cell}" fill="white"/>"#,
                        left + start as f64 * cell,
                        top + row as f64 * cell,
                        (column - start) as f64 * cell,
                    );
                }
            }
            let _ = write!(
                svg,
                r#"<text x="{}" y="{}" font-family="{FONT}" font-size="3" fill="{ZONE_LABEL}" text-anchor="middle">{} {}</text>"#,
                marker.center_mm[0],
                top + marker.size_mm + cell * 1.5 + 2.0,
                escape(&layout.marker_family),
                marker.id,
            );
        }
        for zone in &layout.zones {
            let [zx, zy] = zone.center_mm;
            let [zw, zh] = zone.size_mm;
            let (left, top) = (zx - zw / 2.0, zy - zh / 2.0);
            let _ = write!(
                svg,
                r#"<rect x="{left}" y="{top}" width="{zw}" height="{zh}" fill="none" stroke="{ZONE_LINE}" stroke-width="{ZONE_LINE_MM}"/><text x="{}" y="{}" font-family="{FONT}" font-size="5" fill="{ZONE_LABEL}">{}</text>"#,
                left + 3.0,
                top + 7.0,
                escape(&zone_title(&zone.name)),
            );
        }
        let title_size = [230.0, 16.0];
        match free_spot(layout, title_size, [w / 2.0, 0.0]) {
            Some([x, y]) => {
                let _ = write!(
                    svg,
                    r#"<text x="{}" y="{}" font-family="{FONT}" font-size="7" fill="{INK}" text-anchor="middle">Tablesight · {}</text><text x="{}" y="{}" font-family="{FONT}" font-size="3.5" fill="{INK}" text-anchor="middle">Print at 100 % (no "fit to page"); the scale bar must measure {SCALE_BAR_MM} mm. Markers: {}.</text>"#,
                    x + title_size[0] / 2.0,
                    y + 7.0,
                    escape(&layout.name),
                    x + title_size[0] / 2.0,
                    y + 14.0,
                    escape(&layout.marker_family),
                );
            }
            None => warnings.push("no room for the title on the mat".to_owned()),
        }
        let bar_size = [SCALE_BAR_MM + 10.0, 16.0];
        match free_spot(layout, bar_size, [w, h]) {
            Some([x, y]) => svg.push_str(&scale_bar(x + 5.0, y + 3.0)),
            None => warnings.push("no room for the scale bar on the mat".to_owned()),
        }
        (svg, warnings)
    }

    /// Crosses in the overlaps between tiles, where they are printed on both sheets.
    fn registration_marks(&self, tiling: &Tiling) -> String {
        let mut svg = String::new();
        let mut spots = Vec::new();
        let [uw, uh] = tiling.usable_mm;
        for row in 0..tiling.rows {
            let [_, y0] = tiling.origin(row, 0);
            for column in 1..tiling.columns {
                let [x0, _] = tiling.origin(row, column);
                for f in [0.2, 0.5, 0.8] {
                    spots.push([x0 + TILE_OVERLAP_MM / 2.0, y0 + uh * f]);
                }
            }
        }
        for column in 0..tiling.columns {
            let [x0, _] = tiling.origin(0, column);
            for row in 1..tiling.rows {
                let [_, y0] = tiling.origin(row, column);
                for f in [0.2, 0.5, 0.8] {
                    spots.push([x0 + uw * f, y0 + TILE_OVERLAP_MM / 2.0]);
                }
            }
        }
        for [x, y] in spots {
            let clear = self.layout.markers.iter().all(|m| {
                let reach = m.size_mm / 2.0 + m.size_mm / 4.0 + REGISTRATION_MM;
                (x - m.center_mm[0]).abs() > reach || (y - m.center_mm[1]).abs() > reach
            });
            if clear {
                svg.push_str(&registration_cross(x, y));
            }
        }
        svg
    }
}

/// Half the size of a registration cross.
const REGISTRATION_MM: f64 = 6.0;

fn registration_cross(x: f64, y: f64) -> String {
    let r = REGISTRATION_MM;
    format!(
        r#"<g stroke="{INK}" stroke-width="0.25" fill="none"><circle cx="{x}" cy="{y}" r="{}"/><line x1="{}" y1="{y}" x2="{}" y2="{y}"/><line x1="{x}" y1="{}" x2="{x}" y2="{}"/></g>"#,
        r * 0.6,
        x - r,
        x + r,
        y - r,
        y + r
    )
}

fn scale_bar(x: f64, y: f64) -> String {
    let mut svg = format!(
        r#"<g stroke="{INK}" stroke-width="0.3"><line x1="{x}" y1="{y}" x2="{}" y2="{y}"/>"#,
        x + SCALE_BAR_MM
    );
    for tick in 0..=10 {
        let tx = x + f64::from(tick) * SCALE_BAR_MM / 10.0;
        let length = if tick % 5 == 0 { 4.0 } else { 2.0 };
        let _ = write!(
            svg,
            r#"<line x1="{tx}" y1="{y}" x2="{tx}" y2="{}"/>"#,
            y + length
        );
    }
    let _ = write!(
        svg,
        r#"</g><text x="{}" y="{}" font-family="{FONT}" font-size="3.5" fill="{INK}" text-anchor="middle">{SCALE_BAR_MM} mm: measure it to check the print scale</text>"#,
        x + SCALE_BAR_MM / 2.0,
        y + 9.0
    );
    svg
}

/// How a mat is cut into sheets of one paper in one orientation.
struct Tiling {
    paper_mm: [f64; 2],
    single: bool,
    usable_mm: [f64; 2],
    start_mm: [f64; 2],
    columns: usize,
    rows: usize,
}

impl Tiling {
    fn new(mat_mm: [f64; 2], paper_mm: [f64; 2]) -> Self {
        let fits = mat_mm[0] <= paper_mm[0] + 1e-6 && mat_mm[1] <= paper_mm[1] + 1e-6;
        if fits {
            return Self {
                paper_mm,
                single: true,
                usable_mm: paper_mm,
                start_mm: [0.0, 0.0],
                columns: 1,
                rows: 1,
            };
        }
        let usable_mm = paper_mm.map(|p| p - 2.0 * TILE_MARGIN_MM);
        let count = |mat: f64, usable: f64| -> usize {
            if mat <= usable {
                1
            } else {
                ((mat - TILE_OVERLAP_MM) / (usable - TILE_OVERLAP_MM)).ceil() as usize
            }
        };
        let columns = count(mat_mm[0], usable_mm[0]);
        let rows = count(mat_mm[1], usable_mm[1]);
        // The tiles cover a little more than the mat; centre them on it.
        let covered =
            |n: usize, usable: f64| n as f64 * (usable - TILE_OVERLAP_MM) + TILE_OVERLAP_MM;
        let start_mm = [
            (mat_mm[0] - covered(columns, usable_mm[0])) / 2.0,
            (mat_mm[1] - covered(rows, usable_mm[1])) / 2.0,
        ];
        Self {
            paper_mm,
            single: false,
            usable_mm,
            start_mm,
            columns,
            rows,
        }
    }

    fn pages(&self) -> usize {
        self.columns * self.rows
    }

    /// The mat point at the top-left corner of a tile's printed area.
    fn origin(&self, row: usize, column: usize) -> [f64; 2] {
        [
            self.start_mm[0] + column as f64 * (self.usable_mm[0] - TILE_OVERLAP_MM),
            self.start_mm[1] + row as f64 * (self.usable_mm[1] - TILE_OVERLAP_MM),
        ]
    }

    fn page(&self, body: &str, name: &str, row: usize, column: usize, count: usize) -> PrintPage {
        let [pw, ph] = self.paper_mm;
        let [uw, uh] = self.usable_mm;
        let [x0, y0] = self.origin(row, column);
        let m = TILE_MARGIN_MM;
        let number = row * self.columns + column + 1;
        let mut joins = Vec::new();
        if column > 0 {
            joins.push("left");
        }
        if row > 0 {
            joins.push("top");
        }
        let trim = if joins.is_empty() {
            "This is the first sheet: lay the others over it.".to_owned()
        } else {
            format!(
                "Trim the {} margin to the dotted line, lay this sheet over its neighbour so the crosses meet, tape.",
                joins.join(" and ")
            )
        };
        let svg = format!(
            r##"<defs><clipPath id="tile"><rect x="{m}" y="{m}" width="{uw}" height="{uh}"/></clipPath></defs><g clip-path="url(#tile)"><g transform="translate({tx} {ty})">{body}</g></g><rect x="{m}" y="{m}" width="{uw}" height="{uh}" fill="none" stroke="#808080" stroke-width="0.2" stroke-dasharray="1 1.5"/><text x="{m}" y="{ly}" font-family="{FONT}" font-size="3" fill="{INK}"><tspan x="{m}">Tablesight · {} · sheet {number} of {count}: row {}, column {}.</tspan><tspan x="{m}" dy="4">{trim}</tspan></text>"##,
            escape(name),
            row + 1,
            column + 1,
            tx = m - x0,
            ty = m - y0,
            ly = ph - m + 4.0,
        );
        PrintPage {
            size_mm: [pw, ph],
            svg: document([pw, ph], &svg),
        }
    }
}

/// The mat centred on one sheet, with crop marks at its corners when the sheet is larger.
fn single_page(mat_mm: [f64; 2], paper_mm: [f64; 2], body: &str) -> PrintPage {
    let [ox, oy] = [
        (paper_mm[0] - mat_mm[0]) / 2.0,
        (paper_mm[1] - mat_mm[1]) / 2.0,
    ];
    let mut svg = format!(r#"<g transform="translate({ox} {oy})">{body}</g>"#);
    let gap = 2.0;
    if ox > gap + 3.0 && oy > gap + 3.0 {
        let [w, h] = mat_mm;
        svg.push_str(&format!(r#"<g stroke="{INK}" stroke-width="0.25">"#));
        for (cx, cy, sx, sy) in [
            (ox, oy, -1.0, -1.0),
            (ox + w, oy, 1.0, -1.0),
            (ox, oy + h, -1.0, 1.0),
            (ox + w, oy + h, 1.0, 1.0),
        ] {
            let reach = (ox.min(oy) - 1.0).min(10.0);
            let _ = write!(
                svg,
                r#"<line x1="{}" y1="{cy}" x2="{}" y2="{cy}"/><line x1="{cx}" y1="{}" x2="{cx}" y2="{}"/>"#,
                cx + sx * gap,
                cx + sx * reach,
                cy + sy * gap,
                cy + sy * reach,
            );
        }
        svg.push_str("</g>");
    }
    PrintPage {
        size_mm: paper_mm,
        svg: document(paper_mm, &svg),
    }
}

fn document([w, h]: [f64; 2], body: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="{w}mm" height="{h}mm" viewBox="0 0 {w} {h}">
{body}
</svg>
"#
    )
}

/// The top-left corner of a free rectangle of `size` on the mat (clear of markers and their
/// quiet zone, of zones and of the edge), the one nearest `preferred`.
fn free_spot(layout: &MatLayout, size: [f64; 2], preferred: [f64; 2]) -> Option<[f64; 2]> {
    const EDGE_MM: f64 = 12.0;
    const STEP_MM: f64 = 2.0;
    let [w, h] = layout.size_mm;
    let overlaps = |x: f64, y: f64, center: [f64; 2], half: [f64; 2]| {
        x < center[0] + half[0]
            && center[0] - half[0] < x + size[0]
            && y < center[1] + half[1]
            && center[1] - half[1] < y + size[1]
    };
    let mut best: Option<([f64; 2], f64)> = None;
    let mut y = EDGE_MM;
    while y + size[1] <= h - EDGE_MM {
        let mut x = EDGE_MM;
        while x + size[0] <= w - EDGE_MM {
            let clear = layout.markers.iter().all(|m| {
                let half = m.size_mm / 2.0 + m.size_mm / 4.0;
                !overlaps(x, y, m.center_mm, [half, half])
            }) && layout.zones.iter().all(|z| {
                !overlaps(
                    x,
                    y,
                    z.center_mm,
                    [z.size_mm[0] / 2.0 + 3.0, z.size_mm[1] / 2.0 + 3.0],
                )
            });
            if clear {
                let center = [x + size[0] / 2.0, y + size[1] / 2.0];
                let distance = (center[0] - preferred[0]).hypot(center[1] - preferred[1]);
                if best.is_none_or(|(_, d)| distance < d) {
                    best = Some(([x, y], distance));
                }
            }
            x += STEP_MM;
        }
        y += STEP_MM;
    }
    best.map(|(spot, _)| spot)
}

/// "tower-a" -> "Tower A", "mana-pool" -> "Mana pool".
fn zone_title(name: &str) -> String {
    let words: Vec<String> = name
        .split(['-', '_', ' '])
        .filter(|word| !word.is_empty())
        .enumerate()
        .map(|(i, word)| {
            let mut chars = word.chars();
            match chars.next() {
                Some(first) if i == 0 || word.len() == 1 => {
                    first.to_uppercase().chain(chars).collect()
                }
                _ => word.to_owned(),
            }
        })
        .collect();
    words.join(" ")
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn artwork() -> MatArtwork {
        MatArtwork::new(&MatLayout::a2()).unwrap()
    }

    #[test]
    fn the_a2_mat_tiles_onto_eight_a4_sheets_and_fits_one_a2() {
        let a4 = artwork().print(Paper::A4);
        assert_eq!((a4.columns, a4.rows, a4.landscape), (4, 2, false));
        assert_eq!(a4.pages.len(), 8);
        assert!(a4.warnings.is_empty(), "{:?}", a4.warnings);
        let a3 = artwork().print(Paper::A3);
        assert_eq!((a3.pages.len(), a3.landscape), (4, true));
        let a2 = artwork().print(Paper::A2);
        assert_eq!((a2.pages.len(), a2.landscape), (1, true));
        assert_eq!(a2.pages[0].size_mm, [594.0, 420.0]);
        let letter = artwork().print(Paper::Letter);
        assert_eq!(letter.pages.len(), 8);
    }

    #[test]
    fn tiles_cover_the_whole_mat_with_overlap() {
        let mat = MatLayout::a2().size_mm;
        for paper in Paper::ALL {
            for size in [paper.size_mm(), [paper.size_mm()[1], paper.size_mm()[0]]] {
                let tiling = Tiling::new(mat, size);
                if tiling.single {
                    continue;
                }
                let [x0, y0] = tiling.origin(0, 0);
                let [x1, y1] = tiling.origin(tiling.rows - 1, tiling.columns - 1);
                assert!(x0 <= 0.0 && y0 <= 0.0, "{paper:?}");
                assert!(x1 + tiling.usable_mm[0] >= mat[0], "{paper:?}");
                assert!(y1 + tiling.usable_mm[1] >= mat[1], "{paper:?}");
            }
        }
    }

    #[test]
    fn the_printed_mat_has_every_marker_zone_and_the_scale_bar() {
        let svg = artwork().svg();
        assert!(svg.contains(r#"width="594mm" height="420mm""#));
        for zone in [
            "Tower A",
            "Tower central",
            "Roll area",
            "Mana pool",
            "Spellbook 4",
        ] {
            assert!(svg.contains(&format!(">{zone}<")), "{zone}");
        }
        for id in 0..12 {
            assert!(svg.contains(&format!("tag36h11 {id}<")), "marker {id}");
        }
        assert!(svg.contains("100 mm: measure it"));
    }

    #[test]
    fn paper_names_parse_in_any_case() {
        assert_eq!("letter".parse::<Paper>().unwrap(), Paper::Letter);
        assert_eq!("A3".parse::<Paper>().unwrap(), Paper::A3);
        assert!("B5".parse::<Paper>().is_err());
    }
}
