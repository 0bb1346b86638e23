"""The documentation site builds with warnings as errors, and every internal link and image in it resolves.

The build is the documented command, ``python -m sphinx -W -b html docs <out>``, into a temporary folder; it
needs the ``docs`` extra (skipped without it). Links are checked in the built HTML: every ``href`` and
``src`` that is not an outside address must name a file of the build, and its ``#fragment`` an ``id`` in that
file. The Python blocks of the pages and of README run in ``tests/docs/test_code_blocks.py``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
# The whole build (API pages, env pages, the GIFs' games) takes about 30 s here; a loaded machine, more.
BUILD_TIMEOUT_S = 600
ENV_PAGES = ("tictactoe", "connectn", "connectfour", "dotsandboxes", "gridworld", "blackjack")


class Links(HTMLParser):
    """The ``href``/``src`` targets and the ``id``s of one HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.targets: list[tuple[str, str]] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name == "id" and value:
                self.ids.add(value)
            elif name in ("href", "src") and value is not None:
                self.targets.append((tag, value))


@cache
def parsed(page: Path) -> Links:
    links = Links()
    links.feed(page.read_text(encoding="utf-8"))
    return links


Image = pytest.importorskip("PIL.Image", reason="the docs extra is not installed: pip install -e '.[docs]'")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    for module in ("sphinx", "furo", "myst_parser"):
        pytest.importorskip(module, reason="the docs extra is not installed: pip install -e '.[docs]'")
    out = tmp_path_factory.mktemp("site")
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(DOCS), str(out)]
    # Headless through tests/conftest.py, which sets SDL_VIDEODRIVER before any test runs.
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
    assert result.returncode == 0, f"the site does not build with -W:\n{result.stderr[-6000:]}"
    return out


def internal_targets(site: Path) -> list[tuple[Path, str, Path, str]]:
    """``(page, raw target, file, fragment)`` of every link and image of the site that stays inside it."""
    found = []
    for page in sorted(site.rglob("*.html")):
        for _, raw in parsed(page).targets:
            parts = urlsplit(raw)
            if parts.scheme or parts.netloc or raw.startswith(("mailto:", "javascript:", "data:")):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            found.append((page, raw, target, unquote(parts.fragment)))
    return found


@pytest.mark.slow
def test_site_builds_and_every_internal_link_and_image_resolves(site: Path):
    problems = []
    for page, raw, target, fragment in internal_targets(site):
        where = page.relative_to(site).as_posix()
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file():
            problems.append(f"{where}: {raw} -> no such file")
        elif fragment and target.suffix == ".html" and fragment not in parsed(target).ids:
            problems.append(f"{where}: {raw} -> no id {fragment!r} in {target.relative_to(site).as_posix()}")
    assert not problems, f"{len(problems)} broken links:\n" + "\n".join(sorted(set(problems))[:50])


@pytest.mark.slow
def test_every_env_page_is_two_clicks_from_the_front_page_and_shows_its_game(site: Path):
    """The front page links each env page (one click); each env page shows its animated GIF."""
    front = {target.resolve() for page, _, target, _ in internal_targets(site) if page == site / "index.html"}
    for name in ENV_PAGES:
        page = site / "envs" / f"{name}.html"
        assert page.resolve() in front, f"index.html does not link envs/{name}.html"
        gifs = [
            page.parent / unquote(raw) for tag, raw in parsed(page).targets if tag == "img" and raw.endswith(".gif")
        ]
        assert gifs, f"envs/{name}.html shows no GIF"
        for gif in gifs:
            with Image.open(gif) as image:  # an animation of a game, not a still
                assert image.n_frames >= 3, f"{gif.name} has {image.n_frames} frames"


@pytest.mark.slow
def test_every_registered_id_has_an_env_page(site: Path):
    import gymnasium as gym

    import gym_boardgames  # noqa: F401

    ids = [env_id for env_id, spec in gym.registry.items() if str(spec.entry_point).startswith("gym_boardgames.")]
    pages = "".join((site / "envs" / f"{name}.html").read_text(encoding="utf-8") for name in ENV_PAGES)
    assert ids and all(f"<h1>{env_id}" in pages for env_id in ids), ids


@pytest.mark.slow
def test_the_pages_test_marks_are_html_comments_the_site_shows_as_nothing(site: Path):
    """``<!-- test: skip (...) -->`` before a block (tests/docs/test_code_blocks.py) reaches the HTML as a comment."""
    sources = Path(__file__).resolve().parents[2] / "docs"
    if not any("<!-- test: skip (" in page.read_text(encoding="utf-8") for page in sources.rglob("*.md")):
        pytest.skip("no page marks a block to skip: every Python block runs")
    pages = {page: page.read_text(encoding="utf-8") for page in sorted(site.rglob("*.html"))}
    assert any("<!-- test: skip (" in text for text in pages.values()), "the tutorials' marks should reach the HTML"
    shown = [
        page.relative_to(site)
        for page, text in pages.items()
        if "test: skip" in re.sub(r"<!--.*?-->", "", text, flags=re.S)
    ]
    assert not shown, f"a test mark shows as text on {shown}"


def test_link_checker_sees_a_broken_link(tmp_path: Path):
    (tmp_path / "index.html").write_text('<a href="missing.html">x</a><a href="#top">y</a><img src="a.gif">')
    (tmp_path / "a.gif").write_bytes(b"GIF89a")
    raws = {raw: (target, fragment) for _, raw, target, fragment in internal_targets(tmp_path)}
    assert not raws["missing.html"][0].is_file()
    assert raws["#top"] == ((tmp_path / "index.html"), "top")
    assert raws["a.gif"][0].is_file()
