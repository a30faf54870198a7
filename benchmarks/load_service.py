"""Load test of the photo endpoints on loopback (not run in CI).

Starts ``paiscan serve``'s server (``paiscan.service.app.serve``: its timeouts and limits) on
127.0.0.1 unless ``--url`` names a running one, then for each number of clients (1, 4, 16 by
default) keeps that many photo requests in flight for ``--duration`` seconds, cycling through the
photos, and prints one table row per level: throughput, p50/p95/p99 latency of every answer and of
the 200s, every status and error code counted, and the server's peak memory.

The photos come from ``--photos DIR`` (JPEG, PNG, WebP, HEIC files: real photos), else from
``paiscan synth`` renders of winning hands at a phone's 12 MP (rendered once into ``--renders``).
``--burst-png`` sends ten 39 MP 16-bit grey PNGs at once (the issue #54 memory bomb) and reports
the peak and the memory after.

    python benchmarks/load_service.py                              # renders, 1/4/16 clients, 20 s each
    python benchmarks/load_service.py --photos ~/mahjong-photos --clients 4 --duration 60
    python benchmarks/load_service.py --demo --burst-png           # service overhead only, no models

Only 127.0.0.1/localhost targets are accepted: this is a loopback benchmark.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

ROOT = Path(__file__).resolve().parents[1]
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "paiscan"
PHOTO_SUFFIXES = {".jpg", ".jpeg", ".png", ".webp", ".heic", ".heif"}
MIME = {".png": "image/png", ".webp": "image/webp", ".heic": "image/heic", ".heif": "image/heif"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(port: int, demo: bool, env_extra: dict[str, str]) -> subprocess.Popen[bytes]:
    env = {**os.environ, **env_extra}
    if demo:
        env["PAISCAN_READER"] = "paiscan.service.demo:DemoReader"
    code = f"import logging; from paiscan.service.app import serve; serve(host='127.0.0.1', port={port})"
    return subprocess.Popen(
        [sys.executable, "-c", code], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


def wait_ready(base: str, proc: subprocess.Popen[bytes] | None, timeout: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise SystemExit(f"the server exited with {proc.returncode}")
        try:
            r = httpx.get(base + "/readyz", timeout=2)
            if r.status_code == 200:
                ready: dict[str, Any] = r.json()
                return ready
            if r.status_code == 503 and "retry-after" not in r.headers:
                raise SystemExit(f"the server cannot read photos: {r.json()['error']['message']} (--demo runs without)")
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise SystemExit("the server did not become ready")


def proc_status_mb(pid: int, key: str) -> float | None:
    """VmHWM (peak) or VmRSS (now) of a process, in MB."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def rendered_photos(folder: Path, n: int) -> list[Path]:
    """``n`` 12 MP renders of winning hands (``paiscan synth``), made once into ``folder``."""
    images = folder / "images"
    have = sorted(p for p in images.glob("*") if p.suffix.lower() in PHOTO_SUFFIXES) if images.is_dir() else []
    if len(have) < n:
        print(f"rendering {n} photos into {folder} (paiscan synth, 4000x3000) …", file=sys.stderr)
        cmd = [sys.executable, "-m", "paiscan.service.cli", "synth", "--out", str(folder), "--n", str(n)]
        subprocess.run([*cmd, "--size", "4000", "3000", "--seed", "54"], check=True, cwd=ROOT)
        have = sorted(p for p in images.glob("*") if p.suffix.lower() in PHOTO_SUFFIXES)
    return have[:n]


@dataclass
class Level:
    clients: int
    elapsed: float = 0.0
    latencies: list[float] = field(default_factory=list)  # every answer, ms
    ok_latencies: list[float] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)  # status code or the transport error's name
    codes: Counter[str] = field(default_factory=Counter)  # the error answers' codes
    peak_rss_mb: float | None = None


async def run_level(
    base: str, endpoint: str, photos: list[tuple[str, bytes]], clients: int, duration: float, form: dict[str, str]
) -> Level:
    level = Level(clients)
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    turn = 0
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=120) as client:
        start = time.perf_counter()
        deadline = start + duration

        async def worker() -> None:
            nonlocal turn
            while time.perf_counter() < deadline:
                name, data = photos[turn % len(photos)]
                turn += 1
                mime = MIME.get(Path(name).suffix.lower(), "image/jpeg")
                t0 = time.perf_counter()
                try:
                    r = await client.post(endpoint, files={"file": (name, data, mime)}, data=form)
                except httpx.HTTPError as exc:
                    level.statuses[type(exc).__name__] += 1
                    continue
                ms = (time.perf_counter() - t0) * 1000
                level.latencies.append(ms)
                level.statuses[str(r.status_code)] += 1
                if r.status_code == 200:
                    level.ok_latencies.append(ms)
                    continue
                try:
                    level.codes[str(r.json()["error"]["code"])] += 1
                except (ValueError, KeyError, TypeError):
                    level.codes["not_json"] += 1
                if r.status_code == 503:  # back off as a phone would
                    await asyncio.sleep(float(r.headers.get("retry-after", "1")) / 10)

        await asyncio.gather(*(worker() for _ in range(clients)))
        level.elapsed = time.perf_counter() - start
    return level


class RssSampler:
    """The largest VmRSS of a process while the block runs (VmHWM is over the whole process life)."""

    def __init__(self, pid: int | None) -> None:
        self.pid, self.peak = pid, 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            self.peak = max(self.peak, proc_status_mb(self.pid, "VmRSS") or 0.0) if self.pid else 0.0

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def burst_pngs(base: str, pid: int | None, n: int = 10) -> dict[str, Any]:
    """``n`` 39 MP (7200x5400) 16-bit grey PNGs sent at once; the server's memory before, at peak, after."""
    import numpy as np
    from PIL import Image

    ramp = np.tile(np.linspace(0, 65535, 7200).astype(np.uint16), (5400, 1))
    buf = io.BytesIO()
    Image.fromarray(ramp).save(buf, "PNG")
    png = buf.getvalue()
    before = proc_status_mb(pid, "VmRSS") if pid else None

    async def send_all() -> list[str]:
        async with httpx.AsyncClient(base_url=base, timeout=300) as client:

            async def one() -> str:
                try:
                    r = await client.post("/v1/read", files={"file": ("bomb.png", png, "image/png")})
                except httpx.HTTPError as exc:
                    return type(exc).__name__
                return f"{r.status_code} {r.json().get('error', {}).get('code', '')}".strip()

            return await asyncio.gather(*(one() for _ in range(n)))

    with RssSampler(pid) as sampler:
        t0 = time.perf_counter()
        answers = asyncio.run(send_all())
        took = time.perf_counter() - t0
    time.sleep(1.0)
    return {
        "png_bytes": len(png),
        "answers": dict(Counter(answers)),
        "seconds": round(took, 1),
        "rss_before_mb": before and round(before),
        "rss_peak_mb": round(sampler.peak) if pid else None,
        "rss_after_mb": round(proc_status_mb(pid, "VmRSS") or 0) if pid else None,
    }


def row(level: Level) -> dict[str, Any]:
    ok = len(level.ok_latencies)
    return {
        "clients": level.clients,
        "requests": sum(level.statuses.values()),
        "ok": ok,
        "photos_per_s": round(ok / level.elapsed, 2) if level.elapsed else 0.0,
        "p50_ms": round(pct(level.latencies, 50)),
        "p95_ms": round(pct(level.latencies, 95)),
        "p99_ms": round(pct(level.latencies, 99)),
        "ok_p50_ms": round(pct(level.ok_latencies, 50)) if ok else None,
        "statuses": dict(sorted(level.statuses.items())),
        "error_codes": dict(sorted(level.codes.items())),
        "peak_rss_mb": level.peak_rss_mb and round(level.peak_rss_mb),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", help="a running server on loopback (default: start one)")
    ap.add_argument("--clients", default="1,4,16", help="requests in flight, one level each (comma-separated)")
    ap.add_argument("--duration", "-t", type=float, default=20.0, help="seconds of load per level")
    ap.add_argument("--photos", type=Path, help="a folder of photos to send (default: 12 MP renders)")
    ap.add_argument("--renders", type=Path, default=CACHE / "load_renders", help="where the renders are kept")
    ap.add_argument("--n-renders", type=int, default=8, help="renders to make and send")
    ap.add_argument("--endpoint", choices=["read", "photo-score"], default="read")
    ap.add_argument("--preview", choices=["annotated", "plain", "none"], default="annotated")
    ap.add_argument("--demo", action="store_true", help="serve with the demo reader (no models needed)")
    ap.add_argument("--env", action="append", default=[], help="NAME=VALUE for the started server (PAISCAN_…)")
    ap.add_argument("--burst-png", action="store_true", help="also send ten 39 MP 16-bit grey PNGs at once")
    ap.add_argument("--json", action="store_true", help="print JSON lines only")
    args = ap.parse_args()

    proc = None
    if args.url:
        host = urlsplit(args.url).hostname or ""
        if host not in ("127.0.0.1", "localhost", "::1") and not host.startswith("127."):
            raise SystemExit("--url must be a loopback address (127.0.0.1, localhost)")
        base = args.url.rstrip("/")
    else:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        proc = start_server(port, args.demo, dict(kv.split("=", 1) for kv in args.env))
    try:
        ready = wait_ready(base, proc)
        files = (
            sorted(p for p in args.photos.iterdir() if p.suffix.lower() in PHOTO_SUFFIXES)
            if args.photos
            else rendered_photos(args.renders, args.n_renders)
        )
        if not files:
            raise SystemExit(f"no photos in {args.photos}")
        photos = [(p.name, p.read_bytes()) for p in files]
        form = {"preview": args.preview}
        if args.endpoint == "photo-score":
            form["hand"] = json.dumps({"rules": "riichi", "win": "ron"})
        head = (
            f"{args.endpoint}: {len(photos)} photos ({sum(len(d) for _, d in photos) // len(photos) // 1000} kB each), "
            f"{ready.get('reader')}, {ready.get('workers')} workers, queue {ready.get('queue_size')}"
        )
        if not args.json:
            print(head)
            print(
                "| clients | requests | 200 | photos/s | p50 ms | p95 ms | p99 ms | 200 p50 ms | statuses | codes "
                "| peak RSS MB |"
            )
            print("|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---:|")
        for clients in (int(c) for c in args.clients.split(",")):
            with RssSampler(proc.pid if proc else None) as sampler:
                level = asyncio.run(run_level(base, f"/v1/{args.endpoint}", photos, clients, args.duration, form))
            level.peak_rss_mb = sampler.peak if proc else None
            r = row(level)
            if args.json:
                print(json.dumps(r))
            else:
                print(
                    f"| {r['clients']} | {r['requests']} | {r['ok']} | {r['photos_per_s']} | {r['p50_ms']} | "
                    f"{r['p95_ms']} | {r['p99_ms']} | {r['ok_p50_ms']} | {r['statuses']} | {r['error_codes']} | "
                    f"{r['peak_rss_mb']} |"
                )
        if args.burst_png:
            burst = burst_pngs(base, proc.pid if proc else None)
            print(json.dumps({"burst_png": burst}) if args.json else f"ten 39 MP 16-bit PNGs at once: {burst}")
        if proc is not None and not args.json:
            print(f"server VmHWM over the run: {proc_status_mb(proc.pid, 'VmHWM'):.0f} MB")
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()


if __name__ == "__main__":
    main()
