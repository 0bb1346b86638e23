"""Sphinx configuration of the gym-boardgames documentation site.

Build it from the repository root with warnings as errors::

    python -m sphinx -W -b html docs docs/_build/html

The environment pages' tables, sections and GIFs are written at build time by the ``envdocs`` extension
(``docs/_ext/envdocs.py``) into ``docs/_generated/`` from the registered specs and the code; the API pages
are written by autosummary into ``docs/api/_autosummary/``. Both folders are gitignored.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))
# The package is installed (pip install -e ".[docs]"); the checkout goes first on the path too, so a build
# from a fresh clone documents the code beside this file, not some other installed copy.
sys.path.insert(0, str(DOCS.parent))
# Drawing the GIFs needs no window.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import gym_boardgames  # noqa: E402  (after the path set-up above)

project = "gym-boardgames"
author = "the gym-boardgames authors"
copyright = "2026, the gym-boardgames authors"  # noqa: A001  (Sphinx's setting name)
release = gym_boardgames.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "envdocs",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
# _generated holds the env pages' includes and GIFs (read through {include}, not pages of their own).
exclude_patterns = ["_build", "_generated", "Thumbs.db", ".DS_Store"]
templates_path = ["api/_templates"]

# MyST: ``{role}`` and ``:::`` fences, and anchors for ## and ### headings so pages can link to sections.
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# The docstrings are Google style (Args / Returns / Raises).
napoleon_google_docstring = True
napoleon_numpy_docstring = False
# The NamedTuples' "Attributes:" sections as :ivar: fields: as ``.. attribute::`` entries they would describe
# each field a second time beside the one autodoc writes for the field itself (a duplicate-object warning).
napoleon_use_ivar = True
autosummary_generate = True
# Modules of the optional extras (pettingzoo for gym_boardgames.pettingzoo, PyTorch for AlphaZero training) are
# stood in for while autodoc imports the code: the docs extra alone builds every API page, and the pages
# read the same whichever extras are installed.
autodoc_mock_imports = ["pettingzoo", "torch"]
autodoc_member_order = "bysource"
# Signatures show the hints; the "Args:" text says what each argument means.
autodoc_typehints = "signature"
# Type aliases written in the code (``OpponentPolicy``) read better than their expansion.
autodoc_type_aliases = {"OpponentPolicy": "gym_boardgames.envs.base.OpponentPolicy"}

html_theme = "furo"
html_title = f"gym-boardgames {release}"
html_static_path: list[str] = []
