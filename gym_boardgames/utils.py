"""Small shared helpers: progress bars, process pools, and the check that an optional extra is installed.

The library's long jobs show progress through :func:`progress_bar` and run workers in :func:`process_pool`
(files are written by :mod:`gym_boardgames.outputs`); :func:`require_extra` reports a missing optional
dependency in one line before any work. The scripts' own parsers and up-front checks are in
``scripts/plumbing/cli.py``, outside the library.
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing.context  # loaded already: importing Gymnasium imports it
import os
import signal
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any


def process_pool(workers: int, initializer: Callable[..., Any] | None = None, initargs: tuple[Any, ...] = ()) -> Any:
    """Return a ``multiprocessing`` pool of ``workers`` spawned processes that ignore Ctrl-C from birth.

    Every pool of the package and the scripts is made here. Spawn, not fork: a worker starts clean, as on
    macOS and Windows, whatever threads this process runs. Ctrl-C reaches every process of the terminal's
    group; only the main process reports it (one line: the scripts' entry, ``plumbing.cli.run``) and its pool
    stops the workers. A worker is started with SIGINT blocked (:func:`_spawn_context`), so a Ctrl-C during its
    first second of imports, before it can ignore anything, is never its traceback; its first act is to ignore
    SIGINT. ``initializer(*initargs)`` then runs in each worker.
    """
    return _spawn_context().Pool(workers, _start_worker, (initializer, initargs))


@contextlib.contextmanager
def process_executor(workers: int) -> Iterator[Any]:
    """Yield a ``concurrent.futures`` executor of ``workers`` spawned processes that ignore Ctrl-C.

    For jobs where a lost task must be reported, not waited for: a ``multiprocessing`` pool (:func:`process_pool`)
    replaces a worker that dies and waits for its task forever, where the executor raises ``BrokenProcessPool``.
    The workers start as :func:`process_pool`'s do. On leaving (the job done, an error, Ctrl-C, SIGTERM raised
    as an exception), the tasks not started are cancelled and every worker is killed with what it started
    (:func:`kill_process_tree`: a user's agent in its child process, that agent's forks), busy or not, so
    nothing of the job outlives it, not even a worker deep in compiled code or stuck in a user's agent.
    """
    import concurrent.futures

    executor = concurrent.futures.ProcessPoolExecutor(
        workers, mp_context=_spawn_context(), initializer=_start_worker, initargs=(None, ())
    )
    try:
        yield executor
    finally:
        # The executor has no terminate(): its process table is the one handle on the workers still running, and
        # shutdown() drops it, so it is read first.
        processes = list((getattr(executor, "_processes", None) or {}).values())
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            kill_process_tree(process.pid)
        for process in processes:
            process.join()


class _QuietSpawnProcess(multiprocessing.context.SpawnProcess):
    """A spawned process that starts with SIGINT blocked (signal masks survive ``exec``).

    Only the starting thread blocks it, for the few milliseconds of the start: a Ctrl-C meanwhile goes to another
    thread of this process or waits for the unblock, so it is never lost, as it was when this process briefly
    ignored SIGINT itself instead.
    """

    def start(self) -> None:
        if not hasattr(signal, "pthread_sigmask"):  # Windows: no signal masks
            return super().start()
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            return super().start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class _QuietSpawnContext(multiprocessing.context.SpawnContext):
    Process = _QuietSpawnProcess


def _spawn_context() -> Any:
    """The ``spawn`` context of every pool: its processes start with SIGINT blocked (:class:`_QuietSpawnProcess`)."""
    return _QuietSpawnContext()


def _start_worker(initializer: Callable[..., Any] | None, initargs: tuple[Any, ...]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):  # ignored now: unblocked, so the programs it runs start as usual
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    if initializer is not None:
        initializer(*initargs)


#: Seconds a main thread sleeps at most while it waits for workers: Python runs a signal's handler (Ctrl-C,
#: SIGTERM) only in the main thread, and a wait without a timeout sleeps through a signal that another thread
#: (a pool's) took, so the Ctrl-C would wait for the task.
WAKE_S = 0.2


def as_finished(futures: Iterable[Any]) -> Iterator[Any]:
    """Yield each of the ``concurrent.futures`` ``futures`` as it finishes, waking every :data:`WAKE_S` seconds.

    ``concurrent.futures.as_completed`` without the deafness: a Ctrl-C or SIGTERM is answered within
    :data:`WAKE_S`, even while every worker is busy for minutes.
    """
    from concurrent.futures import FIRST_COMPLETED, wait

    pending = set(futures)
    while pending:
        done, pending = wait(pending, timeout=WAKE_S, return_when=FIRST_COMPLETED)
        yield from done


def kill_process_tree(pid: int) -> None:
    """Kill process ``pid`` and every process descended from it, at once (``SIGKILL``), without waiting.

    The tree is read first and killed after, so a process that dies meanwhile leaves its children in the list.
    On Linux the tree comes from ``/proc``; elsewhere only ``pid`` itself is killed. A process already gone is
    no error. The caller reaps its own child (``Popen.wait``, ``Process.join``).
    """
    for victim in [pid, *_descendants(pid)]:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(victim, signal.SIGKILL)


def _descendants(pid: int) -> list[int]:
    """The processes below ``pid``, parents before children, read from ``/proc`` (empty where there is none)."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat_file:
                fields = stat_file.read().rsplit(b")", 1)[1].split()  # the name, in brackets, may hold spaces
        except (OSError, IndexError):
            continue  # it ended while the table was read
        children.setdefault(int(fields[1]), []).append(int(entry))
    found, queue = [], list(children.get(pid, []))
    while queue:
        child = queue.pop(0)
        found.append(child)
        queue.extend(children.get(child, []))
    return found


def _start_worker(initializer: Callable[..., Any] | None, initargs: tuple[Any, ...]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if initializer is not None:
        initializer(*initargs)


def peak_rss_mb() -> float | None:
    """Return this process's peak resident memory in MB, or None where no way to read it exists (Windows).

    Linux's ``VmHWM`` is the peak of this process image; elsewhere ``ru_maxrss`` is read (on Linux it would
    also count what the parent used before ``exec``). This module imports only the standard library, so a
    process that measures the memory of its own imports may load this file by its path alone.
    """
    try:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM")) / 1024
    except (OSError, StopIteration):
        pass
    try:
        import resource
    except ImportError:  # Windows
        return None
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)


class MissingExtraError(ImportError):
    """An optional dependency (a package extra) is not installed; the message says how to install it."""


def require_extra(extra: str, *modules: str, needed_for: str = "this") -> None:
    """Import ``modules`` now, so a missing extra is reported before any long work.

    Args:
        extra: the extra's name in pyproject.toml, e.g. ``"plot"``.
        modules: the top-level modules it provides, e.g. ``"matplotlib"``.
        needed_for: what needs it, e.g. ``"--out"``, for the message.

    Raises:
        MissingExtraError: (an ``ImportError``) in one line: ``--out needs matplotlib, the 'plot' extra:
            pip install -e ".[plot]"``.
    """
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError:
            raise MissingExtraError(
                f"{needed_for} needs {module}, the '{extra}' extra: pip install -e \".[{extra}]\""
            ) from None


class _NoProgress:
    """The silent progress bar of ``progress_bar(..., enabled=False)``: no output, and no import of tqdm."""

    def update(self, n: int = 1) -> None:
        """Ignore progress."""

    def close(self) -> None:
        """Nothing to close."""

    def __enter__(self) -> _NoProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        """Nothing to close."""


def progress_bar(total: int, desc: str, enabled: bool = True) -> Any:
    """Return a tqdm progress bar on stderr (``update(n)``, ``close()``, context manager).

    tqdm is a dependency of the package, imported here on the first bar shown rather than at the top, so that
    ``import gym_boardgames`` does not pay its import (about 40 ms) and a disabled bar never does. With
    ``enabled`` false the bar is a silent stand-in.
    """
    if not enabled:
        return _NoProgress()
    from tqdm import tqdm

    # On a terminal tqdm redraws its line in place; into a log file or a pipe every redraw is appended, so there
    # it redraws at most every 2 s instead of tqdm's 10 times a second.
    tty = bool(getattr(sys.stderr, "isatty", lambda: False)())
    return tqdm(total=total, desc=desc, leave=False, dynamic_ncols=True, mininterval=0.1 if tty else 2.0)
