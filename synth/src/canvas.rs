//! The undistorted picture a pinhole camera would take, drawn back to front: the table and
//! mat, flat things on it, sprites, and things held above it. It is larger than the frame by
//! the margin that the lens distortion pulls into view; `optics` warps it into the frame.
//!
//! Beside the colours it keeps, per pixel, which object was drawn there last, so that the
//! labels can say how much of each die is still visible once everything is drawn.

use calibration::nalgebra::{Point2, Point3, Vector3};
use calibration::{Camera, TablePoint};

use crate::linear::Rgb;
use crate::sprites::Sprite;

/// No object: the table, the mat, or something unlabelled.
pub const NOBODY: u32 = 0;
/// The share of the light through a sprite's object that comes from all of the table behind
/// it rather than from the point straight behind.
const SCATTERED: f32 = 0.8;

pub struct Canvas {
    pub width: usize,
    pub height: usize,
    /// Pixels added on each side of the frame.
    pub margin: usize,
    pub pixels: Vec<Rgb>,
    pub ids: Vec<u32>,
    camera: Camera,
    eye: Point3<f64>,
}

/// A sprite as drawn: its box in canvas pixels and how many pixels show the object.
#[derive(Clone, Copy, Debug)]
pub struct Drawn {
    pub box_px: [f64; 4],
    pub object_px: usize,
}

impl Canvas {
    /// A blank canvas for frames of `width` x `height` pixels from `camera`.
    pub fn new(camera: &Camera, width: usize, height: usize) -> Self {
        let k = &camera.intrinsics;
        // How far outside the frame the distorted frame's edges reach in the pinhole picture.
        let mut overshoot: f64 = 0.0;
        let (w, h) = (width as f64, height as f64);
        for (u, v) in [
            (0.0, 0.0),
            (w, 0.0),
            (0.0, h),
            (w, h),
            (w / 2.0, 0.0),
            (0.0, h / 2.0),
        ] {
            let p = k.undistort(&Point2::new(u, v));
            overshoot = overshoot.max(-p.x).max(-p.y).max(p.x - w).max(p.y - h);
        }
        let margin = (overshoot.ceil().max(0.0) as usize + 8).min(width);
        let (cw, ch) = (width + 2 * margin, height + 2 * margin);
        let mut pinhole = *camera;
        pinhole.intrinsics.k1 = 0.0;
        pinhole.intrinsics.k2 = 0.0;
        pinhole.intrinsics.cx_px += margin as f64;
        pinhole.intrinsics.cy_px += margin as f64;
        Self {
            width: cw,
            height: ch,
            margin,
            pixels: vec![Rgb::BLACK; cw * ch],
            ids: vec![NOBODY; cw * ch],
            eye: camera.position_in_table(),
            camera: pinhole,
        }
    }

    /// The canvas pixel of a point on or above the table.
    pub fn project(&self, point: TablePoint) -> Option<Point2<f64>> {
        self.camera.project(point)
    }

    /// The point at `height_mm` above the mat that the centre of pixel (u, v) sees.
    pub fn hit(&self, u: usize, v: usize, height_mm: f64) -> Option<(f64, f64)> {
        let k = &self.camera.intrinsics;
        let ray_camera = Vector3::new(
            (u as f64 - k.cx_px) / k.fx_px,
            (v as f64 - k.cy_px) / k.fy_px,
            1.0,
        );
        let ray = self.camera.camera_from_table.rotation.inverse() * ray_camera;
        let plane_z = -height_mm;
        if ray.z.abs() < 1e-12 {
            return None;
        }
        let t = (plane_z - self.eye.z) / ray.z;
        (t > 0.0).then(|| (self.eye.x + t * ray.x, self.eye.y + t * ray.y))
    }

    /// The camera's elevation above the table seen from `point`, in degrees.
    pub fn elevation_deg(&self, point: TablePoint) -> f64 {
        let to_eye = self.eye - point.to_3d();
        (-to_eye.z / to_eye.norm()).asin().to_degrees()
    }

    /// Paints every pixel from the colour of the mat plane where its ray lands.
    pub fn fill_table(&mut self, shade: impl Fn(f64, f64) -> Rgb, horizon: Rgb) {
        for v in 0..self.height {
            for u in 0..self.width {
                self.pixels[v * self.width + u] = match self.hit(u, v, 0.0) {
                    Some((x, y)) => shade(x, y),
                    None => horizon,
                };
            }
        }
    }

    /// Draws a flat object lying at `height_mm` within `bounds` (left, top, right, bottom, in
    /// mm): `shade` gives the colour and coverage at each table point. Returns the pixels
    /// covered by more than half.
    pub fn draw_flat(
        &mut self,
        height_mm: f64,
        bounds: [f64; 4],
        id: u32,
        shade: impl Fn(f64, f64) -> Option<(Rgb, f32)>,
    ) -> usize {
        let Some([left, top, right, bottom]) = self.pixel_bounds(height_mm, bounds) else {
            return 0;
        };
        let mut covered = 0;
        for v in top..bottom {
            for u in left..right {
                let Some((x, y)) = self.hit(u, v, height_mm) else {
                    continue;
                };
                if let Some((color, alpha)) = shade(x, y) {
                    let i = v * self.width + u;
                    self.pixels[i] = self.pixels[i].mix(color, alpha);
                    if alpha > 0.5 {
                        self.ids[i] = id;
                        covered += 1;
                    }
                }
            }
        }
        covered
    }

    /// Darkens the mat plane under a shape, as a shadow: `darkness` 0..1 at each point.
    pub fn darken(&mut self, bounds: [f64; 4], darkness: impl Fn(f64, f64) -> f32) {
        let Some([left, top, right, bottom]) = self.pixel_bounds(0.0, bounds) else {
            return;
        };
        for v in top..bottom {
            for u in left..right {
                if let Some((x, y)) = self.hit(u, v, 0.0) {
                    let i = v * self.width + u;
                    self.pixels[i] = self.pixels[i].scale(1.0 - darkness(x, y).clamp(0.0, 1.0));
                }
            }
        }
    }

    /// The canvas pixels that a table rectangle at `height_mm` covers, clipped.
    fn pixel_bounds(&self, height_mm: f64, [l, t, r, b]: [f64; 4]) -> Option<[usize; 4]> {
        let corners = [(l, t), (r, t), (l, b), (r, b)]
            .map(|(x, y)| self.project(TablePoint::on_mat(x, y).at_height(height_mm)));
        let mut bounds = [
            f64::INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NEG_INFINITY,
        ];
        for corner in corners {
            let p = corner?;
            bounds = [
                bounds[0].min(p.x),
                bounds[1].min(p.y),
                bounds[2].max(p.x),
                bounds[3].max(p.y),
            ];
        }
        self.clip(bounds)
    }

    fn clip(&self, [l, t, r, b]: [f64; 4]) -> Option<[usize; 4]> {
        let clamp = |x: f64, max: usize| x.clamp(0.0, max as f64) as usize;
        let bounds = [
            clamp(l.floor(), self.width),
            clamp(t.floor(), self.height),
            clamp(r.ceil() + 1.0, self.width),
            clamp(b.ceil() + 1.0, self.height),
        ];
        (bounds[0] < bounds[2] && bounds[1] < bounds[3]).then_some(bounds)
    }

    /// Composites a sprite standing at `at`: scaled to the size it has there, turned so that
    /// its far side points away from the camera.
    pub fn draw_sprite(&mut self, sprite: &Sprite, at: TablePoint, id: u32) -> Option<Drawn> {
        let anchor = self.project(at)?;
        let eye = self.eye;
        let mut away = Vector3::new(at.x_mm - eye.x, at.y_mm - eye.y, 0.0);
        if away.norm() < 1.0 {
            away = Vector3::new(0.0, -1.0, 0.0);
        }
        let away = away.normalize() * 10.0;
        let across = Vector3::new(-away.y, away.x, 0.0);
        let step = |d: Vector3<f64>| {
            self.project(TablePoint {
                x_mm: at.x_mm + d.x,
                y_mm: at.y_mm + d.y,
                ..at
            })
            .map(|p| p - anchor)
        };
        let (up_image, across_image) = (step(away)?, step(across)?);
        let scale = across_image.norm() / 10.0 / sprite.px_per_mm;
        if !(scale.is_finite() && scale > 0.02) || up_image.norm() < 1e-9 {
            return None;
        }
        let (sin, cos) = (up_image.x / up_image.norm(), -up_image.y / up_image.norm());
        let to_canvas = |sx: f64, sy: f64| {
            let (dx, dy) = (sx - sprite.anchor_px[0], sy - sprite.anchor_px[1]);
            Point2::new(
                anchor.x + scale * (cos * dx - sin * dy),
                anchor.y + scale * (sin * dx + cos * dy),
            )
        };
        // The box of the object's own pixels as turned here: the box of the sprite's box
        // turned would be up to 41 % wider.
        let size = sprite.size;
        let shown: Vec<Point2<f64>> = (0..size * size)
            .filter(|&i| sprite.is_object(i))
            .map(|i| to_canvas((i % size) as f64 + 0.5, (i / size) as f64 + 0.5))
            .collect();
        let box_px = if shown.is_empty() {
            let [l, t, r, b] = sprite.box_px;
            bounds_of(&[
                to_canvas(l, t),
                to_canvas(r, t),
                to_canvas(l, b),
                to_canvas(r, b),
            ])
        } else {
            let [l, t, r, b] = bounds_of(&shown);
            let half = scale / 2.0;
            [l - half, t - half, r + half, b + half]
        };
        let n = sprite.size as f64;
        let all = bounds_of(&[
            to_canvas(0.0, 0.0),
            to_canvas(n, 0.0),
            to_canvas(0.0, n),
            to_canvas(n, n),
        ]);
        let [left, top, right, bottom] = self.clip(all)?;
        let level = sprite.level(scale);
        let to_sprite = |u: usize, v: usize| {
            let (dx, dy) = ((u as f64 - anchor.x) / scale, (v as f64 - anchor.y) / scale);
            (
                cos * dx + sin * dy + sprite.anchor_px[0] - 0.5,
                -sin * dx + cos * dy + sprite.anchor_px[1] - 0.5,
            )
        };
        // What a translucent die lets through is the table behind it scattered by its body:
        // a line of the mat does not run straight through a die. The mean of the table under
        // the object stands in for most of it.
        let (mut behind, mut count) = (Rgb::BLACK, 0.0_f32);
        for v in top..bottom {
            for u in left..right {
                let (sx, sy) = to_sprite(u, v);
                if nearest_pixel(size, sx, sy).is_some_and(|i| sprite.is_object(i)) {
                    behind = behind + self.pixels[v * self.width + u];
                    count += 1.0;
                }
            }
        }
        let behind = behind.scale(1.0 / count.max(1.0));
        let mut object_px = 0;
        for v in top..bottom {
            for u in left..right {
                let (sx, sy) = to_sprite(u, v);
                let Some((f, t, nearest)) = sample(sprite, level, sx, sy) else {
                    continue;
                };
                let i = v * self.width + u;
                let object = sprite.is_object(nearest);
                let through = if object {
                    self.pixels[i].mix(behind, SCATTERED)
                } else {
                    self.pixels[i]
                };
                self.pixels[i] = f + t * through;
                if object {
                    self.ids[i] = id;
                    object_px += 1;
                }
            }
        }
        Some(Drawn { box_px, object_px })
    }

    /// How many pixels still show object `id`.
    pub fn pixels_of(&self, id: u32) -> usize {
        self.ids.iter().filter(|&&i| i == id).count()
    }

    /// Canvas pixel to frame pixel, through the lens distortion of `camera`.
    pub fn to_frame(&self, camera: &Camera, p: Point2<f64>) -> Point2<f64> {
        let k = &camera.intrinsics;
        let margin = self.margin as f64;
        let normalized = Vector3::new(
            (p.x - margin - k.cx_px) / k.fx_px,
            (p.y - margin - k.cy_px) / k.fy_px,
            1.0,
        );
        // Through the real camera's projection, which applies its radial distortion.
        k.project(&Point3::from(normalized))
            .unwrap_or(Point2::new(f64::NAN, f64::NAN))
    }
}

fn bounds_of(points: &[Point2<f64>]) -> [f64; 4] {
    points.iter().fold(
        [
            f64::INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NEG_INFINITY,
        ],
        |b, p| [b[0].min(p.x), b[1].min(p.y), b[2].max(p.x), b[3].max(p.y)],
    )
}

/// The index of the sprite pixel nearest to sprite pixel coordinates (centres at whole
/// numbers); `None` outside the sprite.
fn nearest_pixel(size: usize, sx: f64, sy: f64) -> Option<usize> {
    let (x, y) = (sx.round(), sy.round());
    let n = size as f64;
    ((0.0..n).contains(&x) && (0.0..n).contains(&y)).then(|| y as usize * size + x as usize)
}

/// Bilinear F and T at sprite pixel coordinates (centres at whole numbers) from the copy
/// `level` of the sprite (`Sprite::level`), and the nearest pixel's index in the sprite;
/// `None` outside the sprite.
pub(crate) fn sample(
    sprite: &Sprite,
    (n, foreground, transmission, shrink): (usize, &[Rgb], &[Rgb], f64),
    sx: f64,
    sy: f64,
) -> Option<(Rgb, Rgb, usize)> {
    let size = sprite.size;
    if sx < 0.0 || sy < 0.0 || sx >= (size - 1) as f64 || sy >= (size - 1) as f64 {
        return None;
    }
    let nearest = nearest_pixel(size, sx, sy)?;
    let (x, y) = (
        ((sx + 0.5) * shrink - 0.5).clamp(0.0, (n - 1) as f64 - 1e-9),
        ((sy + 0.5) * shrink - 0.5).clamp(0.0, (n - 1) as f64 - 1e-9),
    );
    let (x0, y0) = (x.floor() as usize, y.floor() as usize);
    let (fx, fy) = ((x - x0 as f64) as f32, (y - y0 as f64) as f32);
    let i = y0 * n + x0;
    let weights = [
        (1.0 - fx) * (1.0 - fy),
        fx * (1.0 - fy),
        (1.0 - fx) * fy,
        fx * fy,
    ];
    let indices = [i, i + 1, i + n, i + n + 1];
    let mut f = Rgb::BLACK;
    let mut t = Rgb::BLACK;
    for (w, j) in weights.into_iter().zip(indices) {
        f = f + foreground[j] * w;
        t = t + transmission[j] * w;
    }
    Some((f, t, nearest))
}
