"""Tests import helper modules from this folder (spec_vectors, mahjong_oracle)."""

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).resolve().parent))

# CI runs the property tests on a fixed sequence of examples, so a run is reproducible; locally they
# explore new examples each run.
settings.register_profile("ci", derandomize=True, deadline=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


# The page tests' service and browser (tests/test_web_page.py, test_web_editing.py, test_game_page.py,
# which may override ``server``). Imported when a test asks for them: test_web_page skips its importer
# where playwright or Debian's chromium is missing.
@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    from test_web_page import DemoReader, ServiceSettings, serving

    with serving(DemoReader(), ServiceSettings(workers=1, queue_size=4)) as base:
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from test_web_page import CHROMIUM, CHROMIUM_ARGS, playwright_sync

    with playwright_sync.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()
