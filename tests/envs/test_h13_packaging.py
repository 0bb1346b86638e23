"""Issue 13: the breaking winner change bumps the version, starts a changelog, and the package ships py.typed."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import gym_boardgames

ROOT = Path(__file__).resolve().parents[2]


def _pyproject() -> str:
    return (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def test_version_is_0_2_0_in_pyproject_and_the_package() -> None:
    match = re.search(r'^version = "([^"]+)"$', _pyproject(), re.MULTILINE)
    assert match is not None
    assert match.group(1) == gym_boardgames.__version__ == "0.2.0"


def test_changelog_records_the_breaking_winner_change_and_the_first_release() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "Keep a Changelog" in text
    headings = re.findall(r"^## \[(\d+\.\d+\.\d+)\]", text, re.MULTILINE)
    assert headings[:2] == ["0.2.0", "0.1.0"]
    release = text.split("## [0.1.0]")[0]
    assert "-1" in release and "winner" in release and "draw" in release
    assert re.search(r"^### Changed", release, re.MULTILINE) or re.search(r"BREAKING", release)


def test_py_typed_is_in_the_package_and_declared_as_package_data() -> None:
    assert (Path(gym_boardgames.__file__).parent / "py.typed").is_file()
    section = re.search(r"^\[tool\.setuptools\.package-data\]\n((?:[^\[\n].*\n?)*)", _pyproject(), re.MULTILINE)
    assert section is not None and re.search(r'^gym_boardgames = \[.*"py\.typed".*\]', section.group(1), re.MULTILINE)


def test_the_built_wheel_ships_py_typed(tmp_path: Path) -> None:
    pytest.importorskip("setuptools")
    # Build from a copy of the sources, so the checkout gets no build/ or egg-info, with the venv's setuptools:
    # no isolation, nothing downloaded.
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for package in ("gym_boardgames", "agents"):
        shutil.copytree(ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__"))
    code = "import sys; from setuptools import build_meta; print(build_meta.build_wheel(sys.argv[1]))"
    result = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], cwd=source, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    wheel = tmp_path / result.stdout.strip().splitlines()[-1]
    assert wheel.name.startswith("gym_boardgames-0.2.0-")
    assert "gym_boardgames/py.typed" in zipfile.ZipFile(wheel).namelist()
