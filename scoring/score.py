"""The Score: what a hand is worth, with every number carrying its reason.

The explanation (``steps``) is generated from the same parts that produce the numbers, so it can
never disagree with them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

#: ``json.dumps(obj, ensure_ascii=False)`` with its encoder made once: what the CLI prints
encode_json = json.JSONEncoder(ensure_ascii=False).encode


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
    def rank(self) -> tuple[int, ...]:
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

    def to_json(self) -> str:
        """The Score as one line of JSON: ``json.dumps(self.to_dict(), ensure_ascii=False)``."""
        return encode_json(self.to_dict())


class ScoreWriter(Protocol):
    """What writes a :class:`LazyScore`'s deferred fields, and its JSON, from what priced it."""

    def fields(self) -> dict[str, Any]:
        """The deferred fields (``steps`` and ``decomposition``) by name."""

    def json(self, score: LazyScore) -> str:
        """``score.to_json()``, written from the priced parts."""


class _Deferred:
    """A field of a :class:`LazyScore` written on first read (then kept in the instance)."""

    __slots__ = ("name",)

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        if obj is None:
            return self
        d = obj.__dict__
        writer = d.get("_writer")
        if writer is not None:
            d.update(writer.fields())
            d.pop("_writer", None)
        return d[self.name]


#: every field of a Score with its default (what :meth:`LazyScore.deferred` starts from)
_SCORE_DEFAULTS: dict[str, Any] = {
    "han": 0,
    "fu": 0,
    "limit": None,
    "yaku": (),
    "items": (),
    "warnings": (),
    "fu_details": (),
    "wait": None,
    "form": "standard",
}


class LazyScore(Score):
    """A Score whose explanation (``steps``) and ``decomposition`` are written when first read,
    from the same parts that priced it: comparing readings needs neither, and the JSON a user
    gets is written straight from the parts (:meth:`to_json`). Reads, ``to_dict``, equality
    and ``replace`` see a plain Score's values."""

    steps = _Deferred()
    decomposition = _Deferred()

    @classmethod
    def deferred(cls, writer: ScoreWriter, **fields: Any) -> LazyScore:
        """A Score of ``fields`` (every field but ``steps`` and ``decomposition``) whose deferred
        fields ``writer`` writes."""
        score = object.__new__(cls)
        d = score.__dict__
        d.update(_SCORE_DEFAULTS)
        d.update(fields)
        if "extra" not in d:
            d["extra"] = {}
        d["_writer"] = writer
        return score

    @classmethod
    def of_fields(cls, writer: ScoreWriter, fields: dict[str, Any]) -> LazyScore:
        """:meth:`deferred` given every field but ``steps`` and ``decomposition`` as one dict
        rather than keyword arguments (the hot path)."""
        score = object.__new__(cls)
        d = score.__dict__
        d.update(fields)
        d["_writer"] = writer
        return score

    def to_json(self) -> str:
        writer = self.__dict__.get("_writer")
        if writer is None:
            return super().to_json()
        return str(writer.json(self))

    def __getstate__(self) -> dict[str, Any]:
        self.steps  # noqa: B018 (writes the deferred fields)
        return {k: v for k, v in self.__dict__.items() if k != "_writer"}


def round_up(value: int, unit: int) -> int:
    """Round up to a multiple of ``unit``.

    >>> round_up(2, 10), round_up(30, 10), round_up(7700, 100), round_up(1920, 100)
    (10, 30, 7700, 2000)
    """
    return -(-value // unit) * unit


# ---------------------------------------------------------------- JSON of a Score's shared parts
#: a string as JSON (what ``json.dumps`` writes with ``ensure_ascii=False``)
json_str: Any = json.encoder.encode_basestring
#: id(part) → (the part, its JSON and pieces of text): the parts kept here are the shared ones
#: (yaku hits, fu parts, payment tuples), so an id is not reused while its entry lives
_FRAGMENTS: dict[int, tuple[Any, Any]] = {}
#: most entries of :data:`_FRAGMENTS` (then it starts again)
_MAX_FRAGMENTS = 1 << 15


def _remember(obj: Any, value: Any) -> Any:
    if len(_FRAGMENTS) >= _MAX_FRAGMENTS:
        _FRAGMENTS.clear()
    _FRAGMENTS[id(obj)] = (obj, value)
    return value


def hit_json(hit: YakuHit) -> tuple[str, str, str]:
    """A shared hit's JSON, and its part of the yaku step: ``名 Name value`` and ``名 Name (value×)``."""
    entry = _FRAGMENTS.get(id(hit))
    if entry is not None and entry[0] is hit:
        return entry[1]
    return _remember(
        hit,
        (
            encode_json(hit.to_dict()),
            f"{hit.name_ja} {hit.name} {hit.value}",
            f"{hit.name_ja} {hit.name} ({hit.value}×)",
        ),
    )


def fu_part_json(part: FuPart) -> tuple[str, str]:
    """A shared fu part's JSON, and its piece of the fu step (``20 副底 base``)."""
    entry = _FRAGMENTS.get(id(part))
    if entry is not None and entry[0] is part:
        return entry[1]
    return _remember(part, (encode_json(part.to_dict()), f"{part.fu} {part.label or part.reason}"))


def list_json(parts: tuple[Any, ...]) -> str:
    """A shared tuple of Payments, Items or Steps as a JSON list."""
    entry = _FRAGMENTS.get(id(parts))
    if entry is not None and entry[0] is parts:
        return entry[1]
    return _remember(parts, encode_json([p.to_dict() for p in parts]))


def step_json(label: str, detail: str) -> str:
    """One explanation step as JSON."""
    return '{"label": ' + json_str(label) + ', "detail": ' + json_str(detail) + "}"
