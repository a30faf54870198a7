"""Load test of the photo endpoints on loopback (not run in CI).

Starts ``uvicorn paiscan.service.app:app`` on 127.0.0.1 (a free port) unless ``--url`` names a running
server, then keeps N photo requests in flight for T seconds and prints throughput, latency
percentiles, the status codes, the error count and the server's peak memory (VmHWM).

    python benchmarks/load_service.py --concurrency 8 --duration 20            # the trained models
    python benchmarks/load_service.py --demo --concurrency 16 --duration 10    # service overhead only
    python benchmarks/load_service.py --photo IMG_1234.jpg --endpoint photo-score

Only 127.0.0.1/localhost targets are accepted: this is a loopback benchmark.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(port: int, demo: bool, workers: int | None, queue: int | None) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    if demo:
        env["PAISCAN_READER"] = "paiscan.service.demo:DemoReader"
    if workers:
        env["PAISCAN_WORKERS"] = str(workers)
    if queue:
        env["PAISCAN_QUEUE_SIZE"] = str(queue)
    cmd = [
        sys.executable,
        "-m",
        "uvicorn",
        "paiscan.service.app:app",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "warning",
        "--no-access-log",
    ]
    return subprocess.Popen(cmd, cwd=ROOT, env=env)


def wait_ready(base: str, proc: subprocess.Popen[bytes] | None, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise SystemExit(f"the server exited with {proc.returncode}")
        try:
            r = httpx.get(base + "/readyz", timeout=2)
            if r.status_code == 200:
                ready: dict[str, Any] = r.json()
                return ready
            if (
                r.status_code == 503
                and r.json()["error"]["code"] == "models_unavailable"
                and "retry-after" not in r.headers
            ):
                raise SystemExit(
                    f"the server cannot read photos: {r.json()['error']['message']} "
                    "(use --demo to measure the service without models)"
                )
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise SystemExit("the server did not become ready")


def peak_rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


async def run_load(
    base: str, endpoint: str, photo: bytes, concurrency: int, duration: float, form: dict[str, str]
) -> tuple[list[float], Counter[int], Counter[str], float]:
    latencies: list[float] = []
    statuses: Counter[int] = Counter()
    failures: Counter[str] = Counter()
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=120) as client:
        start = time.perf_counter()
        deadline = start + duration

        async def worker() -> None:
            while time.perf_counter() < deadline:
                t0 = time.perf_counter()
                try:
                    r = await client.post(endpoint, files={"file": ("photo.jpg", photo, "image/jpeg")}, data=form)
                    statuses[r.status_code] += 1
                    if r.status_code == 200:
                        latencies.append((time.perf_counter() - t0) * 1000)
                    else:
                        failures[str(r.json().get("error", {}).get("code", r.status_code))] += 1
                        if r.status_code == 503:
                            await asyncio.sleep(float(r.headers.get("retry-after", "1")) / 10)
                except (httpx.HTTPError, ValueError) as exc:
                    failures[type(exc).__name__] += 1

        await asyncio.gather(*(worker() for _ in range(concurrency)))
        elapsed = time.perf_counter() - start
    return latencies, statuses, failures, elapsed


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", help="a running server on loopback (default: start one)")
    ap.add_argument("--concurrency", "-n", type=int, default=8, help="requests in flight")
    ap.add_argument("--duration", "-t", type=float, default=20.0, help="seconds of load")
    ap.add_argument("--photo", type=Path, help="the photo to send (default: the demo picture, 1600x1000 JPEG)")
    ap.add_argument("--endpoint", choices=["read", "photo-score"], default="read")
    ap.add_argument("--preview", choices=["annotated", "plain", "none"], default="annotated")
    ap.add_argument("--demo", action="store_true", help="serve with the demo reader (no models needed)")
    ap.add_argument("--workers", type=int, help="PAISCAN_WORKERS for the started server")
    ap.add_argument("--queue", type=int, help="PAISCAN_QUEUE_SIZE for the started server")
    ap.add_argument("--json", action="store_true", help="print one JSON object only")
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
        proc = start_server(port, args.demo, args.workers, args.queue)
    try:
        ready = wait_ready(base, proc)
        if args.photo:
            photo = args.photo.read_bytes()
        else:
            sys.path.insert(0, str(ROOT))
            from paiscan.service.demo import demo_photo

            photo = demo_photo(1600, 1000)
        form = {"preview": args.preview}
        if args.endpoint == "photo-score":
            form["hand"] = json.dumps({"rules": "riichi", "win": "ron"})
        latencies, statuses, failures, elapsed = asyncio.run(
            run_load(base, f"/v1/{args.endpoint}", photo, args.concurrency, args.duration, form)
        )
        ok = len(latencies)
        busy = failures.get("busy", 0)
        transport = sum(v for k, v in failures.items() if k[:1].isupper())  # exception names
        errors = sum(statuses.values()) - ok - busy + transport  # 503 busy is back-pressure, not an error
        summary = {
            "endpoint": args.endpoint,
            "reader": ready.get("reader"),
            "workers": ready.get("workers"),
            "queue_size": ready.get("queue_size"),
            "concurrency": args.concurrency,
            "duration_s": round(elapsed, 2),
            "photo_bytes": len(photo),
            "ok": ok,
            "throughput_rps": round(ok / elapsed, 2) if elapsed else 0.0,
            "latency_ms_p50": round(pct(latencies, 50), 1),
            "latency_ms_p99": round(pct(latencies, 99), 1),
            "latency_ms_mean": round(statistics.fmean(latencies), 1) if latencies else None,
            "statuses": {str(k): v for k, v in sorted(statuses.items())},
            "busy_503": busy,
            "errors": errors,
            "error_codes": dict(failures),
            "server_peak_rss_mb": round(peak_rss_mb(proc.pid) or 0, 1) if proc else None,
        }
        if args.json:
            print(json.dumps(summary))
        else:
            print(
                f"{args.endpoint}: {ok} ok in {elapsed:.1f} s with {args.concurrency} in flight "
                f"({summary['reader']}, {summary['workers']} workers, queue {summary['queue_size']})"
            )
            print(f"  throughput {summary['throughput_rps']} photos/s")
            print(f"  latency p50 {summary['latency_ms_p50']} ms, p99 {summary['latency_ms_p99']} ms")
            print(f"  statuses {summary['statuses']}, busy (503) {busy}, errors {errors} {dict(failures) or ''}")
            if proc is not None:
                print(f"  server peak memory {summary['server_peak_rss_mb']} MB")
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()


if __name__ == "__main__":
    main()
