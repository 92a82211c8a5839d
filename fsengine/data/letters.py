"""notMNIST-style letters generated from the fonts on this machine (the default image data when
no real notMNIST is present).

notMNIST (Bulatov 2011) renders A-J from public fonts and stretches each glyph's ink box to fill a
28x28 frame (aspect ratio not kept: a sans-serif I becomes a block), white ink on black. We do
the same with every usable face :mod:`fsengine.data.fonts` finds, and add light, seeded
augmentation so that repeated draws of one face differ:

- stroke weight: the high-resolution glyph is thickened (3x3 maximum filter, p = 0.3), thinned
  (3x3 minimum filter, p = 0.2, skipped when it would erase a hairline) or left alone;
- scale: the ink box fills a fraction in [0.85, 1] of the frame, independently per axis;
- shift: the box sits up to 2 px off centre, always inside the frame.

Each letter's images come from their own random stream (seed, letter), so ``letters="BD"`` gives
the same B and D images as ``letters="ABCD"``. Faces are drawn with equal total weight per font
family, so one large variable-font family does not crowd out the rest. Results are cached as
``.npz`` under :func:`fsengine.config.cache_dir` (``letters/``), keyed by the generator version,
the font files found and the parameters; the face check itself is cached too.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import numpy as np
from PIL import Image, ImageFilter

from fsengine import config
from fsengine.data.dataset import Dataset, Provenance
from fsengine.data.fonts import Face, FaceInventory, candidate_font_files, discover_faces, normalise, render_glyph
from fsengine.data.limits import check_npz
from fsengine.data.notmnist import IMAGE_SHAPE, LETTERS, _letter_code, pixel_names
from fsengine.files import write_whole
from fsengine.jsonio import json_text

#: bump when rendering or augmentation changes (invalidates the cache)
GENERATOR_VERSION = 2
SUPERSAMPLE = 4
SCALE_RANGE = (0.85, 1.0)
MAX_SHIFT_PX = 2.0
#: the ink span (of 28 pixels) a thinned stroke must keep; thinning is skipped otherwise
MIN_SPAN = 24
STROKE_CHOICES = ("keep", "thicken", "thin")
STROKE_PROBS = (0.5, 0.3, 0.2)
AUGMENTATION = ("stroke weight jitter (3x3 max/min filter at 96 px, p = 0.3/0.2), "
                f"scale {SCALE_RANGE[0]:.0%}-{SCALE_RANGE[1]:.0%} per axis, "
                f"shift up to {MAX_SHIFT_PX:g} px")


def _cache_folder() -> Path:
    folder = config.cache_dir() / "letters"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _fingerprint(files: list[Path]) -> str:
    """Identity of the font inventory: paths, sizes and modification times."""
    h = hashlib.sha256(f"fonts-v{GENERATOR_VERSION}".encode())
    for path in files:
        st = path.stat()
        h.update(f"{path}|{st.st_size}|{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:20]


def font_inventory(*, include_system: bool = True, packages=None, use_cache: bool = True
                   ) -> tuple[FaceInventory, str]:
    """The checked faces (cached by the font files' fingerprint) and that fingerprint."""
    files = candidate_font_files(include_system=include_system, packages=packages)
    key = _fingerprint(files)
    path = _cache_folder() / f"faces-{key}.json"
    if use_cache and path.exists():
        try:
            raw = json.loads(path.read_text())
            return FaceInventory(tuple(Face(**f) for f in raw["faces"]),
                                 tuple(tuple(d) for d in raw["dropped"]), raw["n_files"]), key
        except (ValueError, KeyError, TypeError):
            path.unlink(missing_ok=True)
    inventory = discover_faces(files)
    if use_cache:
        payload = {"faces": [f.__dict__ for f in inventory.faces],
                   "dropped": [list(d) for d in inventory.dropped], "n_files": inventory.n_files}
        write_whole(path, lambda fh: fh.write(json_text(payload).encode()))
    return inventory, key


def _survives_at_28(glyph: Image.Image) -> bool:
    """True when the glyph's ink (> 0.2 after notMNIST normalisation) still spans at least
    :data:`MIN_SPAN` pixels in both directions."""
    ink = normalise(glyph) > 0.2
    return bool(ink.any(axis=1).sum() >= MIN_SPAN and ink.any(axis=0).sum() >= MIN_SPAN)


def augment(glyph: Image.Image, rng: np.random.Generator) -> np.ndarray:
    """One 28x28 uint8 image of a glyph (cropped to its ink) with the documented augmentation."""
    stroke = rng.choice(STROKE_CHOICES, p=STROKE_PROBS)
    if stroke == "thicken":
        glyph = glyph.filter(ImageFilter.MaxFilter(3))
    elif stroke == "thin":
        thinner = glyph.filter(ImageFilter.MinFilter(3))
        if _survives_at_28(thinner):      # hairline faces would fade away at 28x28: keep them
            glyph = thinner
    side = IMAGE_SHAPE[0] * SUPERSAMPLE
    scale = rng.uniform(*SCALE_RANGE, size=2)
    w, h = (max(1, int(round(side * s))) for s in scale)
    shift = rng.uniform(-MAX_SHIFT_PX, MAX_SHIFT_PX, size=2) * SUPERSAMPLE
    x0 = int(round(np.clip((side - w) / 2 + shift[0], 0, side - w)))
    y0 = int(round(np.clip((side - h) / 2 + shift[1], 0, side - h)))
    canvas = Image.new("L", (side, side), 0)
    canvas.paste(glyph.resize((w, h), Image.Resampling.LANCZOS), (x0, y0))
    return np.asarray(canvas.reduce(SUPERSAMPLE), dtype=np.uint8)


def _family_weights(faces: tuple[Face, ...]) -> np.ndarray:
    """Sampling weight per face: every family gets the same total weight."""
    sizes = Counter(f.family for f in faces)
    w = np.array([1.0 / sizes[f.family] for f in faces])
    return w / w.sum()


def generate_letters(inventory: FaceInventory, letters=LETTERS, n_per_class: int = 500,
                     seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(images uint8 (n, 28, 28), labels 0-9 for A-J, face index per image)."""
    if not inventory.faces:
        raise ValueError(
            "No usable font face found for the generated letters (checked "
            f"{inventory.n_files} font files). Install the project's dependencies (matplotlib "
            "ships the DejaVu, STIX and Computer Modern fonts) or add fonts to /usr/share/fonts.")
    if n_per_class < 1:
        raise ValueError(f"n_per_class must be at least 1, got {n_per_class}")
    weights = _family_weights(inventory.faces)
    fonts = {}
    images, labels, face_of = [], [], []
    for letter in letters:
        code = _letter_code(letter)
        rng = np.random.default_rng([seed, code])
        chosen = rng.choice(len(inventory.faces), size=n_per_class, p=weights)
        glyphs = {}
        for k in chosen:
            if k not in glyphs:
                face = inventory.faces[k]
                fonts.setdefault(k, face.open())
                glyphs[k] = render_glyph(fonts[k], LETTERS[code])
            images.append(augment(glyphs[k], rng))
            labels.append(code)
            face_of.append(k)
    return np.stack(images), np.asarray(labels, dtype=np.int64), np.asarray(face_of, dtype=np.int64)


def load_letters(letters=LETTERS, n_per_class: int = 500, seed: int = 0, *,
                 include_system: bool = True, packages=None, use_cache: bool = True) -> Dataset:
    """Generated notMNIST-style letters as a Dataset (pixels in [0, 1], labels 0-9 = A-J).

    ``include_system`` and ``packages`` choose where fonts are looked for (default: system folders
    and every installed distribution). The provenance counts the faces used and says why the
    others were dropped.
    """
    letters = tuple(LETTERS[_letter_code(ch)] for ch in letters)
    inventory, font_key = font_inventory(include_system=include_system, packages=packages,
                                         use_cache=use_cache)
    key = hashlib.sha256(
        f"v{GENERATOR_VERSION}|{font_key}|{''.join(letters)}|{n_per_class}|{seed}".encode()
    ).hexdigest()[:20]
    path = _cache_folder() / f"letters-{key}.npz"
    arrays = None
    if use_cache and path.exists():
        try:
            check_npz(path)
            with np.load(path) as z:
                arrays = z["images"], z["labels"], z["faces"]
        except (OSError, ValueError, KeyError):
            path.unlink(missing_ok=True)
    if arrays is None:
        arrays = generate_letters(inventory, letters, n_per_class, seed)
        if use_cache:
            write_whole(path, lambda fh: np.savez_compressed(
                fh, images=arrays[0], labels=arrays[1], faces=arrays[2]))
    images, labels, face_of = arrays
    used = np.unique(face_of)
    dropped = inventory.reason_counts()
    notes = [f"augmentation: {AUGMENTATION}; seed {seed}",
             f"{len(inventory.faces)} usable faces from {inventory.n_files} font files; "
             f"{len(used)} of them drawn in this sample"]
    if dropped:
        notes.append("faces dropped: " + ", ".join(f"{n} {why}" for why, n in sorted(dropped.items())))
    X = images.reshape(len(images), -1).astype(np.float64) / 255.0
    counts = {"rows": len(labels), "faces": len(inventory.faces), "faces_used": len(used),
              "font_files": inventory.n_files, "faces_dropped": len(inventory.dropped)}
    counts.update({LETTERS[_letter_code(ch)]: int((labels == _letter_code(ch)).sum()) for ch in letters})
    return Dataset(
        X=X, y=labels, feature_names=pixel_names(), target_names=LETTERS, image_shape=IMAGE_SHAPE,
        name="letters",
        provenance=Provenance(
            f"notMNIST-style letters rendered from {len(inventory.faces)} font faces on this machine",
            "rendered locally; each font keeps its own licence", counts, tuple(notes)),
        extras={"faces": tuple(f.name for f in inventory.faces),
                "dropped_faces": inventory.dropped},
    )
