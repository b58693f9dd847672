//! Capture and recognition: frames in, observed dice and meeples out. Depends on calibration only; never knows which placement is legal.
