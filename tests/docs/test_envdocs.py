"""The env pages' generator (docs/_ext/envdocs.py): docstring reST to MyST, tables and changelog entries."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("sphinx", reason="the docs extra is not installed: pip install -e '.[docs]'")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs" / "_ext"))

import envdocs  # noqa: E402  (from docs/_ext, put on the path above)


def test_myst_turns_roles_literals_and_literal_blocks_into_markdown():
    text = "See :class:`~a.B` and ``x = 1``, a literal\nthat ``spans\nlines``; a map::\n\n    T 1\n    2 T\n\nAfter."
    assert envdocs.myst(text) == (
        "See {py:class}`~a.B` and `x = 1`, a literal\nthat `spans\nlines`; a map:\n\n```text\nT 1\n2 T\n```\n\nAfter.\n"
    )


def test_docstring_sections_split_at_markdown_headings():
    class Env:
        """Summary line.

        ## Description
        Body one.

        ## Version History
        * v0: initial.
        """

    summary, sections = envdocs.docstring_sections(Env)
    assert summary == "Summary line."
    assert sections == [("Description", "Body one."), ("Version History", "* v0: initial.")]


def test_arguments_table_reads_the_signature():
    class Env:
        def __init__(self, rows: int = 3, *, mode: str | None = None) -> None: ...

    table = envdocs.arguments_table(Env)
    assert "| `rows` | `3` | `int` |" in table
    assert "| `mode` (keyword only) | `None` | `str \\| None` |" in table


def test_every_registered_id_has_a_page_and_a_game():
    import envgifs

    ids = envdocs.package_ids()
    assert {"TicTacToe-v0", "GridWorld-v0"} <= set(ids)
    pages = Path(__file__).resolve().parents[2] / "docs" / "envs"
    assert all((pages / f"{envdocs.page_name(env_id)}.md").is_file() for env_id in ids)
    assert sorted(game.env_id for game in envgifs.GAMES) == sorted(ids)


def test_changelog_entries_name_the_id():
    entries = envdocs.changelog_entries("TicTacToe-v0")
    assert entries and all("TicTacToe-v0" in entry for _, entry in entries)
    assert not envdocs.changelog_entries("NoSuchEnv-v0")
