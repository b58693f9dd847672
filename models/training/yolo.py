"""YOLO label files (one line a box: class, centre x, centre y, width, height, all but the
class as shares of the image's sides), read into pixels and written back."""

from pathlib import Path


def read_boxes(label: Path, width: int, height: int) -> list[tuple[str, float, float, float, float]]:
    """Each box of `label` (none when it does not exist): class, centre x, centre y, width
    and height in the pixels of a `width` x `height` image."""
    boxes = []
    for line in label.read_text().split("\n") if label.exists() else []:
        if line.strip():
            cls, cx, cy, w, h = line.split()[:5]
            boxes.append((cls, float(cx) * width, float(cy) * height, float(w) * width, float(h) * height))
    return boxes


def box_line(cls: str, cx: float, cy: float, w: float, h: float, width: float, height: float) -> str:
    """A box in pixels as a label line of a `width` x `height` image."""
    return f"{cls} {cx / width:.6f} {cy / height:.6f} {w / width:.6f} {h / height:.6f}"
