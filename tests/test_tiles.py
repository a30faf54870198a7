import pytest

from paiscan.scoring.errors import HandError
from paiscan.scoring.tiles import (
    BACK,
    RED_5M,
    RED_5P,
    RED_5S,
    dora_from_indicator,
    format_tiles,
    kind,
    parse_tiles,
    tile_name,
)


@pytest.mark.parametrize(
    ("text", "tiles"),
    [
        ("123m406p55z", [0, 1, 2, 12, RED_5P, 14, 31, 31]),
        ("1 2 3 m", [0, 1, 2]),
        ("0m0s", [RED_5M, RED_5S]),
        ("?19s?", [BACK, 18, 26, BACK]),
        ("7z", [33]),
        ("", []),
    ],
)
def test_parse(text: str, tiles: list[int]) -> None:
    assert parse_tiles(text) == tiles


@pytest.mark.parametrize("text", ["8z", "0z", "12", "m", "1x", "1m2", "5?", "１m"])
def test_parse_rejects(text: str) -> None:
    with pytest.raises(HandError) as info:
        parse_tiles(text, "hand")
    assert info.value.code == "bad_tile" and info.value.field == "hand"


def test_face_down_rejected_where_scored() -> None:
    with pytest.raises(HandError) as info:
        parse_tiles("?", "hand", allow_back=False)
    assert info.value.code == "face_down_tile"


@pytest.mark.parametrize("text", ["123m406p55z", "0m0p0s", "1112345678999m", "19m19p19s1234567z"])
def test_round_trip(text: str) -> None:
    assert format_tiles(parse_tiles(text)) == text


def test_red_five_is_a_five_in_order() -> None:
    assert format_tiles(parse_tiles("6p5p0p4p")) == "4056p"
    assert kind(RED_5P) == kind(parse_tiles("5p")[0])


@pytest.mark.parametrize(
    ("indicator", "dora", "three"),
    [
        ("1m", "2m", False),
        ("9m", "1m", False),
        ("9s", "1s", False),
        ("4z", "1z", False),
        ("1z", "2z", False),
        ("7z", "5z", False),
        ("5z", "6z", False),
        ("0p", "6p", False),
        ("1m", "5m", True),
        ("5m", "9m", True),
        ("9m", "1m", True),
        ("9p", "1p", True),
    ],
)
def test_dora_from_indicator(indicator: str, dora: str, three: bool) -> None:
    assert tile_name(dora_from_indicator(parse_tiles(indicator)[0], three)) == dora
