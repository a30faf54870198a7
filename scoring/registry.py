"""Ruleset ids → implementations, imported on first use."""

from __future__ import annotations

import importlib
from functools import cache

from scoring.engine import Ruleset
from scoring.errors import HandError

#: id → "module:Class"
RULESETS: dict[str, str] = {
    "riichi": "scoring.rulesets.riichi:Riichi",
    "boo": "scoring.rulesets.boo:Boo",
    "kansai_boo": "scoring.rulesets.kansai_boo:KansaiBoo",
    "totenko_balance": "scoring.rulesets.totenko_balance:TotenkoBalance",
    "wsom": "scoring.rulesets.wsom:Wsom",
    "jun": "scoring.rulesets.jun:Jun",
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
