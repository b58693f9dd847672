//! `tablesight synth`: rendered training scenes, whole rendered games, and the contact sheet
//! of rendered scenes beside real photographs.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use rules::PlayerColor;
use synth::{SpriteSheet, Studio};

use crate::cli::Outcome;

/// A share from 0 to 1, such as `--rest-share 0.5`.
pub fn parse_share(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(share) if (0.0..=1.0).contains(&share) => Ok(share),
        _ => Err(format!("{text} is not a share from 0 to 1")),
    }
}

/// Parses `640x480`.
pub fn parse_size(text: &str) -> Result<(usize, usize), String> {
    let (w, h) = text
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("expected WIDTHxHEIGHT such as 640x480, found {text}"))?;
    let parse = |s: &str| {
        s.trim()
            .parse::<usize>()
            .map_err(|_| format!("{s} is not a whole number of pixels"))
    };
    let size = (parse(w)?, parse(h)?);
    if !(64..=4096).contains(&size.0) || !(48..=4096).contains(&size.1) {
        return Err(format!("{text}: frames are 64x48 to 4096x4096 pixels"));
    }
    Ok(size)
}

/// The studio with the sprites of `sprites` (a folder of `render_sprites.py`), or the
/// committed ones.
fn studio(sprites: Option<&Path>) -> anyhow::Result<Studio> {
    let sheet = match sprites {
        Some(dir) => SpriteSheet::from_dir(dir)?,
        None => SpriteSheet::embedded()?,
    };
    Ok(Studio::with_sprites(sheet)?)
}

pub struct ScenesOptions<'a> {
    pub dir: &'a Path,
    pub seed: u64,
    pub count: usize,
    pub size: (usize, usize),
    pub threads: usize,
    pub sprites: Option<&'a Path>,
}

pub fn scenes(out: &mut impl Write, options: &ScenesOptions<'_>) -> anyhow::Result<Outcome> {
    let ScenesOptions {
        dir,
        seed,
        count,
        size,
        threads,
        sprites,
    } = *options;
    let studio = studio(sprites)?;
    let summary = synth::write_scenes(&studio, dir, seed, count, size, threads)?;
    writeln!(
        out,
        "{} scenes ({}x{}) in {}: {} dice and {} meeples labelled, {:.1} s on {} threads = {:.0} scenes a minute",
        summary.scenes,
        size.0,
        size.1,
        dir.display(),
        summary.dice,
        summary.meeples,
        summary.seconds,
        summary.threads,
        summary.scenes_per_minute
    )?;
    Ok(Outcome::Ok)
}

pub struct GameOptions<'a> {
    pub dir: &'a Path,
    pub seed: u64,
    pub players: &'a [PlayerColor],
    pub actions: Option<usize>,
    pub size: (usize, usize),
    pub fps: u32,
    /// `synth::GameRequest::rest_share`.
    pub rest_share: f64,
    pub sprites: Option<&'a Path>,
}

pub fn game(out: &mut impl Write, options: &GameOptions<'_>) -> anyhow::Result<Outcome> {
    crate::capture_cli::prepare_folder(options.dir)?;
    let studio = studio(options.sprites)?;
    let summary = synth::render_game(
        &studio,
        &synth::GameRequest {
            seed: options.seed,
            players: options.players.to_vec(),
            max_actions: options.actions,
            size: options.size,
            fps: options.fps,
            illegal_share: 0.25,
            rest_share: options.rest_share,
        },
        options.dir,
    )
    .with_context(|| format!("rendering the game into {}", options.dir.display()))?;
    writeln!(
        out,
        "{} frames at {} fps ({:.1} s of video) in {}: {} actions, {} of them staged illegal placements; {:.1} s to render",
        summary.frames,
        options.fps,
        summary.frames as f64 / f64::from(options.fps),
        options.dir.display(),
        summary.actions,
        summary.illegal,
        summary.seconds
    )?;
    Ok(Outcome::Ok)
}
