"""One table of agent kinds feeds every list of agent names: the docs' table, the scripts' help, the errors."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from agents.factory import AGENT_KINDS, agent_forms, make_agent

ROOT = Path(__file__).resolve().parents[2]


def test_the_docs_table_lists_every_kind_with_its_summary_in_order():
    page = (ROOT / "docs" / "agents" / "arena.md").read_text()
    table = page.split("<!-- agent-kinds:")[1].split("\n\n")[0]
    rows = re.findall(r"^\| `([^`]+)` \| ([^|]+) \|", table, flags=re.M)
    assert rows == [(kind.form, kind.summary) for kind in AGENT_KINDS.values()]


@pytest.mark.parametrize("script", ["arena", "ladder", "play"])
def test_every_scripts_help_lists_every_form(script):
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / f"{script}.py"), "--help"], capture_output=True, text=True, check=True
    )
    flat = " ".join(done.stdout.split())
    for form in agent_forms():
        assert form in flat, (script, form)


def test_an_unknown_name_lists_every_form():
    with pytest.raises(ValueError) as caught:
        make_agent("grandmaster")
    assert str(caught.value) == f"unknown agent 'grandmaster': use one of {', '.join(agent_forms())}"
