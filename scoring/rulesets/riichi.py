"""Standard Japanese riichi mahjong, as common online play scores it.

Defaults: open tanyao on, one red five per suit, no kiriage, 13+ han is a (kazoe) yakuman, double
yakuman on (13-sided kokushi, suuankou tanki, pure nine gates, big four winds). Honba pay 300 on
ron and 100 from each payer on tsumo; riichi deposits (``riichi_sticks``) go to the winner.

The Boo family and Jun subclass :class:`HanFuRuleset` and override what differs.

>>> from scoring import score_hand
>>> s = score_hand({"rules": "riichi", "hand": "234m567p223344s5s", "win_tile": "5s",
...                 "seat_wind": "south", "flags": ["riichi"], "dora_indicators": ["1m"]})
>>> s.han, s.fu, s.total, [y.id for y in s.yaku]
(5, 30, 8000, ['riichi', 'pinfu', 'tanyao', 'iipeikou', 'dora'])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar, Final

from paiscan.scoring.decompose import group_label
from paiscan.scoring.engine import Ruleset, mypyc_attr
from paiscan.scoring.errors import HandError
from paiscan.scoring.fu import FuRules, compute_fu, describe_fu
from paiscan.scoring.hand import CONTRACT_FLAGS, Hand
from paiscan.scoring.options import opt
from paiscan.scoring.score import (
    FuPart,
    Item,
    LazyScore,
    Payment,
    Score,
    Step,
    YakuHit,
    encode_json,
    fu_part_json,
    hit_json,
    json_str,
    round_up,
    step_json,
)
from paiscan.scoring.tiles import GREEN_TILES, format_tiles
from paiscan.scoring.yaku import STANDARD_YAKU, Context, Yaku, evaluate, flag, revalue, ryuuiisou_with_hatsu

LIMIT_NAMES: Final = {2000: "mangan", 3000: "haneman", 4000: "baiman", 6000: "sanbaiman", 8000: "yakuman"}
MULTI_YAKUMAN: Final = {
    1: "yakuman",
    2: "double_yakuman",
    3: "triple_yakuman",
    4: "quadruple_yakuman",
    5: "quintuple_yakuman",
    6: "sextuple_yakuman",
}


@dataclass(frozen=True)
class RiichiOptions:
    """Options of standard riichi (defaults as in common online play)."""

    open_tanyao: bool = opt(True, "tanyao counts with an open hand (kuitan)")
    red_fives: Mapping[str, int] = opt(
        {"m": 1, "p": 1, "s": 1}, "red fives in the set per suit; each is 1 han (aka dora)", bounds=(0, 4)
    )
    kiriage: bool = opt(False, "round 4 han 30 fu and 3 han 60 fu up to mangan (kiriage mangan)")
    kazoe: str = opt("yakuman", "what 13 or more han from regular yaku is worth", choices=("yakuman", "sanbaiman"))
    double_yakuman: bool = opt(
        True, "13-sided kokushi, suuankou tanki, pure nine gates and big four winds are double yakuman"
    )
    renhou: str = opt(
        "han5",
        "renhou (ron before the first draw): 5 han yaku, a yakuman, or not counted",
        choices=("han5", "yakuman", "off"),
    )
    double_wind_pair_fu: int = opt(4, "fu of a pair of the wind that is both seat and round wind", choices=(2, 4))
    ryuuiisou_needs_hatsu: bool = opt(False, "all green must contain the green dragon")


_renhou: Final = flag("renhou")
RENHOU_HAN5: Final = Yaku("renhou", "Blessing of man", "人和", 5, None, _renhou)
RENHOU_YAKUMAN: Final = Yaku("renhou_yakuman", "Blessing of man", "人和", 1, None, _renhou, unit="yakuman")


_BONUS_NAMES: Final = {
    "dora": ("Dora", "ドラ"),
    "aka_dora": ("Red fives", "赤ドラ"),
    "ura_dora": ("Ura dora", "裏ドラ"),
}


@lru_cache(maxsize=256)
def _bonus_hit(bonus_id: str, n: int) -> YakuHit:
    """The hit of ``n`` dora, red fives or ura-dora (one shared value per count)."""
    name, name_ja = _BONUS_NAMES[bonus_id]
    return YakuHit(bonus_id, name, name_ja, n, "han", n)


#: the declarations whose winner turns the ura-dora over (counted, or warned about as ignored)
URA_FLAGS: Final = frozenset({"riichi", "double_riichi"})


@mypyc_attr(allow_interpreted_subclasses=True)  # (Boo and Jun subclass it)
class HanFuRuleset(Ruleset):
    """The han × fu family: yaku from a table, dora, fu, a basic-points table and payments.

    Hooks: :meth:`yaku_table`, :meth:`fu_rules`, :meth:`bonus_han`, :meth:`basic_points`,
    :meth:`payments`.
    """

    #: whether this class prices readings with :meth:`_price` (it keeps this class's
    #: score_interpretation), and which hooks it keeps (their results are then shared per value)
    _own_pricing: ClassVar[bool] = True
    _own_basic_points: ClassVar[bool] = True
    _own_payments: ClassVar[bool] = True
    #: the options of the hand before and their fu rules (see :meth:`_fu_rules_of`)
    _last_fu_rules: tuple[Any, FuRules] | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._own_pricing = cls.score_interpretation is HanFuRuleset.score_interpretation
        cls._own_basic_points = cls.basic_points is HanFuRuleset.basic_points
        cls._own_payments = cls.payments is HanFuRuleset.payments

    def fu_rules(self, opts: Any) -> FuRules:
        return _fu_rules(getattr(opts, "double_wind_pair_fu", 4))

    def _fu_rules_of(self, opts: Any) -> FuRules:
        """:meth:`fu_rules` of ``opts``, kept for the options of the hand before (most often the
        shared defaults: options are immutable)."""
        last = self._last_fu_rules
        if last is not None and last[0] is opts:
            return last[1]
        rules = self.fu_rules(opts)
        self._last_fu_rules = (opts, rules)
        return rules

    def bonus_han(self, ctx: Context) -> list[YakuHit]:
        """Dora-like han added to a hand that has a yaku (not a yaku themselves)."""
        hand, facts = ctx.hand, ctx.facts
        out = []
        dora = facts.dora_count(hand.dora_indicators) if hand.dora_indicators else 0
        if dora:
            out.append(_bonus_hit("dora", dora))
        reds = sum(facts.reds)
        if reds:
            out.append(_bonus_hit("aka_dora", reds))
        if hand.ura_indicators and facts.flags & URA_FLAGS:
            ura = facts.dora_count(hand.ura_indicators)
            if ura:
                out.append(_bonus_hit("ura_dora", ura))
        return out

    def basic_points(self, han: int, fu: int, yakuman: int, opts: Any) -> tuple[int, str | None, str]:
        """Basic points, the limit reached (or None) and a sentence explaining them."""
        return riichi_basic_points(han, fu, yakuman, getattr(opts, "kazoe", None), getattr(opts, "kiriage", False))

    def payments(self, basic: int, hand: Hand, opts: Any) -> tuple[list[Payment], list[Item], list[Step]]:
        """Riichi payments: each payment rounded up to 100, honba 300 (100 each on tsumo)."""
        pays, items, steps, _ = riichi_payments(basic, hand.tsumo, hand.is_dealer, hand.honba, hand.riichi_sticks)
        return list(pays), list(items), list(steps)

    def is_pinfu(self, hits: Sequence[YakuHit]) -> bool:
        return any(h.id == "pinfu" for h in hits)

    def score_interpretation(self, ctx: Context) -> Score | HandError:
        priced = self._price(ctx)
        if isinstance(priced, HandError):
            return priced
        return self._build(ctx, priced)

    def price_interpretation(self, ctx: Context) -> tuple[tuple[int, ...], Any] | HandError:
        """The reading's rank without its explanation (a subclass that scores a reading its own
        way is priced by its :meth:`score_interpretation`)."""
        if not self._own_pricing:
            return super().price_interpretation(ctx)
        priced = self._price(ctx)
        if isinstance(priced, HandError):
            return priced
        return priced.rank, priced

    def build_score(self, ctx: Context, priced: Any) -> Score:
        if isinstance(priced, _Priced):
            return self._build(ctx, priced)
        return super().build_score(ctx, priced)

    def _price(self, ctx: Context) -> _Priced | HandError:
        """Yaku, fu, basic points and payments of one reading: every number of its Score."""
        opts = ctx.opts
        hits = evaluate(self.yaku_table(opts), ctx)
        han = yakuman = points = 0
        for h in hits:
            if h.unit == "yakuman":
                yakuman += h.value
            else:
                han += h.value
                if h.unit == "points":
                    points += h.value
        fu_rules = self._fu_rules_of(opts)
        # (pinfu matters to fu only on tsumo: no tsumo fu)
        fu, fu_parts = compute_fu(ctx, fu_rules, is_pinfu=ctx.facts.tsumo and self.is_pinfu(hits))
        if yakuman:
            hits = [h for h in hits if h.unit == "yakuman"]
            han = points = 0
        else:
            if han == 0:
                return HandError("no_yaku", "the hand is complete but has no yaku (dora do not count as yaku)", "hand")
            bonus = self.bonus_han(ctx)
            if bonus:
                hits = hits + bonus
                for h in bonus:
                    han += h.value
                    if h.unit == "points":
                        points += h.value
        if self._own_basic_points:
            kazoe, kiriage = getattr(opts, "kazoe", None), getattr(opts, "kiriage", False)
            basic, limit, why = riichi_basic_points(han, fu, yakuman, kazoe, kiriage)
        else:
            basic, limit, why = self.basic_points(han, fu, yakuman, opts)
        hand = ctx.hand
        pays: Sequence[Payment]
        items: Sequence[Item]
        pay_steps: Sequence[Step]
        if self._own_payments:
            pays, items, pay_steps, total = riichi_payments(
                basic, hand.tsumo, hand.is_dealer, hand.honba, hand.riichi_sticks
            )
        else:
            pays, items, pay_steps = self.payments(basic, hand, opts)
            total = sum(p.amount for p in pays) + sum(i.value for i in items if i.id == "riichi_sticks")
        rank = (total, han + points, fu)
        return _Priced(rank, hits, han, yakuman, fu, fu_parts, basic, limit, why, pays, items, pay_steps, total)

    def _build(self, ctx: Context, p: _Priced) -> Score:
        """The Score of a priced reading; its explanation is written when first read."""
        interp = ctx.interp
        return LazyScore.of_fields(
            _Explanation(self.id, ctx, p),
            {
                "rules": self.id,
                "total": p.total,
                "payments": tuple(p.pays),
                "han": p.han,
                "fu": p.fu,
                "limit": p.limit,
                "yaku": tuple(p.hits),
                "items": tuple(p.items),
                "warnings": (),
                "fu_details": tuple(p.fu_parts),
                "wait": interp.wait,
                "form": interp.form,
                "extra": {"basic_points": p.basic, "yakuman": p.yakuman},
            },
        )


class _Explanation:
    """Writes a priced riichi reading's explanation, labels and JSON from its parts (the shared
    parts' JSON is written once: :func:`~paiscan.scoring.score.hit_json` and the like)."""

    __slots__ = ("ctx", "p", "rules")

    def __init__(self, rules: str, ctx: Context, p: _Priced) -> None:
        self.rules, self.ctx, self.p = rules, ctx, p

    def _yaku_detail(self) -> str:
        p = self.p
        if p.yakuman:
            return " + ".join([hit_json(h)[2] for h in p.hits]) + f" = {p.yakuman} yakuman"
        return " + ".join([hit_json(h)[1] for h in p.hits]) + f" = {p.han} han"

    def fields(self) -> dict[str, Any]:
        p = self.p
        steps = [Step("yaku", self._yaku_detail())]
        if not p.yakuman:
            steps.append(Step("fu", describe_fu(p.fu, p.fu_parts)))
        steps.append(Step("basic", p.why))
        steps.extend(p.pay_steps)
        steps.append(_total_step(p.total))
        return {"steps": tuple(steps), "decomposition": tuple(sorted_labels(self.ctx))}

    def json(self, score: LazyScore) -> str:
        p = self.p
        hits, han, yakuman, fu, fu_parts, total = p.hits, p.han, p.yakuman, p.fu, p.fu_parts, p.total
        pays, items, pay_steps, basic, limit, why = p.pays, p.items, p.pay_steps, p.basic, p.limit, p.why
        interp = self.ctx.interp
        yaku_json, yaku_step = _hits_json(hits, han, yakuman)
        if yakuman:
            fu_json, fu_step = "[" + ", ".join([fu_part_json(part)[0] for part in fu_parts]) + "]", ""
        else:
            fu_json, fu_step = _fu_json(fu_parts, fu)
        pays_json, items_json, pay_steps_json = _pay_json(pays, items, pay_steps)
        basic_step = _BASIC_STEPS.get(why)
        if basic_step is None:
            if len(_BASIC_STEPS) >= _MAX_JSON_CACHE:
                _BASIC_STEPS.clear()
            basic_step = _BASIC_STEPS[why] = step_json("basic", why) + ", "
        form, wait = interp.form, interp.wait
        if form == "kokushi":
            labels = json_str(format_tiles(self.ctx.hand.all_tiles))
        else:
            label = _LABEL_JSON
            labels = ", ".join([label[c] for c in sorted([g[1] * 4 + g[0] for g in interp.groups])])
        quoted = _QUOTED
        rules_json = quoted.get(self.rules) or json_str(self.rules)
        limit_json = "null" if limit is None else quoted.get(limit) or json_str(limit)
        warnings_json = encode_json(list(score.warnings)) if score.warnings else "[]"
        wait_json = "null" if wait is None else quoted.get(wait) or json_str(wait)
        form_json = quoted.get(form) or json_str(form)
        # (the key order of Score.to_dict; one f-string, which a compiled build writes natively)
        return (
            f'{{"rules": {rules_json}, "total": {total}, "payments": {pays_json}, "han": {han}, "fu": {fu}, '
            f'"limit": {limit_json}, "yaku": {yaku_json}, "items": {items_json}, "decomposition": [{labels}], '
            f'"warnings": {warnings_json}, "fu_details": {fu_json}, "wait": {wait_json}, "form": {form_json}, '
            f'"explanation": [{yaku_step}{fu_step}{basic_step}{pay_steps_json}'
            f'{{"label": "total", "detail": "{total}"}}], "basic_points": {basic}, "yakuman": {yakuman}}}'
        )


#: the words a riichi Score writes as JSON strings (its ruleset, limits, waits and forms) → their JSON
_QUOTED: Final[dict[str, str]] = {
    w: json_str(w)
    for w in (
        "riichi",
        *LIMIT_NAMES.values(),
        *MULTI_YAKUMAN.values(),
        "ryanmen",
        "kanchan",
        "penchan",
        "tanki",
        "shanpon",
        "kokushi_single",
        "kokushi_13",
        "standard",
        "chiitoitsu",
        "kokushi",
    )
}
#: most entries of each JSON cache below (then it starts again)
_MAX_JSON_CACHE: Final = 1 << 14
#: ids of a reading's shared hits, han, yakuman → (the hits, their JSON list, the yaku step's JSON and a comma)
_HITS_JSON: Final[dict[tuple[int, ...], tuple[tuple[YakuHit, ...], str, str]]] = {}
#: ids of a reading's shared fu parts, fu → (the parts, their JSON list, the fu step's JSON and a comma)
_FU_JSON: Final[dict[tuple[int, ...], tuple[tuple[FuPart, ...], str, str]]] = {}
#: ids of the shared payments, items and payment steps → (them, their JSON, the steps' JSON and a comma)
_PAY_JSON: Final[dict[tuple[int, int, int], tuple[tuple[Any, ...], str, str, str]]] = {}
#: the basic points' sentence → its step's JSON and a comma
_BASIC_STEPS: Final[dict[str, str]] = {}
#: tile * 4 + shape → the MPSZ of that set or pair as JSON (sorting the codes sorts by tile, then shape)
_LABEL_JSON: Final[tuple[str, ...]] = tuple(json_str(group_label(code % 4, code // 4)) for code in range(34 * 4))


def _hits_json(hits: Sequence[YakuHit], han: int, yakuman: int) -> tuple[str, str]:
    """The JSON list of a reading's hits and its yaku step (with a comma after it)."""
    key = (*map(id, hits), han, yakuman)
    entry = _HITS_JSON.get(key)
    if entry is None:  # (an entry keeps its parts alive, so their ids name them alone)
        if yakuman:
            detail = " + ".join([hit_json(h)[2] for h in hits]) + f" = {yakuman} yakuman"
        else:
            detail = " + ".join([hit_json(h)[1] for h in hits]) + f" = {han} han"
        if len(_HITS_JSON) >= _MAX_JSON_CACHE:
            _HITS_JSON.clear()
        yaku_json = "[" + ", ".join([hit_json(h)[0] for h in hits]) + "]"
        entry = _HITS_JSON[key] = (tuple(hits), yaku_json, step_json("yaku", detail) + ", ")
    return entry[1], entry[2]


def _fu_json(parts: Sequence[FuPart], fu: int) -> tuple[str, str]:
    """The JSON list of a reading's fu parts and its fu step (with a comma after it)."""
    key = (*map(id, parts), fu)
    entry = _FU_JSON.get(key)
    if entry is None:
        if len(_FU_JSON) >= _MAX_JSON_CACHE:
            _FU_JSON.clear()
        fu_json = "[" + ", ".join([fu_part_json(part)[0] for part in parts]) + "]"
        entry = _FU_JSON[key] = (tuple(parts), fu_json, step_json("fu", describe_fu(fu, list(parts))) + ", ")
    return entry[1], entry[2]


def _pay_json(pays: Sequence[Payment], items: Sequence[Item], steps: Sequence[Step]) -> tuple[str, str, str]:
    """The JSON of the payments, the items and the payment steps (each with a comma after it)."""
    if type(pays) is not tuple or type(items) is not tuple or type(steps) is not tuple:  # not shared
        return _pay_json_of(pays, items, steps)
    key = (id(pays), id(items), id(steps))
    entry = _PAY_JSON.get(key)
    if entry is None:
        if len(_PAY_JSON) >= _MAX_JSON_CACHE:
            _PAY_JSON.clear()
        entry = _PAY_JSON[key] = ((pays, items, steps), *_pay_json_of(pays, items, steps))
    return entry[1], entry[2], entry[3]


def _pay_json_of(pays: Sequence[Payment], items: Sequence[Item], steps: Sequence[Step]) -> tuple[str, str, str]:
    return (
        encode_json([x.to_dict() for x in pays]),
        encode_json([x.to_dict() for x in items]),
        "".join([step_json(s.label, s.detail) + ", " for s in steps]),
    )


class _Priced:
    """Every number of one reading's Score, before its explanation is written (a class with its
    own ``__init__``: a compiled build makes its construction native)."""

    __slots__ = (
        "basic",
        "fu",
        "fu_parts",
        "han",
        "hits",
        "items",
        "limit",
        "pay_steps",
        "pays",
        "rank",
        "total",
        "why",
        "yakuman",
    )

    def __init__(
        self,
        rank: tuple[int, int, int],
        hits: list[YakuHit],
        han: int,
        yakuman: int,
        fu: int,
        fu_parts: list[FuPart],
        basic: int,
        limit: str | None,
        why: str,
        pays: Sequence[Payment],
        items: Sequence[Item],
        pay_steps: Sequence[Step],
        total: int,
    ) -> None:
        self.rank = rank
        self.hits = hits
        self.han = han
        self.yakuman = yakuman
        self.fu = fu
        self.fu_parts = fu_parts
        self.basic = basic
        self.limit = limit
        self.why = why
        self.pays = pays
        self.items = items
        self.pay_steps = pay_steps
        self.total = total


@lru_cache(maxsize=4096)
def riichi_basic_points(
    han: int, fu: int, yakuman: int, kazoe: str | None, kiriage: bool
) -> tuple[int, str | None, str]:
    """Basic points of riichi, the limit reached (or None) and a sentence explaining them (one
    shared answer per value: the table of han, fu and yakuman)."""
    if yakuman:
        mult = min(yakuman, 6)
        return 8000 * mult, MULTI_YAKUMAN[mult], f"{mult} × yakuman = {8000 * mult} basic points"
    if han >= 13:
        if kazoe == "yakuman":
            return 8000, "yakuman", f"{han} han: counted (kazoe) yakuman = 8000 basic points"
        return 6000, "sanbaiman", f"{han} han: capped at sanbaiman = 6000 basic points"
    for floor, basic in ((11, 6000), (8, 4000), (6, 3000), (5, 2000)):
        if han >= floor:
            return basic, LIMIT_NAMES[basic], f"{han} han = {LIMIT_NAMES[basic]} = {basic} basic points"
    basic = fu * 2 ** (han + 2)
    formula = f"{fu} fu × 2^({han}+2) = {basic}"
    if basic > 2000:
        return 2000, "mangan", f"{formula} > 2000 → mangan = 2000 basic points"
    if kiriage and (han, fu) in ((4, 30), (3, 60)):
        return 2000, "mangan", f"{formula} → kiriage mangan = 2000 basic points"
    return basic, None, f"{formula} basic points"


@lru_cache(maxsize=4096)
def riichi_payments(
    basic: int, tsumo: bool, is_dealer: bool, honba: int, riichi_sticks: int
) -> tuple[tuple[Payment, ...], tuple[Item, ...], tuple[Step, ...], int]:
    """Riichi payments of ``basic`` points: each payment rounded up to 100, honba 300 (100 each on
    tsumo), riichi deposits to the winner; and the total the winner gets. Shared by every hand of
    the same situation (the parts are immutable)."""
    steps: list[Step] = []
    items: list[Item] = []
    pays: list[Payment] = []
    if not tsumo:
        mult = 6 if is_dealer else 4
        amount = round_up(mult * basic, 100)
        steps.append(
            Step(
                "payment",
                f"{'dealer' if is_dealer else 'non-dealer'} ron: "
                f"{mult} × {basic} = {mult * basic} → {amount} from the discarder",
            )
        )
        if honba:
            steps.append(Step("honba", f"{honba} honba × 300 = {300 * honba} from the discarder"))
            items.append(Item("honba", 300 * honba))
        pays.append(Payment("discarder", amount + 300 * honba))
    elif is_dealer:
        each = round_up(2 * basic, 100)
        steps.append(Step("payment", f"dealer tsumo: each non-dealer pays 2 × {basic} → {each}"))
        if honba:
            steps.append(Step("honba", f"{honba} honba: 100 × {honba} more from each payer"))
            items.append(Item("honba", 300 * honba))
        pays.extend(Payment("non_dealer", each + 100 * honba) for _ in range(3))
    else:
        dealer = round_up(2 * basic, 100)
        other = round_up(basic, 100)
        steps.append(
            Step(
                "payment",
                f"non-dealer tsumo: dealer pays 2 × {basic} → {dealer}, each non-dealer pays {basic} → {other}",
            )
        )
        if honba:
            steps.append(Step("honba", f"{honba} honba: 100 × {honba} more from each payer"))
            items.append(Item("honba", 300 * honba))
        pays.append(Payment("dealer", dealer + 100 * honba))
        pays.extend(Payment("non_dealer", other + 100 * honba) for _ in range(2))
    if riichi_sticks:
        items.append(Item("riichi_sticks", 1000 * riichi_sticks, "deposits on the table"))
        steps.append(Step("deposits", f"{riichi_sticks} riichi stick(s) × 1000 = {1000 * riichi_sticks}"))
    total = sum(p.amount for p in pays) + sum(i.value for i in items if i.id == "riichi_sticks")
    return tuple(pays), tuple(items), tuple(steps), total


@lru_cache(maxsize=1024)
def _total_step(total: int) -> Step:
    return Step("total", f"{total}")


@lru_cache(maxsize=8)
def _fu_rules(double_wind_pair: int) -> FuRules:
    return FuRules(double_wind_pair=double_wind_pair)


def sorted_labels(ctx: Context) -> list[str]:
    if ctx.interp.form == "kokushi":
        return [format_tiles(ctx.hand.all_tiles)]
    return [group_label(shape, tile) for tile, shape in sorted([(g[1], g[0]) for g in ctx.interp.groups])]


#: flags of a win on a tile, which a nagashi mangan (paid at the draw) cannot have
NOT_WITH_NAGASHI: Final = frozenset(
    {"ippatsu", "haitei", "houtei", "rinshan", "chankan", "tenhou", "chiihou", "renhou"}
)


class Riichi(HanFuRuleset):
    id: ClassVar[str] = "riichi"
    name: ClassVar[str] = "Riichi (standard Japanese)"
    name_ja: ClassVar[str] = "リーチ麻雀"
    Options: ClassVar[type] = RiichiOptions
    presets: ClassVar[Mapping[str, Mapping[str, Any]]] = {
        "online": {},
        "no_aka": {"red_fives": {"m": 0, "p": 0, "s": 0}},
        "ema": {
            "open_tanyao": True,
            "red_fives": {"m": 0, "p": 0, "s": 0},
            "kiriage": False,
            "kazoe": "sanbaiman",
            "double_yakuman": False,
            "renhou": "han5",
        },
    }
    #: standard riichi has no open riichi: the flag is warned about, not counted
    used_flags: ClassVar[frozenset[str]] = CONTRACT_FLAGS - {"open_riichi"}
    #: one dora indicator, and one more for each kan (four at most)
    MAX_DORA_INDICATORS: ClassVar[int] = 5
    _tables: dict[tuple[bool, bool, str, bool], tuple[Yaku, ...]]

    def __init__(self) -> None:
        self._tables = {}
        self._last_table: tuple[Any, Sequence[Yaku]] = (None, ())

    def check_hand(self, hand: Hand, opts: Any) -> None:
        """Four players set nothing aside, and the table shows at most five indicators of each set,
        the ura-dora one under each dora indicator."""
        dora, ura = len(hand.dora_indicators), len(hand.ura_indicators)
        if not hand.nuki and dora <= self.MAX_DORA_INDICATORS and ura <= (dora or self.MAX_DORA_INDICATORS):
            return
        if hand.nuki:
            raise HandError("bad_nuki", "four-player riichi sets no tiles aside: nuki must be empty", "nuki")
        for name, tiles in (("dora_indicators", hand.dora_indicators), ("ura_indicators", hand.ura_indicators)):
            if len(tiles) > self.MAX_DORA_INDICATORS:
                raise HandError(
                    "bad_field",
                    f"{name}: the table shows at most {self.MAX_DORA_INDICATORS} "
                    f"(one, and one per kan), not {len(tiles)}",
                    name,
                )
        if hand.dora_indicators and len(hand.ura_indicators) > len(hand.dora_indicators):
            raise HandError(
                "bad_field",
                f"ura_indicators: one lies under each dora indicator, so at most "
                f"{len(hand.dora_indicators)}, not {len(hand.ura_indicators)}",
                "ura_indicators",
            )

    def warnings(self, hand: Hand, opts: Any) -> list[str]:
        out = super().warnings(hand, opts)
        if hand.ura_indicators and not hand.flags & URA_FLAGS:
            out.append("ura_indicators count only for a riichi winner: ignored")
        return out

    def yaku_table(self, opts: Any) -> Sequence[Yaku]:
        last = self._last_table
        if last[0] is opts:  # the options of the hand before (most often the shared defaults)
            return last[1]
        key = (opts.open_tanyao, opts.double_yakuman, opts.renhou, opts.ryuuiisou_needs_hatsu)
        table = self._tables.get(key)
        if table is None:
            changes: dict[str, dict[str, Any]] = {}
            if not opts.open_tanyao:
                changes["tanyao"] = {"open": None}
            if not opts.double_yakuman:
                for yid in ("kokushi_13", "suuankou_tanki", "junsei_chuuren"):
                    changes[yid] = {"closed": 1}
                changes["daisuushii"] = {"closed": 1, "open": 1}
            if opts.ryuuiisou_needs_hatsu:
                changes["ryuuiisou"] = {"check": ryuuiisou_with_hatsu}
            table = revalue(STANDARD_YAKU, changes)
            if opts.renhou == "han5":
                table = (*table, RENHOU_HAN5)
            elif opts.renhou == "yakuman":
                table = (*table, RENHOU_YAKUMAN)
            self._tables[key] = table
        self._last_table = (opts, table)
        return table

    def score(self, hand: Hand) -> Score:
        if "nagashi_mangan" in hand.flags:
            return self._nagashi(hand)
        return super().score(hand)

    def _nagashi(self, hand: Hand) -> Score:
        opts = self.parse_options(hand.options)
        self.check_flags(hand, opts)
        self.check_situation(hand, opts)
        won = sorted(hand.flags & NOT_WITH_NAGASHI)
        if won:
            raise HandError(
                "conflicting_flags",
                f"nagashi mangan is paid at the exhaustive draw, not on a win: {won[0]} cannot go with it",
                "flags",
            )
        warns = [*self.warnings(hand, opts)]
        if not hand.tsumo:
            warns.append("nagashi mangan is paid like a tsumo (from everyone), not by a discarder")
        if hand.concealed or hand.melds:
            warns.append("the hand's tiles are not used for nagashi mangan")
        pays, items, steps = self.payments(2000, hand.replace(tsumo=True), opts)
        total = sum(p.amount for p in pays) + sum(i.value for i in items if i.id == "riichi_sticks")
        hit = YakuHit("nagashi_mangan", "Nagashi mangan", "流し満貫", 5, "han")
        return Score(
            self.id,
            total,
            tuple(pays),
            han=5,
            fu=30,
            limit="mangan",
            yaku=(hit,),
            items=tuple(items),
            steps=(Step("yaku", "流し満貫 nagashi mangan: paid as a mangan tsumo"), *steps),
            fu_details=(FuPart(30, "nagashi_mangan", "fixed"),),
            form="nagashi",
            warnings=tuple(warns),
        )


__all__ = ["GREEN_TILES", "HanFuRuleset", "Riichi", "RiichiOptions"]
