"""The scripts' plumbing, not a command and not the library: what every script of scripts/ shares.

- :mod:`plumbing.cli`: the parser, the shared flags and flag types, the up-front checks of every path, the
  entry :func:`plumbing.cli.run` (Ctrl-C is one line and status 130) and the JSON summary;
- :mod:`plumbing.figures`: figures (pyplot on Agg, written by the one writer) and TensorBoard scalar logs.

Every script puts its own folder on ``sys.path`` (where this package and :mod:`peers` live: ``sys.path[0]``
when it runs, not when a test loads it by path) and imports :mod:`plumbing.cli` first, before any other import
but the standard library's ``os`` and ``sys``. This package's own import, which comes first and imports only the
standard library, is where a script starts answering signals as the design promises (docs/design.md, section
'One mechanism per kind of safety'): a Ctrl-C that escapes a script before :func:`plumbing.cli.run` is entered
(while numpy, the package or torch are still importing) is one line and status 130, never a traceback
(:func:`_interrupted_before_run`), and SIGTERM raises :class:`Terminated`, so the ``finally`` blocks that stop
worker processes run and the script ends with one line and status 143 instead of dying with its workers left
running. Only a process that runs a script is changed so: a test that loads one keeps its own handlers, and a
spawned worker process, which imports the script again as ``__mp_main__``, keeps Python's defaults (its pool
stops it, and it prints nothing).
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

#: Exit statuses of an interruption: Ctrl-C (SIGINT) and SIGTERM, 128 plus the signal's number, as a shell's.
EXIT_INTERRUPTED, EXIT_TERMINATED = 130, 143


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the script is: every path that ends a Ctrl-C cleanly (a pool's, a child agent's) ends
    it too, and :func:`plumbing.cli.run` tells the two apart by their line and status."""


def interruption_line(error: BaseException) -> tuple[str, int]:
    """The one line (``SCRIPT: interrupted`` or ``SCRIPT: terminated``) and the exit status of ``error``."""
    name = os.path.basename(sys.argv[0]) or "python"
    if isinstance(error, Terminated):
        return f"{name}: terminated", EXIT_TERMINATED
    return f"{name}: interrupted", EXIT_INTERRUPTED


def _raise_terminated(signum: int, frame: Any) -> None:
    raise Terminated()


def _interrupted_before_run(kind: type[BaseException], error: BaseException, traceback: Any) -> None:
    """``sys.excepthook``: a Ctrl-C (or SIGTERM) that escapes a script before :func:`plumbing.cli.run` is one line.

    An uncaught KeyboardInterrupt would print a traceback and end the process by SIGINT. Nothing is written
    before ``run``'s ``main`` (every write is its), so the process ends at once. Any other exception goes to the
    hook that was there before.
    """
    if not issubclass(kind, KeyboardInterrupt):
        _PREVIOUS_HOOK(kind, error, traceback)
        return
    line, status = interruption_line(error)
    print(line, file=sys.stderr)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # a closed pipe: the status still says it
            pass
    os._exit(status)


def _running_a_script() -> bool:
    """Whether this process runs a script of scripts/: not a test that loads one, not a spawned worker.

    A spawned worker imports the script again as ``__mp_main__`` while ``__main__`` is still its ``-c`` bootstrap.
    """
    main_file = getattr(sys.modules.get("__main__"), "__file__", None)
    scripts = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return main_file is not None and os.path.dirname(os.path.abspath(main_file)) == scripts


_PREVIOUS_HOOK = sys.excepthook
if _running_a_script():
    if sys.excepthook is sys.__excepthook__:  # leave a hook someone else installed (an IDE's, a debugger's) alone
        sys.excepthook = _interrupted_before_run
    if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:  # one that ignores SIGTERM (nohup's) keeps it ignored
        signal.signal(signal.SIGTERM, _raise_terminated)
