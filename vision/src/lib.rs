//! Capture and recognition: frames in, observed dice and meeples out. Depends on calibration only; never knows which placement is legal.

pub mod capture;
pub mod error;
pub mod frame;
pub mod motion;
pub mod places;
pub mod reader;
pub mod source;

pub use capture::{
    CameraControls, CameraInfo, CameraMode, CameraOpener, CameraStatus, CaptureEvent, CaptureStats,
    ControlSetting, DeviceError, DeviceInfo, DeviceOpener, FrameDevice, LiveCapture, Mailbox,
    ModeRequest, PixelFormat, RawFrame, RawImage, WatchSettings, choose_mode, decode_mjpeg,
    jpeg_bytes, list_cameras, start_camera, yuyv_to_rgb,
};
pub use error::VisionError;
pub use frame::{gray_from_image, read_gray, read_rgb};
pub use motion::{Changes, Motion};
pub use places::TableGeometry;
pub use reader::{
    BoxPx, DiceReader, DieColor, DieReading, Found, ItemId, MeepleColor, MeepleRank, MeepleReading,
    Plan, ReaderSettings, Reading, Views, tract_plan,
};
pub use source::{
    CameraSource, DEFAULT_FPS, FRAME_RATES, Frame, FrameFiles, FrameSource, Pace, RecordedFrame,
    RecordingHeader, SourceEvent, folder_fps,
};
