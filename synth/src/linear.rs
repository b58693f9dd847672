//! Linear-light RGB colours and the sRGB transfer curve.

use std::ops::{Add, Mul};

/// A linear-light colour or a per-channel factor.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rgb(pub [f32; 3]);

impl Rgb {
    pub const BLACK: Rgb = Rgb([0.0; 3]);
    pub const WHITE: Rgb = Rgb([1.0; 3]);

    pub const fn new(r: f32, g: f32, b: f32) -> Self {
        Self([r, g, b])
    }

    pub const fn gray(level: f32) -> Self {
        Self([level; 3])
    }

    pub fn sum(self) -> f32 {
        self.0.iter().sum()
    }

    pub fn max(self) -> f32 {
        self.0.iter().copied().fold(f32::MIN, f32::max)
    }

    pub fn min(self) -> f32 {
        self.0.iter().copied().fold(f32::MAX, f32::min)
    }

    /// Rec. 709 luminance.
    pub fn luminance(self) -> f32 {
        0.2126 * self.0[0] + 0.7152 * self.0[1] + 0.0722 * self.0[2]
    }

    /// `self` over `other` with coverage `alpha`.
    pub fn mix(self, other: Rgb, alpha: f32) -> Rgb {
        self * (1.0 - alpha) + other * alpha
    }

    pub fn scale(self, factor: f32) -> Rgb {
        Rgb(self.0.map(|c| c * factor))
    }
}

impl Add for Rgb {
    type Output = Rgb;
    fn add(self, other: Rgb) -> Rgb {
        Rgb([
            self.0[0] + other.0[0],
            self.0[1] + other.0[1],
            self.0[2] + other.0[2],
        ])
    }
}

impl Mul for Rgb {
    type Output = Rgb;
    fn mul(self, other: Rgb) -> Rgb {
        Rgb([
            self.0[0] * other.0[0],
            self.0[1] * other.0[1],
            self.0[2] * other.0[2],
        ])
    }
}

impl Mul<f32> for Rgb {
    type Output = Rgb;
    fn mul(self, factor: f32) -> Rgb {
        self.scale(factor)
    }
}

/// An 8-bit sRGB level in linear light.
pub fn srgb_to_linear(level: u8) -> f32 {
    let c = f32::from(level) / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Linear light as an 8-bit sRGB level (clipped like a sensor).
pub fn linear_to_srgb(value: f32) -> u8 {
    let c = value.clamp(0.0, 1.0);
    let encoded = if c <= 0.003_130_8 {
        12.92 * c
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    };
    (encoded * 255.0).round() as u8
}

/// A colour given in 8-bit sRGB, in linear light.
pub fn srgb(r: u8, g: u8, b: u8) -> Rgb {
    Rgb::new(srgb_to_linear(r), srgb_to_linear(g), srgb_to_linear(b))
}
