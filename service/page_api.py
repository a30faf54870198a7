"""What the phone page needs beyond the scoring API: its web app manifest and service worker at the
site's root (a worker's scope cannot reach above its own path), and each ruleset's tile set, so the
page can re-map a photo's tiles when the player picks the rules after the photo."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, Query
from fastapi.responses import FileResponse
from pydantic import BaseModel, Field

from paiscan.service.errors import ApiError

STATIC_DIR = Path(__file__).parent / "static"
#: the suits' letters in kind order (kinds 0–8 m, 9–17 p, 18–26 s, 27–33 z)
SUITS = "mpsz"

router = APIRouter()


class TileSetOut(BaseModel):
    """A ruleset's tile set in MPSZ faces."""

    rules: str
    kinds: list[str] | None = Field(description="the tile kinds of the set (``null``: all 34)")
    red_fives: dict[str, int] = Field(description="red fives of each suit in the set with default options")
    set_aside: list[str] = Field(description="kinds always set aside as bonus tiles (nuki / gari)")


def face(k: int) -> str:
    """Kind index → MPSZ face.

    >>> face(0), face(13), face(33)
    ('1m', '5p', '7z')
    """
    return f"{k % 9 + 1}{SUITS[k // 9]}"


@router.get("/manifest.webmanifest", include_in_schema=False)
async def manifest() -> FileResponse:
    return FileResponse(STATIC_DIR / "manifest.webmanifest", media_type="application/manifest+json")


@router.get("/sw.js", include_in_schema=False)
async def service_worker() -> FileResponse:
    # no-cache: a new page version reaches phones on their next visit
    return FileResponse(
        STATIC_DIR / "sw.js",
        media_type="text/javascript",
        headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"},
    )


@router.get("/v1/tileset", response_model=TileSetOut, tags=["scoring"])
async def tileset(rules: str = Query("riichi", max_length=64, description="a ruleset id")) -> Any:
    """The tile set of ``rules``: which kinds it has, its red fives, the kinds it sets aside."""
    from paiscan.scoring import HandError
    from paiscan.scoring.registry import get_ruleset

    try:
        ruleset = get_ruleset(rules)
    except HandError as exc:
        raise ApiError(422, "unknown_ruleset", exc.message, "rules") from None
    opts = ruleset.parse_options({})
    allowed = ruleset.allowed_kinds(opts)
    reds = ruleset.red_five_limits(opts)
    return {
        "rules": ruleset.id,
        "kinds": None if allowed is None else [face(k) for k in sorted(allowed)],
        "red_fives": dict(zip("mps", reds, strict=True)),
        "set_aside": [face(k) for k in sorted(ruleset.set_aside_kinds)],
    }
