"""``screenshot_diff``: an element's pixels against a baseline image, with masks and a tolerance.

Baselines are per platform: ``login.png`` in a scenario means
``login.<platform>.png`` beside the scenario when that file exists (fonts and
themes differ between Windows and Linux), else ``login.png``. A pixel differs
when one of its channels differs by more than ``pixel_tolerance``; the
assertion holds when the fraction of differing pixels (outside the masks) is
at most ``threshold``. A failed comparison saves the actual image and a diff
image (differing pixels red over a faded copy of the baseline).
"""

from __future__ import annotations

import io
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image


def platform_tag() -> str:
    if sys.platform.startswith("win"):
        return "windows"
    if sys.platform == "darwin":
        return "darwin"
    return "linux"


def baseline_path(base_dir: Path, baseline: str) -> Path:
    """The platform's own baseline when it exists, else the shared one (which may not exist yet)."""
    shared = (base_dir / baseline).resolve()
    own = shared.with_name(f"{shared.stem}.{platform_tag()}{shared.suffix}")
    return own if own.exists() or not shared.exists() else shared


@dataclass
class DiffResult:
    ok: bool
    ratio: float
    differing: int
    compared: int
    size_mismatch: str | None = None
    diff_png: bytes | None = None


def compare(
    actual_png: bytes,
    baseline_png: bytes,
    *,
    threshold: float,
    pixel_tolerance: int,
    masks: list[tuple[int, int, int, int]] = (),  # type: ignore[assignment]
) -> DiffResult:
    actual = _rgb(actual_png)
    baseline = _rgb(baseline_png)
    if actual.shape != baseline.shape:
        return DiffResult(
            ok=False, ratio=1.0, differing=0, compared=0,
            size_mismatch=f"{actual.shape[1]}x{actual.shape[0]} against a baseline of {baseline.shape[1]}x{baseline.shape[0]}",
        )  # fmt: skip
    keep = np.ones(actual.shape[:2], dtype=bool)
    for x, y, width, height in masks:
        keep[max(y, 0) : max(y + height, 0), max(x, 0) : max(x + width, 0)] = False
    delta = np.abs(actual.astype(np.int16) - baseline.astype(np.int16)).max(axis=2)
    differs = (delta > pixel_tolerance) & keep
    compared = int(keep.sum())
    count = int(differs.sum())
    ratio = count / compared if compared else 0.0
    ok = ratio <= threshold
    diff_png = None if ok else _diff_image(baseline, differs, keep)
    return DiffResult(ok=ok, ratio=ratio, differing=count, compared=compared, diff_png=diff_png)


def _rgb(png: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(png)) as image:
        return np.asarray(image.convert("RGB"))


def _diff_image(baseline: np.ndarray, differs: np.ndarray, keep: np.ndarray) -> bytes:
    faded = (baseline.astype(np.float32) * 0.3 + 255 * 0.7).astype(np.uint8)
    faded[~keep] = (200, 200, 255)  # masked regions show blue
    faded[differs] = (255, 0, 0)
    buffer = io.BytesIO()
    Image.fromarray(faded, "RGB").save(buffer, format="PNG")
    return buffer.getvalue()
