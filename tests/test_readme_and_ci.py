"""README and the docs pages work as written: the two commands are CI's, every block names its language, every
script flag exists.

The documents are README.md and every Markdown page of the site (``docs/**/*.md``, generated folders left
out). Their Python blocks run in tests/docs/test_code_blocks.py, each page's in order in one fresh interpreter.
Pure output examples are fenced ``text``, not ``python``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
# Folders of docs/ that the build writes (gitignored): not pages anyone wrote.
GENERATED = {"_build", "_generated", "_autosummary"}
FENCE = re.compile(r"^```(\S*)")  # the info string's first word: python, bash, {toctree}, {include}


@dataclass(frozen=True)
class Block:
    """One fenced block of a document: its file, language tag, the line of its first code line, its text."""

    path: str
    lang: str
    line: int
    code: str

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


def documents() -> list[Path]:
    """README.md and every hand-written Markdown page of docs/, in a fixed order."""
    pages = [page for page in sorted(DOCS.rglob("*.md")) if not GENERATED & set(page.relative_to(DOCS).parts)]
    return [README, *pages]


def blocks_of(path: Path) -> list[Block]:
    """Every fenced block of a Markdown file, in order (MyST directives such as ```{toctree} included)."""
    name = path.relative_to(ROOT).as_posix()
    blocks: list[Block] = []
    lang, start, lines = None, 0, []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        fence = FENCE.match(line)
        if lang is None and fence:
            lang, start, lines = fence.group(1), number + 1, []
        elif lang is not None and line.startswith("```"):
            blocks.append(Block(name, lang, start, "\n".join(lines) + "\n"))
            lang = None
        elif lang is not None:
            lines.append(line)
    assert lang is None, f"{name}: the block opened at line {start - 1} is never closed"
    return blocks


def readme_blocks() -> list[Block]:
    return blocks_of(README)


def readme_commands():
    text = README.read_text()
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


def test_the_site_front_page_shows_the_readme_commands():
    """docs/index.md repeats the two commands; a change to README's must reach it too."""
    page = (DOCS / "index.md").read_text().splitlines()
    missing = [command for command in readme_commands() if command not in page]
    assert not missing, f"docs/index.md must show README's set-up commands as they are: {missing}"
    cpu_torch = re.search(r"^`(python3 -m venv .*torch==[^`]+)`", README.read_text(), re.M)
    assert cpu_torch and f"`{cpu_torch.group(1)}`" in "\n".join(page), "docs/index.md must give README's CPU-torch line"


def test_every_block_names_its_language():
    """README's blocks are python, bash or text; the site's may also be console, other data formats and
    MyST directives (``{toctree}``)."""
    readme = [block.where for block in readme_blocks() if block.lang not in {"python", "bash", "text"}]
    assert not readme, f"fence these README blocks as python, bash or text: {readme}"
    known = {"python", "bash", "console", "text", "json", "toml", "yaml", "ini"}
    pages = [
        block.where
        for path in documents()[1:]
        for block in blocks_of(path)
        if block.lang not in known and not block.lang.startswith("{")
    ]
    assert not pages, f"fence these docs blocks with a language ({', '.join(sorted(known))}): {pages}"


def shell_commands(text: str) -> list[str]:
    """Shell commands of a bash block or an inline code span: comments dropped, split at ``&&``, ``;``, ``|``."""
    commands = []
    for line in text.replace("\\\n", " ").splitlines():
        line = re.sub(r"(^|\s)#.*", "", line)
        commands += [part.strip() for part in re.split(r"&&|\|\||;|\|", line) if part.strip()]
    return commands


def block_commands(block: Block) -> list[tuple[int, str]]:
    """``(line, command)`` of a bash block's lines, or of a console block's ``$ `` prompt lines."""
    found = []
    for offset, line in enumerate(block.code.splitlines()):
        if block.lang == "console":
            if not line.startswith("$ "):
                continue  # output, not a command
            line = line[2:]
        found += [(block.line + offset, command) for command in shell_commands(line)]
    return found


def script_invocations(path: Path = README) -> list[tuple[str, str, list[str]]]:
    """``(file:line, script path, --flags)`` for every ``scripts/X.py`` run in a bash or console block or in
    inline code of one document."""
    name = path.relative_to(ROOT).as_posix()
    found = []
    for block in blocks_of(path):
        if block.lang in ("bash", "console"):
            for line, command in block_commands(block):
                found += _invocation(f"{name}:{line}", command)
    text = re.sub(r"^```.*?^```", lambda m: "\n" * m.group(0).count("\n"), path.read_text(), flags=re.S | re.M)
    for span in re.finditer(r"`([^`\n]*(?:\n[^`\n]*)?)`", text):
        if "scripts/" in span.group(1) and ".py" in span.group(1):
            line = text.count("\n", 0, span.start()) + 1
            for command in shell_commands(span.group(1).replace("\n", " ")):
                found += _invocation(f"{name}:{line}", command)
    return found


def _invocation(where: object, command: str) -> list[tuple[object, str, list[str]]]:
    try:
        tokens = shlex.split(command)
    except ValueError:  # prose in a code span (an unmatched quote): not a command
        return []
    for i, token in enumerate(tokens):
        if re.fullmatch(r"(\./)?scripts/\w+\.py", token):
            flags = [t.split("=", 1)[0] for t in tokens[i + 1 :] if t.startswith("--")]
            return [(where, token.removeprefix("./"), flags)]
    return []


# Runs every script's --help in one interpreter (numpy, gymnasium and argparse imported once): eleven
# interpreter starts would cost several seconds on a loaded machine.
HELP_RUNNER = """
import contextlib, io, json, runpy, sys
helps = {}
for script in sys.argv[1:]:
    sys.argv = [script, "--help"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            runpy.run_path(script, run_name="__main__")
        except SystemExit as stop:
            if stop.code not in (0, None):
                raise
    helps[script] = out.getvalue()
print(json.dumps(helps))
"""


@cache
def script_helps() -> dict[str, str]:
    """``scripts/X.py`` -> its ``--help`` text, for every script."""
    scripts = [path.relative_to(ROOT).as_posix() for path in sorted((ROOT / "scripts").glob("*.py"))]
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    result = subprocess.run(
        [sys.executable, "-c", HELP_RUNNER, *scripts], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, f"a script's --help fails:\n{result.stderr[-2000:]}"
    helps = json.loads(result.stdout.splitlines()[-1])
    assert all(helps.values()), f"no --help text from {[name for name, text in helps.items() if not text]}"
    return helps


def script_flags(script: str) -> set[str]:
    return set(re.findall(r"--[\w-]+", script_helps()[script]))


def test_shell_commands_name_existing_scripts_and_their_flags():
    invocations = [found for path in documents() for found in script_invocations(path)]
    assert len(invocations) >= 10, "the parser should find the documents' script commands"
    problems = []
    for where, script, flags in invocations:
        if not (ROOT / script).is_file():
            problems.append(f"{where}: {script} does not exist")
            continue
        accepted = script_flags(script)
        problems += [f"{where}: {script} has no {flag} in --help" for flag in flags if flag not in accepted]
    assert not problems, "\n".join(problems)


def pytest_flags() -> set[str]:
    """The flags of ``pytest --help`` in this venv, its plugins' (pytest-xdist's ``--dist``) included."""
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, f"pytest --help fails:\n{result.stderr[-2000:]}"
    return set(re.findall(r"--[\w-]+", result.stdout))


def test_every_flag_readme_mentions_is_a_scripts_flag():
    """Flags named in prose (`--plot FILE`, `--quick`) must exist too: in the --help of at least one script,
    or of pytest for the test commands."""
    text = README.read_text()
    shell = [block.code for block in readme_blocks() if block.lang == "bash"]
    spans = re.findall(r"`([^`\n]+)`", text)
    accepted = set().union(*(script_flags(script) for script in script_helps()), pytest_flags())
    problems = sorted(
        {
            f"README.md:{text.count(chr(10), 0, text.index(flag)) + 1}: {flag}"
            for code in [*shell, *spans]
            for flag in re.findall(r"(?<![\w-])--[a-z][\w-]*", re.sub(r"(^|\s)#.*", "", code))
            if flag not in accepted
        }
    )
    assert not problems, "README names flags no script accepts:\n" + "\n".join(problems)


def test_shell_parser_reads_flags_after_the_script_only():
    command = '.venv/bin/pip install -e ".[bench]" && .venv/bin/python scripts/bench.py --compare  # --not-this'
    found = [inv for c in shell_commands(command) for inv in _invocation(1, c)]
    assert found == [(1, "scripts/bench.py", ["--compare"])]


def test_console_blocks_read_only_prompt_lines():
    block = Block("x.md", "console", 1, "$ python scripts/solve.py --game tictactoe\n--not-a-flag output\n")
    commands = block_commands(block)
    assert commands == [(1, "python scripts/solve.py --game tictactoe")]


LAYOUT = DOCS / "api" / "layout.md"


def layout_paths() -> set[str]:
    """Every ``.py`` path the code layout page names, resolved against the folder that starts its line."""
    blocks = [block for block in blocks_of(LAYOUT) if block.lang == "text"]
    assert blocks, "docs/api/layout.md lists the files in a fenced text block"
    named, folder = set(), ""
    for line in blocks[0].code.splitlines():
        if line and not line[0].isspace():
            head = line.split()[0]
            folder = head if head.endswith("/") else head.rsplit("/", 1)[0] + "/"
        for name in re.findall(r"[\w/]+\.py\b", line):
            named.add(name if "/" in name else folder + name)
    return named


def test_layout_names_every_module_and_only_existing_ones():
    named = layout_paths()
    files = {path for path in named if (ROOT / path).is_file()}
    assert not named - files, f"docs/api/layout.md names files that do not exist: {sorted(named - files)}"
    # Sub-package __init__ files only re-export; the top one is the registration, worth naming.
    required = {path for path in shipped_modules() if not path.endswith("/__init__.py")} | {
        "gym_boardgames/__init__.py"
    }
    assert not required - named, f"docs/api/layout.md does not name {sorted(required - named)}"


def shipped_modules() -> set[str]:
    """The ``.py`` files of the packages and scripts: git's tracked ones in a checkout, as a fresh clone has them.

    Files another change is still writing (untracked) are not the layout page's business yet.
    """
    tops = ("gym_boardgames", "agents", "scripts")
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--", *tops], cwd=ROOT, capture_output=True, text=True, check=True, timeout=30
        ).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        listed = [path.relative_to(ROOT).as_posix() for top in tops for path in (ROOT / top).rglob("*.py")]
    return {path for path in listed if path.endswith(".py")}


def test_readme_is_a_landing_page_whose_links_and_pictures_resolve():
    """README stays short (the site holds the details) and every relative link or picture names a file."""
    text = README.read_text()
    assert len(text) <= 8000, f"README.md has {len(text)} characters; the landing page keeps to 8,000"
    targets = re.findall(r"\]\(([^)\s]+)\)", text) + re.findall(r'<img src="([^"]+)"', text)
    local = [target.split("#")[0] for target in targets if not re.match(r"[a-z]+:", target)]
    assert local, "README.md links into the docs"
    missing = sorted(target for target in local if target and not (ROOT / target).exists())
    assert not missing, f"README.md links to files that do not exist: {missing}"
    # Every env page is linked from the landing page.
    pages = {path.relative_to(ROOT).as_posix() for path in (DOCS / "envs").glob("*.md") if path.name != "index.md"}
    assert not pages - set(local), f"README.md does not link {sorted(pages - set(local))}"
