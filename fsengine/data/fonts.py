"""Font faces for the notMNIST-style letter generator: discovery, glyph checks, de-duplication.

notMNIST (Bulatov 2011) holds the letters A-J rendered from publicly available fonts. The
generator in :mod:`fsengine.data.letters` does the same with every face this machine has: the
system fonts (found by ``matplotlib.font_manager``) and the fonts shipped inside installed Python
packages (matplotlib's ``mpl-data/fonts/ttf``, streamlit's static media, ...), in whatever format
Pillow opens (TrueType, OpenType, collections, WOFF/WOFF2; variable fonts contribute their named
instances). matplotlib is a dependency for this: its 40-odd bundled DejaVu, STIX and Computer
Modern faces are what make the generated letters (the default images when real notMNIST is
absent) possible on any machine, and its font manager knows where each platform keeps fonts.

A face is kept only when its A-J glyphs are real letters:

- no letter renders blank;
- no letter renders like the font's missing-glyph box (the render of an unassigned code point);
- no two of its letters look alike after notMNIST normalisation (symbol fonts such as
  ``cmex10`` map A-J to delimiter pieces that stretch to the same block);

and only when it is not a duplicate of a face kept before it (same family and style name, or
normalised A-J renders closer than :data:`FACE_DISTANCE`, e.g. the same DejaVu file shipped both by
the system and by matplotlib). Every dropped face is reported with its reason.
"""

from __future__ import annotations

import functools
import importlib.metadata as metadata
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

LETTERS = "ABCDEFGHIJ"
FONT_SUFFIXES = (".ttf", ".otf", ".ttc", ".otc", ".woff", ".woff2")
#: glyph size in pixels for rendering, before the reduction to 28x28
RENDER_PX = 96
#: side of the normalised glyph (notMNIST's 28x28)
SIDE = 28
#: two letters of one face closer than this (:func:`ink_distance` of their normalised renders)
#: count as the same glyph; real fonts stay above 0.05 (E vs F of hairline italics), the
#: delimiter pieces cmex10 maps to B and C are at 0.002
LETTER_DISTANCE = 0.03
#: two faces whose normalised A-J renders are closer than this (mean ink distance over the ten
#: letters) are one face for the dataset: DejaVu Sans Condensed vs DejaVu Sans is 0.02 once both
#: are stretched to 28x28, distinct families are above 0.1
FACE_DISTANCE = 0.05
#: an unassigned code point (plane-16 private use): renders as the font's missing-glyph box
MISSING_CODEPOINT = "\U0010FFFD"
#: a pixel is ink when at least this bright (0-255): the faint anti-aliasing fringe some faces
#: leave far from the glyph must not widen its ink box (the glyph would then fill less of the frame)
INK_LEVEL = 96
_MAX_COLLECTION_FACES = 64


@dataclass(frozen=True)
class Face:
    """One renderable face: a font file, its index in a collection and a variable-font instance."""

    path: str
    index: int = 0
    instance: str = ""
    family: str = ""
    style: str = ""

    @property
    def name(self) -> str:
        return f"{self.family} {self.style}".strip() or Path(self.path).name

    def open(self, size: int = RENDER_PX) -> ImageFont.FreeTypeFont:
        """The Pillow font at ``size`` pixels (basic layout: one glyph per character)."""
        font = ImageFont.truetype(self.path, size, index=self.index,
                                  layout_engine=ImageFont.Layout.BASIC)
        if self.instance:
            font.set_variation_by_name(self.instance)
        return font


@dataclass(frozen=True)
class FaceInventory:
    """Faces kept for rendering and the ones dropped, each with its reason."""

    faces: tuple[Face, ...]
    dropped: tuple[tuple[str, str], ...]  # (face or file, reason)
    n_files: int

    def reason_counts(self) -> dict[str, int]:
        """How many faces were dropped for each kind of reason (text before the first colon)."""
        return dict(Counter(reason.split(":")[0] for _, reason in self.dropped))


# ----------------------------------------------------------------------------------- discovery
def _is_font(path: Path) -> bool:
    return path.suffix.lower() in FONT_SUFFIXES


def system_font_files() -> list[Path]:
    """The machine's font files as matplotlib's font manager finds them (fontconfig's list where
    it exists, else the platform's font folders; TrueType, OpenType and collections)."""
    from matplotlib import font_manager

    return sorted({Path(p) for p in font_manager.findSystemFonts(fontext="ttf")})


def _normalise_dist_name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def package_font_files(packages: Iterable[str] | None = None) -> list[Path]:
    """Font files shipped inside installed Python distributions (all, or only ``packages``).

    Uses each distribution's file list (its RECORD), so no folder walk over site-packages; the
    answer is remembered for the life of the process (installing a package needs a restart).
    """
    key = None if packages is None else tuple(sorted({_normalise_dist_name(p) for p in packages}))
    return list(_package_font_files(key))


@functools.lru_cache(maxsize=8)
def _package_font_files(wanted: tuple[str, ...] | None) -> tuple[Path, ...]:
    found = []
    for dist in metadata.distributions():
        name = dist.metadata["Name"] or ""
        if wanted is not None and _normalise_dist_name(name) not in wanted:
            continue
        for rel in dist.files or ():
            if _is_font(Path(str(rel))):
                path = Path(dist.locate_file(rel))
                if path.is_file():
                    found.append(path)
    return tuple(sorted(found))


def candidate_font_files(*, include_system: bool = True, packages: Iterable[str] | None = None
                         ) -> list[Path]:
    """System fonts (optional) plus package fonts, without repeats (by resolved path)."""
    files = (system_font_files() if include_system else []) + package_font_files(packages)
    seen, out = set(), []
    for path in files:
        real = path.resolve()
        if real not in seen:
            seen.add(real)
            out.append(path)
    return sorted(out, key=str)


# ----------------------------------------------------------------------------------- rendering
def ink_box(image: Image.Image) -> tuple[int, int, int, int] | None:
    """Bounding box (left, top, right, bottom) of the pixels at least :data:`INK_LEVEL` bright."""
    return image.point(lambda v: 255 if v >= INK_LEVEL else 0).getbbox()


def render_glyph(font: ImageFont.FreeTypeFont, char: str) -> Image.Image | None:
    """The glyph of ``char`` as a grayscale image cropped to its ink box (:func:`ink_box`; white
    on black), or None when it leaves no ink."""
    left, top, right, bottom = font.getbbox(char)
    pad = int(font.size)
    canvas = Image.new("L", (max(right - left, 1) + 2 * pad, max(bottom - top, 1) + 2 * pad), 0)
    ImageDraw.Draw(canvas).text((pad - left, pad - top), char, font=font, fill=255)
    box = ink_box(canvas)
    return None if box is None else canvas.crop(box)


def normalise(glyph: Image.Image, side: int = SIDE) -> np.ndarray:
    """notMNIST normalisation: the ink box stretched to fill ``side`` x ``side``, values in [0, 1].

    notMNIST's glyphs fill their 28x28 frame in both directions (a sans-serif I becomes a block),
    so the aspect ratio is not kept.
    """
    return np.asarray(glyph.resize((side, side), Image.Resampling.LANCZOS), dtype=np.float64) / 255.0


def ink_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Share of ink that differs between two renders: sum|a - b| / (sum a + sum b), in [0, 1]
    (over the last two axes). Relative to the ink, so hairline faces are judged like bold ones."""
    total = a.sum(axis=(-2, -1)) + b.sum(axis=(-2, -1))
    return np.abs(a - b).sum(axis=(-2, -1)) / np.maximum(total, 1e-12)


def _faces_in_file(path: Path) -> list[Face]:
    """Every face of a file: collection members and named instances of variable fonts."""
    indices = range(_MAX_COLLECTION_FACES) if path.suffix.lower() in (".ttc", ".otc") else (0,)
    faces = []
    for index in indices:
        try:
            font = ImageFont.truetype(str(path), RENDER_PX, index=index)
        except OSError:
            if index == 0:
                raise
            break
        family, style = font.getname()
        try:
            instances = [n.decode() if isinstance(n, bytes) else str(n) for n in font.get_variation_names()]
        except (OSError, ValueError, AttributeError):
            instances = []
        if instances:
            faces += [Face(str(path), index, inst, family or "", inst) for inst in instances]
        else:
            faces.append(Face(str(path), index, "", family or "", style or ""))
    return faces


def _check_face(face: Face) -> tuple[np.ndarray | None, str]:
    """Normalised A-J renders (10, 28, 28) of a face, or None and the reason it is unusable."""
    try:
        font = face.open()
    except (OSError, ValueError) as exc:
        return None, f"unreadable: {exc}"
    glyphs = [render_glyph(font, ch) for ch in LETTERS]
    blank = [ch for ch, g in zip(LETTERS, glyphs) if g is None]
    if blank:
        return None, f"no glyph for A-J: {''.join(blank)} render(s) blank"
    renders = np.stack([normalise(g) for g in glyphs])
    missing = render_glyph(font, MISSING_CODEPOINT)
    if missing is not None:
        box = normalise(missing)
        as_box = [ch for ch, d in zip(LETTERS, ink_distance(renders, box)) if d < LETTER_DISTANCE]
        if as_box:
            return None, f"no glyph for A-J: {''.join(as_box)} render(s) as the missing-glyph box"
    diff = ink_distance(renders[:, None], renders[None])
    np.fill_diagonal(diff, np.inf)
    i, j = np.unravel_index(np.argmin(diff), diff.shape)
    if diff[i, j] < LETTER_DISTANCE:
        return None, f"symbol or placeholder glyphs: {LETTERS[i]} and {LETTERS[j]} look alike"
    return renders, ""


def discover_faces(files: Iterable[Path]) -> FaceInventory:
    """Check every face of ``files`` (in order) and keep the distinct ones with real A-J glyphs."""
    files = list(files)
    kept, kept_renders, kept_names, dropped = [], [], {}, []
    for path in files:
        try:
            faces = _faces_in_file(Path(path))
        except (OSError, ValueError) as exc:
            dropped.append((str(path), f"unreadable: {exc}"))
            continue
        for face in faces:
            label = f"{face.name} ({Path(face.path).name})"
            renders, reason = _check_face(face)
            if renders is None:
                dropped.append((label, reason))
                continue
            if face.name in kept_names:
                dropped.append((label, f"duplicate face: same name as {kept_names[face.name]}"))
                continue
            if kept_renders:
                dist = ink_distance(np.stack(kept_renders), renders).mean(axis=1)
                nearest = int(np.argmin(dist))
                if dist[nearest] < FACE_DISTANCE:
                    dropped.append((label, f"duplicate face: renders like {kept[nearest].name}"))
                    continue
            kept.append(face)
            kept_renders.append(renders)
            kept_names[face.name] = f"{face.name} ({Path(face.path).name})"
    return FaceInventory(tuple(kept), tuple(dropped), len(files))
