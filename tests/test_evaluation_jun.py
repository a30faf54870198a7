"""Jun game evaluation: the spec's JUN-R vectors, the seed's 勝敗凡例, the 16-hand frame,
settlement of Jun scores, abandoned games, the series figures and their display."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from spec_vectors import game_vectors, shared_dir

from paiscan.scoring import score_hand
from paiscan.scoring.errors import HandError
from paiscan.scoring.evaluation_jun import (
    DRAW,
    GLYPHS,
    LOSS,
    WIN,
    Placing,
    deal,
    deals,
    evaluate_abandoned,
    evaluate_game,
    final_scores,
    player_figures,
    rank_scores,
    series_figures,
    win_deltas,
)

PLAYERS = ("A", "B", "C", "D")
SEED = (shared_dir() / "seeds" / "004_87d07c458dcf343b.txt").read_text(encoding="utf-8")


def jun_game_vectors() -> list[dict[str, Any]]:
    """The JUN-R game-level vectors of rules/jun.md §7."""
    return [v for v in game_vectors("jun") if str(v["id"]).startswith("JUN-R")]


VECTORS = jun_game_vectors()
FINAL = [v for v in VECTORS if "final" in v]
SERIES = [v for v in VECTORS if "series" in v]
ABANDONED = [v for v in VECTORS if "abandoned" in v]


def test_vectors_found() -> None:
    assert [v["id"] for v in VECTORS] == [f"JUN-R{i}" for i in range(1, 8)]
    assert len(FINAL) + len(SERIES) + len(ABANDONED) == len(VECTORS)


def check_game(result: Any, expect: dict[str, Any]) -> None:
    """Every key the vector states: ranks pattern, wins/losses/draws/plus lists, points."""
    checked = 0
    for key, want in expect.items():
        if key == "why":
            continue
        checked += 1
        if key == "ranks":
            assert result.pattern == str(want)
        elif key in ("wins", "losses", "draws", "plus"):
            assert sorted(getattr(result, key)) == sorted(want), key
        elif key == "points":
            assert {r.player: r.points for r in result.results} == want
        else:
            raise AssertionError(f"unknown expectation {key}")
    assert checked


@pytest.mark.parametrize("vec", FINAL, ids=[v["id"] for v in FINAL])
def test_final_vector(vec: dict[str, Any]) -> None:
    result = evaluate_game(vec["final"])
    check_game(result, vec["expect"])
    assert result.counted and not result.warnings


@pytest.mark.parametrize("vec", SERIES, ids=[v["id"] for v in SERIES])
def test_series_vector(vec: dict[str, Any]) -> None:
    s = vec["series"]
    placings = [Placing.of(rank, plus) for rank, plus in zip(s["ranks"], s["plus"], strict=True)]
    figures = series_figures(placings, s["games"])
    shown = figures.display()
    for key in ("win_rate", "grade", "plus_rate"):
        assert shown[key] == vec["expect"][key]


@pytest.mark.parametrize("vec", ABANDONED, ids=[v["id"] for v in ABANDONED])
def test_abandoned_vector(vec: dict[str, Any]) -> None:
    result = evaluate_abandoned(vec["abandoned"], PLAYERS, offender=vec["offender"])
    check_game(result, vec["expect"])
    assert result.status == "personal_reason" and result.counted


# ------------------------------------------------------------------ the seed's legend
def seed_legend() -> list[tuple[str, str]]:
    """第27条(4) 勝敗凡例: (rank pattern, marks) pairs as printed (X for ×)."""
    part = SEED.split("(4)勝敗凡例")[1].split("純麻雀")[0]
    lines = [ln.split() for ln in part.strip().splitlines() if ln.strip()]
    out: list[tuple[str, str]] = []
    for ranks_line, marks_line in zip(lines[0::2], lines[1::2], strict=True):
        assert ranks_line[0] == "順位"
        out.extend(zip(ranks_line[1:], marks_line, strict=True))
    return out


def scores_for(pattern: str) -> dict[str, int]:
    """Final scores with the given ranks (a rank-0 pattern: all four at the start)."""
    if set(pattern) == {"0"}:
        return dict.fromkeys(PLAYERS, 30000)
    return {p: 70000 - 10000 * int(r) for p, r in zip(PLAYERS, pattern, strict=True)}


@pytest.mark.parametrize(("pattern", "printed"), seed_legend(), ids=[p for p, _ in seed_legend()])
def test_seed_legend(pattern: str, printed: str) -> None:
    marks = printed.replace("X", GLYPHS[LOSS])
    if len(marks) == 3:  # the first legend line lost its ○ (spec §4, §8.9): ○XXX
        marks = GLYPHS[WIN] + marks
    result = evaluate_game(scores_for(pattern))
    assert result.pattern == pattern
    assert result.legend == marks


def test_seed_legend_parsed() -> None:
    assert [p for p, _ in seed_legend()] == ["1234", "1222", "1233", "1224", "1134", "1133", "1114", "0000"]


# ------------------------------------------------------------------ options and details
def test_plus_at_start_option() -> None:
    final = {"A": 50000, "B": 30000, "C": 20000, "D": 20000}
    assert evaluate_game(final).plus == ("A",)
    assert evaluate_game(final, {"plus_at_start": True}).plus == ("A", "B")


def test_all_tied_rank_option() -> None:
    final = dict.fromkeys(PLAYERS, 30000)
    r = evaluate_game(final, {"all_tied_rank": 1})
    assert r.pattern == "1111" and r.legend == "△△△△" and r.wins == ()
    assert series_figures([r.result("A")]).display()["grade"] == "1000@1"
    assert series_figures([evaluate_game(final).result("A")]).display()["grade"] == "0@1"


def test_uneven_total_is_kept_with_a_warning() -> None:
    r = evaluate_game({"A": 45000, "B": 35000, "C": 25000, "D": 14000})
    assert r.pattern == "1234" and r.warnings and "119000" in r.warnings[0]


def test_result_dict() -> None:
    d = evaluate_game({"A": 45000, "B": 35000, "C": 25000, "D": 15000}).to_dict()
    assert d["ranks"] == "1234" and d["legend"] == "○×××"
    assert d["players"][1] == {
        "player": "B",
        "score": 35000,
        "points": 5000,
        "rank": 2,
        "mark": LOSS,
        "glyph": "×",
        "plus": True,
    }
    assert [s["label"] for s in d["explanation"]] == ["ranks", "marks", "plus"]


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"final": {"A": 1, "B": 2, "C": 3}}, "bad_field"),
        ({"final": {"A": 1, "B": 2, "C": 3, "D": 4.5}}, "bad_field"),
        ({"final": {"A": 1, "B": 2, "C": 3, "D": True}}, "bad_field"),
        ({"final": dict.fromkeys(PLAYERS, 30000), "options": {"plus_at_start": 1}}, "bad_option"),
        ({"final": dict.fromkeys(PLAYERS, 30000), "options": {"all_tied_rank": 2}}, "bad_option"),
        ({"final": dict.fromkeys(PLAYERS, 30000), "options": {"uma": True}}, "unknown_option"),
    ],
)
def test_evaluate_game_rejects(kwargs: dict[str, Any], code: str) -> None:
    with pytest.raises(HandError) as err:
        evaluate_game(**kwargs)
    assert err.value.code == code


# ------------------------------------------------------------------ abandoned games (第17条)
MID = {"A": 38000, "B": 31000, "C": 31000, "D": 20000}


@pytest.mark.parametrize(
    ("reason", "kwargs", "counted", "pattern"),
    [
        ("external_reason", {"hands_started": 8, "final": MID}, False, ""),
        ("external_reason", {"hands_started": 9, "final": MID}, True, "1224"),
        ("external_reason", {"hands_started": 16, "final": MID}, True, "1224"),
        ("too_many_hands", {"final": MID}, True, "1224"),
        ("personal_reason", {"offender": "A"}, True, "1114"),
    ],
)
def test_abandoned(reason: str, kwargs: dict[str, Any], counted: bool, pattern: str) -> None:
    r = evaluate_abandoned(reason, PLAYERS, **kwargs)
    assert r.counted == counted and r.pattern == pattern
    assert r.steps[0].label == "abandoned"


def test_personal_reason_whenever() -> None:
    """中断時点に関係なく: the scores at the time do not matter."""
    r = evaluate_abandoned("personal_reason", PLAYERS, final=MID, offender="B")
    assert r.losses == ("B",) and r.wins == ("A", "C", "D")
    assert {p.player: p.score for p in r.results} == {"A": 40000, "B": 0, "C": 40000, "D": 40000}
    assert r.plus == ("A", "C", "D")


@pytest.mark.parametrize(
    ("reason", "kwargs"),
    [
        ("power_cut", {"final": MID}),
        ("personal_reason", {}),
        ("personal_reason", {"offender": "E"}),
        ("external_reason", {"final": MID}),
        ("external_reason", {"final": MID, "hands_started": 17}),
        ("external_reason", {"hands_started": 12}),
        ("too_many_hands", {"final": {"A": 1, "B": 2, "C": 3, "E": 4}}),
    ],
)
def test_abandoned_rejects(reason: str, kwargs: dict[str, Any]) -> None:
    with pytest.raises(HandError) as err:
        evaluate_abandoned(reason, PLAYERS, **kwargs)
    assert err.value.code == "bad_field"


# ------------------------------------------------------------------ the 16-hand frame
def test_sixteen_hands() -> None:
    ds = deals()
    assert len(ds) == 16
    assert [d.round_wind for d in ds] == ["east"] * 4 + ["south"] * 4 + ["west"] * 4 + ["north"] * 4
    assert [d.dealer for d in ds] == [0, 1, 2, 3] * 4  # 輪荘: the deal always moves on
    for d in ds:
        winds = [d.seat_wind(seat) for seat in range(4)]
        assert winds[d.dealer] == "east" and sorted(winds) == ["east", "north", "south", "west"]


@pytest.mark.parametrize("bad", [0, 17, True, "1"])
def test_deal_rejects(bad: Any) -> None:
    with pytest.raises(HandError):
        deal(bad)


PINFU = {"rules": "jun", "hand": "234m567p34s678s55s", "win_tile": "2s"}


def test_settle_a_ron_and_a_tsumo() -> None:
    # hand 2: B deals (East); A sits North. A wins 2 han by ron from C: C pays 3000
    ron = score_hand({**PINFU, "seat_wind": "north"})
    assert win_deltas(ron, PLAYERS, 2, "A", "C") == {"A": 3000, "B": 0, "C": -3000, "D": 0}
    # A wins by tsumo (3 han: + 自摸和): 2000 オール, the dealer B pays like the others
    tsumo = score_hand({**PINFU, "seat_wind": "north", "win": "tsumo"})
    d = win_deltas(tsumo, PLAYERS, 2, "A")
    assert d == {"A": 6000, "B": -2000, "C": -2000, "D": -2000}
    # the dealer wins by tsumo in hand 2
    dealer = score_hand({**PINFU, "seat_wind": "east", "win": "tsumo"})
    assert win_deltas(dealer, PLAYERS, 2, "B") == {"A": -2000, "B": 6000, "C": -2000, "D": -2000}
    scores = final_scores(PLAYERS, [win_deltas(ron, PLAYERS, 2, "A", "C"), d])
    assert scores == {"A": 39000, "B": 28000, "C": 25000, "D": 28000}
    assert sum(scores.values()) == 120000


@pytest.mark.parametrize(
    ("score_kw", "args"),
    [
        ({"seat_wind": "north"}, (2, "A", None)),  # a ron needs the discarder
        ({"seat_wind": "north"}, (2, "A", "A")),
        ({"seat_wind": "north", "win": "tsumo"}, (2, "A", "C")),  # a tsumo has none
        ({"seat_wind": "east", "win": "tsumo"}, (2, "A", None)),  # scored as the dealer, A is not
        ({"seat_wind": "north"}, (2, "E", "C")),
        ({"seat_wind": "north"}, (0, "A", "C")),
    ],
)
def test_settle_rejects(score_kw: dict[str, Any], args: tuple[int, str, str | None]) -> None:
    score = score_hand({**PINFU, **score_kw})
    with pytest.raises(HandError):
        win_deltas(score, PLAYERS, *args)


def test_settle_only_jun_scores() -> None:
    riichi = score_hand({**PINFU, "rules": "riichi", "seat_wind": "north"})
    with pytest.raises(HandError):
        win_deltas(riichi, PLAYERS, 2, "A", "C")


# ------------------------------------------------------------------ series
def test_player_figures_over_games() -> None:
    games = [
        evaluate_game({"A": 45000, "B": 35000, "C": 25000, "D": 15000}),
        evaluate_game({"A": 40000, "B": 40000, "C": 25000, "D": 15000}),
        evaluate_abandoned("external_reason", PLAYERS, final=MID, hands_started=5),  # no game
        evaluate_game(dict.fromkeys(PLAYERS, 30000)),
        evaluate_abandoned("personal_reason", PLAYERS, offender="B"),
    ]
    b = player_figures(games, "B")
    assert (b.games, b.wins, b.rank_sum, b.plus_count) == (4, 1, 2 + 1 + 0 + 4, 2)
    assert b.display() == {"win_rate": "0.250@4", "grade": "1750@4", "plus_rate": "0.500@4"}
    assert player_figures(games, "A", games=10).display()["win_rate"] == "0.300@10"


@pytest.mark.parametrize(
    ("ranks", "games", "shown"),
    [
        ([1, 2, 2], None, {"win_rate": "0.333@3", "grade": "1667@3"}),
        ([1, 1, 2], None, {"win_rate": "0.667@3", "grade": "1333@3"}),
        ([1] + [4] * 15, None, {"win_rate": "0.063@16", "grade": "3813@16"}),  # halves round up
        ([2, 2], 8, {"win_rate": "0.000@8", "grade": "500@8"}),
    ],
)
def test_series_display(ranks: list[int], games: int | None, shown: dict[str, str]) -> None:
    got = series_figures([Placing.of(r, False) for r in ranks], games).display()
    for key, want in shown.items():
        assert got[key] == want


@pytest.mark.parametrize(
    ("placings", "games"),
    [
        ([], None),
        ([Placing.of(1, True)] * 3, 2),
        ([Placing(5, WIN, True)], None),
        ([Placing(1, "top", True)], None),
    ],
)
def test_series_rejects(placings: list[Placing], games: int | None) -> None:
    with pytest.raises(HandError):
        series_figures(placings, games)


# ------------------------------------------------------------------ properties
scores_st = st.lists(st.integers(-60000, 150000).map(lambda x: x // 100 * 100), min_size=4, max_size=4)


@given(scores_st, st.permutations(range(4)))
def test_ranks_are_competition_ranks(scores: list[int], order: Sequence[int]) -> None:
    final = dict(zip(PLAYERS, scores, strict=True))
    r = evaluate_game(final)
    shuffled = evaluate_game({PLAYERS[i]: scores[i] for i in order})
    assert r.ranks == shuffled.ranks and r.pattern == shuffled.pattern
    if len(set(scores)) == 1:
        assert r.pattern == "0000" and set(r.marks.values()) == {DRAW}
        return
    for p, s in final.items():
        assert r.ranks[p] == 1 + sum(1 for x in scores if x > s)
    assert set(r.wins) == {p for p, s in final.items() if s == max(scores)}
    assert set(r.losses) == set(PLAYERS) - set(r.wins) and not r.draws
    assert set(r.plus) == {p for p, s in final.items() if s > 30000}
    assert rank_scores(final) == r.ranks


@given(st.lists(st.tuples(scores_st, st.sampled_from(PLAYERS)), min_size=1, max_size=12))
def test_figures_bounds(games: list[tuple[list[int], str]]) -> None:
    results = [evaluate_game(dict(zip(PLAYERS, s, strict=True))) for s, _ in games]
    for p in PLAYERS:
        f = player_figures(results, p)
        assert f.games == len(results)
        assert 0 <= f.win_rate <= 1 and 0 <= f.plus_rate <= 1 and 0 <= f.grade <= 4000
        assert f.wins == sum(1 for r in results if p in r.wins)
    total_wins = sum(player_figures(results, p).wins for p in PLAYERS)
    ties = sum(1 for r in results if r.pattern == "0000")
    assert total_wins >= len(results) - ties
