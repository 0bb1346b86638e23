"""Every Python block of README.md and of the site's pages (every hand-written page of docs/, the tutorials among
them) runs as a reader would paste it: the blocks of one page in order, in one fresh interpreter, so a later block
sees what an earlier one defined.

The interpreter starts in an empty temporary folder with the repository on ``PYTHONPATH`` (so it runs this
checkout's package, whatever is installed), no display (``SDL_VIDEODRIVER=dummy``), ``MPLBACKEND=Agg`` and one
thread for PyTorch (``OMP_NUM_THREADS=1`` unless set), and
runs each block in the ``__main__`` module's namespace, as the REPL or a notebook would. A traceback names the
page and the page's own line.

A block that cannot run here says so in the page, just before the block, with an HTML comment that GitHub and
the site show as nothing::

    <!-- test: skip (needs a screen: opens a window) -->

The page's later blocks then run without it. A block that needs an optional extra may instead name the modules
it imports in a comment line of its own, ``# needs: sb3_contrib, stable_baselines3``: it is skipped only where
one of them is missing (CI installs every extra, so it runs there). Every skipped block is a skipped test of its
own here, ``test_a_skipped_block_says_why[PAGE:LINE]``, whose reason ``pytest -ra`` lists.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
#: Folders of docs/ that the build writes (gitignored): not pages anyone wrote.
GENERATED = {"_build", "_generated", "_autosummary"}
#: One page's blocks together. The slowest page, the SB3 tutorial, takes under a minute on a quiet machine.
PAGE_TIMEOUT_S = 600
#: ``<!-- test: skip (the reason) -->`` on a line of its own.
MARK = re.compile(r"^<!--\s*test:(.*?)-->\s*$")
SKIP = re.compile(r"^\s*skip\s*\((.+)\)\s*$")
#: ``# needs: mod_a, mod_b  (any remark)``: the comma-separated module names, the remark ignored.
NEEDS = re.compile(r"^\s*#\s*needs:\s*([\w.]+(?:\s*,\s*[\w.]+)*)", re.M)
FENCE = re.compile(r"^(`{3,}|~{3,})\s*([^`\s]*)")


@dataclass(frozen=True)
class Block:
    """One fenced Python block: its page, the page's line of its first code line, its code, why it is skipped."""

    page: str
    line: int
    code: str
    skip: str | None = None

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def pages() -> list[Path]:
    """README.md and every hand-written page of docs/ (the tutorials' among them), in a fixed order."""
    return [README, *(page for page in sorted(DOCS.rglob("*.md")) if not GENERATED & set(page.relative_to(DOCS).parts))]


def name_of(path: Path) -> str:
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def python_blocks(path: Path) -> list[Block]:
    """The ```python blocks of a Markdown page, in order, each with the reason of its skip mark (or None).

    Raises:
        ValueError: on a ``<!-- test: ... -->`` mark that is not ``skip (REASON)``, or that does not stand just
            before a Python block (blank lines between them allowed), or on a block that is never closed.
    """
    name = name_of(path)
    blocks: list[Block] = []
    fence = lang = None
    start, lines, mark = 0, [], None  # mark: (its line, its reason), waiting for the next block
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if fence is not None:  # inside a block: only its closing fence ends it
            if line.strip() == fence[0] * len(line.strip()) and len(line.strip()) >= len(fence):
                if lang == "python":
                    blocks.append(Block(name, start, "\n".join(lines) + "\n", mark and mark[1]))
                    mark = None
                fence = None
            else:
                lines.append(line)
            continue
        opening, found = FENCE.match(line), MARK.match(line.strip())
        if mark and not (line.strip() == "" or (opening and opening.group(2) == "python")):
            raise ValueError(f"{name}:{mark[0]}: a test mark must stand just before a ```python block")
        if opening:
            fence, lang, start, lines = opening.group(1), opening.group(2), number + 1, []
        elif found:
            skip = SKIP.match(found.group(1))
            if not skip:
                raise ValueError(f"{name}:{number}: a test mark reads <!-- test: skip (REASON) -->, not {line.strip()}")
            mark = (number, skip.group(1).strip())
    if fence is not None:
        raise ValueError(f"{name}: the block opened at line {start - 1} is never closed")
    if mark:
        raise ValueError(f"{name}:{mark[0]}: a test mark must stand just before a ```python block")
    return blocks


def missing_needs(code: str) -> list[str]:
    """The modules a block's ``# needs:`` lines name that this interpreter cannot import."""
    names = [name.strip() for marker in NEEDS.findall(code) for name in marker.split(",")]
    return [name for name in names if not importable(name)]


def importable(name: str) -> bool:
    """Whether ``name`` can be imported here, without importing it (a missing parent package counts as missing)."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def why_skipped(block: Block) -> str | None:
    """The reason ``block`` does not run here: its page's mark, or the extras it needs and this venv lacks."""
    if block.skip:
        return block.skip
    missing = missing_needs(block.code)
    return f"needs {', '.join(missing)}, not installed" if missing else None


#: Runs the blocks given as JSON ``[[page path, first line, code], ...]`` in order in ``__main__``'s namespace.
#: Each block is compiled with its page's path and padded to its page's lines, so a traceback shows the page's
#: line itself.
RUNNER = """
import json as _json, sys as _sys, traceback as _traceback

def _run_blocks(blocks):
    for path, line, code in blocks:
        print(f"--- {path}:{line}", flush=True)
        try:
            exec(compile("\\n" * (line - 1) + code, path, "exec"), globals())
        except BaseException:
            _traceback.print_exc()
            print(f"the block at {path}:{line} failed", file=_sys.stderr)
            return 1
        _sys.stdout.flush()
    return 0

_sys.exit(_run_blocks(_json.loads(_sys.stdin.read())))
"""


def run_blocks(blocks: list[Block], cwd: Path, timeout: float = PAGE_TIMEOUT_S) -> subprocess.CompletedProcess:
    """Run ``blocks`` in order in one fresh interpreter in ``cwd``, on this checkout, headless."""
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "SDL_VIDEODRIVER": "dummy",
        "SDL_AUDIODRIVER": "dummy",
        "MPLBACKEND": "Agg",
        # One thread for PyTorch's and BLAS's pools unless the caller chose: pages run beside each other (and beside
        # other test files), and a pool per core each makes the SB3 page several times slower on a busy machine.
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1"),
    }
    todo = [[str(ROOT / block.page), block.line, block.code] for block in blocks]
    return subprocess.run(
        [sys.executable, "-c", RUNNER],
        input=json.dumps(todo),
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def all_blocks() -> list[Block]:
    return [block for page in pages() for block in python_blocks(page)]


PAGES_WITH_BLOCKS = [name_of(page) for page in pages() if python_blocks(page)]
SKIPPED = [block for block in all_blocks() if why_skipped(block)]


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES_WITH_BLOCKS)
def test_the_python_blocks_of_a_page_run_in_order_in_one_fresh_interpreter(page: str, tmp_path: Path) -> None:
    blocks = [block for block in python_blocks(ROOT / page) if not why_skipped(block)]
    if not blocks:
        pytest.skip(f"{page}: every Python block is skipped here (see test_a_skipped_block_says_why)")
    try:
        result = run_blocks(blocks, tmp_path)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{page}: its Python blocks did not finish in {PAGE_TIMEOUT_S} s")
    assert result.returncode == 0, f"{page}: a Python block fails, run in order:\n{result.stderr[-4000:]}"


@pytest.mark.parametrize("block", SKIPPED, ids=lambda block: block.where)
def test_a_skipped_block_says_why(block: Block) -> None:
    reason = why_skipped(block)
    assert reason and len(reason) >= 10, f"{block.where}: say why the block cannot run in the tests"
    pytest.skip(f"{block.where}: {reason}")


def test_every_page_parses_with_its_marks_in_place() -> None:
    """README and every page: each mark stands before a Python block, and the tests see the pages' blocks."""
    blocks = all_blocks()  # raises on a misplaced or malformed mark
    assert len(blocks) >= 40
    assert {block.page for block in blocks} >= {"README.md", "docs/tutorials/new_game.md", "docs/agents/solver.md"}


def test_a_mark_skips_the_block_after_it_and_blank_lines_may_stand_between(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "Text.\n\n```python\nx = 1\n```\n\n<!-- test: skip (needs a screen: opens a window) -->\n\n"
        "```python\nimport pygame\n```\n\n~~~bash\necho hi\n~~~\n\n````python\n```\nprint(x)\n````\n",
        encoding="utf-8",
    )
    assert python_blocks(page) == [
        Block(str(page), 4, "x = 1\n"),
        Block(str(page), 10, "import pygame\n", "needs a screen: opens a window"),
        Block(str(page), 18, "```\nprint(x)\n"),
    ]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("<!-- test: skip (a reason) -->\n\n```bash\nls\n```\n", "must stand just before a ```python block"),
        ("<!-- test: skip (a reason) -->\nSome prose.\n\n```python\nx = 1\n```\n", "must stand just before"),
        ("<!-- test: skip -->\n```python\nx = 1\n```\n", "reads <!-- test: skip (REASON) -->"),
        ("<!-- test: skip (at the end) -->\n", "must stand just before"),
        ("```python\nx = 1\n", "never closed"),
    ],
    ids=["before-bash", "before-prose", "no-reason", "at-the-end", "unclosed"],
)
def test_a_misplaced_or_malformed_mark_is_refused_naming_its_line(tmp_path: Path, text: str, problem: str) -> None:
    page = tmp_path / "page.md"
    page.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=re.escape(problem)):
        python_blocks(page)


def test_needs_skips_only_for_missing_modules() -> None:
    code = "# needs: numpy, no_such_module_xyz  (pip install it)\n# needs: other_missing_xyz\nimport numpy\n"
    assert missing_needs(code) == ["no_such_module_xyz", "other_missing_xyz"]
    assert missing_needs("import numpy  # no marker\n") == []
    assert why_skipped(Block("p.md", 1, code)) == "needs no_such_module_xyz, other_missing_xyz, not installed"


def test_later_blocks_see_earlier_names_and_a_failure_names_the_pages_line(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "```python\nimport os\nclass Point:\n    x = 2\n```\n\n"
        "```python\nassert os.listdir('.') == ['page.md'] and Point.x == 2\n"
        "print(__name__, Point.__module__)\n```\n\n"
        "```python\nprint('third')\nraise RuntimeError('boom')\n```\n\n```python\nprint('never')\n```\n",
        encoding="utf-8",
    )
    result = run_blocks(python_blocks(page), tmp_path, timeout=60)
    assert result.returncode == 1
    assert "__main__ __main__" in result.stdout and "third" in result.stdout and "never" not in result.stdout
    assert f'File "{page}", line 14' in result.stderr and "RuntimeError: boom" in result.stderr
    assert f"the block at {page}:13 failed" in result.stderr
