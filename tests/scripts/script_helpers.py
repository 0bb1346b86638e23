"""Loading a script of scripts/ as a module in the test process, for tests that call its functions."""

import importlib.util
import os
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


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
