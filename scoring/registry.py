"""Ruleset ids → implementations, imported on first use."""

from __future__ import annotations

import importlib
from functools import cache
from typing import Final

from paiscan.scoring.engine import Ruleset
from paiscan.scoring.errors import HandError

#: id → "module:Class"
RULESETS: Final[dict[str, str]] = {
    "riichi": "paiscan.scoring.rulesets.riichi:Riichi",
    "boo": "paiscan.scoring.rulesets.boo:Boo",
    "kansai_boo": "paiscan.scoring.rulesets.kansai_boo:KansaiBoo",
    "totenko_balance": "paiscan.scoring.rulesets.totenko_balance:TotenkoBalance",
    "wsom": "paiscan.scoring.rulesets.wsom:Wsom",
    "jun": "paiscan.scoring.rulesets.jun:Jun",
}


def available() -> list[str]:
    """Ids whose implementation is present (a ruleset still being written is left out)."""
    out = []
    for rid in RULESETS:
        try:
            get_ruleset(rid)
        except HandError:
            continue
        out.append(rid)
    return out


@cache
def get_ruleset(rid: str) -> Ruleset:
    """The ruleset instance for an id; ``unknown_ruleset`` naming the field ``rules`` otherwise."""
    target = RULESETS.get(rid) if isinstance(rid, str) else None
    if target is None:
        raise HandError("unknown_ruleset", f"unknown ruleset {rid!r} (known: {', '.join(RULESETS)})", "rules")
    module_name, cls_name = target.split(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        raise HandError("unknown_ruleset", f"ruleset {rid!r} is not implemented yet", "rules") from exc
    cls = getattr(module, cls_name)
    ruleset: Ruleset = cls()
    return ruleset
