"""The photo reader behind the service, and the bounded pool that runs it off the event loop.

The service needs only :class:`Reader` (``warm`` and ``read``) from :mod:`paiscan.vision.pipeline`, so a
test or a demo can hand it any object of that shape instead of the ONNX models.
"""

from __future__ import annotations

import asyncio
import importlib
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

from paiscan.service.settings import ServiceSettings
from paiscan.vision.image import DecodedImage

T = TypeVar("T")


class PhotoResultLike(Protocol):
    def to_dict(self) -> dict[str, Any]: ...


@runtime_checkable
class Reader(Protocol):
    """What the service needs of :class:`paiscan.vision.pipeline.PhotoReader`."""

    def warm(self) -> None: ...

    def read(
        self, image: DecodedImage, rules: str = "riichi", context: dict[str, Any] | None = None
    ) -> PhotoResultLike: ...


class ReaderUnavailable(RuntimeError):
    """No reader could be made (models missing, the vision stack absent or failing to load)."""


def load_reader(settings: ServiceSettings) -> Reader:
    """The reader the settings name: ``settings.reader`` ('module:factory') or the ONNX models."""
    if settings.reader:
        module_name, _, attr = settings.reader.partition(":")
        try:
            module = importlib.import_module(module_name)
            factory: Callable[[ServiceSettings], Reader] = getattr(module, attr or "reader")
        except (ImportError, AttributeError) as exc:
            raise ReaderUnavailable(f"PAISCAN_READER={settings.reader!r} cannot be imported: {exc}") from exc
        return factory(settings)
    try:
        from paiscan.vision.pipeline import ModelsMissing, PhotoReader, VisionSettings
    except ImportError as exc:
        raise ReaderUnavailable(f"the photo reader is not available in this build ({exc})") from exc
    kwargs: dict[str, Any] = {
        "threads": settings.onnx_threads,
        "max_pixels": settings.max_pixels,
        "decode_max_side": settings.decode_max_side,
        "zoom_min_px": settings.zoom_min_px,
        "recheck_below": settings.recheck_below,
    }
    loc, cls = settings.model_paths()
    if loc is not None:
        kwargs["localizer_path"] = loc
    if cls is not None:
        kwargs["classifier_path"] = cls
    try:
        reader: Reader = PhotoReader.load(VisionSettings(**kwargs))
    except ModelsMissing as exc:
        raise ReaderUnavailable(f"the tile models are not installed: {exc}") from exc
    return reader


class Busy(Exception):
    """The pool holds as many photos as it accepts."""


@dataclass
class PoolStats:
    accepted: int = 0
    refused: int = 0
    failed: int = 0


class InferencePool:
    """A fixed number of worker threads and a bound on the photos accepted (running + waiting).

    :meth:`run` raises :class:`Busy` at once when the bound is reached, so a burst is answered
    503 instead of piling up. A request whose client goes away still holds its place until its
    work ends (the thread cannot be interrupted), which keeps the bound honest.
    """

    def __init__(self, workers: int, queue_size: int) -> None:
        self.workers = workers
        self.queue_size = max(queue_size, workers)
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="paiscan-read")
        self._lock = threading.Lock()
        self._in_flight = 0
        self.stats = PoolStats()

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def full(self) -> bool:
        return self._in_flight >= self.queue_size

    def _release(self, _fut: Future[Any]) -> None:
        with self._lock:
            self._in_flight -= 1

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        with self._lock:
            if self._in_flight >= self.queue_size:
                self.stats.refused += 1
                raise Busy()
            self._in_flight += 1
            self.stats.accepted += 1
        try:
            fut = self._executor.submit(fn, *args)
        except RuntimeError:  # shut down
            with self._lock:
                self._in_flight -= 1
            raise
        fut.add_done_callback(self._release)
        return await asyncio.wrap_future(fut)

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
