//! The headless subcommands of the camera side: print the play mat (`tablesight mat`) and
//! find it in a photo (`tablesight calibrate`).

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use calibration::intrinsics::{
    DEFAULT_FOV_DEG, DISTORTION_CORNERS, IntrinsicsFit, calibrate_intrinsics,
};
use calibration::tracker::MIN_MARKERS;
use calibration::{
    Camera, CameraFit, GrayFrame, Intrinsics, MarkerDetection, MarkerDetector, MatArtwork,
    MatLayout, Observation, Paper, PrintPage, SavedCalibration, fit_camera, observations,
    view_quality,
};
use pdf_writer::{Content, Finish, Name, Pdf, Rect, Ref};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use resvg::{tiny_skia, usvg};
use serde_json::json;

use crate::cli::Outcome;

/// The shipped A2 mat, or the user's layout file given with `--layout`.
pub fn layout(path: Option<&Path>) -> Result<MatLayout> {
    match path {
        None => Ok(MatLayout::a2()),
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            MatLayout::from_json(&text)
                .with_context(|| format!("{} is not a usable mat layout", path.display()))
        }
    }
}

/// SVG options that find the mat's font without any font installed on the machine.
pub(crate) fn svg_options() -> usvg::Options<'static> {
    let mut options = usvg::Options::default();
    let fonts = options.fontdb_mut();
    fonts.load_font_data(epaint_default_fonts::UBUNTU_LIGHT.to_vec());
    let family = fonts
        .faces()
        .next()
        .and_then(|face| face.families.first())
        .map(|(name, _)| name.clone());
    if let Some(family) = family {
        fonts.set_sans_serif_family(family.clone());
        options.font_family = family;
    }
    options
}

const MM_PER_INCH: f64 = 25.4;

fn png(page: &PrintPage, dpi: u32) -> Result<Vec<u8>> {
    let tree = usvg::Tree::from_str(&page.svg, &svg_options())?;
    let [w_mm, h_mm] = page.size_mm;
    let px = |mm: f64| (mm / MM_PER_INCH * f64::from(dpi)).round() as u32;
    let mut pixmap = tiny_skia::Pixmap::new(px(w_mm), px(h_mm))
        .context("the page is too large for a PNG at this resolution")?;
    pixmap.fill(tiny_skia::Color::WHITE);
    let scale_x = pixmap.width() as f32 / tree.size().width();
    let scale_y = pixmap.height() as f32 / tree.size().height();
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(scale_x, scale_y),
        &mut pixmap.as_mut(),
    );
    Ok(pixmap.encode_png()?)
}

/// All pages in one PDF, each at its paper size, vector graphics and embedded text.
fn pdf(pages: &[PrintPage]) -> Result<Vec<u8>> {
    let options = svg_options();
    let mut alloc = Ref::new(1);
    let catalog_id = alloc.bump();
    let page_tree_id = alloc.bump();
    let mut pdf = Pdf::new();
    let mut page_ids = Vec::new();
    for page in pages {
        let tree = usvg::Tree::from_str(&page.svg, &options)?;
        let (chunk, svg_id) = svg2pdf::to_chunk(&tree, svg2pdf::ConversionOptions::default())
            .map_err(|e| anyhow::anyhow!("cannot convert the mat to PDF: {e}"))?;
        let mut map = HashMap::new();
        let chunk = chunk.renumber(|old| *map.entry(old).or_insert_with(|| alloc.bump()));
        let svg_id = *map
            .get(&svg_id)
            .context("the converted page lost its drawing")?;
        let (page_id, content_id) = (alloc.bump(), alloc.bump());
        let pt = |mm: f64| (mm / MM_PER_INCH * 72.0) as f32;
        let [w, h] = page.size_mm.map(pt);
        let mut pdf_page = pdf.page(page_id);
        pdf_page.media_box(Rect::new(0.0, 0.0, w, h));
        pdf_page.parent(page_tree_id);
        pdf_page.contents(content_id);
        pdf_page.resources().x_objects().pair(Name(b"Mat"), svg_id);
        pdf_page.finish();
        let mut content = Content::new();
        content
            .transform([w, 0.0, 0.0, h, 0.0, 0.0])
            .x_object(Name(b"Mat"));
        pdf.stream(content_id, &content.finish());
        pdf.extend(&chunk);
        page_ids.push(page_id);
    }
    pdf.catalog(catalog_id).pages(page_tree_id);
    let count = page_ids.len() as i32;
    pdf.pages(page_tree_id).kids(page_ids).count(count);
    Ok(pdf.finish())
}

/// `name.ext` for one page, `name-1.ext`, `name-2.ext`... for several.
fn page_path(out: &Path, index: usize, count: usize) -> PathBuf {
    if count == 1 {
        return out.to_owned();
    }
    let stem = out
        .file_stem()
        .map_or_else(|| "mat".to_owned(), |s| s.to_string_lossy().into_owned());
    let extension = out
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default();
    out.with_file_name(format!("{stem}-{}{extension}", index + 1))
}

/// `tablesight mat --out FILE [--paper P] [--layout FILE] [--dpi N]`: the printable mat as
/// PDF (all sheets in one file), PNG or SVG (one file per sheet).
pub fn mat(
    out: &mut impl Write,
    destination: &Path,
    paper: &str,
    layout_path: Option<&Path>,
    dpi: u32,
) -> Result<Outcome> {
    let layout = layout(layout_path)?;
    let paper: Paper = paper.parse()?;
    let plan = MatArtwork::new(&layout)?.print(paper);
    let extension = destination
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let mut written = Vec::new();
    let count = plan.pages.len();
    match extension.as_str() {
        "pdf" => {
            std::fs::write(destination, pdf(&plan.pages)?)
                .with_context(|| format!("cannot write {}", destination.display()))?;
            written.push(destination.to_owned());
        }
        "png" | "svg" => {
            if !(30..=1200).contains(&dpi) {
                bail!("--dpi must be between 30 and 1200, not {dpi}");
            }
            for (index, page) in plan.pages.iter().enumerate() {
                let path = page_path(destination, index, count);
                let bytes = if extension == "png" {
                    png(page, dpi)?
                } else {
                    page.svg.clone().into_bytes()
                };
                std::fs::write(&path, bytes)
                    .with_context(|| format!("cannot write {}", path.display()))?;
                written.push(path);
            }
        }
        _ => bail!(
            "cannot tell the format of {}: name it .pdf, .png or .svg",
            destination.display()
        ),
    }
    let sheets = if count == 1 {
        format!("one {} sheet", paper.name())
    } else {
        format!(
            "{count} {} sheets, {} ({} rows of {}), overlapping by {} mm",
            paper.name(),
            if plan.landscape {
                "landscape"
            } else {
                "portrait"
            },
            plan.rows,
            plan.columns,
            calibration::print::TILE_OVERLAP_MM
        )
    };
    writeln!(out, "{} on {sheets}.", layout.name)?;
    for path in &written {
        writeln!(out, "wrote {}", path.display())?;
    }
    writeln!(
        out,
        "Print at 100 % (no \"fit to page\") and check that the scale bar measures {} mm.",
        calibration::print::SCALE_BAR_MM
    )?;
    for warning in &plan.warnings {
        writeln!(out, "warning: {warning}")?;
    }
    Ok(Outcome::Ok)
}

/// Options of `tablesight calibrate`.
pub struct CalibrateOptions<'a> {
    pub image: &'a Path,
    pub views: &'a [PathBuf],
    pub layout: Option<&'a Path>,
    pub intrinsics: Option<&'a Path>,
    pub check: Option<&'a Path>,
    pub save: Option<&'a Path>,
    pub json: bool,
}

fn detect(layout: &MatLayout, frame: &GrayFrame) -> Result<Vec<MarkerDetection>> {
    let mut detector = MarkerDetector::new(layout, frame.width, frame.height)?;
    Ok(detector.detect(frame)?)
}

fn read_saved(path: &Path) -> Result<SavedCalibration> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    SavedCalibration::from_json(&text)
        .with_context(|| format!("{} is not a calibration file", path.display()))
}

/// The camera that saw `frame`: from a saved calibration (made for frames of this size), or
/// fitted to the mat's markers in the frame itself; `None` when the frame shows too few.
pub(crate) fn camera_for(
    layout: &MatLayout,
    frame: &GrayFrame,
    saved: Option<&Path>,
) -> Result<Option<Camera>> {
    let size = [frame.width, frame.height];
    if let Some(path) = saved {
        let saved = read_saved(path)?;
        if saved.mat != layout.name {
            bail!(
                "{} was made for the mat \"{}\", not \"{}\"",
                path.display(),
                saved.mat,
                layout.name
            );
        }
        if saved.image_size_px != size {
            bail!(
                "{} was made for {}x{} frames, this image is {}x{}",
                path.display(),
                saved.image_size_px[0],
                saved.image_size_px[1],
                size[0],
                size[1]
            );
        }
        return Ok(Some(saved.camera()));
    }
    Ok(fit_view(layout, frame)?.fit.ok().map(|fit| fit.camera))
}

/// One frame of the mat: the markers found in it, and the camera fitted to them, or why
/// none is.
pub(crate) struct ViewFit {
    pub detections: Vec<MarkerDetection>,
    pub fit: std::result::Result<CameraFit, String>,
}

/// The lens of one view of the mat, when its markers are enough to tell the focal length
/// and the main distortion term from the pose ([`DISTORTION_CORNERS`] of them kept by the
/// fit) and what they give is a webcam's: a focal length within half and twice a typical
/// webcam's, radial distortion within a wide-angle webcam's barrel and a little pincushion.
fn lens_of_view(
    seen: &[Observation],
    typical: &Intrinsics,
    size: [usize; 2],
    rng: &mut ChaCha8Rng,
) -> Option<Intrinsics> {
    if seen.len() < DISTORTION_CORNERS {
        return None;
    }
    let fit = calibrate_intrinsics(&[seen.to_vec()], size[0] as u32, size[1] as u32, rng).ok()?;
    let lens = fit.intrinsics;
    let focal = lens.fx_px / typical.fx_px;
    (fit.inliers
        .iter()
        .all(|view| view.len() >= DISTORTION_CORNERS)
        && (0.5..2.0).contains(&focal)
        && (-0.45..0.15).contains(&lens.k1))
    .then_some(lens)
}

/// Finds the mat's markers in `frame` and fits the camera to them. The lens is estimated
/// from the view when enough markers are found (its focal length and main distortion
/// term), else, or when the estimate is not a webcam's, a typical webcam's lens is taken;
/// the pose is trusted only when it is plausible and fits the markers well. On the
/// rendered games' first frames the estimated lens halved the markers' reprojection error
/// and its focal length came within a few percent of the true one where the typical lens
/// was up to a third off.
pub(crate) fn fit_view(layout: &MatLayout, frame: &GrayFrame) -> Result<ViewFit> {
    let size = [frame.width, frame.height];
    let detections = detect(layout, frame)?;
    let known = detections
        .iter()
        .filter(|d| layout.marker(d.id).is_some())
        .count();
    let fit = if known < MIN_MARKERS {
        Err(format!(
            "{known} of the mat's markers found, at least {MIN_MARKERS} are needed: is the whole mat in view, lit and in focus?"
        ))
    } else {
        let seen = observations(layout, &detections);
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let typical =
            Intrinsics::from_field_of_view(size[0] as u32, size[1] as u32, DEFAULT_FOV_DEG);
        let lens = lens_of_view(&seen, &typical, size, &mut rng).unwrap_or(typical);
        match fit_camera(&seen, &lens, &mut rng) {
            Err(error) => Err(format!(
                "the camera cannot be fitted to the markers: {error}"
            )),
            Ok(fit) => plausible(&fit, size).map(|()| fit),
        }
    };
    Ok(ViewFit { detections, fit })
}

/// Whether a camera fitted to the markers of a `size` picture can be trusted: above the mat
/// at a height a camera stands at, and fitting the markers within 1 % of the picture's
/// longer side; else what is wrong, in words.
fn plausible(fit: &CameraFit, size: [usize; 2]) -> Result<(), String> {
    let height_mm = -fit.camera.position_in_table().z;
    let tolerance_px = 0.01 * size[0].max(size[1]) as f64;
    if !(100.0..5000.0).contains(&height_mm) {
        Err(format!(
            "the camera would be {height_mm:.0} mm above the mat, which cannot be: are markers misread?"
        ))
    } else if fit.reprojection_median_px >= tolerance_px {
        Err(format!(
            "the markers fit a camera badly ({:.1} px off, at most {tolerance_px:.1} px): a lens far from a webcam's, or a mat that is not flat",
            fit.reprojection_median_px
        ))
    } else {
        Ok(())
    }
}

/// `tablesight calibrate IMAGE`: finds the mat in a photo and reports the camera, the
/// reprojection error and where every zone appears.
pub fn calibrate(out: &mut impl Write, options: &CalibrateOptions) -> Result<Outcome> {
    let layout = layout(options.layout)?;
    let frame = vision::read_gray(options.image)?;
    let size = [frame.width, frame.height];
    let detections = detect(&layout, &frame)?;
    let image_name = options.image.display();

    if let Some(path) = options.check {
        let saved = read_saved(path)?;
        return match saved.check_fits(&layout, size, &detections) {
            Ok(offset_px) => {
                writeln!(
                    out,
                    "{} fits {image_name}: the markers in view are {offset_px:.2} px from where it puts them.",
                    path.display()
                )?;
                Ok(Outcome::Ok)
            }
            Err(error) => {
                eprintln!("{}: {error}", path.display());
                Ok(Outcome::Invalid)
            }
        };
    }

    let seen = observations(&layout, &detections);
    let found_ids: Vec<u32> = detections
        .iter()
        .map(|d| d.id)
        .filter(|id| layout.marker(*id).is_some())
        .collect();
    if found_ids.len() < MIN_MARKERS {
        eprintln!(
            "{image_name}: found {} marker(s) of the mat, at least {} are needed. Is the mat in view, lit and in focus?",
            found_ids.len(),
            MIN_MARKERS
        );
        return Ok(Outcome::Invalid);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let (intrinsics, estimated) = match options.intrinsics {
        Some(path) => {
            let saved = read_saved(path)?;
            if saved.image_size_px != size {
                bail!(
                    "{} was made for {}x{} frames, {image_name} is {}x{}",
                    path.display(),
                    saved.image_size_px[0],
                    saved.image_size_px[1],
                    size[0],
                    size[1]
                );
            }
            (saved.intrinsics, format!("from {}", path.display()))
        }
        None => {
            let mut views = vec![seen.clone()];
            for view in options.views {
                let other = vision::read_gray(view)?;
                if [other.width, other.height] != size {
                    bail!(
                        "{} is {}x{}, {image_name} is {}x{}: views must come from the same camera mode",
                        view.display(),
                        other.width,
                        other.height,
                        size[0],
                        size[1]
                    );
                }
                views.push(observations(&layout, &detect(&layout, &other)?));
            }
            let fit: IntrinsicsFit =
                calibrate_intrinsics(&views, size[0] as u32, size[1] as u32, &mut rng)
                    .with_context(|| "cannot estimate the camera's lens from these views")?;
            (fit.intrinsics, fit.estimated.to_owned())
        }
    };
    let fit = fit_camera(&seen, &intrinsics, &mut rng)
        .with_context(|| format!("cannot fit the camera to {image_name}"))?;
    // A lens given with --intrinsics, or estimated from other views, is trusted no more than
    // one estimated from this view: a calibration that cannot be is not saved.
    if let Err(why) = plausible(&fit, size) {
        eprintln!("{image_name}: {why}");
        return Ok(Outcome::Invalid);
    }
    let camera = fit.camera;
    let quality = view_quality(&camera, &layout, size[0], size[1]);
    let table_from_image = camera.image_from_mat().try_inverse().map(|m| m / m[(2, 2)]);
    let position = camera.position_in_table();
    let reprojection = (fit.reprojection_median_px, fit.reprojection_max_px);

    if let Some(path) = options.save {
        let saved = SavedCalibration::new(&camera, &layout, size, reprojection);
        std::fs::write(path, saved.to_json() + "\n")
            .with_context(|| format!("cannot write {}", path.display()))?;
    }

    if options.json {
        let report = json!({
            "image": options.image,
            "image_size_px": size,
            "mat": layout.name,
            "markers": detections.iter().map(|d| json!({
                "id": d.id,
                "on_mat": layout.marker(d.id).is_some(),
                "corners_px": d.corners_px.iter().map(|p| [p.x, p.y]).collect::<Vec<_>>(),
                "decision_margin": d.decision_margin,
            })).collect::<Vec<_>>(),
            "intrinsics": intrinsics,
            "intrinsics_estimated": estimated,
            "camera_position_mm": [position.x, position.y, -position.z],
            "table_from_image": table_from_image.map(|m| m.transpose().as_slice().chunks(3).map(<[f64]>::to_vec).collect::<Vec<_>>()),
            "reprojection_median_px": reprojection.0,
            "reprojection_max_px": reprojection.1,
            "corners_used": fit.inliers.len(),
            "corners_seen": seen.len(),
            "zones": quality.zones,
            "warnings": quality.warnings,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        write_report(
            out,
            &ReportParts {
                image: options.image,
                size,
                layout: &layout,
                detections: &detections,
                camera: &camera,
                estimated: &estimated,
                table_from_image,
                reprojection,
                used: fit.inliers.len(),
                seen: seen.len(),
            },
            &quality,
        )?;
    }
    if let Some(path) = options.save {
        eprintln!("saved the calibration to {}", path.display());
    }
    Ok(Outcome::Ok)
}

struct ReportParts<'a> {
    image: &'a Path,
    size: [usize; 2],
    layout: &'a MatLayout,
    detections: &'a [MarkerDetection],
    camera: &'a Camera,
    estimated: &'a str,
    table_from_image: Option<calibration::nalgebra::Matrix3<f64>>,
    reprojection: (f64, f64),
    used: usize,
    seen: usize,
}

fn write_report(
    out: &mut impl Write,
    parts: &ReportParts,
    quality: &calibration::ViewQuality,
) -> Result<()> {
    let layout = parts.layout;
    let mut ids: Vec<u32> = parts.detections.iter().map(|d| d.id).collect();
    ids.sort_unstable();
    let (on_mat, foreign): (Vec<u32>, Vec<u32>) =
        ids.into_iter().partition(|id| layout.marker(*id).is_some());
    writeln!(
        out,
        "{}: {}x{}, mat \"{}\"",
        parts.image.display(),
        parts.size[0],
        parts.size[1],
        layout.name
    )?;
    writeln!(
        out,
        "Markers found: {} of {} ({}){}",
        on_mat.len(),
        layout.markers.len(),
        on_mat
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(" "),
        if foreign.is_empty() {
            String::new()
        } else {
            format!("; not on this mat: {foreign:?}")
        }
    )?;
    let k = &parts.camera.intrinsics;
    writeln!(
        out,
        "Lens ({}): fx {:.1} px, fy {:.1} px, centre ({:.1}, {:.1}), k1 {:.4}, k2 {:.4}",
        parts.estimated, k.fx_px, k.fy_px, k.cx_px, k.cy_px, k.k1, k.k2
    )?;
    let position = parts.camera.position_in_table();
    writeln!(
        out,
        "Camera: {:.0} mm above the mat, over the point ({:.0}, {:.0}) mm of the mat",
        -position.z, position.x, position.y
    )?;
    if let Some(m) = parts.table_from_image {
        writeln!(
            out,
            "Table from image (mat mm from undistorted px, homogeneous):"
        )?;
        for row in 0..3 {
            writeln!(
                out,
                "  [{:>12.6} {:>12.6} {:>12.4}]",
                m[(row, 0)],
                m[(row, 1)],
                m[(row, 2)]
            )?;
        }
    }
    writeln!(
        out,
        "Reprojection error: median {:.2} px, max {:.2} px ({} of {} marker corners used)",
        parts.reprojection.0, parts.reprojection.1, parts.used, parts.seen
    )?;
    writeln!(
        out,
        "Zones (image position at the mat; towers also at floor 5):"
    )?;
    for zone in &quality.zones {
        let at = |p: Option<&[f64; 2]>| {
            p.map_or_else(
                || "behind the camera".to_owned(),
                |[x, y]| format!("({x:7.1}, {y:7.1})"),
            )
        };
        let top = if zone.floors_px.is_empty() {
            String::new()
        } else {
            format!("  floor 5 {}", at(zone.floors_px.last()))
        };
        writeln!(
            out,
            "  {:<14} {}{top}  {:.2} mm/px, a die {:.0} px{}",
            zone.name,
            at(zone.center_px.as_ref()),
            zone.mm_per_px.unwrap_or(f64::NAN),
            zone.die_px.unwrap_or(f64::NAN),
            if zone.in_view {
                ""
            } else {
                "  (not wholly in view)"
            }
        )?;
    }
    for warning in &quality.warnings {
        writeln!(out, "warning: {warning}")?;
    }
    Ok(())
}
