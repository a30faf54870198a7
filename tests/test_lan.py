"""``paiscan serve --lan``: it listens beyond loopback and prints the LAN address with a QR code."""

from __future__ import annotations

from typing import Any

import pytest
import segno
from typer.testing import CliRunner

from paiscan.service import lan
from paiscan.service.cli import app


def test_the_lan_url_names_the_address_and_port() -> None:
    assert lan.lan_url(8123, "192.168.1.20") == "http://192.168.1.20:8123/"


def test_the_qr_code_is_the_urls(monkeypatch: pytest.MonkeyPatch) -> None:
    url = "http://192.168.1.20:8000/"
    text = lan.qr_text(url)
    rows = text.splitlines()
    code = segno.make(url, error="m")
    # compact output: two modules per character row, a 2-module border on each side
    width = code.symbol_size(border=2)[0]
    assert len(rows) == (width + 1) // 2
    assert all(len(r) == width for r in rows)
    assert set("".join(rows)) <= set("█▀▄ ")


def test_announce_without_a_network_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lan, "lan_address", lambda: None)
    assert "No local network address found" in lan.announce(8000)


def test_serve_lan_listens_on_every_interface_and_prints_the_address(monkeypatch: pytest.MonkeyPatch) -> None:
    import paiscan.service.app as service_app

    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(service_app, "serve", lambda **kw: calls.append(kw))
    monkeypatch.setattr(lan, "lan_address", lambda: "10.0.0.7")
    out = CliRunner().invoke(app, ["serve", "--lan", "--port", "8765"])
    assert out.exit_code == 0, out.output
    assert calls == [{"host": "0.0.0.0", "port": 8765}]
    assert "http://10.0.0.7:8765/" in out.output
    assert "█" in out.output  # the QR code


def test_serve_without_lan_stays_on_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    import paiscan.service.app as service_app

    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(service_app, "serve", lambda **kw: calls.append(kw))
    out = CliRunner().invoke(app, ["serve"])
    assert out.exit_code == 0, out.output
    assert calls == [{"host": "127.0.0.1", "port": 8000}]
    assert "http://" not in out.output
