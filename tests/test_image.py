import io

import numpy as np
import pytest
from PIL import Image

from paiscan.vision.image import ImageError, decode_image, redecode


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
    assert info.value.code == "unreadable_image" and "Security limit" in info.value.message
    with pytest.raises(ImageError) as info:
        decode_image(data[:16])
    assert info.value.code == "unreadable_image" and "BytesIO" not in info.value.message
