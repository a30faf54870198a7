import io
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from paiscan.vision.image import (
    DEFAULT_MAX_PIXELS,
    ImageError,
    _decode_with_pillow,
    _heif_direct,
    decode_image,
    redecode,
)


def encode(img: Image.Image, fmt: str, **kw: object) -> bytes:
    buf = io.BytesIO()
    img.save(buf, fmt, **kw)
    return buf.getvalue()


def test_png_and_webp_decode_to_bgr() -> None:
    img = Image.new("RGB", (40, 20), (255, 0, 0))
    for fmt in ("PNG", "WEBP"):
        out = decode_image(encode(img, fmt))
        assert out.bgr.shape == (20, 40, 3)
        assert np.abs(out.bgr[5, 5].astype(int) - (0, 0, 255)).max() < 8  # red, in BGR order


def test_exif_orientation_is_applied() -> None:
    img = Image.new("RGB", (60, 20), (0, 0, 0))
    img.paste((255, 255, 255), (0, 0, 10, 20))  # white strip on the left
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90° clockwise to display
    out = decode_image(encode(img, "JPEG", exif=exif, quality=95))
    assert out.bgr.shape[:2] == (60, 20)
    assert out.bgr[:10].mean() > 200  # the left strip is now on top
    assert out.original_size == (20, 60)


def test_not_an_image() -> None:
    with pytest.raises(ImageError) as info:
        decode_image(b"GIF89a......")
    assert info.value.code == "not_an_image"


def test_truncated_jpeg() -> None:
    data = encode(Image.new("RGB", (200, 200), (10, 200, 30)), "JPEG")
    with pytest.raises(ImageError) as info:
        decode_image(data[: len(data) // 3])
    assert info.value.code == "unreadable_image"


def test_pixel_limit() -> None:
    data = encode(Image.new("RGB", (300, 300)), "PNG")
    with pytest.raises(ImageError) as info:
        decode_image(data, max_pixels=10_000)
    assert info.value.code == "too_many_pixels"


def test_reduced_jpeg_decoding() -> None:
    arr = (np.random.default_rng(0).random((800, 1200, 3)) * 255).astype("uint8")
    data = encode(Image.fromarray(arr), "JPEG")
    out = decode_image(data, max_side=300)
    assert max(out.bgr.shape[:2]) < 800 and out.scale < 1 and out.original_size == (1200, 800)


def test_redecode_goes_to_the_next_reduction_that_reaches_the_factor() -> None:
    arr = (np.random.default_rng(1).random((600, 800, 3)) * 255).astype("uint8")
    exif = Image.Exif()
    exif[0x0112] = 6  # shown turned: 600 wide, 800 tall
    data = encode(Image.fromarray(arr), "JPEG", exif=exif)
    small = decode_image(data, max_side=200)
    assert small.scale == 0.25 and small.bgr.shape[:2] == (200, 150) and small.source == data
    assert redecode(small, 1.0) is small  # no larger size wanted
    half = redecode(small, 1.3)  # 1/4 × 1.3 is reached first by 1/2
    assert half.scale == 0.5 and half.bgr.shape[:2] == (400, 300) and half.original_size == (600, 800)
    assert np.abs(half.bgr[::2, ::2].astype(int).mean() - small.bgr.astype(int).mean()) < 8  # same picture
    full = redecode(small, 100.0)
    assert full.scale == 1.0 and full.bgr.shape[:2] == (800, 600) and full.source == b""
    assert redecode(full, 2.0) is full  # nothing larger to decode


def test_a_photo_decoded_whole_is_not_decoded_again() -> None:
    png = decode_image(encode(Image.new("RGB", (900, 600), (10, 20, 30)), "PNG"), max_side=300)
    assert png.scale == 1.0 and png.source == b"" and redecode(png, 3.0) is png


def test_a_16_bit_grey_photo_keeps_its_picture() -> None:
    """``convert("RGB")`` clips 16-bit values to white: the photo must be scaled to 8 bits."""
    ramp = np.tile(np.linspace(0, 65535, 64).astype(np.uint16), (32, 1))
    decoded = decode_image(encode(Image.fromarray(ramp), "PNG"))
    grey = decoded.bgr[:, :, 0]
    assert grey[0, 0] == 0 and grey[0, -1] == 255 and 100 < grey[0, 32] < 160
    assert decoded.grey and not decode_image(encode(Image.new("RGB", (8, 8), (200, 30, 30)), "PNG")).grey


@pytest.mark.parametrize("orientation", [1, 6, 3])
def test_a_heic_is_decoded_straight_to_the_pixels_pillow_gives(orientation: int) -> None:
    """A HEIC is decoded without Pillow's copies of it; libheif turns it upright, and its EXIF
    orientation is not applied again (nor by pillow-heif's Pillow plugin)."""
    pytest.importorskip("pillow_heif")
    photo = Image.new("RGB", (64, 48), (200, 30, 30))
    photo.paste((20, 200, 40), (0, 0, 16, 16))
    exif = Image.Exif()
    exif[0x0112] = orientation
    try:
        data = encode(photo, "HEIF", exif=exif.tobytes(), quality=90)
    except (OSError, KeyError, ValueError) as exc:  # pragma: no cover - an encoder-less libheif
        pytest.skip(f"pillow-heif cannot encode HEIC here: {exc}")
    direct = _heif_direct(data, DEFAULT_MAX_PIXELS, None)
    through_pillow = _decode_with_pillow(data, "heif", DEFAULT_MAX_PIXELS, None)
    assert direct is not None and np.array_equal(direct.bgr, through_pillow.bgr)
    assert (direct.original_size, direct.scale, direct.grey) == (through_pillow.original_size, 1.0, False)
    assert np.array_equal(decode_image(data).bgr, direct.bgr)
    # too many pixels for the limit, or damaged: Pillow's way answers, in our words
    assert _heif_direct(data, 1000, None) is None
    with pytest.raises(ImageError) as info:
        decode_image(data, max_pixels=1000)
    assert info.value.code == "too_many_pixels"
    assert _heif_direct(data[: len(data) // 2], DEFAULT_MAX_PIXELS, None) is None
    with pytest.raises(ImageError) as info:
        decode_image(data[: len(data) // 2])
    assert info.value.code == "unreadable_image"


def test_a_codecs_own_failure_is_an_unreadable_image(monkeypatch: pytest.MonkeyPatch) -> None:
    """pillow-heif raises RuntimeError on some damaged HEIC files; the PNG header alone says
    nothing of Python's objects."""
    data = encode(Image.new("RGB", (8, 8)), "PNG")

    def broken_load(self: Image.Image) -> None:
        raise RuntimeError("Security limit exceeded")

    with monkeypatch.context() as m:
        m.setattr(Image.Image, "load", broken_load)
        with pytest.raises(ImageError) as info:
            decode_image(data)
    assert info.value.code == "unreadable_image" and "Security limit" not in info.value.message  # the codec's words
    with pytest.raises(ImageError) as info:
        decode_image(data[:16])
    assert info.value.code == "unreadable_image" and "BytesIO" not in info.value.message


def test_a_phone_jpeg_over_the_pixel_limit_is_read_reduced() -> None:
    """A 9000×6750 (61 MP) phone JPEG is read, not refused: decoded at 1/8 for the localizer, and
    at 1/2 when its full size is asked for (the limit bounds the pixels decoded, not the camera)."""
    photo = Image.new("L", (9000, 6750), 90)
    photo.paste(200, (0, 0, 4500, 6750))
    data = encode(photo, "JPEG", quality=70)
    del photo
    small = decode_image(data, max_side=1000)
    assert small.original_size == (9000, 6750) and small.scale == 0.125 and small.bgr.shape == (844, 1125, 3)
    assert small.bgr[:, :500].mean() > 180 and small.bgr[:, -500:].mean() < 110  # the picture, not noise
    whole = decode_image(data)  # as large as the limit allows
    assert whole.scale == 0.5 and whole.bgr.shape[:2] == (3375, 4500)
    assert redecode(small, 100.0).scale == 0.5  # never past the limit


def test_a_jpeg_too_large_even_at_an_eighth_is_refused_in_our_words() -> None:
    data = encode(Image.new("L", (4000, 4000)), "JPEG")
    with pytest.raises(ImageError) as info:
        decode_image(data, max_pixels=200_000)  # 1/8 is still 250,000 pixels
    assert info.value.code == "too_many_pixels" and "0.2 MP" in info.value.message


def test_pillows_own_bomb_limit_is_said_in_our_words() -> None:
    """A PNG declaring 200 MP passes Pillow's warning level and trips its error: neither wording is shown."""
    bomb = encode(Image.new("1", (20_000, 10_000)), "PNG")
    with pytest.raises(ImageError) as info:
        decode_image(bomb)
    message = info.value.message
    assert info.value.code == "too_many_pixels" and "200 MP" in message and "40 MP" in message
    assert "decompression bomb" not in message.lower() and "DOS" not in message


def test_a_truncated_jpeg_is_said_in_our_words() -> None:
    arr = (np.random.default_rng(3).random((400, 600, 3)) * 255).astype("uint8")
    data = encode(Image.fromarray(arr), "JPEG")
    with pytest.raises(ImageError) as info:
        decode_image(data[: len(data) - 3000])
    assert info.value.code == "unreadable_image"
    assert "not processed" not in info.value.message and "ends early" in info.value.message


def test_pillow_opens_only_the_sniffed_format() -> None:
    """A file that starts like a JPEG and holds a PhotoCD header further on: Pillow alone would open it
    as a PhotoCD; it is a damaged JPEG."""
    data = b"\xff\xd8\xff\xe0" + b"\0" * 2044 + b"PCD_" + b"\0" * 2044 + b"\x01" * 200_000
    assert Image.open(io.BytesIO(data)).format == "PCD"
    with pytest.raises(ImageError) as info:
        decode_image(data)
    assert info.value.code == "unreadable_image"


def test_a_large_png_is_kept_reduced_and_decoded_larger_on_demand() -> None:
    img = Image.new("RGB", (6000, 3000), (10, 200, 30))
    data = encode(img, "PNG")
    small = decode_image(data, max_side=1000)
    assert small.scale == 0.5 and small.bgr.shape == (1500, 3000, 3) and small.source == data
    assert np.abs(small.bgr[10, 10].astype(int) - (30, 200, 10)).max() <= 1
    assert redecode(small, 2.0).scale == 1.0


MEMORY_PROBE = """
import sys, threading
from paiscan.vision.image import decode_image
def hwm():
    return next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM"))
data = open(sys.argv[1], "rb").read()
n = int(sys.argv[2])
decode_image(data[:0] + open(sys.argv[3], "rb").read(), max_side=1000)  # warm the codecs
base = hwm()
out = []
threads = [threading.Thread(target=lambda: out.append(decode_image(data, max_side=1000).bgr.shape)) for _ in range(n)]
for t in threads: t.start()
for t in threads: t.join()
assert len(out) == n, out
print(base // 1024, hwm() // 1024, out[0])
"""


def test_a_39_mp_16_bit_grey_png_decodes_in_bounded_memory(tmp_path: Path) -> None:
    """The issue's bomb: a 92 kB 16-bit grey PNG of 39 MP took 1.25 GB. 8-bit arithmetic a strip at
    a time: the peak grows by under 250 MB (ten at once: tests/test_service_memory.py)."""
    burst = 1
    ramp = np.tile(np.linspace(0, 65535, 7200).astype(np.uint16), (5400, 1))
    big, small = tmp_path / "big.png", tmp_path / "small.png"
    Image.fromarray(ramp).save(big, "PNG")
    Image.fromarray(ramp[:64, ::100].copy()).save(small, "PNG")
    del ramp
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(MEMORY_PROBE), str(big), str(burst), str(small)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    base_mb, peak_mb, shape = done.stdout.split(maxsplit=2)
    assert shape.strip() == "(2700, 3600, 3)"
    assert int(peak_mb) - int(base_mb) < 250, done.stdout
