"""The phone page in headless Chromium: upload a photo, correct a tile, see the score change.

The service runs under uvicorn on 127.0.0.1 (a free port) with the demo reader injected through
the app factory, so no trained model is needed. Screenshots go to build/.
"""

from __future__ import annotations

import re
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
playwright_sync = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
if CHROMIUM is None:
    pytest.skip("Debian's chromium is not installed (apt-get install chromium)", allow_module_level=True)

expect = playwright_sync.expect

from paiscan.service.app import create_app  # noqa: E402
from paiscan.service.demo import DemoReader, demo_photo  # noqa: E402
from paiscan.service.settings import ServiceSettings  # noqa: E402

BUILD = Path(__file__).resolve().parents[1] / "build"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PHONE = {"width": 390, "height": 844}


@contextmanager
def serving(reader: Any, settings: ServiceSettings) -> Iterator[str]:
    """The app with ``reader`` under uvicorn on a free loopback port; its base URL."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(create_app(settings, reader=reader), log_level="warning", lifespan="on")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not srv.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(10)
        sock.close()


def _phone_page(browser: Any, base: str, foreign: list[str], errors: list[str]) -> Any:
    ctx = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    page.on("request", lambda r: None if r.url.startswith((base, "data:", "blob:")) else foreign.append(r.url))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return page


def test_photo_correct_and_score(server: str, browser: Any, tmp_path: Path) -> None:
    BUILD.mkdir(exist_ok=True)
    photo = tmp_path / "hand.jpg"
    photo.write_bytes(demo_photo(1600, 1000))
    foreign: list[str] = []
    errors: list[str] = []
    page = _phone_page(browser, server, foreign, errors)
    page.goto(server + "/")
    page.wait_for_selector("body.ready")
    page.screenshot(path=str(BUILD / "web-start.png"), full_page=True)

    page.set_input_files("#picker", str(photo))
    expect(page.locator("#boxes .box")).to_have_count(14)
    # the demo reading: tanyao + pinfu, dealer ron, 2 han 30 fu
    page.wait_for_selector('#score[data-total="2900"]')
    assert page.locator("#questions").is_visible()  # the unsure 5p is asked about
    # ... each answer priced: the red five is a dora
    expect(page.locator('#questions .choice:has(.tile[data-face="5p"]) .price')).to_have_text("2,900")
    expect(page.locator('#questions .choice:has(.tile[data-face="0p"]) .price')).to_have_text("5,800")
    page.screenshot(path=str(BUILD / "web-read.png"), full_page=True)

    # tap the unsure tile and take the red five from the top-k suggestions
    page.locator('#boxes .box[data-index="4"]').click()
    page.wait_for_selector("#palette[open]")
    top = page.locator('#palette-top .pal[data-face="0p"]')
    assert top.count() == 1
    assert page.locator("#palette-all .pal").count() == 37
    page.screenshot(path=str(BUILD / "web-palette.png"))
    top.click()
    page.wait_for_selector('#score[data-total="5800"]')  # + aka dora: 3 han 30 fu
    assert page.locator('#boxes .box[data-index="4"]').get_attribute("data-face") == "0p"
    assert page.input_value("#in-hand") == "234m406p2245678s"
    score_text = page.inner_text("#score")
    assert "5,800" in score_text and "断幺九" in score_text and "平和" in score_text
    page.screenshot(path=str(BUILD / "web-corrected.png"), full_page=True)

    # the context only the ruleset reads: tsumo changes the flags offered and the score
    page.locator("input[name=win][value=tsumo] + span").click()
    expect(page.locator("#score")).not_to_have_attribute("data-total", "5800")
    expect(page.locator("#score")).not_to_have_attribute("data-total", "")
    assert page.locator('#flags input[value="haitei"]').count() == 1
    assert page.locator('#flags input[value="houtei"]').count() == 0

    assert not foreign, f"the page fetched from outside the server: {foreign}"
    assert not errors, errors
    page.context.close()


def _type_a_tsumo(page: Any) -> None:
    """Type the dealer's tsumo 123m456p789s1122z + 2z and wait for its score (1 han 40 fu: 700 all)."""
    page.wait_for_selector("body.ready")
    if not page.locator("#hand-typing[open]").count():
        page.locator("#hand-typing summary").click()
    page.fill("#in-hand", "123m456p789s1122z")
    page.fill("#in-win", "2z")
    page.locator("input[name=win][value=tsumo] + span").click()
    page.wait_for_selector('#score[data-total="2100"]')


def test_typed_hand_without_photo(server: str, browser: Any) -> None:
    foreign: list[str] = []
    errors: list[str] = []
    page = _phone_page(browser, server, foreign, errors)
    page.goto(server + "/")
    _type_a_tsumo(page)
    page.fill("#in-win", "2x")
    page.wait_for_selector("#in-win.invalid")
    assert "Cannot score" in page.inner_text("#score")
    # a ruleset change swaps the options shown
    page.select_option("#ruleset", "jun")
    expect(page.locator("#options [data-option=yakuman_stacking]")).to_have_count(1)
    page.screenshot(path=str(BUILD / "web-typed.png"), full_page=True)
    assert not foreign and not errors, (foreign, errors)
    page.context.close()


class Answer:
    """A reader's result as the app sees it: ``to_dict()`` gives a prepared answer."""

    def __init__(self, out: dict[str, Any]) -> None:
        self.out = out

    def to_dict(self) -> dict[str, Any]:
        return self.out


def with_faces(dets: list[dict[str, Any]], faces: list[str], p: float) -> list[dict[str, Any]]:
    """The demo reader's detections read as ``faces``, each ``p`` sure."""
    for d, face in zip(dets, faces, strict=True):
        d["class"] = face
        d["topk"] = [[face, p]]
    return dets


class PipelineShapedReader(DemoReader):
    """Answers in the shape paiscan.vision.reading gives: roles, corrections, a win-tile ambiguity with the
    detections of its candidates, and an alternative reading."""

    def read(self, image: Any, rules: str = "riichi", context: dict[str, Any] | None = None) -> Any:
        base = super().read(image, rules, context).to_dict()
        faces = ["2m", "3m", "4m", "4p", "5p", "6p", "6s", "7s", "8s", "2s", "2s", "3s", "4s", "5s"]
        dets = with_faces(base["detections"], faces, 0.9)
        for d, face in zip(dets, faces, strict=True):
            d["topk"].append(["0p" if face == "5p" else face, 0.05])
        dets[4]["topk"] = [["5p", 0.5], ["0p", 0.45]]
        out = {
            **base,
            "detections": dets,
            "hand": {"hand": "234m406p678s2234s", "melds": [], "win_tile": "5s", "dora_indicators": [], "nuki": ""},
            "corrections": [{"index": 4, "read": "5p", "as": "0p", "probability": 0.45}],
            "ambiguities": [{"kind": "win_tile", "indices": [13, 9], "candidates": ["5s", "2s"]}],
            "alternatives": [
                {
                    "hand": "234m456p678s2234s",
                    "melds": [],
                    "win_tile": "5s",
                    "dora_indicators": [],
                    "nuki": "",
                    "score_total": 2900,
                    "status": "scored",
                }
            ],
        }

        return Answer(out)


@contextmanager
def uploaded(browser: Any, reader: Any, tmp_path: Path) -> Iterator[Any]:
    """The phone page of a server with ``reader``, a demo photo uploaded; on leaving, it must have
    fetched nothing from outside the server and logged no error."""
    photo = tmp_path / "hand.png"
    photo.write_bytes(demo_photo(1200, 800, ".png"))
    foreign: list[str] = []
    errors: list[str] = []
    with serving(reader, ServiceSettings(workers=1)) as base:
        page = _phone_page(browser, base, foreign, errors)
        page.goto(base + "/")
        page.wait_for_selector("body.ready")
        page.set_input_files("#camera", str(photo))
        yield page
        assert not foreign and not errors, (foreign, errors)
        page.context.close()


def test_reader_corrections_and_win_tile_question(browser: Any, tmp_path: Path) -> None:
    with uploaded(browser, PipelineShapedReader(), tmp_path) as page:
        expect(page.locator("#boxes .box")).to_have_count(14)
        expect(page.locator('#boxes .box[data-index="4"]')).to_have_attribute("data-face", "0p")  # the reader's fix
        page.wait_for_selector('#score[data-total="5800"]')  # tanyao pinfu aka, 30 fu
        # each answer is priced with the context as it stands: here the answers score differently
        two_s = page.locator('#questions .choice:has(.tile[data-face="2s"])')
        expect(two_s.locator(".price")).to_have_text("3,900")
        expect(page.locator('#questions .choice:has(.tile[data-face="5s"]) .price')).to_have_text("5,800")
        expect(page.locator("#questions .same-score")).to_have_count(0)
        two_s.click()
        page.wait_for_selector('#score[data-total="3900"]')  # tanki on 2s: no pinfu, 40 fu
        assert page.locator("#hand-tiles .group.win .tile").get_attribute("data-face") == "2s"
        assert page.locator('#boxes .box[data-index="9"]').get_attribute("class").split().count("role-win") == 1
        page.locator("#questions details.alternatives summary").click()
        page.locator("#questions .choice", has_text="→ 2,900").click()  # the other reading
        page.wait_for_selector('#score[data-total="2900"]')
        page.screenshot(path=str(BUILD / "web-questions.png"), full_page=True)


class SameScoreWinReader(DemoReader):
    """A hand whose winning tile the photo leaves open, where either answer scores the same: the
    white dragons' triplet and 40 fu whether 9s (a pair wait, +2 fu) or 2m (two-sided) won."""

    def read(self, image: Any, rules: str = "riichi", context: dict[str, Any] | None = None) -> Any:
        base = super().read(image, rules, context).to_dict()
        faces = ["2m", "3m", "4m", "4p", "5p", "6p", "6s", "7s", "8s", "5z", "5z", "5z", "9s", "9s"]
        dets = with_faces(base["detections"], faces, 0.95)
        out = {
            **base,
            "detections": dets,
            "hand": {"hand": "234m456p678s9s555z", "melds": [], "win_tile": "9s", "dora_indicators": [], "nuki": ""},
            "corrections": [],
            "alternatives": [],
            "ambiguities": [{"kind": "win_tile", "indices": [13, 0], "candidates": ["9s", "2m"]}],
        }

        return Answer(out)


def test_a_win_tile_question_that_changes_nothing_says_so(browser: Any, tmp_path: Path) -> None:
    with uploaded(browser, SameScoreWinReader(), tmp_path) as page:
        page.wait_for_selector("#score[data-total]:not([data-total=''])")
        total = page.locator("#score").get_attribute("data-total")
        prices = page.locator("#questions .choice .price")
        expect(prices).to_have_count(2)
        expect(prices.nth(0)).to_have_text(f"{int(total):,}")
        expect(prices.nth(1)).to_have_text(f"{int(total):,}")
        expect(page.locator("#questions .choice").nth(1)).to_have_attribute(
            "aria-label", f"2 characters: {int(total):,} points"
        )
        expect(page.locator("#questions .same-score")).to_have_count(1)
        page.locator("#questions").screenshot(path=str(BUILD / "web-win-prices.png"))
        page.locator("#questions .choice:has(.tile[data-face='2m'])").click()  # answered: no longer priced
        page.wait_for_selector("#questions .question.done")
        expect(page.locator("#questions .same-score")).to_have_count(0)
        assert page.locator("#score").get_attribute("data-total") == total


class LeftOutTileReader(PipelineShapedReader):
    """As :class:`PipelineShapedReader`, and a fifteenth tile the reading left out (a doubtful end
    tile, 1m) that it asks about: not part of the hand, or a dora indicator."""

    def read(self, image: Any, rules: str = "riichi", context: dict[str, Any] | None = None) -> Any:
        out = super().read(image, rules, context).to_dict()
        extra = {**out["detections"][13], "class": "1m", "topk": [["1m", 0.3]], "role": "other", "confidence": 0.2}
        x1, y1, x2, y2 = extra["box"]
        extra["box"] = [x2 + 4, y1, x2 + 4 + (x2 - x1), y2]
        out = {
            **out,
            "detections": [*out["detections"], extra],
            "corrections": [],
            "ambiguities": [{"kind": "role", "index": 14, "candidates": ["other", "dora"]}],
            "alternatives": [],
        }

        return Answer(out)


def test_a_tile_left_out_can_be_made_the_indicator(browser: Any, tmp_path: Path) -> None:
    with uploaded(browser, LeftOutTileReader(), tmp_path) as page:
        expect(page.locator("#boxes .box")).to_have_count(15)
        page.wait_for_selector('#score[data-total="5800"]')  # tanyao pinfu aka, 30 fu
        indicator = page.locator("#questions .choice", has_text="dora indicator")
        expect(indicator.locator(".price")).to_have_text("11,600")  # priced before it is answered
        expect(page.locator("#questions .choice", has_text="not part of the hand").locator(".price")).to_have_text(
            "5,800"
        )
        indicator.click()
        page.wait_for_selector('#score[data-total="11600"]')  # indicator 1m: dora 2m, one more han
        assert page.locator('#boxes .box[data-index="14"]').get_attribute("class").split().count("role-dora") == 1


class RealReadingReader(DemoReader):
    """The demo photo answered with the real reading (:func:`paiscan.vision.reading.read_hand`) of
    :meth:`detections`, hand-built as tests/test_layout_helpers lays tiles out."""

    def detections(self) -> list[Any]:
        raise NotImplementedError

    def read(self, image: Any, rules: str = "riichi", context: dict[str, Any] | None = None) -> Any:
        from paiscan.vision.reading import read_hand

        base = super().read(image, rules, context).to_dict()
        reading = read_hand(self.detections(), rules, context).to_dict()
        keep = ("detections", "hand", "alternatives", "ambiguities", "problems", "corrections", "notes")
        return Answer({**base, **{k: reading[k] for k in keep if k in reading}})


class PonOrAddedKanReader(RealReadingReader):
    """A hand whose called white dragon's box reaches two tiles deep: a pon, asked about as an
    added kan."""

    def detections(self) -> list[Any]:
        from dataclasses import replace

        from test_layout_helpers import layout_boxes

        dets = layout_boxes("123m456p78s11z 9s ~0.8 5'55z", faces=True)
        x1, y1, x2, y2 = dets[11].box
        dets[11] = replace(dets[11], box=(x1, y1 - 0.6 * (y2 - y1), x2, y2))
        return dets


def test_a_pon_asked_about_as_an_added_kan_becomes_one(browser: Any, tmp_path: Path) -> None:
    from paiscan.scoring import score_hand

    with uploaded(browser, PonOrAddedKanReader(), tmp_path) as page:
        page.wait_for_selector("#score[data-total]:not([data-total=''])")
        context = {
            "win": page.locator("input[name=win]:checked").get_attribute("value"),
            "seat_wind": page.locator("#seat-wind").input_value(),
            "round_wind": page.locator("#round-wind").input_value(),
        }
        hand = {"rules": "riichi", "hand": "123m456p78s11z", "win_tile": "9s", **context}
        pon = score_hand({**hand, "melds": [{"type": "pon", "tiles": "555z", "from": "left"}]}).total
        kan = score_hand(
            {**hand, "melds": [{"type": "kan", "tiles": "5555z", "open": True, "added": True, "from": "left"}]}
        ).total
        assert pon != kan
        expect(page.locator("#score")).to_have_attribute("data-total", str(pon))
        # each answer priced with the context as it stands
        expect(page.locator("#questions .choice", has_text="pon 555z").locator(".price")).to_have_text(f"{pon:,}")
        expect(page.locator("#questions .choice", has_text="added kan").locator(".price")).to_have_text(f"{kan:,}")
        page.locator("#questions").screenshot(path=str(BUILD / "web-meld-question.png"))
        page.locator("#questions .choice", has_text="added kan").click()
        expect(page.locator("#score")).to_have_attribute("data-total", str(kan))
        expect(page.locator("#in-melds")).to_have_value("5555z")


class MissingIndicatorReader(RealReadingReader):
    """A hand with no indicator read and a tile left out beside it, against someone's discards
    (9p: its dora, 1p, is not in the hand)."""

    def detections(self) -> list[Any]:
        from test_layout_helpers import layout_boxes

        pond = [(name, 1.0 + 1.02 * k, 3.6) for k, name in enumerate(["3s", "7p", "9m", "1s", "4z", "8p"])]
        return layout_boxes("123m456p789s1155z 5z", extras=[*pond, ("9p", 1.0, 2.3)])  # white dragons: a yaku


def test_a_question_about_a_missing_indicator_says_when_it_changes_nothing(browser: Any, tmp_path: Path) -> None:
    with uploaded(browser, MissingIndicatorReader(), tmp_path) as page:
        page.wait_for_selector("#score[data-total]:not([data-total=''])")
        total = page.locator("#score").get_attribute("data-total")
        choices = page.locator("#questions .choice", has_text="dora indicator")
        expect(choices.locator(".price")).to_have_text(f"{int(total):,}")
        expect(page.locator("#questions .same-score")).to_have_count(1)
        choices.click()  # the record now shows it; the score stays
        page.wait_for_selector("#questions .question.done")
        expect(page.locator("#in-dora")).to_have_value("9p")
        assert page.locator("#score").get_attribute("data-total") == total


class TurnedFaceReader(RealReadingReader):
    """A chi whose second tile's face reads sideways beside its called tile: the reader takes one
    of the two faces as upright to read the hand, and says so in a note."""

    def detections(self) -> list[Any]:
        from dataclasses import replace

        from test_layout_helpers import layout_boxes

        dets = layout_boxes("123m456p1z 1z ~0.8 7'89s 5'55z", faces=True)  # white dragons: a yaku
        angle = dets[9].face_angle if dets[9].face_angle is not None else 0.0
        dets[9] = replace(dets[9], face_angle=angle + 90.0)
        return dets


def test_the_readers_notes_are_shown_with_the_problems(browser: Any, tmp_path: Path) -> None:
    with uploaded(browser, TurnedFaceReader(), tmp_path) as page:
        page.wait_for_selector("#score[data-total]:not([data-total=''])")
        note = page.locator("#problems li.note")
        expect(note).to_have_count(1)
        # in a player's words, the tile it speaks of numbered on the photo (the reader counts from 0)
        expect(note).to_have_text(re.compile(r"^Tile 9 on the photo looks sideways"))
        expect(page.locator("#problems")).to_be_visible()
        expect(page.locator('#boxes .box[data-index="8"] .num')).to_have_text("9")
        expect(page.locator("#boxes .num")).to_have_count(1)


class NoHandReader(DemoReader):
    """A photo in which nothing like a hand is read (a blank page, the felt)."""

    def read(self, image: Any, rules: str = "riichi", context: dict[str, Any] | None = None) -> Any:
        class Result:
            def to_dict(self) -> dict[str, Any]:
                return {
                    "detections": [],
                    "hand": None,
                    "alternatives": [],
                    "ambiguities": [],
                    "problems": [{"code": "no_hand_row", "message": "no row of tiles found"}],
                    "timings_ms": {"total": 5.0},
                    "image": {"width": 320, "height": 200},
                }

        return Result()


def test_a_photo_without_a_hand_keeps_the_typed_one(browser: Any, tmp_path: Path) -> None:
    photo = tmp_path / "felt.png"
    photo.write_bytes(demo_photo(600, 400, ".png"))
    foreign: list[str] = []
    errors: list[str] = []
    with serving(NoHandReader(), ServiceSettings(workers=1)) as base:
        page = _phone_page(browser, base, foreign, errors)
        page.goto(base + "/")
        _type_a_tsumo(page)
        page.set_input_files("#camera", str(photo))
        expect(page.locator("#photo-status")).to_contain_text("the tiles you entered are kept")
        expect(page.locator("#problems")).to_contain_text("No row of tiles was found in this photo")
        page.wait_for_selector('#score[data-total="2100"]')  # the typed hand still scores
        assert not foreign and not errors, (foreign, errors)
        page.context.close()
