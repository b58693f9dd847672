//! The mat's AprilTag markers: how they look when printed, a camera view of the mat for
//! tests, and their detection in camera frames (kornia-apriltag, pure Rust).

use kornia_apriltag::family::{TagFamily, TagFamilyKind};
use kornia_apriltag::{AprilTagDecoder, DecodeTagsConfig};
use kornia_image::{Image, ImageSize};
use nalgebra::{Point2, Vector3};

use crate::camera::{Camera, TablePoint};
use crate::error::CalibrationError;
use crate::layout::MatLayout;
use crate::pose::Observation;

/// A grey camera frame, row by row.
#[derive(Clone, Debug, PartialEq)]
pub struct GrayFrame {
    pub width: usize,
    pub height: usize,
    pub pixels: Vec<u8>,
}

/// One marker found in a frame: its id and its corners as printed (top-left, top-right,
/// bottom-right, bottom-left).
#[derive(Clone, Debug, PartialEq)]
pub struct MarkerDetection {
    pub id: u32,
    pub corners_px: [Point2<f64>; 4],
    /// How clearly the code was read (higher is clearer).
    pub decision_margin: f32,
}

fn family_kind(name: &str) -> Result<TagFamilyKind, CalibrationError> {
    name.parse::<TagFamilyKind>()
        .ok()
        .or_else(|| (name == "tag36h11").then_some(TagFamilyKind::Tag36H11))
        .ok_or_else(|| CalibrationError::LayoutFormat(format!("unknown marker family \"{name}\"")))
}

/// The printed look of the mat: marker cells black or white, zones outlined, the rest light.
pub struct MatArtwork {
    pub(crate) layout: MatLayout,
    /// Per marker, its cells out to the black border, row by row (true = white).
    pub(crate) cells: Vec<Vec<bool>>,
    /// Cells along a side of a marker, black border included.
    pub(crate) width_at_border: usize,
}

const PAPER: u8 = 232;
const INK: u8 = 20;
const ZONE_LINE: u8 = 150;
const TABLE: u8 = 70;

impl MatArtwork {
    pub fn new(layout: &MatLayout) -> Result<Self, CalibrationError> {
        let family: TagFamily = family_kind(&layout.marker_family)?
            .try_into()
            .map_err(|e| CalibrationError::LayoutFormat(format!("{e}")))?;
        let width = family.width_at_border;
        let mut cells = Vec::with_capacity(layout.markers.len());
        for marker in &layout.markers {
            let Some(&code) = family.code_data.get(marker.id as usize) else {
                return Err(CalibrationError::LayoutFormat(format!(
                    "marker {} does not exist in {}",
                    marker.id, layout.marker_family
                )));
            };
            let mut grid = vec![false; width * width];
            for i in 0..family.nbits {
                let (x, y) = (family.bit_x[i], family.bit_y[i]);
                let (Ok(x), Ok(y)) = (usize::try_from(x), usize::try_from(y)) else {
                    continue;
                };
                if x < width && y < width {
                    grid[y * width + x] = (code >> (family.nbits - 1 - i)) & 1 == 1;
                }
            }
            cells.push(grid);
        }
        Ok(Self {
            layout: layout.clone(),
            cells,
            width_at_border: width,
        })
    }

    /// The grey level printed at a point of the mat.
    pub fn gray_at(&self, x_mm: f64, y_mm: f64) -> u8 {
        let [width_mm, height_mm] = self.layout.size_mm;
        if !(0.0..width_mm).contains(&x_mm) || !(0.0..height_mm).contains(&y_mm) {
            return TABLE;
        }
        for (marker, grid) in self.layout.markers.iter().zip(&self.cells) {
            let half = marker.size_mm / 2.0;
            let (left, top) = (marker.center_mm[0] - half, marker.center_mm[1] - half);
            let cell_mm = marker.size_mm / self.width_at_border as f64;
            let (cx, cy) = ((x_mm - left) / cell_mm, (y_mm - top) / cell_mm);
            let n = self.width_at_border as f64;
            if (0.0..n).contains(&cx) && (0.0..n).contains(&cy) {
                let (cx, cy) = (cx as usize, cy as usize);
                return if grid[cy * self.width_at_border + cx] {
                    PAPER
                } else {
                    INK
                };
            }
        }
        let line_mm = 1.5;
        for zone in &self.layout.zones {
            let [zx, zy] = zone.center_mm;
            let [w, h] = zone.size_mm;
            let dx = (x_mm - zx).abs() - w / 2.0;
            let dy = (y_mm - zy).abs() - h / 2.0;
            let on_edge =
                (dx.abs() < line_mm / 2.0 && dy < 0.0) || (dy.abs() < line_mm / 2.0 && dx < 0.0);
            if on_edge {
                return ZONE_LINE;
            }
        }
        PAPER
    }

    /// The mat as `camera` sees it, lens distortion included (2 by 2 samples a pixel).
    pub fn render_view(&self, camera: &Camera, width: usize, height: usize) -> GrayFrame {
        let table_from_camera = camera.camera_from_table.inverse();
        let eye = table_from_camera.translation.vector;
        let k = &camera.intrinsics;
        let mut pixels = Vec::with_capacity(width * height);
        for v in 0..height {
            for u in 0..width {
                let mut sum = 0u32;
                for (du, dv) in [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)] {
                    let pixel = Point2::new(u as f64 + du - 0.5, v as f64 + dv - 0.5);
                    let straight = k.undistort(&pixel);
                    let ray_camera = Vector3::new(
                        (straight.x - k.cx_px) / k.fx_px,
                        (straight.y - k.cy_px) / k.fy_px,
                        1.0,
                    );
                    let ray = table_from_camera.rotation * ray_camera;
                    let gray = if ray.z.abs() > f64::EPSILON && -eye.z / ray.z > 0.0 {
                        let t = -eye.z / ray.z;
                        self.gray_at(eye.x + t * ray.x, eye.y + t * ray.y)
                    } else {
                        TABLE
                    };
                    sum += u32::from(gray);
                }
                pixels.push(u8::try_from(sum / 4).unwrap_or(u8::MAX));
            }
        }
        GrayFrame {
            width,
            height,
            pixels,
        }
    }
}

/// A frame shorter than this on a side holds no marker (a tag36h11 marker is 10 cells
/// across, a pixel each at the least), and kornia's decoder refuses frames shorter than its
/// tiles: such a frame is searched no further.
const SMALLEST_FRAME_PX: usize = 16;

/// Finds the mat's markers in frames of one size.
pub struct MarkerDetector {
    /// kornia's split of black from white (a third of the way up each tile's range), which
    /// keeps a marker's black border apart from dark print beside it; then the midpoint, as
    /// the AprilTag library splits them, for the markers the first missed.
    decoders: [AprilTagDecoder; 2],
    /// The mat's marker ids: the second pass runs only while some are missing.
    marker_ids: Vec<u32>,
    width: usize,
    height: usize,
}

impl MarkerDetector {
    pub fn new(layout: &MatLayout, width: usize, height: usize) -> Result<Self, CalibrationError> {
        let decoder = |threshold_split: Option<f32>| {
            let mut config = DecodeTagsConfig::new(vec![family_kind(&layout.marker_family)?])
                .map_err(|e| CalibrationError::Detector(e.to_string()))?;
            if let Some(split) = threshold_split {
                config.threshold_split = split;
            }
            AprilTagDecoder::new(config, ImageSize { width, height })
                .map_err(|e| CalibrationError::Detector(e.to_string()))
        };
        Ok(Self {
            decoders: [decoder(None)?, decoder(Some(0.5))?],
            marker_ids: layout.markers.iter().map(|m| m.id).collect(),
            width,
            height,
        })
    }

    /// The frame size it was made for, width and height.
    pub fn size(&self) -> (usize, usize) {
        (self.width, self.height)
    }

    /// The markers in `frame`. kornia's threshold alone lost the mat's far markers, small
    /// and soft in a webcam's frame, into the dark cells inside them (on 118 frames of the
    /// rendered games it found 966 of their 1,416 markers, the two passes 1,249), while the
    /// midpoint alone merged a sharp print's marker with the print beside it (a corner 1.3
    /// px off): each marker is taken from the first pass that finds it.
    pub fn detect(&mut self, frame: &GrayFrame) -> Result<Vec<MarkerDetection>, CalibrationError> {
        if (frame.width, frame.height) != (self.width, self.height) {
            return Err(CalibrationError::Detector(format!(
                "the detector was made for {}x{} frames, this one is {}x{}",
                self.width, self.height, frame.width, frame.height
            )));
        }
        if frame.width.min(frame.height) < SMALLEST_FRAME_PX {
            return Ok(Vec::new());
        }
        let size = ImageSize {
            width: frame.width,
            height: frame.height,
        };
        let image: Image<u8, 1> = Image::new(size, frame.pixels.clone())
            .map_err(|e| CalibrationError::Detector(e.to_string()))?;
        let mut found: Vec<MarkerDetection> = Vec::new();
        for decoder in &mut self.decoders {
            let missing = |found: &[MarkerDetection]| {
                (self.marker_ids.iter()).any(|id| found.iter().all(|d| d.id != *id))
            };
            if !missing(&found) {
                break;
            }
            let detections = decoder
                .decode(&image)
                .map_err(|e| CalibrationError::Detector(e.to_string()))?;
            // A pass keeps all it finds (two quads with one id, a misread among them, are
            // left to the fit's outlier rejection), but none an earlier pass found.
            let earlier = found.len();
            for detection in detections.iter().map(detection_of) {
                if found[..earlier].iter().all(|d| d.id != detection.id) {
                    found.push(detection);
                }
            }
        }
        Ok(found)
    }
}

/// A kornia detection as ours. kornia orders corners top-right, bottom-right, bottom-left,
/// top-left, and puts pixel edges at whole numbers; the camera model puts pixel centres
/// there (as OpenCV does), half a pixel further.
fn detection_of(d: &kornia_apriltag::decoder::Detection) -> MarkerDetection {
    let c = |i: usize| {
        Point2::new(
            f64::from(d.quad.corners[i].x) - 0.5,
            f64::from(d.quad.corners[i].y) - 0.5,
        )
    };
    MarkerDetection {
        id: u32::from(d.id),
        corners_px: [c(3), c(0), c(1), c(2)],
        decision_margin: d.decision_margin,
    }
}

/// The mat points the detections show, for [`crate::fit_camera`]; markers that are not on
/// the mat (another game's, a misread id) are left out.
pub fn observations(layout: &MatLayout, detections: &[MarkerDetection]) -> Vec<Observation> {
    let mut observations = Vec::new();
    for detection in detections {
        let Some(marker) = layout.marker(detection.id) else {
            continue;
        };
        let corners: [TablePoint; 4] = marker.corners();
        for (table, pixel) in corners.into_iter().zip(detection.corners_px) {
            observations.push(Observation { table, pixel });
        }
    }
    observations
}
