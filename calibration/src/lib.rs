//! Camera-to-table geometry: marker detection, camera pose, zone projection. Knows nothing of the rules, of recognition or of the GUI.
