"""Decoding an uploaded photo safely: sniff the format, refuse bombs and truncated files, apply the
EXIF orientation, and decode large JPEGs at reduced size when the full size is not needed.

Every failure is an :class:`ImageError` with a code the service maps to an HTTP status
(``not_an_image`` → 415, ``too_many_pixels``/``unreadable_image`` → 422).
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image, ImageOps

try:  # HEIC/HEIF from iPhones
    import pillow_heif

    pillow_heif.register_heif_opener()
    HEIF = True
except ImportError:  # pragma: no cover - optional at run time
    HEIF = False

DEFAULT_MAX_PIXELS = 40_000_000


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


def decode_image(data: bytes, max_pixels: int = DEFAULT_MAX_PIXELS, max_side: int | None = None) -> DecodedImage:
    """Decode upload bytes into an upright BGR array.

    ``max_side``: when the photo is larger, JPEGs are decoded at 1/2, 1/4 or 1/8 size by the codec
    itself (``draft``), much faster than decoding in full and shrinking; the strongest reduction
    that keeps the long side at least ``max_side``.
    """
    fmt = sniff(data)
    if fmt is None:
        raise ImageError("not_an_image", "the file is not a JPEG, PNG, WebP or HEIC image")
    if fmt == "heif" and not HEIF:
        raise ImageError("not_an_image", "HEIC images need pillow-heif, which is not installed")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            img = Image.open(io.BytesIO(data))
            w, h = img.size
            if w * h > max_pixels:
                raise ImageError(
                    "too_many_pixels", f"the image has {w}×{h} = {w * h} pixels; the limit is {max_pixels}"
                )
            scale = 1.0
            if fmt == "jpeg" and max_side and max(w, h) > max_side:
                img.draft("RGB", (max(1, w * max_side // max(w, h)), max(1, h * max_side // max(w, h))))
                scale = img.size[0] / w
            orientation = img.getexif().get(0x0112, 1)
            img.load()
            upright = ImageOps.exif_transpose(img) if orientation != 1 else img
            grey = upright.mode in GREY_MODES
            rgb = to_8bit(upright).convert("RGB")
    except ImageError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise ImageError("too_many_pixels", f"the image is too large to decode safely ({exc})") from exc
    except (OSError, SyntaxError, ValueError, EOFError, RuntimeError) as exc:  # RuntimeError: pillow-heif's
        raise ImageError("unreadable_image", f"the {fmt} image is damaged or truncated ({_why(exc)})") from exc
    arr = cv2.cvtColor(np.asarray(rgb), cv2.COLOR_RGB2BGR)
    ow, oh = (h, w) if orientation in (5, 6, 7, 8) else (w, h)
    return DecodedImage(arr, fmt, (ow, oh), scale, data if scale < 1.0 else b"", grey)


#: Pillow's modes without colour (16- and 32-bit grey included)
GREY_MODES = frozenset({"1", "L", "LA", "La", "I", "I;16", "I;16L", "I;16B", "I;16N", "F"})


def to_8bit(img: Image.Image) -> Image.Image:
    """A 16- or 32-bit grey image brought to 8 bits by its range (``convert`` would clip every value
    over 255 to white: a 16-bit PNG read as a blank page); other images as they are.

    >>> deep = Image.fromarray(np.array([[0, 32896, 65535]], np.uint16))
    >>> np.asarray(to_8bit(deep))[0].tolist()
    [0, 128, 255]
    """
    if img.mode not in ("I", "F") and not img.mode.startswith("I;16"):
        return img
    arr = np.asarray(img, dtype=np.float64)
    top = 65535.0 if float(arr.max(initial=0.0)) > 255 else 255.0
    return Image.fromarray(np.clip(np.rint(arr * (255.0 / top)), 0, 255).astype(np.uint8), "L")


def _why(exc: Exception) -> str:
    """An exception's message for a person: Pillow's "cannot identify image file <_io.BytesIO object
    at 0x…>" says no more than that the header is unreadable."""
    text = str(exc)
    return "its header cannot be read" if "cannot identify image file" in text else text


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
