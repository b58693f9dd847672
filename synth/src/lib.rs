//! The synthetic table: webcam pictures of The Towers of Arkhanos, rendered from a seed and a
//! game state, with exact labels (every die's colour, value, box and place, every meeple's
//! colour, rank, box and place, the camera, the snapshot of the table); and whole games as
//! frame sequences with the true action log.
//!
//! Dice and meeples are sprites rendered by a physically based renderer (Mitsuba 3, see
//! `models/render/render_sprites.py`); this crate places them in perspective on the printed
//! mat (or a bare table) with tower floors, spellbooks and clutter, then takes the picture through a webcam
//! model. Nothing here reads a camera or a file except where the caller asks to write one.

/// The renderer's version: within one, a seed renders the same pictures; it goes up when
/// they change (2: colour subsampled as webcams send it), so that a cache of rendered
/// pictures (the app's demo) is not played against figures of another version.
pub const RENDERER_VERSION: u32 = 2;

mod canvas;
mod clutter;
mod dataset;
mod error;
mod game;
mod layout;
mod linear;
mod optics;
mod scene;
mod sprites;
mod surface;

pub use clutter::{Card, Clutter, Cup, Hand, StrayDie, Tray};
pub use dataset::{DatasetSummary, random_scene, write_scenes};
pub use error::SynthError;
pub use game::{GameRequest, GameSummary, LoggedAction, render_game};
pub use layout::{Place, TableLayout, lay_out, tower_zone};
pub use optics::{AutoExposure, ChromaSampling, Look};
pub use scene::{DieLabel, Frame, Labels, MeepleLabel, OtherDieLabel, Scene, Shot, Studio, Truth};
pub use sprites::SpriteSheet;
pub use surface::TableSurface;
