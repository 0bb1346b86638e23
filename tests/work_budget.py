"""Bounds on work that do not depend on the machine: Python lines run and bytes allocated, not seconds.

A test that asserts "this is refused at once" with a stopwatch fails on a busy machine and passes on a fast one
whatever the code does. What such a test means is that the work is bounded: a hostile size is refused before a
loop over it or an allocation of it. This module counts exactly that:

* :func:`bounded` counts the Python lines that calls made inside a ``with`` block run (every frame they enter,
  library code included, through :func:`sys.settrace`) and the peak bytes they allocate (:mod:`tracemalloc`,
  which numpy reports its arrays to). Past ``max_lines`` it raises :class:`WorkBudgetExceeded` at once, from
  inside the runaway loop, so a broken check fails the test in a moment instead of hanging it.
* Run as a program, ``python tests/work_budget.py MAX_LINES script.py ARGS...`` runs a script as ``python
  script.py ARGS...`` would, counting only the lines of this project's code (``agents/``, ``gym_boardgames/``,
  ``scripts/``); past ``MAX_LINES`` it prints :data:`OVER_BUDGET` on stderr and exits with status
  :data:`OVER_BUDGET_STATUS`. With ``WORK_BUDGET_REPORT=FILE`` in the environment it writes the count there
  at exit.

Counts depend on the code, not on the machine's speed or load; budgets in the tests sit far below the work the
checks guard against (millions of lines, gigabytes) and far above what the refusals take.
"""

from __future__ import annotations

import os
import runpy
import sys
import threading
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: The folders whose code the program form counts: the package, the agents and the scripts.
PROJECT_FOLDERS = tuple(str(ROOT / name) + os.sep for name in ("agents", "gym_boardgames", "scripts"))
OVER_BUDGET = "work budget exceeded"
OVER_BUDGET_STATUS = 97


class WorkBudgetExceeded(BaseException):
    """Raised inside the traced code once it has run more lines than allowed.

    A ``BaseException``, like ``KeyboardInterrupt``, so that library code catching ``Exception`` (or a
    ``pytest.raises(ValueError)`` around the call) does not swallow it.
    """


@dataclass
class Work:
    """What the calls inside a :func:`bounded` block did: lines run and peak bytes allocated (when measured)."""

    lines: int = 0
    peak_bytes: int = 0
    exceeded: bool = False


class LineCounter:
    """A :func:`sys.settrace` function that counts ``line`` events, optionally only in some files."""

    def __init__(self, max_lines: int | None, on_exceeded: Callable[[int], None], only: tuple[str, ...] = ()):
        self.max_lines = max_lines
        self.on_exceeded = on_exceeded
        self.only = only
        self.lines = 0

    def __call__(self, frame: FrameType, event: str, arg: Any) -> Any:
        # The global trace function sees each new frame once ("call"); the frames it returns a function for
        # report their lines to it. A frame outside `only` is not traced at all, which keeps the cost low.
        if self.only and not frame.f_code.co_filename.startswith(self.only):
            return None
        return self._local

    def _local(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            self.lines += 1
            if self.max_lines is not None and self.lines > self.max_lines:
                self.on_exceeded(self.lines)
        return self._local


@contextmanager
def bounded(max_lines: int | None = None, max_bytes: int | None = None) -> Iterator[Work]:
    """Count the lines and peak allocation of the calls made in the block; fail past either bound.

    Only calls made from the block are counted, not the block's own lines. The peak is measured from the
    memory held when the block starts.

    Args:
        max_lines: the most Python lines the calls may run; one more raises :class:`WorkBudgetExceeded` inside
            them. None counts without a bound.
        max_bytes: the most bytes the calls may hold at once beyond what was held before (an ``AssertionError``
            after the block). None measures nothing (tracemalloc slows allocation).

    Yields:
        A :class:`Work`, filled in when the block ends.
    """
    work = Work()

    def exceeded(lines: int) -> None:
        work.exceeded = True
        raise WorkBudgetExceeded(f"the calls ran more than max_lines={max_lines} Python lines")

    counter = LineCounter(max_lines, exceeded)
    started_tracemalloc = max_bytes is not None and not tracemalloc.is_tracing()
    if started_tracemalloc:
        tracemalloc.start()
    if max_bytes is not None:
        tracemalloc.reset_peak()
        held_before = tracemalloc.get_traced_memory()[0]
    previous = sys.gettrace()
    sys.settrace(counter)
    try:
        yield work
    finally:
        sys.settrace(previous)
        work.lines = counter.lines
        if max_bytes is not None:
            work.peak_bytes = tracemalloc.get_traced_memory()[1] - held_before
        if started_tracemalloc:
            tracemalloc.stop()
    # Also when the code under test caught WorkBudgetExceeded and went on.
    assert not work.exceeded, f"the calls ran more than max_lines={max_lines} Python lines"
    if max_bytes is not None:
        assert work.peak_bytes <= max_bytes, f"the calls allocated {work.peak_bytes:,} bytes, over {max_bytes:,}"


def run_script(max_lines: int, script: str, args: list[str]) -> None:
    """Run ``script`` as ``__main__`` with ``args``, exiting with :data:`OVER_BUDGET_STATUS` past ``max_lines``."""

    def exceeded(lines: int) -> None:
        # os._exit, not an exception: a script's own `except Exception` must not turn this into a user error.
        sys.stderr.write(f"{OVER_BUDGET}: {script} ran more than {max_lines} lines of the project's code\n")
        sys.stderr.flush()
        os._exit(OVER_BUDGET_STATUS)

    counter = LineCounter(max_lines, exceeded, only=PROJECT_FOLDERS)
    report = os.environ.get("WORK_BUDGET_REPORT")
    if report:
        import atexit

        atexit.register(lambda: Path(report).write_text(str(counter.lines)))
    # As `python script.py`: the script's folder first on the path, its name as argv[0] (argparse's prog).
    sys.path[0] = str(Path(script).resolve().parent)
    sys.argv = [script, *args]
    threading.settrace(counter)
    sys.settrace(counter)
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    run_script(int(sys.argv[1]), sys.argv[2], sys.argv[3:])
