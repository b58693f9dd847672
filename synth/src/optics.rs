//! The webcam between the table and the file: the lamp's light and colour, the lens
//! (distortion, vignetting, defocus), motion blur, auto-exposure, white balance, sensor noise
//! and JPEG compression with the chroma subsampling of cameras.

use calibration::Intrinsics;
use calibration::nalgebra::Point2;
use image::codecs::jpeg::JpegEncoder;
use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::canvas::Canvas;
use crate::error::SynthError;
use crate::linear::{Rgb, linear_to_srgb};

/// Light and camera settings of one picture.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Look {
    /// Colour temperature of the light, 2700 K (warm lamp) to 6500 K (daylight).
    pub kelvin: f64,
    /// A bright spot under the lamp: centre as a share of the frame, and strength.
    pub hotspot: [f64; 3],
    /// Darkening of the corners, 0..1.
    pub vignette: f32,
    /// Defocus blur, a Gaussian's sigma in pixels.
    pub defocus_px: f32,
    /// Motion blur: length in pixels and direction in radians.
    pub motion: [f32; 2],
    /// Sensor noise: the shot-noise gain and the read-noise sigma (linear units).
    pub noise: [f32; 2],
    /// How far auto-exposure misses, in stops.
    pub exposure_ev: f32,
    /// How much of the light's colour the camera's white balance removes, 0..1.
    pub white_balance: f32,
    pub jpeg_quality: u8,
    /// The colour resolution of the camera's JPEG (looks saved before it existed: 4:4:4).
    #[serde(default)]
    pub chroma: ChromaSampling,
}

/// How a camera's JPEG halves the resolution of colour against brightness: webcams send
/// MJPEG in 4:2:2 or 4:2:0, phones save 4:2:0. The blue and purple of a small die bleed
/// into their surroundings when chroma is halved, so the reader must learn colours from it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ChromaSampling {
    /// Full colour resolution.
    #[default]
    #[serde(rename = "4:4:4")]
    Full,
    /// Half the columns.
    #[serde(rename = "4:2:2")]
    HalfWidth,
    /// Half the columns and half the rows.
    #[serde(rename = "4:2:0")]
    Quarter,
}

impl ChromaSampling {
    /// Pixels that share one colour sample: across, down.
    fn block(self) -> (usize, usize) {
        match self {
            Self::Full => (1, 1),
            Self::HalfWidth => (2, 1),
            Self::Quarter => (2, 2),
        }
    }

    fn random(rng: &mut impl Rng) -> Self {
        match rng.random_range(0..20) {
            0..10 => Self::Quarter,
            10..17 => Self::HalfWidth,
            _ => Self::Full,
        }
    }
}

impl Look {
    pub fn random(rng: &mut impl Rng) -> Self {
        Self {
            kelvin: rng.random_range(2700.0..6500.0),
            hotspot: [
                rng.random_range(0.0..1.0),
                rng.random_range(0.0..1.0),
                rng.random_range(0.0..0.6),
            ],
            vignette: rng.random_range(0.0..0.45),
            defocus_px: rng.random_range(0.3..1.6),
            motion: if rng.random_bool(0.2) {
                [
                    rng.random_range(1.0..6.0),
                    rng.random_range(0.0..std::f32::consts::PI),
                ]
            } else {
                [0.0, 0.0]
            },
            noise: [
                rng.random_range(0.0005..0.004),
                rng.random_range(0.002..0.012),
            ],
            exposure_ev: rng.random_range(-0.7..0.5),
            white_balance: rng.random_range(0.4..1.0),
            jpeg_quality: rng.random_range(55..93),
            chroma: ChromaSampling::random(rng),
        }
    }
}

/// Auto-exposure and auto white balance that follow the scene over frames, as a webcam's do.
#[derive(Clone, Debug)]
pub struct AutoExposure {
    gain: Option<f32>,
    balance: Option<Rgb>,
    /// Share of the way to the new gain covered each frame (1 = at once).
    pub speed: f32,
}

impl AutoExposure {
    /// Exposes each picture on its own.
    pub fn still() -> Self {
        Self {
            gain: None,
            balance: None,
            speed: 1.0,
        }
    }

    /// Settles over about a second at 15 frames per second.
    pub fn video() -> Self {
        Self {
            gain: None,
            balance: None,
            speed: 0.15,
        }
    }

    /// Keeps the exposure and white balance of the last picture from now on.
    pub fn lock(&mut self) {
        self.speed = 0.0;
    }

    fn update(&mut self, wanted: f32, wanted_balance: Rgb) -> (f32, Rgb) {
        let gain = match self.gain {
            Some(old) => old + (wanted - old) * self.speed,
            None => wanted,
        };
        let balance = match self.balance {
            Some(old) => old.mix(wanted_balance, self.speed),
            None => wanted_balance,
        };
        self.gain = Some(gain);
        self.balance = Some(balance);
        (gain, balance)
    }
}

/// The light's colour at `kelvin`, green normalised to 1 (a fit to the Planckian locus).
pub fn illuminant(kelvin: f64) -> Rgb {
    let t = (kelvin / 100.0).clamp(20.0, 120.0);
    let red = if t <= 66.0 {
        1.0
    } else {
        (1.292 * (t - 60.0).powf(-0.1332)).min(1.0)
    };
    let green = if t <= 66.0 {
        (0.3901 * t.ln() - 0.6318).clamp(0.05, 1.0)
    } else {
        (1.1299 * (t - 60.0).powf(-0.0755)).min(1.0)
    };
    let blue = if t >= 66.0 {
        1.0
    } else if t <= 19.0 {
        0.0
    } else {
        (0.5432 * (t - 10.0).ln() - 1.1963).clamp(0.0, 1.0)
    };
    // Those are sRGB-encoded levels; in linear light, relative to green.
    let lin = |c: f64| crate::linear::srgb_to_linear((c * 255.0).round() as u8);
    let (r, g, b) = (lin(red), lin(green), lin(blue));
    Rgb::new(r / g, 1.0, b / g)
}

/// Where each pixel of a picture looks in the distortion-free canvas: the lens model
/// inverted (20 fixed-point steps a pixel), a quarter of a picture's time when worked out
/// for every picture, so worked out once for a camera that stays put, as a game's does.
#[derive(Debug)]
pub struct LensMap {
    intrinsics: Intrinsics,
    width: usize,
    height: usize,
    straight: Vec<Point2<f64>>,
}

impl LensMap {
    pub fn new(intrinsics: &Intrinsics, width: usize, height: usize) -> Self {
        let straight = (0..height)
            .flat_map(|v| (0..width).map(move |u| (u, v)))
            .map(|(u, v)| intrinsics.undistort(&Point2::new(u as f64, v as f64)))
            .collect();
        Self {
            intrinsics: *intrinsics,
            width,
            height,
            straight,
        }
    }

    /// Whether this is the map of pictures of `width` x `height` through `intrinsics`.
    pub fn fits(&self, intrinsics: &Intrinsics, width: usize, height: usize) -> bool {
        self.intrinsics == *intrinsics && self.width == width && self.height == height
    }
}

/// Takes the picture of `lens`'s size: warps the canvas through the lens, lights it, blurs
/// it, exposes, white-balances, adds noise and encodes it as JPEG.
pub fn develop(
    canvas: &Canvas,
    lens: &LensMap,
    look: &Look,
    exposure: &mut AutoExposure,
    rng: &mut impl Rng,
) -> Result<Vec<u8>, SynthError> {
    let (width, height) = (lens.width, lens.height);
    let light = illuminant(look.kelvin);
    let margin = canvas.margin as f64;
    let diagonal = ((width * width + height * height) as f64).sqrt() / 2.0;
    let mut image = vec![Rgb::BLACK; width * height];
    for v in 0..height {
        for u in 0..width {
            let straight = lens.straight[v * width + u];
            let color = bilinear(canvas, straight.x + margin, straight.y + margin);
            let (dx, dy) = (
                u as f64 - width as f64 / 2.0,
                v as f64 - height as f64 / 2.0,
            );
            let r = ((dx * dx + dy * dy).sqrt() / diagonal) as f32;
            let (hx, hy) = (
                u as f64 / width as f64 - look.hotspot[0],
                v as f64 / height as f64 - look.hotspot[1],
            );
            let spot = (look.hotspot[2] * (-(hx * hx + hy * hy) / 0.08).exp()) as f32;
            let shade = (1.0 - look.vignette * r * r) * (1.0 + spot);
            image[v * width + u] = color * light * shade;
        }
    }
    let image = gaussian_blur(&image, width, height, look.defocus_px);
    let image = motion_blur(&image, width, height, look.motion[0], look.motion[1]);

    // Auto-exposure on the mean luminance, then the camera's white balance (grey world).
    let count = image.len() as f32;
    let mean = image
        .iter()
        .fold(Rgb::BLACK, |s, &c| s + c)
        .scale(1.0 / count);
    let wanted = 0.30 * 2f32.powf(look.exposure_ev) / mean.luminance().max(1e-4);
    let grey = mean.sum() / 3.0;
    let wanted_balance = Rgb(mean
        .0
        .map(|c| (grey / c.max(1e-4)).powf(look.white_balance)));
    let (gain, balance) = exposure.update(wanted, wanted_balance);
    let [shot, read] = look.noise;
    let mut pixels = Vec::with_capacity(width * height * 3);
    for c in image {
        let exposed = c * balance * gain;
        for channel in exposed.0 {
            let sigma = (shot * channel.max(0.0) + read * read).sqrt();
            pixels.push(linear_to_srgb(channel + sigma * normal(rng)));
        }
    }
    subsample_chroma(&mut pixels, width, height, look.chroma);
    let mut jpeg = Vec::new();
    JpegEncoder::new_with_quality(&mut jpeg, look.jpeg_quality)
        .encode(
            &pixels,
            width as u32,
            height as u32,
            image::ExtendedColorType::Rgb8,
        )
        .map_err(|e| SynthError::Encode(e.to_string()))?;
    Ok(jpeg)
}

/// Gives each block of pixels that a camera's JPEG stores one colour sample for the mean
/// colour of the block (JFIF's YCbCr), each pixel keeping its own brightness: what the
/// camera's chroma subsampling leaves of the picture (the `image` crate's encoder writes
/// 4:4:4 only).
fn subsample_chroma(pixels: &mut [u8], width: usize, height: usize, chroma: ChromaSampling) {
    let (across, down) = chroma.block();
    if across * down == 1 {
        return;
    }
    let luma =
        |p: &[u8]| 0.299 * f32::from(p[0]) + 0.587 * f32::from(p[1]) + 0.114 * f32::from(p[2]);
    for y0 in (0..height).step_by(down) {
        for x0 in (0..width).step_by(across) {
            let rows = y0..(y0 + down).min(height);
            let columns = x0..(x0 + across).min(width);
            let block = || {
                rows.clone()
                    .flat_map(|y| columns.clone().map(move |x| (y * width + x) * 3))
            };
            let (mut cb, mut cr, mut n) = (0.0, 0.0, 0.0);
            for i in block() {
                let p = &pixels[i..i + 3];
                let y = luma(p);
                cb += (f32::from(p[2]) - y) * 0.564;
                cr += (f32::from(p[0]) - y) * 0.713;
                n += 1.0;
            }
            let (cb, cr) = (cb / n, cr / n);
            for i in block() {
                let y = luma(&pixels[i..i + 3]);
                let rgb = [
                    y + 1.402 * cr,
                    y - 0.344_136 * cb - 0.714_136 * cr,
                    y + 1.772 * cb,
                ];
                for (channel, value) in pixels[i..i + 3].iter_mut().zip(rgb) {
                    *channel = value.round().clamp(0.0, 255.0) as u8;
                }
            }
        }
    }
}

fn bilinear(canvas: &Canvas, x: f64, y: f64) -> Rgb {
    let (w, h) = (canvas.width, canvas.height);
    let x = x.clamp(0.0, (w - 2) as f64);
    let y = y.clamp(0.0, (h - 2) as f64);
    let (x0, y0) = (x.floor() as usize, y.floor() as usize);
    let (fx, fy) = ((x - x0 as f64) as f32, (y - y0 as f64) as f32);
    let p = |xx: usize, yy: usize| canvas.pixels[yy * w + xx];
    let top = p(x0, y0).mix(p(x0 + 1, y0), fx);
    let bottom = p(x0, y0 + 1).mix(p(x0 + 1, y0 + 1), fx);
    top.mix(bottom, fy)
}

/// A standard normal sample (Box-Muller).
fn normal(rng: &mut impl Rng) -> f32 {
    let u1: f32 = rng.random_range(f32::EPSILON..1.0);
    let u2: f32 = rng.random();
    (-2.0 * u1.ln()).sqrt() * (std::f32::consts::TAU * u2).cos()
}

fn gaussian_blur(image: &[Rgb], width: usize, height: usize, sigma: f32) -> Vec<Rgb> {
    if sigma < 0.2 {
        return image.to_vec();
    }
    let radius = (sigma * 3.0).ceil() as isize;
    let kernel: Vec<f32> = (-radius..=radius)
        .map(|i| (-(i * i) as f32 / (2.0 * sigma * sigma)).exp())
        .collect();
    let total: f32 = kernel.iter().sum();
    let kernel: Vec<f32> = kernel.iter().map(|k| k / total).collect();
    // Each output pixel sums its taps in kernel order, a row at a time (the vertical pass
    // reads whole rows, not columns), clamped at the picture's edges.
    let pass = |source: &[Rgb], horizontal: bool| {
        let mut out = vec![Rgb::BLACK; source.len()];
        for (y, row) in out.chunks_exact_mut(width).enumerate() {
            for (k, &weight) in kernel.iter().enumerate() {
                let offset = k as isize - radius;
                if horizontal {
                    let line = &source[y * width..(y + 1) * width];
                    for (x, sum) in row.iter_mut().enumerate() {
                        let sx = (x as isize + offset).clamp(0, width as isize - 1) as usize;
                        *sum = *sum + line[sx] * weight;
                    }
                } else {
                    let sy = (y as isize + offset).clamp(0, height as isize - 1) as usize;
                    let line = &source[sy * width..(sy + 1) * width];
                    for (sum, &pixel) in row.iter_mut().zip(line) {
                        *sum = *sum + pixel * weight;
                    }
                }
            }
        }
        out
    };
    let once = pass(image, true);
    pass(&once, false)
}

fn motion_blur(image: &[Rgb], width: usize, height: usize, length: f32, angle: f32) -> Vec<Rgb> {
    if length < 0.5 {
        return image.to_vec();
    }
    let taps = (length.ceil() as usize).max(2) + 1;
    let (dx, dy) = (angle.cos() * length, angle.sin() * length);
    let mut out = vec![Rgb::BLACK; image.len()];
    for y in 0..height {
        for x in 0..width {
            let mut sum = Rgb::BLACK;
            for t in 0..taps {
                let s = t as f32 / (taps - 1) as f32 - 0.5;
                let sx = (x as f32 + s * dx).round().clamp(0.0, (width - 1) as f32) as usize;
                let sy = (y as f32 + s * dy).round().clamp(0.0, (height - 1) as f32) as usize;
                sum = sum + image[sy * width + sx];
            }
            out[y * width + x] = sum.scale(1.0 / taps as f32);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warm_light_is_red_and_daylight_is_nearly_white() {
        let warm = illuminant(2700.0);
        assert!(warm.0[0] > 1.5 && warm.0[2] < 0.5, "{warm:?}");
        let day = illuminant(6500.0);
        assert!(
            (day.0[0] - 1.0).abs() < 0.1 && (day.0[2] - 1.0).abs() < 0.15,
            "{day:?}"
        );
    }

    #[test]
    fn chroma_subsampling_shares_colour_within_a_block_and_keeps_each_pixels_brightness() {
        // A blue pixel beside three grey ones (one 4:2:0 block), and a flat pink block.
        let blue_on_grey = [30, 60, 220, 128, 128, 128, 128, 128, 128, 128, 128, 128];
        let pink = [230, 80, 170].repeat(4);
        let luma =
            |p: &[u8]| 0.299 * f32::from(p[0]) + 0.587 * f32::from(p[1]) + 0.114 * f32::from(p[2]);
        for (before, sampling) in [
            (blue_on_grey.to_vec(), ChromaSampling::Quarter),
            (pink.clone(), ChromaSampling::Quarter),
            (blue_on_grey.to_vec(), ChromaSampling::HalfWidth),
        ] {
            let mut after = before.clone();
            subsample_chroma(&mut after, 2, 2, sampling);
            for (b, a) in before.chunks(3).zip(after.chunks(3)) {
                assert!((luma(b) - luma(a)).abs() < 1.5, "{b:?} -> {a:?}");
            }
            if before == pink {
                assert_eq!(after, before, "a flat colour is unchanged");
            }
        }
        let mut after = blue_on_grey.to_vec();
        subsample_chroma(&mut after, 2, 2, ChromaSampling::Quarter);
        // The blue is spread over the block: less blue than it was, the grey ones bluish.
        assert!(after[2] < 200 && after[5] > after[3], "{after:?}");
        let mut full = blue_on_grey.to_vec();
        subsample_chroma(&mut full, 2, 2, ChromaSampling::Full);
        assert_eq!(full, blue_on_grey.to_vec());
    }
}
