"""A time limit and a cancel flag for one photo's reading, carried in a context variable.

The service installs a :class:`Deadline` around ``reader.read(...)`` (:func:`limit`); the reading's
stages call :func:`check` between units of work (a window, a tile, a layout candidate). ``check``
raises :class:`ReadingTooSlow` once the budget is spent and :class:`ReadingCancelled` once the
client has gone; with no deadline installed (the CLI, the benchmarks, tests) it does nothing, so
the stages need not know who called them.

A context variable is per thread and per asyncio task: the deadline is installed in the worker
thread that runs the reading. A stage that hands work to threads of its own passes the context on
(``contextvars.copy_context().run``) or checks before and after.

>>> with limit(10.0) as d:
...     check()
...     0 < remaining() <= 10.0, current() is d
(True, True)
>>> current() is None, remaining()
(True, inf)
>>> with limit(0.0):
...     check()
Traceback (most recent call last):
...
paiscan.vision.deadline.ReadingTooSlow: the reading took longer than its limit of 0.0 s
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field


class ReadingStopped(Exception):
    """The reading was stopped before it finished (the base of the two reasons below)."""


class ReadingTooSlow(ReadingStopped):
    """The reading's time budget is spent."""


class ReadingCancelled(ReadingStopped):
    """Whoever asked for the reading no longer wants it (the HTTP client hung up)."""


@dataclass(frozen=True)
class Deadline:
    """``budget_s`` seconds from ``start`` (``time.monotonic()``), and a flag to cancel sooner."""

    budget_s: float
    start: float = field(default_factory=time.monotonic)
    cancelled: threading.Event = field(default_factory=threading.Event, compare=False, repr=False)

    def remaining(self) -> float:
        """Seconds left (negative once spent)."""
        return self.start + self.budget_s - time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def cancel(self) -> None:
        """Stop the reading at its next :meth:`check` (thread-safe)."""
        self.cancelled.set()

    def check(self) -> None:
        """Raise :class:`ReadingCancelled` or :class:`ReadingTooSlow` when the reading must stop."""
        if self.cancelled.is_set():
            raise ReadingCancelled("the reading was cancelled: its client has gone")
        if self.remaining() <= 0:
            raise ReadingTooSlow(f"the reading took longer than its limit of {self.budget_s:.1f} s")


_CURRENT: ContextVar[Deadline | None] = ContextVar("paiscan_deadline", default=None)


def current() -> Deadline | None:
    """The deadline installed in this context, if any."""
    return _CURRENT.get()


def check() -> None:
    """Stop the reading here when its deadline has passed or it was cancelled; nothing without one."""
    d = _CURRENT.get()
    if d is not None:
        d.check()


def remaining() -> float:
    """Seconds left to the installed deadline; ``math.inf`` without one."""
    d = _CURRENT.get()
    return math.inf if d is None else d.remaining()


@contextmanager
def limit(budget_s: float | None = None, deadline: Deadline | None = None) -> Iterator[Deadline]:
    """Install ``deadline`` (or a new one of ``budget_s`` seconds from now) for the block."""
    if deadline is None:
        if budget_s is None:
            raise ValueError("give budget_s or deadline")
        deadline = Deadline(budget_s)
    token = _CURRENT.set(deadline)
    try:
        yield deadline
    finally:
        _CURRENT.reset(token)


#: when the optional work of the reading in this context should stop (``time.monotonic()``), if set
_SOFT_UNTIL: ContextVar[float | None] = ContextVar("paiscan_soft_until", default=None)


@contextmanager
def soft_limit(budget_s: float) -> Iterator[None]:
    """For the block, the optional work of a reading (the search's further readings, second looks,
    finer windows) stops ``budget_s`` seconds from now: :func:`spent` says so. Unlike :func:`limit`,
    nothing raises: the reading answers what it has. Nested, the earlier end wins.

    >>> with soft_limit(0.0):
    ...     spent()
    True
    >>> spent()
    False
    """
    until = time.monotonic() + budget_s
    outer = _SOFT_UNTIL.get()
    token = _SOFT_UNTIL.set(until if outer is None else min(outer, until))
    try:
        yield
    finally:
        _SOFT_UNTIL.reset(token)


@contextmanager
def soft_grace(grace_s: float) -> Iterator[None]:
    """For the block, the optional work of a reading may go on until ``grace_s`` seconds from now
    even where its soft budget (:func:`soft_limit`) ends sooner: a stage that has little time and no
    answer without it (the layout's first readings) gets that much whatever the stages before took.
    Without a soft budget, or with a later end, nothing changes; the deadline (:func:`limit`) still
    stops the reading.

    >>> with soft_limit(0.0), soft_grace(10.0):
    ...     spent()
    False
    >>> with soft_limit(0.0), soft_grace(0.0):
    ...     spent()
    True
    """
    soft = _SOFT_UNTIL.get()
    token = None if soft is None else _SOFT_UNTIL.set(max(soft, time.monotonic() + grace_s))
    try:
        yield
    finally:
        if token is not None:
            _SOFT_UNTIL.reset(token)


def soft_left() -> float:
    """Seconds until the optional work of the reading in this context should stop (:func:`spent`):
    the soft budget's end or the deadline's, whichever comes first; ``math.inf`` without either.

    >>> soft_left()
    inf
    >>> with soft_limit(10.0):
    ...     0 < soft_left() <= 10.0
    True
    """
    soft = _SOFT_UNTIL.get()
    left = math.inf if soft is None else soft - time.monotonic()
    return min(left, remaining())


def spent() -> bool:
    """Whether optional work should stop now: the soft budget (:func:`soft_limit`) or the deadline
    (:func:`limit`) is spent, or the reading was cancelled."""
    soft = _SOFT_UNTIL.get()
    if soft is not None and time.monotonic() >= soft:
        return True
    d = _CURRENT.get()
    return d is not None and (d.cancelled.is_set() or d.remaining() <= 0)
