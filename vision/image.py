"""Decoding an uploaded photo safely: sniff the format, refuse bombs and truncated files, apply the
EXIF orientation, and decode large JPEGs at reduced size when the full size is not needed.

Every failure is an :class:`ImageError` with a code the service maps to an HTTP status
(``not_an_image`` → 415, ``too_many_pixels``/``unreadable_image`` → 422).
"""

from __future__ import annotations

import io
import logging
import re
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image, ImageOps

from paiscan.vision.deadline import ReadingStopped, ReadingTooSlow, check, remaining

try:  # HEIC/HEIF from iPhones
    import pillow_heif

    pillow_heif.register_heif_opener()
    HEIF = True
except ImportError:  # pragma: no cover - optional at run time
    HEIF = False

DEFAULT_MAX_PIXELS = 40_000_000

log = logging.getLogger(__name__)


class ImageError(ValueError):
    """A photo that cannot be read; ``code`` says why, ``message`` says it to a person."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def to_dict(self) -> dict[str, dict[str, str]]:
        return {"error": {"code": self.code, "message": self.message, "field": "file"}}


def sniff(data: bytes) -> str | None:
    """The image format from its first bytes: ``jpeg``, ``png``, ``webp``, ``heif`` or None.

    >>> sniff(b"\\xff\\xd8\\xff\\xe0...."), sniff(b"\\x89PNG\\r\\n\\x1a\\n"), sniff(b"GIF89a")
    ('jpeg', 'png', None)
    """
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if data[4:8] == b"ftyp" and data[8:12] in (b"heic", b"heix", b"hevc", b"heim", b"heis", b"mif1", b"msf1", b"avif"):
        return "heif"
    return None


@dataclass(frozen=True, slots=True)
class DecodedImage:
    """An upright BGR image (what OpenCV and the models expect) and how it was decoded."""

    bgr: np.ndarray
    format: str
    original_size: tuple[int, int]  # width, height before any reduction, after EXIF rotation
    scale: float  # decoded size / original size (DCT-reduced JPEG decoding)
    #: the file's bytes when it was decoded reduced, so that :func:`redecode` can decode it larger
    source: bytes = b""
    #: the file holds no colour (grey or black and white): red fives cannot be told from fives
    grey: bool = False


#: the formats Pillow may open for each sniffed format (nothing else: a JPEG-looking file is never a PhotoCD)
PIL_FORMATS: dict[str, tuple[str, ...]] = {
    "jpeg": ("JPEG",),
    "png": ("PNG",),
    "webp": ("WEBP",),
    "heif": ("HEIF", "AVIF"),
}
#: the reductions a JPEG's DCT decoding offers (1/1, 1/2, 1/4, 1/8); the others are reduced alike, after decoding
REDUCTIONS = (1, 2, 4, 8)
#: a PNG, WebP or HEIC photo larger than this many pixels is kept reduced (a JPEG is reduced while decoding)
KEEP_PIXELS = 16_000_000
#: a decode whose full-size image takes more bytes than this waits for the other large decodes to end
LARGE_DECODE_BYTES = 48_000_000
#: the large decodes that may run at once in this process (each up to ``max_pixels`` × 4 bytes)
_LARGE_DECODES = threading.BoundedSemaphore(1)
#: the longest a decode waits for its turn when no deadline says otherwise, in seconds
LARGE_DECODE_WAIT_S = 30.0
_BOMB_SIZE = re.compile(r"\((\d+) pixels\)")


def decode_image(data: bytes, max_pixels: int = DEFAULT_MAX_PIXELS, max_side: int | None = None) -> DecodedImage:
    """Decode upload bytes into an upright 8-bit BGR array, within a fixed memory budget.

    ``max_pixels`` bounds the pixels that are decoded: a JPEG larger than it (a 48–60 MP phone
    photo) is decoded at 1/2, 1/4 or 1/8 size by the codec itself (``draft``); another format must
    fit as it is, since its codec decodes only at full size (the decompression-bomb guard).
    ``max_side``: when the photo is larger, a JPEG is decoded reduced (the strongest reduction
    that keeps the long side at least ``max_side``), and a PNG, WebP or HEIC over
    :data:`KEEP_PIXELS` is reduced as soon as it is decoded; :func:`redecode` decodes it larger
    when small tiles need it. Large decodes take turns (:data:`LARGE_DECODE_BYTES`) so that
    concurrent uploads cannot add up their peaks.
    """
    fmt = sniff(data)
    if fmt is None:
        raise ImageError("not_an_image", "the file is not a JPEG, PNG, WebP or HEIC image")
    if fmt == "heif" and not HEIF:
        raise ImageError("not_an_image", "HEIC images need pillow-heif, which is not installed")
    if fmt == "heif":
        direct = _heif_direct(data, max_pixels, max_side)
        if direct is not None:
            return direct
    return _decode_with_pillow(data, fmt, max_pixels, max_side)


def _heif_direct(data: bytes, max_pixels: int, max_side: int | None) -> DecodedImage | None:
    """A HEIC photo decoded by pillow-heif straight into an array: the same pixels as through
    Pillow, without its two copies of the whole image (about 80 ms of a 12 MP photo's 0.4-0.6 s).
    libheif turns the image upright itself (its rotation and mirror boxes), so its EXIF orientation
    is not applied again, as pillow-heif's Pillow plugin does too. ``None`` where Pillow's way is
    needed: an image to reduce, one that is not 8-bit RGB, over the pixel limit or damaged (Pillow's
    way then says why)."""
    try:
        heif = pillow_heif.open_heif(io.BytesIO(data), convert_hdr_to_8bit=True)
        w, h = heif.size
        if heif.mode != "RGB" or w * h > max_pixels or _reduction("heif", w, h, max_pixels, max_side) != 1:
            return None
        with _decode_turn(w * h * 4):
            rgb = np.asarray(heif)
            bgr = cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)
    except ReadingStopped:
        raise
    except Exception as exc:  # a damaged file: Pillow's way reads it again and says why
        log.info("a HEIC image could not be decoded directly: %s", exc)
        return None
    return DecodedImage(bgr, "heif", (w, h), 1.0, b"", False)


def _decode_with_pillow(data: bytes, fmt: str, max_pixels: int, max_side: int | None) -> DecodedImage:
    """:func:`decode_image` through Pillow (every format; its codec plugin for HEIC)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # our own limit is checked below
            img: Image.Image = Image.open(io.BytesIO(data), formats=PIL_FORMATS[fmt])
            w, h = img.size
            factor = _reduction(fmt, w, h, max_pixels, max_side)
            if fmt == "jpeg" and factor > 1:
                img.draft("RGB", (max(1, w // factor), max(1, h // factor)))
            grey = img.mode in GREY_MODES
            with _decode_turn(_full_bytes(img) if fmt != "jpeg" else img.size[0] * img.size[1] * 3):
                img.load()
                orientation = img.getexif().get(0x0112, 1)  # a PNG's may follow its pixels: after load
                if fmt != "jpeg" and factor > 1:
                    img = _reduce(img, factor)
                img = to_8bit(img)
                upright = ImageOps.exif_transpose(img) if orientation != 1 else img
                rgb = upright if upright.mode == "RGB" else upright.convert("RGB")
                arr = cv2.cvtColor(np.asarray(rgb), cv2.COLOR_RGB2BGR)
                scale = rgb.size[0] / (h if orientation in (5, 6, 7, 8) else w)
    except (ImageError, ReadingStopped):
        raise
    except Image.DecompressionBombError as exc:  # more pixels than Pillow ever opens (2 × MAX_IMAGE_PIXELS)
        found = _BOMB_SIZE.search(str(exc))
        size = f"{int(found.group(1)) / 1e6:.0f} MP" if found else "more pixels than can be decoded"
        raise ImageError(
            "too_many_pixels", f"the image declares {size}; the limit is {_mp(max_pixels)} ({_limit_note(fmt)})"
        ) from exc
    except (OSError, SyntaxError, ValueError, EOFError, RuntimeError) as exc:  # RuntimeError: pillow-heif's
        log.info("a %s image could not be decoded: %s", fmt, exc)
        raise ImageError("unreadable_image", f"the {fmt.upper()} image is damaged or truncated ({_why(exc)})") from exc
    ow, oh = (h, w) if orientation in (5, 6, 7, 8) else (w, h)
    return DecodedImage(arr, fmt, (ow, oh), scale, data if scale < 1.0 else b"", grey)


def _mp(pixels: int) -> str:
    """
    >>> _mp(40_000_000), _mp(12_345_678)
    ('40 MP', '12.3 MP')
    """
    return f"{pixels / 1e6:.3g} MP"


def _limit_note(fmt: str) -> str:
    return (
        "a JPEG is read reduced, up to 64 times that"
        if fmt == "jpeg"
        else "a PNG, WebP or HEIC is decoded whole, so it must fit"
    )


def _reduction(fmt: str, w: int, h: int, max_pixels: int, max_side: int | None) -> int:
    """The reduction (1, 2, 4 or 8) to decode a ``w``×``h`` image at; ImageError when none fits.

    >>> _reduction("jpeg", 9000, 6750, 40_000_000, None), _reduction("jpeg", 9000, 6750, 40_000_000, 1000)
    (2, 8)
    >>> _reduction("png", 7200, 5400, 40_000_000, 1000), _reduction("png", 7200, 5400, 40_000_000, None)
    (2, 1)
    """
    if w <= 0 or h <= 0:
        raise ImageError("unreadable_image", "the image declares no pixels")
    pixels, long_side = w * h, max(w, h)
    if fmt == "jpeg":
        fits = [f for f in REDUCTIONS if -(-w // f) * -(-h // f) <= max_pixels]
        if not fits:
            raise ImageError(
                "too_many_pixels",
                f"the image has {w}×{h} pixels ({_mp(pixels)}); the limit is {_mp(max_pixels)} ({_limit_note(fmt)})",
            )
        wanted = [f for f in fits if max_side is None or long_side // f >= max_side]
        return max(wanted) if max_side is not None and wanted else fits[0]
    if pixels > max_pixels:
        raise ImageError(
            "too_many_pixels",
            f"the image has {w}×{h} pixels ({_mp(pixels)}); the limit is {_mp(max_pixels)} ({_limit_note(fmt)})",
        )
    if max_side is None:
        return 1
    factor = next((f for f in REDUCTIONS if pixels // (f * f) <= KEEP_PIXELS), REDUCTIONS[-1])
    while factor > 1 and long_side // factor < max_side:
        factor //= 2
    return factor


def _full_bytes(img: Image.Image) -> int:
    """The bytes Pillow holds for ``img`` decoded (it keeps three bands in four bytes)."""
    per_pixel = {"1": 1, "L": 1, "P": 1, "I;16": 2, "I;16L": 2, "I;16B": 2, "I;16N": 2, "LA": 4, "La": 4}
    return img.size[0] * img.size[1] * per_pixel.get(img.mode, 4)


@contextmanager
def _decode_turn(full_bytes: int) -> Iterator[None]:
    """Run a large decode alone (see :data:`LARGE_DECODE_BYTES`); a small one runs at once."""
    if full_bytes <= LARGE_DECODE_BYTES:
        yield
        return
    if not _LARGE_DECODES.acquire(timeout=max(0.0, min(remaining(), LARGE_DECODE_WAIT_S))):
        check()  # the deadline is spent (or cancelled): say so
        raise ReadingTooSlow("the photo waited too long for its turn to be decoded")
    try:
        yield
    finally:
        _LARGE_DECODES.release()


def _reduce(img: Image.Image, factor: int) -> Image.Image:
    """``img`` shrunk ``factor`` times by averaging (Pillow's ``reduce``, for the modes it takes)."""
    if img.mode.startswith("I;16") or img.mode in ("1", "P", "PA"):
        img = to_8bit(img) if img.mode.startswith("I;16") else img.convert("RGBA" if img.mode == "PA" else "RGB")
    elif img.mode not in ("L", "LA", "RGB", "RGBA", "I", "F", "CMYK"):
        img = img.convert("RGB")
    return img.reduce(factor)


#: Pillow's modes without colour (16- and 32-bit grey included)
GREY_MODES = frozenset({"1", "L", "LA", "La", "I", "I;16", "I;16L", "I;16B", "I;16N", "F"})


def to_8bit(img: Image.Image) -> Image.Image:
    """A 16- or 32-bit grey image brought to 8 bits by its range (``convert`` would clip every value
    over 255 to white: a 16-bit PNG read as a blank page); other images as they are. No float
    image is made: one 8-bit result, rounded and saturated by OpenCV.

    >>> deep = Image.fromarray(np.array([[0, 32896, 65535]], np.uint16))
    >>> np.asarray(to_8bit(deep))[0].tolist()
    [0, 128, 255]
    """
    if img.mode not in ("I", "F") and not img.mode.startswith("I;16"):
        return img
    extrema = img.getextrema()  # (low, high) for one band
    high = extrema[1] if isinstance(extrema[1], int | float) else 0
    top = 65535.0 if float(high) > 255 else 255.0
    w, h = img.size
    out = np.empty((h, w), np.uint8)
    for y in range(0, h, STRIP_ROWS):  # a strip at a time: no full-size copy besides the result
        part = np.asarray(img.crop((0, y, w, min(h, y + STRIP_ROWS))))
        if part.dtype.byteorder == ">" or img.mode in ("I", "F"):
            part = np.clip(part.astype(part.dtype.newbyteorder("=")), 0, top)
        out[y : y + part.shape[0]] = cv2.convertScaleAbs(part, alpha=255.0 / top)
    return Image.fromarray(out, "L")


#: rows converted at once by :func:`to_8bit`
STRIP_ROWS = 256


def _why(exc: Exception) -> str:
    """Why a codec failed, in our words (the codec's own text goes to the log, never to an answer)."""
    text = str(exc).lower()
    if "cannot identify image file" in text:
        return "its header cannot be read"
    if "truncated" in text or "eof" in text or "end of" in text or isinstance(exc, EOFError):
        return "the file ends early"
    return "its data cannot be decoded"


def redecode(decoded: DecodedImage, factor: float, max_pixels: int = DEFAULT_MAX_PIXELS) -> DecodedImage:
    """``decoded`` again at about ``factor`` times its size (the codec's next larger reduction that
    reaches it, at most the full size); ``decoded`` itself when it was not reduced or is big enough.

    The localizer needs only about a thousand pixels a side, but a small tile needs more pixels for
    the classifier: the reader decodes small first and again larger only when the tiles are small.
    """
    if not decoded.source or decoded.scale >= 1.0 or factor <= 1.0:
        return decoded
    long_side = max(decoded.original_size)
    wanted = min(long_side, int(np.ceil(long_side * decoded.scale * factor)))
    again = decode_image(decoded.source, max_pixels, wanted if wanted < long_side else None)
    return again if again.scale > decoded.scale else decoded


def read_image_file(path: str, max_pixels: int = DEFAULT_MAX_PIXELS, max_side: int | None = None) -> DecodedImage:
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise ImageError("unreadable_image", f"cannot read {path}: {exc.strerror}") from exc
    return decode_image(data, max_pixels=max_pixels, max_side=max_side)
