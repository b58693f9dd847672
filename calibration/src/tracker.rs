//! Following the mat from frame to frame: each frame's fit is smoothed into the pose in use,
//! the last good fit is kept while hands cover markers, and a camera or mat that moved is
//! tracked again once a few frames agree on where it went.

use std::fmt;

use nalgebra::{Isometry3, Translation3};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::camera::{Camera, Intrinsics};
use crate::layout::MatLayout;
use crate::markers::{MarkerDetection, observations};
use crate::pose::{Observation, fit_camera, reprojection_errors};

/// How the tracker stands after a frame, in terms the app can show.
#[derive(Clone, Debug, PartialEq)]
pub enum TrackStatus {
    /// No fit yet.
    Searching { markers_seen: usize },
    /// The pose in use was refreshed from this frame.
    Tracking { markers_seen: usize },
    /// Too few markers to fit (hands, arms); the last good fit is kept, and the markers still
    /// visible agree with it.
    Holding {
        markers_seen: usize,
        frames_since_fit: usize,
    },
    /// The visible markers are not where the fit in use expects them: the camera or the mat
    /// moved. The old fit is kept until enough frames agree on the new one.
    Moved { markers_seen: usize, offset_px: f64 },
}

impl fmt::Display for TrackStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrackStatus::Searching { markers_seen } => write!(
                f,
                "looking for the mat: {markers_seen} marker(s) in view, at least {MIN_MARKERS} needed"
            ),
            TrackStatus::Tracking { markers_seen } => {
                write!(f, "tracking the mat ({markers_seen} markers in view)")
            }
            TrackStatus::Holding {
                markers_seen,
                frames_since_fit,
            } => write!(
                f,
                "markers covered ({markers_seen} in view): keeping the last good fit, {frames_since_fit} frame(s) old"
            ),
            TrackStatus::Moved {
                markers_seen,
                offset_px,
            } => write!(
                f,
                "the camera or the mat moved ({markers_seen} markers in view are {offset_px:.0} px from where they were): tracking it again"
            ),
        }
    }
}

/// Fewest markers for a fit from one frame: three, so that one misread marker is outvoted.
pub const MIN_MARKERS: usize = 3;
/// Visible markers further than this (median over corners) from the pose in use mean that
/// something moved (the default of [`Tracker::with_moved_px`]).
pub const MOVED_PX: f64 = 4.0;
/// Frames in a row that must agree on a new pose before the tracker jumps to it.
pub const RETRACK_FRAMES: usize = 3;

/// Follows the camera's pose over frames of one camera.
pub struct Tracker {
    layout: MatLayout,
    intrinsics: Intrinsics,
    /// Weight of a new frame's fit in the smoothed pose (1 = no smoothing).
    smoothing: f64,
    /// Median offset of the visible markers beyond which the camera or the mat moved.
    moved_px: f64,
    current: Option<Camera>,
    frames_since_fit: usize,
    moved_frames: usize,
    rng: ChaCha8Rng,
}

impl Tracker {
    pub fn new(layout: MatLayout, intrinsics: Intrinsics) -> Self {
        Self {
            layout,
            intrinsics,
            smoothing: 0.3,
            moved_px: MOVED_PX,
            current: None,
            frames_since_fit: 0,
            moved_frames: 0,
            rng: ChaCha8Rng::seed_from_u64(0),
        }
    }

    /// Starts from a saved calibration instead of searching.
    pub fn with_camera(mut self, camera: Camera) -> Self {
        self.intrinsics = camera.intrinsics;
        self.current = Some(camera);
        self
    }

    /// Markers this far (median, pixels) from where the pose in use puts them mean the camera
    /// or the mat moved. A lens guessed from one view (no saved calibration) leaves markers
    /// several pixels off where the pose puts them, more so when hands cover some: a
    /// threshold under that would see a still camera move.
    pub fn with_moved_px(mut self, moved_px: f64) -> Self {
        self.moved_px = moved_px;
        self
    }

    /// The pose in use, if any.
    pub fn camera(&self) -> Option<&Camera> {
        self.current.as_ref()
    }

    /// Takes one frame's detections and returns the status after it.
    pub fn update(&mut self, detections: &[MarkerDetection]) -> TrackStatus {
        let seen = observations(&self.layout, detections);
        let markers_seen = seen.len() / 4;
        let fit = (markers_seen >= MIN_MARKERS)
            .then(|| fit_camera(&seen, &self.intrinsics, &mut self.rng).ok())
            .flatten();
        let Some(current) = self.current else {
            return match fit {
                None => TrackStatus::Searching { markers_seen },
                Some(fit) => {
                    self.adopt(fit.camera);
                    TrackStatus::Tracking { markers_seen }
                }
            };
        };
        let offset_px = offset(&current, &seen);
        let moved = markers_seen > 0 && offset_px > self.moved_px;
        match fit {
            Some(fit) if !moved => {
                self.adopt(Camera {
                    intrinsics: self.intrinsics,
                    camera_from_table: blend(
                        &current.camera_from_table,
                        &fit.camera.camera_from_table,
                        self.smoothing,
                    ),
                });
                TrackStatus::Tracking { markers_seen }
            }
            Some(fit) => {
                self.moved_frames += 1;
                self.frames_since_fit += 1;
                if self.moved_frames >= RETRACK_FRAMES {
                    self.adopt(fit.camera);
                    TrackStatus::Tracking { markers_seen }
                } else {
                    TrackStatus::Moved {
                        markers_seen,
                        offset_px,
                    }
                }
            }
            None => {
                self.frames_since_fit += 1;
                if moved {
                    TrackStatus::Moved {
                        markers_seen,
                        offset_px,
                    }
                } else {
                    TrackStatus::Holding {
                        markers_seen,
                        frames_since_fit: self.frames_since_fit,
                    }
                }
            }
        }
    }

    fn adopt(&mut self, camera: Camera) {
        self.current = Some(camera);
        self.frames_since_fit = 0;
        self.moved_frames = 0;
    }
}

/// Median distance of the observations from where `camera` puts them (0 when none).
fn offset(camera: &Camera, seen: &[Observation]) -> f64 {
    reprojection_errors(camera, seen).0
}

/// The pose a fraction `t` of the way from `a` to `b`.
fn blend(a: &Isometry3<f64>, b: &Isometry3<f64>, t: f64) -> Isometry3<f64> {
    Isometry3::from_parts(
        Translation3::from(a.translation.vector.lerp(&b.translation.vector, t)),
        a.rotation.slerp(&b.rotation, t),
    )
}
