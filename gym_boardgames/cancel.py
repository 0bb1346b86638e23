"""Stopping a search whose result is no longer wanted: one signal, checked by every search of the package.

The play session (:class:`gym_boardgames.human.session.PlaySession`, behind the window, the page, the notebook
widget and the terminal) computes the agent's reply and the hints in worker threads, each inside
:func:`cancellable`. A restart, an undo, a swap, a new game, a closed window or page and a stopped server
:meth:`~CancelSignal.cancel` the signal, and the searches stop at their next check:

- Python searches call :func:`check_cancelled`, which raises :class:`Cancelled`: MCTS and AlphaZero before each
  simulation, alpha-beta every :data:`CHECK_EVERY` nodes, the Dots and Boxes layer solver at every edge of a
  layer;
- compiled code, which cannot raise, registers a hook with :func:`on_cancel` that makes it return: the Connect
  Four solver's hook marks its node limit as reached.

:func:`time_limit` gives a block a signal of its own, cancelled after a number of seconds or with the caller's
signal: the hints run under it, so a search too big for its budget stops and answers what it found.

Outside a :func:`cancellable` block nothing is ever cancelled, and :func:`check_cancelled` costs one
thread-local lookup. The signal belongs to the thread that runs the search, so agents take no new argument and
a user's agent needs no change (it is simply not stopped early unless it calls :func:`check_cancelled` too).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = [
    "CHECK_EVERY",
    "CancelSignal",
    "Cancelled",
    "cancellable",
    "check_cancelled",
    "current_signal",
    "on_cancel",
    "time_limit",
]

#: Alpha-beta checks the signal once per this many nodes (a power of two: the test is a bit mask); a node
#: costs microseconds, so a cancelled search stops within a millisecond or so of CPU.
CHECK_EVERY = 256


class _ThreadState(threading.local):
    """Each thread's cancel signal; None (the class's) until :func:`cancellable` sets one."""

    # A class default, so that reading it never fails: getattr with a default raises and catches an
    # AttributeError inside, and took 0.6 us a read, a sixth of a short solver call (measured).
    signal: CancelSignal | None = None


_thread = _ThreadState()


class Cancelled(Exception):
    """Raised in a search whose :class:`CancelSignal` was cancelled: nobody wants its result any more."""


class CancelSignal:
    """A one-way flag that a front end sets when the result of a running computation is no longer wanted."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._hooks: list[Callable[[], None]] = []
        #: Whether :meth:`cancel` was called.
        self.cancelled = False

    def cancel(self) -> None:
        """Cancel: every search run under this signal stops at its next check; the hooks run now."""
        with self._lock:
            self.cancelled, hooks = True, list(self._hooks)
        for hook in hooks:
            hook()


@contextmanager
def cancellable(signal: CancelSignal) -> Iterator[CancelSignal]:
    """Run the block with ``signal`` as this thread's cancel signal (the searches in it check it)."""
    outer = _thread.signal
    _thread.signal = signal
    try:
        yield signal
    finally:
        _thread.signal = outer


def current_signal() -> CancelSignal | None:
    """Return this thread's cancel signal, or None outside :func:`cancellable` (nothing can cancel the thread).

    For a caller whose registering a hook would cost more than its work: with no signal it can skip
    :func:`on_cancel` and :func:`check_cancelled` altogether.
    """
    return _thread.signal


def check_cancelled() -> None:
    """Raise :class:`Cancelled` if this thread's computation was cancelled; else return at once.

    Raises:
        Cancelled: inside :func:`cancellable` once its signal is cancelled.
    """
    signal = _thread.signal
    if signal is not None and signal.cancelled:
        raise Cancelled("the search was cancelled: its result is no longer wanted")


@contextmanager
def on_cancel(hook: Callable[[], None]) -> Iterator[None]:
    """Call ``hook`` (from the cancelling thread) if this thread's signal is cancelled during the block.

    For code that cannot call :func:`check_cancelled` itself, such as a compiled search: the hook makes it
    return, and the caller then calls :func:`check_cancelled`. Outside :func:`cancellable` it does nothing.
    """
    signal = _thread.signal
    if signal is None:
        yield
        return
    with signal._lock:
        signal._hooks.append(hook)
        cancelled = signal.cancelled
    if cancelled:
        hook()
    try:
        yield
    finally:
        with signal._lock:
            signal._hooks.remove(hook)


@contextmanager
def time_limit(seconds: float) -> Iterator[CancelSignal]:
    """Run the block under a signal of its own, cancelled after ``seconds`` or when this thread's signal is.

    The searches in the block stop at their next check once the time is up (:func:`check_cancelled` raises
    :class:`Cancelled` there). After the block, this thread's own signal is back: the caller tells a search cut
    by the clock from one whose result nobody wants by calling :func:`check_cancelled` then.
    """
    signal = CancelSignal()
    timer = threading.Timer(seconds, signal.cancel)
    timer.name = "time limit"
    timer.daemon = True  # a pending timer never keeps the program alive
    with on_cancel(signal.cancel), cancellable(signal):
        timer.start()
        try:
            yield signal
        finally:
            timer.cancel()
