"""``paiscan.vision.annotate``: the picture of what was read, written whole or not at all."""

from pathlib import Path

import numpy as np
import pytest

from paiscan.vision import annotate as annotate_mod


def test_annotate_file_writes_whole_or_not_at_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    photo = Path(__file__).resolve().parents[1] / "examples" / "photo.jpg"
    out = tmp_path / "a.jpg"
    out.write_bytes(b"before")
    with pytest.raises(ValueError, match="written as"):
        annotate_mod.annotate_file(photo, {}, tmp_path / "a.gif")
    monkeypatch.setattr(annotate_mod.cv2, "imencode", lambda *a: (False, np.zeros(0, np.uint8)))
    with pytest.raises(ValueError, match="could not encode"):
        annotate_mod.annotate_file(photo, {}, out)
    assert out.read_bytes() == b"before" and sorted(p.name for p in tmp_path.iterdir()) == ["a.jpg"]
    monkeypatch.undo()
    annotate_mod.annotate_file(photo, {"detections": [], "hand": None}, out)
    assert out.read_bytes()[:2] == b"\xff\xd8" and sorted(p.name for p in tmp_path.iterdir()) == ["a.jpg"]
