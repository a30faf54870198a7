"""Load the worked test vectors of ../shared/rules/*.md and compare a Score with an ``expect``.

The spec files keep one vector per fenced ``yaml`` block (rules README §7). Hand vectors have
``input`` and ``expect``; game-level vectors have their own schema and are returned as they are.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    """``$PAISCAN_SHARED`` or the ``shared/`` folder beside the checkout."""
    env = os.environ.get("PAISCAN_SHARED")
    if env:
        return Path(env)
    for candidate in (ROOT.parent / "shared", ROOT / "shared", Path("/work/shared")):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("cannot find the shared/ folder; set PAISCAN_SHARED")


_BLOCK = re.compile(r"```yaml\n(.*?)```", re.S)


def load_vectors(spec: str) -> list[dict[str, Any]]:
    """Every yaml block of ``rules/<spec>.md`` that parses to a mapping, in file order."""
    text = (shared_dir() / "rules" / f"{spec}.md").read_text(encoding="utf-8")
    out = []
    for block in _BLOCK.findall(text):
        data = yaml.safe_load(block)
        if isinstance(data, dict):
            out.append(data)
    return out


def hand_vectors(spec: str) -> list[dict[str, Any]]:
    return [v for v in load_vectors(spec) if "input" in v and "expect" in v]


def yaku_id(entry: Any) -> str:
    """``'ittsu (1 open)'`` → ``'ittsu'``."""
    return str(entry).split("(")[0].strip()


def yaku_value(entry: Any) -> int | None:
    m = re.search(r"\((-?\d+)", str(entry))
    return int(m.group(1)) if m else None


def compare(score: dict[str, Any], expect: dict[str, Any], keys: tuple[str, ...] | None = None) -> list[str]:
    """Differences between a Score (as JSON) and a vector's ``expect`` (empty when they agree).

    Compares han, fu, total, limit, payments (as a multiset), yaku ids (as a set; values where the
    vector gives them), items (id → summed value) and any other top-level key present in both.
    """
    problems: list[str] = []
    for key, want in expect.items():
        if keys is not None and key not in keys:
            continue
        if key == "yaku":
            got_ids = Counter(y["id"] for y in score.get("yaku", []))
            want_ids = Counter(yaku_id(w) for w in want)
            if set(got_ids) != set(want_ids):
                problems.append(f"yaku: got {sorted(got_ids)}, want {sorted(want_ids)}")
                continue
            want_v: Counter[str] = Counter()
            for w in want:  # an id listed once per set (WSOM value honors) sums its values
                v = yaku_value(w)
                if v is not None:
                    want_v[yaku_id(w)] += v
            for yid, v in want_v.items():
                got_v = sum(y["value"] for y in score["yaku"] if y["id"] == yid)
                if got_v != v:
                    problems.append(f"yaku {yid}: value {got_v}, want {v}")
        elif key == "items":
            got: Counter[str] = Counter()
            for item in score.get("items", []):
                got[item["id"]] += item["value"]
            for item_id, value in want.items():
                if got.get(item_id, 0) != value:
                    problems.append(f"items.{item_id}: got {got.get(item_id, 0)}, want {value}")
        elif key == "payments":
            g = Counter((p["from"], p["amount"]) for p in score.get("payments", []))
            w = Counter((p["from"], p["amount"]) for p in want)
            if g != w:
                problems.append(f"payments: got {sorted(g.elements())}, want {sorted(w.elements())}")
        elif key == "warnings":
            got_w = " ".join(str(x) for x in score.get("warnings", []))
            for item in want or []:
                if str(item) not in got_w:
                    problems.append(f"warnings: {item!r} not in {score.get('warnings')}")
        elif key in score:
            if score[key] != want:
                problems.append(f"{key}: got {score[key]!r}, want {want!r}")
        else:
            problems.append(f"{key}: not in the score")
    return problems


def parse_payments(text: str) -> list[tuple[str | None, int]]:
    """Variants write payments informally: ``'600 / 600 / 1100'`` or ``'dealer 3500, non_dealer 3500'``."""
    out = []
    for part in re.split(r"[/,]", text):
        m = re.fullmatch(r"\s*(?:([a-z_]+)\s+)?(\d+)\s*", part)
        assert m, f"cannot read payments {text!r}"
        out.append((m.group(1), int(m.group(2))))
    return out


def payment_text_problems(score: dict[str, Any], text: str) -> list[str]:
    """Differences between a Score's payments and an informal payments string."""
    want = parse_payments(text)
    got = score["payments"]
    problems = []
    if Counter(a for _, a in want) != Counter(p["amount"] for p in got):
        problems.append(f"payments: got {got}, want {text}")
    for who, amount in want:
        if who is not None and {"from": who, "amount": amount} not in got:
            problems.append(f"payments: no {who} {amount} in {got}")
    return problems


def game_vectors(spec: str) -> list[dict[str, Any]]:
    """The list-shaped yaml blocks of ``rules/<spec>.md``: its game-level vectors (settlement, draws,
    rankings), each tagged with its ``spec``."""
    text = (shared_dir() / "rules" / f"{spec}.md").read_text(encoding="utf-8")
    out: list[dict[str, Any]] = []
    for block in _BLOCK.findall(text):
        data = yaml.safe_load(block)
        if isinstance(data, list):
            out.extend({**v, "spec": spec} for v in data if isinstance(v, dict) and "id" in v)
    return out


def check_expect(score: dict[str, Any], expect: dict[str, Any]) -> list[str]:
    """:func:`compare` plus what vectors and variants write informally: an expected ``error`` code,
    a ``why`` to ignore, and payments given as a string."""
    if "error" in expect:
        ok = score.get("error") == expect["error"]
        return [] if ok else [f"want error {expect['error']}, got {score}"]
    if "error" in score:
        return [f"unexpected error {score}"]
    expect = {k: v for k, v in expect.items() if k != "why"}
    problems: list[str] = []
    pays = expect.pop("payments", None)
    if isinstance(pays, str):
        problems += payment_text_problems(score, pays)
    elif pays is not None:
        expect["payments"] = pays
    return problems + compare(score, expect)
