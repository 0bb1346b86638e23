"""README's two commands are the ones CI and newcomers run."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_commands():
    text = (ROOT / "README.md").read_text()
    block = re.search(r"<!-- setup-commands -->\s*```(?:bash|sh)?\n(.*?)```", text, re.S)
    assert block, "README.md must hold the set-up commands in a block after <!-- setup-commands -->"
    return [line for line in block.group(1).splitlines() if line and not line.startswith("#")]


def test_readme_gives_two_commands_main_job_and_tests():
    commands = readme_commands()
    assert len(commands) == 2
    assert "scripts/" in commands[0] and "pytest" in commands[1]


def test_ci_runs_exactly_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    assert readme_commands()[1] in ci.splitlines()
