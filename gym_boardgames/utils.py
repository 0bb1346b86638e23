"""Small shared helpers: progress bars, process pools, and the check that an optional extra is installed.

The library's long jobs show progress through :func:`progress_bar` and run workers in :func:`process_pool`
(files are written by :mod:`gym_boardgames.outputs`); :func:`require_extra` reports a missing optional
dependency in one line before any work. The scripts' own parsers and up-front checks are in
``scripts/plumbing/cli.py``, outside the library.
"""

from __future__ import annotations

import contextlib
import importlib
import signal
import sys
from collections.abc import Callable, Iterator
from typing import Any


def process_pool(workers: int, initializer: Callable[..., Any] | None = None, initargs: tuple[Any, ...] = ()) -> Any:
    """Return a ``multiprocessing`` pool of ``workers`` spawned processes that ignore Ctrl-C.

    Every pool of the package and the scripts is made here. Spawn, not fork: a worker starts clean, as on
    macOS and Windows, whatever threads this process runs. Ctrl-C reaches every process of the terminal's
    group; the workers ignore it (their first act), so only the main process reports it (one line: the
    scripts' entry, ``plumbing.cli.run``) and its pool stops them, where each worker used to print a traceback.
    ``initializer(*initargs)`` then runs in each worker. A Ctrl-C while a worker is still starting (its first
    second or so of imports, before it can ignore anything) may still print that worker's traceback: making
    the workers ignore it from birth (this process ignoring it while it starts them) lost the Ctrl-C whenever
    another thread of this process, such as a BLAS thread, took the signal in that window.
    """
    import multiprocessing

    return multiprocessing.get_context("spawn").Pool(workers, _start_worker, (initializer, initargs))


@contextlib.contextmanager
def process_executor(workers: int) -> Iterator[Any]:
    """Yield a ``concurrent.futures`` executor of ``workers`` spawned processes that ignore Ctrl-C.

    For jobs where a lost task must be reported, not waited for: a ``multiprocessing`` pool (:func:`process_pool`)
    replaces a worker that dies and waits for its task forever, where the executor raises ``BrokenProcessPool``.
    The workers start as :func:`process_pool`'s do. On leaving, the tasks not started are cancelled and the
    workers still running are killed, as ``Pool.terminate`` does, so Ctrl-C or an error ends the job at once.
    """
    import concurrent.futures
    import multiprocessing

    executor = concurrent.futures.ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context("spawn"), initializer=_start_worker, initargs=(None, ())
    )
    try:
        yield executor
    finally:
        executor.shutdown(wait=False, cancel_futures=True)
        # The executor has no terminate(): its process table is the one handle on the workers still running.
        for process in list((getattr(executor, "_processes", None) or {}).values()):
            process.kill()
            process.join()


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
