"""Shared test set-up: every test runs headless, and bounds on work are counted, not timed."""

import importlib.util
import os
import signal
import sys
from pathlib import Path

import pytest

# pygame reads these when the display starts; tests never need a screen or a sound card.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")


def pytest_configure(config):
    """Answer Ctrl-C again when the suite was started with SIGINT ignored (``nohup ... &``, cron, a CI wrapper).

    An ignored signal stays ignored across ``exec``, and a Python started that way installs no KeyboardInterrupt
    handler, so every script, server and worker a test starts would ignore the Ctrl-C the test sends it. A signal
    with a handler is reset to its default at ``exec``: handling it here, before xdist starts its workers, gives
    every process below the suite the default, as in a terminal.
    """
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _load_work_budget():
    # The importlib import mode puts no test folder on sys.path: load the helper module from its file, once.
    name = "work_budget"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("work_budget.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture(scope="session")
def work_budget():
    """tests/work_budget.py: ``work_budget.bounded(max_lines=..., max_bytes=...)`` and the script runner."""
    return _load_work_budget()
