import io

import numpy as np
import pytest
from PIL import Image

from vision.image import ImageError, decode_image


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
