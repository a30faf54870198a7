"""Fonts cut down to travel to a lent machine (datasets/carry_fonts.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PIL import ImageFont

from paiscan.datasets.carry_fonts import carry_fonts, main
from paiscan.datasets.synth.art import FONT_CHARACTERS, _find_cjk_fonts, find_cjk_fonts

FONTS = find_cjk_fonts()


@pytest.mark.skipif(not FONTS, reason="no CJK fonts on this machine")
def test_a_cut_down_font_draws_every_character_as_the_whole_font_does(tmp_path: Path) -> None:
    sources = sorted(FONTS, key=os.path.getsize)[:2]  # the smallest: this is about the cut, not the font
    written = carry_fonts(tmp_path, sources)
    assert [p.stem for p in written] == [Path(s).stem for s in sources]
    for src, cut in zip(sources, written, strict=True):
        assert cut.stat().st_size < Path(src).stat().st_size / 50
        whole, small = ImageFont.truetype(src, 40), ImageFont.truetype(str(cut), 40)
        for ch in FONT_CHARACTERS:
            assert bytes(small.getmask(ch)) == bytes(whole.getmask(ch)), (cut.name, ch)
    # ... and the renderer finds them in the folder a lent machine names
    assert {str(p) for p in written} <= set(_find_cjk_fonts(str(tmp_path)))
    assert not list(tmp_path.glob("*.part"))


def test_with_no_fonts_to_carry_it_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import paiscan.datasets.carry_fonts as cf

    monkeypatch.setattr(cf, "find_cjk_fonts", lambda: [])
    with pytest.raises(SystemExit, match="no CJK fonts"):
        main([str(tmp_path / "fonts")])
    assert not (tmp_path / "fonts").exists() or not list((tmp_path / "fonts").iterdir())  # nothing written
