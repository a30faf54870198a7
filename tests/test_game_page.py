"""The game view in headless Chromium: a six-hand Boo sheet entered by hand (a non-dealer tsumo total asks
for the split, a wrong written price is flagged beside its hand, the settlement shown), then one hand
scored from a photo and added with "Add to game"; a stale tab's write is refused and reloaded."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_web_page import BUILD, serving

from paiscan.service.demo import DemoReader, demo_photo
from paiscan.service.settings import ServiceSettings

playwright_sync = pytest.importorskip("playwright.sync_api")
expect = playwright_sync.expect


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("sheets")
    settings = ServiceSettings(_env_file=None, workers=1, queue_size=4, data_dir=data)  # type: ignore[call-arg]
    with serving(DemoReader(), settings) as base:
        yield base


def _page(browser: Any, errors: list[str]) -> Any:
    ctx = browser.new_context(viewport={"width": 1100, "height": 900})
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("dialog", lambda d: d.accept())
    return page


def _add(page: Any, result: str, winner: str = "", frm: str = "", points: str = "", **tiles: str) -> None:
    n = page.locator("#sheet-table tbody tr[data-no]").count()
    page.select_option("#f-result", result)
    if winner:
        page.select_option("#f-winner", winner)
    if frm:
        page.select_option("#f-from", frm)
    if points:
        page.fill("#f-points", points)
    if tiles:
        page.locator("#f-tiles summary").click()
        page.fill("#f-hand", tiles["hand"])
        page.fill("#f-win-tile", tiles["win_tile"])
    page.click("#btn-add-hand")
    if result == "tsumo" and not tiles:  # a non-dealer's tsumo total cannot be split under Boo: asked
        expect(page.locator("#f-split")).to_be_visible()
        assert "split" in page.inner_text("#form-error")
        assert page.locator("#f-split input.pay").count() == 3
        page.click("#btn-add-hand")
    expect(page.locator("#sheet-table tbody tr[data-no]")).to_have_count(n + 1)


def test_a_six_hand_boo_sheet_and_a_hand_from_a_photo(server: str, browser: Any, tmp_path: Path) -> None:
    BUILD.mkdir(exist_ok=True)
    errors: list[str] = []
    page = _page(browser, errors)
    page.goto(server + "/static/game.html")
    page.wait_for_selector("body.ready")
    page.locator("#new-sheet summary").click()
    page.fill("#new-title", "Thursday club")
    for i, name in enumerate(["Aki", "Ben", "Chie", "Dai"]):
        page.fill(f'#new-players input[data-seat="{i}"]', name)
    page.click("#btn-create")
    expect(page.locator("#game-card")).to_be_visible()
    expect(page.locator("#sheet-table thead th.player")).to_have_text(["Aki", "Ben", "Chie", "Dai"])

    _add(page, "ron", "Ben", "Chie", "1000")
    _add(page, "draw")
    _add(page, "tsumo", "Dai", points="1200")
    _add(page, "ron", "Aki", "Dai", "520", hand="123m456m789p22s46s", win_tile="5s")
    _add(page, "ron", "Ben", "Aki", "600")
    _add(page, "ron", "Chie", "Aki", "1000")
    rows = page.locator("#sheet-table tbody tr[data-no]")
    expect(rows).to_have_count(6)
    # the dealer moves on: a non-dealer win and every Boo draw pass the deal
    assert [rows.nth(i).locator("td").nth(2).inner_text() for i in range(3)] == ["Aki", "Ben", "Chie"]
    # the written 520 is not what the tiles are worth: flagged beside hand 4, the recomputed price applied
    flag = page.locator('#sheet-table tr[data-no="4"] .flag[data-kind="points_differ"]')
    expect(flag).to_have_count(1)
    assert "520" in flag.inner_text() and "→" in rows.nth(3).locator("td.points").inner_text()
    assert page.locator("#sheet-table tbody .flag").count() == 1
    # the tsumo's split as asked (the dealer pays double) and the running scores add up
    finals = [int(t) for t in page.locator("#sheet-table tfoot td.num").all_inner_texts()]
    assert sum(finals) == 4 * 2000
    expect(page.locator("#settlement .standings tr[data-player]")).to_have_count(4)
    assert "Settlement" in page.inner_text("#settlement")
    page.screenshot(path=str(BUILD / "game-sheet.png"), full_page=True)
    sheet_url = page.url

    # a hand from a photo: scored on the photo page, then "Add to game"
    photo = tmp_path / "hand.jpg"
    photo.write_bytes(demo_photo(1600, 1000))
    page.goto(server + "/")
    page.wait_for_selector("body.ready")
    page.set_input_files("#picker", str(photo))
    page.wait_for_selector('#score[data-total="2900"]')
    page.click("#btn-add-game")
    page.wait_for_selector("body.ready")
    expect(page.locator("#pending")).to_be_visible()
    page.locator("#sheet-list button").first.click()
    expect(page.locator("#f-hand")).to_have_value("234m456p2245678s")
    page.select_option("#f-winner", "Dai")
    page.select_option("#f-from", "Ben")
    page.click("#btn-add-hand")
    expect(rows).to_have_count(7)
    seventh = rows.nth(6)
    assert seventh.locator("td").nth(5).inner_text() == "Dai" and seventh.locator("td.points").inner_text().isdigit()
    expect(page.locator("#pending")).to_be_hidden()

    # a second tab still at the old version: its hand is refused, the sheet reloaded and said
    other = _page(browser, errors)
    other.goto(sheet_url)
    other.wait_for_selector("body.ready")
    expect(other.locator("#sheet-table tbody tr[data-no]")).to_have_count(7)
    _add(page, "draw")
    other.select_option("#f-result", "draw")
    other.click("#btn-add-hand")
    expect(other.locator("#form-error")).to_contain_text("changed in another tab")
    expect(other.locator("#sheet-table tbody tr[data-no]")).to_have_count(8)
    page.screenshot(path=str(BUILD / "game-photo-hand.png"), full_page=True)
    assert not errors, errors
