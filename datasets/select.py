"""Pick the renders of a ``paiscan synth`` folder that show a given kind of meld, as a folder of
symlinks (no copies), to train more on what the models find hard (stacked added kans).

    python -m paiscan.datasets.select --data data/c_riichi_1015 --out data/sel_added_kan_1015 --meld added_kan
"""

from __future__ import annotations

import argparse
import json
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

#: what a meld must be to count, by name
MELD_KINDS: Mapping[str, Callable[[Mapping[str, Any]], bool]] = {
    "added_kan": lambda m: m.get("type") == "kan" and bool(m.get("added")),
    "closed_kan": lambda m: m.get("type") == "kan" and m.get("open") is False,
    "open_kan": lambda m: m.get("type") == "kan" and bool(m.get("open", True)) and not m.get("added"),
    "kan": lambda m: m.get("type") == "kan",
}

#: the per-render files a synth folder holds, by sub-folder and suffix
PARTS = (("images", ".jpg"), ("labels", ".txt"), ("meta", ".json"), ("structures", ".json"), ("ignore", ".txt"))


def select(data: Path, out: Path, meld: str) -> int:
    """Symlink into ``out`` every render of ``data`` whose hand has a meld of kind ``meld``; how
    many. ``out`` is made anew (a selection is derived data)."""
    if meld not in MELD_KINDS:
        raise SystemExit(f"--meld: {meld!r} is not one of {sorted(MELD_KINDS)}")
    if not (data / "structures").is_dir():
        raise SystemExit(f"--data: {data} has no structures/ folder (make it with paiscan synth)")
    wanted = MELD_KINDS[meld]
    stems = [
        p.stem
        for p in sorted((data / "structures").glob("*.json"))
        if any(wanted(m) for m in json.loads(p.read_text()).get("melds", []))
    ]
    if out.exists():
        shutil.rmtree(out)
    for sub, _ in PARTS:
        (out / sub).mkdir(parents=True)
    for stem in stems:
        for sub, suffix in PARTS:
            src = data / sub / f"{stem}{suffix}"
            if src.exists():
                (out / sub / src.name).symlink_to(src.resolve())
    return len(stems)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True, help="a paiscan synth output folder")
    ap.add_argument("--out", type=Path, required=True, help="the selection folder to make (replaced)")
    ap.add_argument("--meld", required=True, choices=sorted(MELD_KINDS))
    args = ap.parse_args(argv)
    print(f"{select(args.data, args.out, args.meld)} renders selected into {args.out}")


if __name__ == "__main__":
    main()
