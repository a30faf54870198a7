"""This machine's CJK fonts cut down to the glyphs the renderer draws, to travel to a lent machine.

A lent GPU machine has no CJK fonts, and renders made without them draw the tile art alone: a
classifier stage trained on them forgets the font-drawn faces (the classifier's card). The whole
files are too large to travel: the four Noto CJK collections here are 93 MB, and the working tree
that travels is 64 MB. Carrying only IPA Gothic and Mincho (14 MB) taught the faces those two draw
and lost ground on Noto's manzu numerals (classifier G2, the range after ``a94b699``). The renderer
draws nine numerals, 萬 and the honours (``FONT_CHARACTERS``), so each font cut down to them is a few
kilobytes, and every font this machine renders with can travel.

    python -m paiscan.datasets.carry_fonts .dev/fonts     # there: PAISCAN_FONTS_DIR=$PWD/.dev/fonts
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from paiscan.datasets.synth.art import FONT_CHARACTERS, find_cjk_fonts


def carry_fonts(out: Path, fonts: Sequence[str] | None = None) -> list[Path]:
    """Write each of ``fonts`` (default: :func:`find_cjk_fonts`) into ``out``, cut down to
    ``FONT_CHARACTERS``; the files written. A collection (``.ttc``) gives its first face, the one
    the renderer's ``ImageFont.truetype`` reads. Each file is written whole or not at all."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for src in fonts if fonts is not None else find_cjk_fonts():
        font = TTFont(src, fontNumber=0)
        options = subset.Options()
        options.layout_features = []  # single glyphs, no shaping
        options.name_IDs = ["*"]
        subsetter = subset.Subsetter(options)
        subsetter.populate(text=FONT_CHARACTERS)
        subsetter.subset(font)
        dest = out / (Path(src).stem + (".otf" if "CFF " in font else ".ttf"))
        part = dest.with_name(dest.name + ".part")
        font.save(str(part))
        part.replace(dest)
        written.append(dest)
    return written


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, help="folder to write the cut-down fonts into")
    args = ap.parse_args(argv)
    files = carry_fonts(args.out)
    if not files:
        raise SystemExit("no CJK fonts on this machine to carry")
    total = sum(f.stat().st_size for f in files)
    print(f"{len(files)} fonts, {total / 1024:.0f} KB, in {args.out}")


if __name__ == "__main__":
    main()
