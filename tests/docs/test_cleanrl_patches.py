"""The two patches of docs/tutorials/cleanrl.md that add legal-move masking to CleanRL's ``dqn.py`` and ``ppo.py``.

By default (no CleanRL needed): each patch file exists under its name, the page names it, and it parses as a
unified diff of exactly its one script, every hunk's line counts matching its header. A renamed or missing file
fails here.

Opt-in: whether the patches still apply to CleanRL needs a CleanRL checkout, so that part runs only with
``GYM_BOARDGAMES_TEST_CLEANRL`` naming one (an unmodified tree, at the commit the page names or a newer one)::

    GYM_BOARDGAMES_TEST_CLEANRL=/path/to/cleanrl python -m pytest tests/docs/test_cleanrl_patches.py

There it runs ``git apply --check`` in the checkout's root, then applies the patch to a copy of the script and
compiles the result.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "tutorials" / "cleanrl.md"
FOLDER = PAGE.with_suffix("")  # docs/tutorials/cleanrl/
# patch file -> the one CleanRL script it changes
PATCHES = {"ppo_masked.patch": "cleanrl/ppo.py", "dqn_masked.patch": "cleanrl/dqn.py"}
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
CHECKOUT = os.environ.get("GYM_BOARDGAMES_TEST_CLEANRL", "")


def parse_unified_diff(text: str) -> dict[str, list[tuple[int, int, int, int]]]:
    """``{path: [(old start, old lines, new start, new lines), ...]}`` of a unified diff (``a/``, ``b/`` prefixes).

    Lines before the first ``---`` header are commentary, as ``git apply`` and ``patch`` read them. Raises
    ValueError when a hunk's body does not have the line counts its header gives, or a file has no hunk.
    """
    files: dict[str, list[tuple[int, int, int, int]]] = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if not (lines[i].startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ ")):
            i += 1
            continue
        old = lines[i][4:].split("\t")[0].strip()
        new = lines[i + 1][4:].split("\t")[0].strip()
        if not (old.startswith("a/") and new.startswith("b/") and old[2:] == new[2:]):
            raise ValueError(f"line {i + 1}: not a change of one file with a/ and b/ prefixes: {old!r}, {new!r}")
        hunks = files.setdefault(new[2:], [])
        i += 2
        while i < len(lines) and (match := HUNK.match(lines[i])):
            counts = tuple(int(g) if g is not None else 1 for g in match.groups())
            old_left, new_left = counts[1], counts[3]
            i += 1
            while old_left or new_left:
                if i >= len(lines):
                    raise ValueError(f"the hunk {counts} of {new[2:]} ends early")
                mark = lines[i][:1]
                if mark == " " or lines[i] == "":  # context (an empty context line may lose its space)
                    old_left, new_left = old_left - 1, new_left - 1
                elif mark == "-":
                    old_left -= 1
                elif mark == "+":
                    new_left -= 1
                elif mark != "\\":  # "\ No newline at end of file"
                    raise ValueError(f"line {i + 1}: {lines[i]!r} inside the hunk {counts} of {new[2:]}")
                if old_left < 0 or new_left < 0:
                    raise ValueError(f"the hunk {counts} of {new[2:]} is longer than its header says")
                i += 1
            hunks.append(counts)
        if not hunks:
            raise ValueError(f"{new[2:]} has a header and no hunk")
    return files


@pytest.mark.parametrize("name", sorted(PATCHES))
def test_patch_exists_is_on_the_page_and_changes_only_its_script(name: str):
    patch = FOLDER / name
    assert patch.is_file(), f"{patch.relative_to(ROOT)} is missing (docs/tutorials/cleanrl.md tells users to apply it)"
    page = PAGE.read_text(encoding="utf-8")
    assert f"docs/tutorials/cleanrl/{name}" in page, f"docs/tutorials/cleanrl.md does not name {name}"
    files = parse_unified_diff(patch.read_text(encoding="utf-8"))
    assert list(files) == [PATCHES[name]], f"{name} changes {sorted(files)}, not only {PATCHES[name]}"


def test_the_folder_holds_exactly_the_patches_the_page_names():
    assert sorted(path.name for path in FOLDER.glob("*.patch")) == sorted(PATCHES)


GOOD = "--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"


def test_the_parser_reads_a_hunk_and_skips_commentary():
    assert parse_unified_diff(GOOD) == {"x.py": [(1, 2, 1, 2)]}
    assert parse_unified_diff("no diff here\n") == {}


@pytest.mark.parametrize(
    ("diff", "reason"),
    [
        (GOOD.replace("-1,2 +1,2", "-1,3 +1,2"), r"the hunk \(1, 3, 1, 2\) of x.py ends early"),
        (GOOD.replace("-1,2 +1,2", "-1,1 +1,2"), r"the hunk \(1, 1, 1, 2\) of x.py is longer than its header says"),
        ("--- a/x.py\n+++ b/y.py\n@@ -1 +1 @@\n-a\n+b\n", "line 1: not a change of one file .* 'a/x.py', 'b/y.py'"),
        ("--- a/x.py\n+++ b/x.py\nno hunk\n", "x.py has a header and no hunk"),
        (GOOD.replace(" a\n", "?a\n"), r"line 4: '\?a' inside the hunk \(1, 2, 1, 2\) of x.py"),
    ],
)
def test_the_parser_rejects_a_diff_naming_the_reason(diff: str, reason: str):
    with pytest.raises(ValueError, match=reason):
        parse_unified_diff(diff)


@pytest.mark.skipif(
    not CHECKOUT, reason="opt-in: set GYM_BOARDGAMES_TEST_CLEANRL=/path/to/a/cleanrl/checkout (an unmodified tree)"
)
@pytest.mark.parametrize("name", sorted(PATCHES))
def test_patch_applies_to_the_cleanrl_checkout(name: str, tmp_path: Path):
    git = shutil.which("git")
    assert git, "git apply --check needs git on PATH"
    checkout = Path(CHECKOUT).resolve()
    script = PATCHES[name]
    assert (checkout / script).is_file(), f"{checkout} has no {script}: not a CleanRL checkout"
    patch = FOLDER / name
    # -v names each file checked: git apply in a subfolder of some other repository skips paths outside it, silently.
    check = subprocess.run(
        [git, "apply", "--check", "-v", str(patch)], cwd=checkout, capture_output=True, text=True, timeout=60
    )
    if check.returncode != 0:
        reverse = subprocess.run(
            [git, "apply", "--check", "--reverse", str(patch)], cwd=checkout, capture_output=True, timeout=60
        )
        hint = " (it is already applied there: check against an unmodified tree)" if reverse.returncode == 0 else ""
        pytest.fail(f"{name} does not apply to {checkout}{hint}:\n{check.stderr}")
    assert f"Checking patch {script}..." in check.stderr, f"git apply checked nothing of {script}:\n{check.stderr}"
    # Applied to a copy of the script, the result must still be Python.
    copy = tmp_path / script
    copy.parent.mkdir(parents=True)
    shutil.copyfile(checkout / script, copy)
    subprocess.run([git, "apply", str(patch)], cwd=tmp_path, check=True, capture_output=True, timeout=60)
    patched = copy.read_text(encoding="utf-8")
    compile(patched, str(copy), "exec")
    assert "def masked(scores, obs):" in patched and "make_flat(" in patched
