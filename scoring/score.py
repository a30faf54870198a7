"""The Score: what a hand is worth, with every number carrying its reason.

The explanation (``steps``) is generated from the same parts that produce the numbers, so it can
never disagree with them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class YakuHit:
    """A yaku or pattern that counted, with its value in its unit (han, points or yakuman)."""

    id: str
    name: str
    name_ja: str
    value: int
    unit: str = "han"
    count: int = 1
    series: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "name_ja": self.name_ja,
            "value": self.value,
            "unit": self.unit,
        }
        if self.count != 1:
            out["count"] = self.count
        if self.series is not None:
            out["series"] = self.series
        return out


@dataclass(frozen=True, slots=True)
class FuPart:
    """One named part of the fu (符) total, e.g. ``FuPart(20, "base", "副底 base")``."""

    fu: int
    reason: str
    label: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"fu": self.fu, "reason": self.reason, "label": self.label}


@dataclass(frozen=True, slots=True)
class Item:
    """An additive part outside the yaku (honba, dora, menzen bonus, gari, kenshoba ...)."""

    id: str
    value: int
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "value": self.value}
        if self.detail:
            out["detail"] = self.detail
        return out


@dataclass(frozen=True, slots=True)
class Payment:
    """One paying seat: ``from_`` is discarder, dealer, non_dealer or other (contract)."""

    from_: str
    amount: int

    def to_dict(self) -> dict[str, Any]:
        return {"from": self.from_, "amount": self.amount}


@dataclass(frozen=True, slots=True)
class Step:
    """One labelled line of the explanation."""

    label: str
    detail: str

    def to_dict(self) -> dict[str, str]:
        return {"label": self.label, "detail": self.detail}


@dataclass(frozen=True)
class Score:
    """The contract's Score plus the explanation."""

    rules: str
    total: int
    payments: tuple[Payment, ...]
    han: int = 0
    fu: int = 0
    limit: str | None = None
    yaku: tuple[YakuHit, ...] = ()
    items: tuple[Item, ...] = ()
    decomposition: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    fu_details: tuple[FuPart, ...] = ()
    wait: str | None = None
    form: str = "standard"
    steps: tuple[Step, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def rank(self) -> tuple[int, int, int]:
        """Ordering of interpretations: largest total, then more han (or points), then more fu."""
        return (self.total, self.han + sum(y.value for y in self.yaku if y.unit == "points"), self.fu)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rules": self.rules,
            "total": self.total,
            "payments": [{"from": p.from_, "amount": p.amount} for p in self.payments],
            "han": self.han,
            "fu": self.fu,
            "limit": self.limit,
            "yaku": [y.to_dict() for y in self.yaku],
            "items": [i.to_dict() for i in self.items],
            "decomposition": list(self.decomposition),
            "warnings": list(self.warnings),
            "fu_details": [{"fu": f.fu, "reason": f.reason, "label": f.label} for f in self.fu_details],
            "wait": self.wait,
            "form": self.form,
            "explanation": [{"label": s.label, "detail": s.detail} for s in self.steps],
        }
        if self.extra:
            out.update(self.extra)
        return out


def round_up(value: int, unit: int) -> int:
    """Round up to a multiple of ``unit``.

    >>> round_up(2, 10), round_up(30, 10), round_up(7700, 100), round_up(1920, 100)
    (10, 30, 7700, 2000)
    """
    return -(-value // unit) * unit
