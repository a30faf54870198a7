"""The photo reader behind the service, and the bounded pool that runs it off the event loop.

The service needs only :class:`Reader` (``warm`` and ``read``) from :mod:`paiscan.vision.pipeline`, so a
test or a demo can hand it any object of that shape instead of the ONNX models.
"""

from __future__ import annotations

import asyncio
import ctypes
import importlib
import threading
import time
from collections.abc import Awaitable, Callable
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
    """No reader could be made (models missing, the vision stack absent or failing to load).

    ``str(exc)`` is the detail for the server's log (paths, the library's words); ``public`` is what
    an answer may say.
    """

    def __init__(self, detail: str, public: str = "photo reading is not available on this server") -> None:
        super().__init__(detail)
        self.public = public


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
        "red_five_share": settings.red_five_share,
    }
    loc, cls = settings.model_paths()
    if loc is not None:
        kwargs["localizer_path"] = loc
    if cls is not None:
        kwargs["classifier_path"] = cls
    try:
        reader: Reader = PhotoReader.load(VisionSettings(**kwargs))
    except ModelsMissing as exc:
        raise ReaderUnavailable(
            f"the tile models are not installed: {exc}",
            "photo reading is not available: the tile models are not installed",
        ) from exc
    return reader


class Busy(Exception):
    """The pool holds as many photos as it accepts, or a photo waited for a worker longer than allowed."""

    def __init__(self, waited: bool = False) -> None:
        super().__init__("waited too long for a worker" if waited else "the pool is full")
        self.waited = waited


class ClientGone(Exception):
    """The client closed its connection before its photo was read; the work was dropped."""


#: how often a waiting request looks at its photo's job and at its client's connection, in seconds
POLL_S = 0.1


@dataclass
class PoolStats:
    accepted: int = 0
    refused: int = 0
    failed: int = 0
    waited_out: int = 0
    abandoned: int = 0


class InferencePool:
    """A fixed number of worker threads and a bound on the photos accepted (running + waiting).

    :meth:`run` raises :class:`Busy` at once when the bound is reached, so a burst is answered
    503 instead of piling up, and again when a photo waits longer than ``queue_wait_s`` for a
    worker. A photo whose client goes away before a worker takes it is dropped; once running, its
    ``on_gone`` callback (the deadline's cancel) stops it at the reading's next check. It holds its
    place until its work ends, which keeps the bound honest.
    """

    def __init__(self, workers: int, queue_size: int) -> None:
        self.workers = workers
        self.queue_size = max(queue_size, workers)
        keep_heap_small()
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
            idle = self._in_flight == 0
        if idle:
            release_memory()

    async def run(
        self,
        fn: Callable[..., T],
        *args: Any,
        queue_wait_s: float | None = None,
        gone: Callable[[], Awaitable[bool]] | None = None,
        on_gone: Callable[[], None] | None = None,
    ) -> T:
        """``fn(*args)`` in a worker thread. ``gone``: whether the client has left (polled while waiting)."""
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
        waiting = asyncio.wrap_future(fut)
        t0 = time.monotonic()
        while True:
            done, _ = await asyncio.wait({waiting}, timeout=POLL_S)
            if done:
                return waiting.result()
            if queue_wait_s is not None and time.monotonic() - t0 > queue_wait_s and fut.cancel():
                self.stats.waited_out += 1
                raise Busy(waited=True)
            if gone is not None and await gone():
                self.stats.abandoned += 1
                if not fut.cancel() and on_gone is not None:
                    on_gone()
                waiting.add_done_callback(_forget)  # its ReadingCancelled has no one to go to
                raise ClientGone()

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)


def _forget(fut: asyncio.Future[Any]) -> None:
    if not fut.cancelled():
        fut.exception()


def _malloc_trim() -> Callable[[], Any] | None:
    """glibc's ``malloc_trim(0)`` (None elsewhere): hands freed heap pages back to the system."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        trim: Callable[[int], Any] = libc.malloc_trim
    except (OSError, AttributeError):
        return None
    return lambda: trim(0)


_TRIM = _malloc_trim()
#: glibc's mallopt parameter: blocks of at least this many bytes are mapped on their own
M_MMAP_THRESHOLD = -3
#: from this size (bytes) a block is mapped on its own and unmapped when freed (glibc's default grows to 32 MB)
MMAP_THRESHOLD_BYTES = 4 * 1024 * 1024


def keep_heap_small() -> None:
    """Map every large block (decoded photos, Pillow's 16 MB image blocks) on its own, so that
    freeing it gives it back at once: otherwise each worker thread's malloc arena keeps the
    largest photo it has held, and a burst leaves the process at its peak (glibc only)."""
    try:
        ctypes.CDLL("libc.so.6").mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)
    except (OSError, AttributeError):
        pass


def release_memory() -> None:
    """Give the memory of finished photos back to the system (called when the pool falls idle).

    Decoded photos are large, short-lived blocks spread over the worker threads' malloc arenas;
    glibc keeps freed arena pages for reuse, so after a burst the process would stay at its peak.
    """
    if _TRIM is not None:
        _TRIM()
