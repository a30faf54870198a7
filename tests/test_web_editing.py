"""The phone page's editing in headless Chromium: add a tile, change a tile's role, edit a meld, undo,
change the rules after the photo, a failed photo, the shrunk upload, the installable page, dark mode,
Japanese; and the README's screenshots (phone and desktop, light and dark).

Runs as tests/test_web_page.py does: the service under uvicorn with the demo reader, Debian's chromium.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from test_web_page import (
    BUILD,
    PHONE,
    PipelineShapedReader,
    _phone_page,
    expect,
    serving,
)

from paiscan.scoring import score_hand
from paiscan.service.demo import demo_photo
from paiscan.service.settings import ServiceSettings


def page_errors(errors: list[str]) -> list[str]:
    """The console's errors less the browser's note of each 422 answer (a hand that cannot be scored)."""
    return [e for e in errors if "status of 422" not in e]


#: where the screenshots go; the README's come from PAISCAN_SCREENSHOT_DIR=docs/screenshots
SHOTS = Path(os.environ.get("PAISCAN_SCREENSHOT_DIR", str(BUILD / "screenshots")))


def _context(page: Any) -> dict[str, Any]:
    """The situation the page scores with, as Hand fields."""
    return {
        "win": page.locator("input[name=win]:checked").get_attribute("value"),
        "seat_wind": page.locator("#seat-wind").input_value(),
        "round_wind": page.locator("#round-wind").input_value(),
    }


def _total(hand: dict[str, Any]) -> str:
    return str(score_hand(hand).total)


def _photo(page: Any, tmp_path: Path, w: int = 1600, h: int = 1000) -> None:
    photo = tmp_path / "hand.jpg"
    photo.write_bytes(demo_photo(w, h))
    page.set_input_files("#picker", str(photo))


def test_role_change_add_a_tile_and_undo(server: str, browser: Any, tmp_path: Path) -> None:
    foreign: list[str] = []
    errors: list[str] = []
    page = _phone_page(browser, server, foreign, errors)
    page.goto(server + "/")
    page.wait_for_selector("body.ready")
    _photo(page, tmp_path)
    page.wait_for_selector('#score[data-total="2900"]')
    expect(page.locator("#btn-undo")).to_be_enabled()  # the photo's reading can be undone too

    # the 2m read as a tile of the hand is a dora indicator: the hand is then one tile short
    page.locator('#boxes .box[data-index="0"]').click()
    page.wait_for_selector("#palette[open]")
    page.locator('#palette-roles [data-role="dora"]').click()
    expect(page.locator('#boxes .box[data-index="0"]')).to_have_class(re.compile(r"\brole-dora\b"))
    page.wait_for_selector('#score[data-code="wrong_tile_count"]')
    expect(page.locator("#score")).to_contain_text("1 tile(s) short")
    assert "concealed hand" not in page.inner_text("#score")  # no developer wording

    # undo: the 2m is back in the hand, and so is the score
    page.locator("#btn-undo").click()
    page.wait_for_selector('#score[data-total="2900"]')
    expect(page.locator('#boxes .box[data-index="0"]')).to_have_class(re.compile(r"\brole-hand\b"))

    # "+ add a tile" in the dora group: indicator 3p makes the 4p a dora (one more han)
    page.locator("#hand-tiles .group.dora .tile-btn.add").click()
    page.wait_for_selector("#palette[open]")
    expect(page.locator("#palette-roles")).to_be_hidden()
    page.locator('#palette-all .pal[data-face="3p"]').click()
    page.wait_for_selector('#score[data-total="5800"]')
    expect(page.locator("#in-dora")).to_have_value("3p")
    expect(page.locator("#edit-note")).to_contain_text("Added")

    # a tile the localizer missed, added where it is on the photo: a new box, another dora indicator
    frame = page.locator("#boxes").bounding_box()
    page.locator("#boxes").click(position={"x": frame["width"] * 0.5, "y": 4})
    page.wait_for_selector("#palette[open]")
    page.locator('#palette-all .pal[data-face="1m"]').click()  # dora 2m: one more han
    expect(page.locator("#boxes .box")).to_have_count(15)
    page.locator("#hand-tiles .group.dora .tile-btn").first.wait_for()
    # the new tile went to the hand (15 tiles: too many), so move it to the dora indicators
    page.locator("#boxes .box").nth(14).click()
    page.locator('#palette-roles [data-role="dora"]').click()
    page.wait_for_selector('#score[data-total="11600"]')
    page.locator("#btn-undo").click()
    page.locator("#btn-undo").click()
    page.wait_for_selector('#score[data-total="5800"]')
    expect(page.locator("#boxes .box")).to_have_count(14)
    assert not foreign and not page_errors(errors), (foreign, errors)
    page.context.close()


def test_meld_editor_and_undo(server: str, browser: Any) -> None:
    foreign: list[str] = []
    errors: list[str] = []
    page = _phone_page(browser, server, foreign, errors)
    page.goto(server + "/")
    page.wait_for_selector("body.ready")
    page.locator("#hand-typing summary").click()
    page.fill("#in-hand", "234m456p2245s")
    page.fill("#in-win", "3s")
    base = {"rules": "riichi", "hand": "234m456p2245s", "win_tile": "3s", **_context(page)}

    page.locator("#btn-add-meld").click()
    page.wait_for_selector("#meld-editor[open]")
    page.locator("input[name=meld-type][value=chi] + span").click()
    page.locator('#meld-tiles .pal[data-face="6s"]').click()
    expect(page.locator("#meld-preview .tile")).to_have_count(3)
    page.select_option("#meld-from", "left")
    page.locator("#meld-ok").click()
    chi = _total({**base, "melds": [{"type": "chi", "tiles": "678s", "from": "left"}]})
    page.wait_for_selector(f'#score[data-total="{chi}"]')
    expect(page.locator("#in-melds")).to_have_value("678s")

    # the meld was a closed kan of white dragons
    page.locator("#hand-tiles .group.meld .edit-meld").click()
    page.wait_for_selector("#meld-editor[open]")
    page.locator("input[name=meld-type][value=kan] + span").click()
    page.locator("input[name=meld-kan][value=closed] + span").click()
    page.locator('#meld-tiles .pal[data-face="5z"]').click()
    expect(page.locator("#meld-from")).to_be_disabled()
    page.locator("#meld-ok").click()
    kan = _total({**base, "melds": [{"type": "kan", "tiles": "5555z", "open": False}]})
    assert kan != chi
    page.wait_for_selector(f'#score[data-total="{kan}"]')
    expect(page.locator("#in-melds")).to_have_value("[5555z]")
    page.keyboard.press("Escape")
    page.locator("body").press("Control+z")  # undo from the keyboard
    page.wait_for_selector(f'#score[data-total="{chi}"]')
    expect(page.locator("#in-melds")).to_have_value("678s")
    assert not foreign and not page_errors(errors), (foreign, errors)
    page.context.close()


def test_rules_changed_after_the_photo_remap_its_tiles_and_are_remembered(browser: Any, tmp_path: Path) -> None:
    foreign: list[str] = []
    errors: list[str] = []
    with serving(PipelineShapedReader(), ServiceSettings(workers=1)) as base:
        page = _phone_page(browser, base, foreign, errors)
        page.goto(base + "/")
        page.wait_for_selector("body.ready")
        _photo(page, tmp_path)
        page.wait_for_selector('#score[data-total="5800"]')  # riichi: tanyao pinfu, the red 5p
        page.select_option("#ruleset", "wsom")  # a set without red fives
        expect(page.locator("#ruleset-note")).to_contain_text("0p → 5p")
        expect(page.locator('#boxes .box[data-index="4"]')).to_have_attribute("data-face", "5p")
        hand = {"rules": "wsom", "hand": "234m456p678s2234s", "win_tile": "5s", **_context(page)}
        page.wait_for_selector(f'#score[data-total="{_total(hand)}"]')
        # Totenko's set has no 2m–4m: the first one is marked on the photo and named
        page.select_option("#ruleset", "totenko_balance")
        expect(page.locator("#ruleset-note")).to_contain_text("not in the tile set of")
        expect(page.locator("#boxes .box.highlight")).to_have_count(1)
        expect(page.locator("#score")).to_contain_text("not in the tile set of these rules")
        page.locator("#btn-undo").click()  # back to before the re-map: the red five
        expect(page.locator('#boxes .box[data-index="4"]')).to_have_attribute("data-face", "0p")
        # the rules are kept on the device
        page.reload()
        page.wait_for_selector("body.ready")
        expect(page.locator("#ruleset")).to_have_value("totenko_balance")
        assert not foreign and not page_errors(errors), (foreign, errors)
        page.context.close()


def test_a_failed_photo_clears_the_previous_hand(server: str, browser: Any, tmp_path: Path) -> None:
    foreign: list[str] = []
    errors: list[str] = []
    page = _phone_page(browser, server, foreign, errors)
    page.goto(server + "/")
    page.wait_for_selector("body.ready")
    _photo(page, tmp_path)
    page.wait_for_selector('#score[data-total="2900"]')
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(demo_photo(1600, 1000)[:3000])  # a JPEG cut short
    page.set_input_files("#picker", str(broken))
    expect(page.locator("#photo-failed")).to_be_visible()
    text = page.inner_text("#photo-failed")
    assert "damaged or was cut short" in text, text
    for library_words in ("bytes not processed", "Pillow", "PIL", "decompression", "Traceback"):
        assert library_words not in text
    expect(page.locator("#photo-view")).to_be_hidden()
    expect(page.locator("#score")).not_to_have_attribute("data-total", "2900")
    expect(page.locator("#hand-tiles .group.hand .tile")).to_have_count(0)
    page.locator("#btn-undo").click()  # the previous hand comes back
    page.wait_for_selector('#score[data-total="2900"]')
    assert not foreign, foreign
    page.context.close()


def test_a_big_photo_is_shrunk_before_upload(server: str, browser: Any, tmp_path: Path) -> None:
    foreign: list[str] = []
    errors: list[str] = []
    page = _phone_page(browser, server, foreign, errors)
    page.goto(server + "/")
    page.wait_for_selector("body.ready")
    with page.expect_response("**/v1/read") as answer:
        _photo(page, tmp_path, 4000, 3000)
    body = answer.value.json()
    assert max(body["image"]["width"], body["image"]["height"]) == 2000
    assert len(answer.value.request.post_data_buffer or b"") < 1_500_000
    expect(page.locator("#photo-status")).to_contain_text(" s")  # the real elapsed time
    assert not foreign and not page_errors(errors), (foreign, errors)
    page.context.close()


def test_installable_accessible_dark_and_japanese(server: str, browser: Any) -> None:
    import httpx

    manifest = httpx.get(server + "/manifest.webmanifest")
    assert manifest.headers["content-type"].startswith("application/manifest+json")
    icons = json.loads(manifest.text)["icons"]
    assert all(httpx.get(server + i["src"]).status_code == 200 for i in icons)
    sw = httpx.get(server + "/sw.js")
    assert sw.status_code == 200 and sw.headers["service-worker-allowed"] == "/"

    ctx = browser.new_context(viewport=PHONE, color_scheme="dark", locale="ja-JP")
    page = ctx.new_page()
    page.goto(server + "/")
    page.wait_for_selector("body.ready")
    assert page.evaluate("navigator.serviceWorker.ready.then((r) => r.active !== null)")
    # dark mode: a dark card under light text
    bg = page.evaluate("getComputedStyle(document.querySelector('.card')).backgroundColor")
    assert bg == "rgb(24, 32, 29)", bg
    # Japanese on a Japanese phone, marked lang="ja"; English a tap away
    assert page.locator("html").get_attribute("lang") == "ja"
    expect(page.locator("#btn-camera")).to_have_text("撮影する")
    page.locator("#btn-lang").click()
    expect(page.locator("#btn-camera")).to_have_text("Take photo")
    assert page.locator('span[lang="ja"]').count() > 3
    # keyboard: the photo buttons are reachable with Tab, every field has a name
    names = page.evaluate("""() => {
      const out = [];
      for (let i = 0; i < 8; i++) { out.push(document.activeElement.id); }
      return out; }""")
    assert names is not None
    reached = set()
    for _ in range(12):
        page.keyboard.press("Tab")
        reached.add(page.evaluate("document.activeElement.id"))
    assert {"btn-camera", "btn-picker"} <= reached, reached
    unnamed = page.evaluate("""() => [...document.querySelectorAll('input:not([type=hidden]):not([type=file]), select')]
      .filter((e) => e.offsetParent !== null && !e.labels?.length && !e.getAttribute('aria-label')
              && !e.getAttribute('aria-labelledby')).map((e) => e.id || e.name)""")
    assert not unnamed, unnamed
    ctx.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("device", ["phone", "desktop"])
def test_screenshots(server: str, browser: Any, tmp_path: Path, device: str, scheme: str) -> None:
    """The README's screenshots: the demo photo read and scored, on a phone and on a desktop."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    if device == "phone":
        ctx = browser.new_context(
            viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True, color_scheme=scheme, locale="en-US"
        )
    else:
        ctx = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme, locale="en-US")
    page = ctx.new_page()
    page.goto(server + "/")
    page.wait_for_selector("body.ready")
    _photo(page, tmp_path)
    page.wait_for_selector('#score[data-total="2900"]')
    if device == "desktop":  # the whole page; the fixed score bar would cover part of it
        page.evaluate("document.getElementById('score-bar').style.display = 'none'")
    page.screenshot(path=str(SHOTS / f"{device}-{scheme}.png"), full_page=device == "desktop")
    ctx.close()
