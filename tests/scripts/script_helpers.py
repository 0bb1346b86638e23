"""Running a script of scripts/: in a fresh interpreter, or loaded as a module for tests that call its functions."""

import importlib.util
import os
import signal
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
# The scripts' plumbing/ and peers/ packages, importable by the tests as the scripts import them.
if str(ROOT / "scripts") not in sys.path:
    sys.path.insert(0, str(ROOT / "scripts"))


def load_script(name: str, prefix: str = "script") -> ModuleType:
    """Import ``scripts/<name>.py`` as module ``<prefix>_<name>``, keeping the environment as it was.

    Some scripts set BLAS thread counts in ``os.environ`` at import; they must not leak into this process.
    """
    environ = dict(os.environ)
    try:
        spec = importlib.util.spec_from_file_location(f"{prefix}_{name}", ROOT / "scripts" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        os.environ.clear()
        os.environ.update(environ)
    return module


def run_script(name: str, *args: object, check: bool = False, **options: object) -> subprocess.CompletedProcess:
    """Run ``scripts/<name>.py`` with ``args`` in a fresh interpreter (from the repository root unless ``cwd``).

    ``options`` go to ``subprocess.run`` (e.g. ``timeout``, ``env``); the output is captured as text.
    """
    options = {"cwd": ROOT, **options}
    command = [sys.executable, str(ROOT / "scripts" / f"{name}.py"), *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, check=check, **options)


def children(pid):
    """The ids of ``pid``'s child processes."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += (task / "children").read_text().split()
    return [int(child) for child in found]


def ignores_ctrl_c(pid):
    """Whether the process has set SIGINT to be ignored (bit 2 of SigIgn in /proc/PID/status)."""
    line = next(line for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith("SigIgn:"))
    return bool(int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)))
