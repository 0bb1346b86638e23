"""Sphinx extension: the environment pages' generated parts, written from the code at every build.

For every id the package registers, ``builder-inited`` writes ``docs/_generated/envs/<id>.md``, which the
hand-written page ``docs/envs/<page>.md`` pulls in with ``{include}``:

* a summary table like Gymnasium's: the spaces of ``gymnasium.make(id)`` (and of the vector env of
  ``gymnasium.make_vec``), the make lines, render modes, step limit and classes, read from the registered
  spec and the made env;
* the sections of the env class's docstring (``## Description``, ``## Action Space``, ... as
  :class:`gym_boardgames.envs.tictactoe.TicTacToeEnv` writes them), its reST turned into MyST Markdown;
* a table of the constructor's arguments from :func:`inspect.signature` (names, defaults, hints);
* the version history (a second include, ``<id>-history.md``): the docstring's, the registered versions
  of the id, and the CHANGELOG.md entries that name the id.

and ``envgifs`` draws each page's animated GIF from the env's own ``rgb_array`` frames. Nothing here is
committed: the tables cannot drift from the code because they are made from it.
"""

from __future__ import annotations

import inspect
import re
import shutil
from pathlib import Path
from typing import Any

import envgifs
import gymnasium as gym
from gymnasium.envs.registration import load_env_creator
from sphinx.application import Sphinx
from sphinx.util import logging

import gym_boardgames  # noqa: F401  (registers the ids)

LOGGER = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parents[2]
NUM_ENVS_EXAMPLE = 8


def package_ids() -> list[str]:
    """The ids ``gym_boardgames`` registers, in registration order."""
    return [env_id for env_id, spec in gym.registry.items() if str(spec.entry_point).startswith("gym_boardgames.")]


def page_name(env_id: str) -> str:
    """``"TicTacToe-v0"`` -> ``"tictactoe"``: the file name of the id's page under ``docs/envs/``."""
    return env_id.rsplit("-v", 1)[0].lower().replace("tabular", "")


# ---- reST docstrings -> MyST Markdown --------------------------------------------------------------------

ROLE = re.compile(r":(?:py:)?(class|func|meth|mod|data|attr|exc|obj):`([^`]+)`")
LITERAL = re.compile(r"``(.+?)``", re.S)


def myst(text: str) -> str:
    """A docstring's reST (roles, ````literals````, ``::`` blocks, bullets) as MyST Markdown."""
    lines = text.splitlines()
    prose: list[str] = []  # reST lines not yet converted: literals may span lines, so convert them together
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not (line.rstrip().endswith("::") and not line.strip().startswith("..")):
            prose.append(line)
            continue
        # "text::" then an indented literal block: "text:" and a fenced block.
        prose.append(line.rstrip()[:-2].rstrip() + ":" if line.strip() != "::" else "")
        block: list[str] = []
        while i < len(lines) and (not lines[i].strip() or lines[i].startswith(" ")):
            block.append(lines[i])
            i += 1
        out += [_inline("\n".join(prose)), "", "```text", *inspect.cleandoc("\n".join(block)).splitlines(), "```", ""]
        prose = []
    out.append(_inline("\n".join(prose)))
    return "\n".join(out).strip() + "\n"


def _inline(text: str) -> str:
    text = LITERAL.sub(lambda m: "`" + m.group(1) + "`", text)
    return ROLE.sub(lambda m: "{py:" + m.group(1) + "}`" + m.group(2) + "`", text)


def docstring_sections(obj: Any) -> tuple[str, list[tuple[str, str]]]:
    """``(summary, [(title, body), ...])`` of a docstring written with ``## Title`` sections."""
    doc = inspect.getdoc(obj) or ""
    parts = re.split(r"^## (.+)$", doc, flags=re.M)
    sections = [(parts[i].strip(), parts[i + 1].strip()) for i in range(1, len(parts), 2)]
    return parts[0].strip(), sections


# ---- tables ------------------------------------------------------------------------------------------------


def _code(value: object) -> str:
    """``value`` as a code span that may stand in a Markdown table cell."""
    return "`" + str(value).replace("|", "\\|") + "`"


def _ref(entry_point: str | None) -> str:
    if not entry_point:
        return "none"
    module, name = str(entry_point).split(":")
    return "{py:class}`" + f"{name} <{module}.{name}>`"


def summary_table(env_id: str) -> str:
    """The Gymnasium-style table of one id: spaces, make lines, render modes, step limit, classes."""
    spec = gym.spec(env_id)
    env = gym.make(env_id)
    try:
        rows = [
            ("Action space", _code(env.action_space)),
            ("Observation space", _code(env.observation_space)),
            ("Import", _code(f'gymnasium.make("{env_id}")') + " after " + _code("import gym_boardgames")),
            ("Render modes", ", ".join(_code(mode) for mode in env.metadata.get("render_modes", []))),
            ("Render FPS", _code(env.metadata.get("render_fps"))),
            ("Step limit", _code(spec.max_episode_steps) if spec.max_episode_steps else "none (never truncated)"),
            ("Class", _ref(spec.entry_point)),
        ]
    finally:
        env.close()
    if spec.vector_entry_point:
        venv = gym.make_vec(env_id, num_envs=NUM_ENVS_EXAMPLE)
        try:
            rows += [
                ("Vector env", _code(f'gymnasium.make_vec("{env_id}", num_envs={NUM_ENVS_EXAMPLE})')),
                ("Vector action space", _code(venv.action_space)),
                ("Vector observation space", _code(venv.observation_space)),
                ("Vector class", _ref(spec.vector_entry_point)),
            ]
        finally:
            venv.close()
    else:
        rows.append(("Vector env", "none of its own: " + _code('vectorization_mode="sync"') + ' or `"async"`'))
    from gym_boardgames.rules.registry import GAMES  # the games the PettingZoo adapter makes, by env name

    if spec.name in GAMES:
        aec = _code(f'gym_boardgames.pettingzoo.env("{spec.name}")')
        rows.append(
            ("PettingZoo AEC", aec + " (the `pettingzoo` extra): {py:func}`env <gym_boardgames.pettingzoo.env>`")
        )
    # A list-table: like Gymnasium's summary, two columns and no header row (a Markdown table must have one).
    items = "".join(f"* - {name}\n  - {value}\n" for name, value in rows)
    return f"```{{list-table}}\n:widths: 30 70\n\n{items}```\n"


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def arguments_table(cls: type) -> str:
    """The constructor's arguments: name, default and type hint, read with :func:`inspect.signature`."""
    rows = []
    for name, param in inspect.signature(cls.__init__).parameters.items():
        if name == "self" or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        default = "required" if param.default is param.empty else _code(repr(param.default))
        hint = "" if param.annotation is param.empty else _code(_hint(param.annotation))
        keyword = " (keyword only)" if param.kind is param.KEYWORD_ONLY else ""
        rows.append((_code(name) + keyword, default, hint))
    return _table(("Argument", "Default", "Type"), rows)


def _hint(annotation: object) -> str:
    # ``from __future__ import annotations`` leaves the hints as the source's strings: just what to show.
    return annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)


# ---- version history ---------------------------------------------------------------------------------------


def changelog_entries(env_id: str) -> list[tuple[str, str]]:
    """``(version, entry)`` for every CHANGELOG.md bullet that names ``env_id``, newest first."""
    changelog = ROOT / "CHANGELOG.md"
    if not changelog.is_file():
        return []
    entries: list[tuple[str, str]] = []
    version, item = "", ""

    def flush() -> None:
        if item and re.search(rf"(?<![\w-]){re.escape(env_id)}(?![\w-])", item):
            entries.append((version, " ".join(item.split())))

    for line in changelog.read_text(encoding="utf-8").splitlines():
        heading = re.match(r"^## \[([^\]]+)\]", line)
        if heading or line.startswith("#") or not line.strip():
            flush()
            item = ""
            if heading:
                version = heading.group(1)
        elif line.startswith("- "):
            flush()
            item = line[2:]
        elif item:
            item += " " + line.strip()
    flush()
    return entries


def version_history(env_id: str, doc_history: str) -> str:
    """The docstring's version history, the registered versions and the CHANGELOG.md entries naming the id."""
    name = env_id.rsplit("-v", 1)[0]
    versions = sorted(
        spec.id
        for spec in gym.registry.values()
        if spec.name == name and spec.namespace is None and spec.version is not None
    )
    text = [myst(doc_history) if doc_history else "", f"Registered versions: {', '.join(map(_code, versions))}.\n"]
    entries = changelog_entries(env_id)
    if entries:
        text.append("From CHANGELOG.md:\n")
        text += [f"- **{version}**: {entry}" for version, entry in entries]
    return "\n".join(text) + "\n"


# ---- the page include --------------------------------------------------------------------------------------


def class_sections(cls: type, level: str) -> tuple[str, str, str]:
    """``(summary, Markdown of the sections, Version History body)`` of an env class's docstring.

    A class whose docstring has no sections (``ConnectFourEnv``: "everything else as ConnectNEnv") shows
    those of the nearest base class that has them, except the base's Arguments prose: the arguments table
    is always the class's own signature.
    """
    summary, sections = docstring_sections(cls)
    inherited = False
    if not sections:
        for base in cls.__mro__[1:]:
            sections = docstring_sections(base)[1]
            if sections:
                inherited = True
                break
    parts, history = [], ""
    for title, body in sections:
        if title == "Version History":
            history = body
        elif title == "Arguments":
            prose = "" if inherited else myst(body) + "\n"
            parts.append(f"{level} Arguments\n\n{prose}{arguments_table(cls)}")
        else:
            parts.append(f"{level} {title}\n\n{myst(body)}")
    if not any(title == "Arguments" for title, _ in sections):
        parts.append(f"{level} Arguments\n\n{arguments_table(cls)}")
    return myst(summary), "\n".join(parts), history


def env_include(env_id: str) -> tuple[str, str]:
    """The two Markdown parts ``docs/envs/<page>.md`` includes for ``env_id``: the page, its version history.

    The hand-written sections of the page (illegal moves and errors) stand between the two.
    """
    spec = gym.spec(env_id)
    cls = load_env_creator(spec.entry_point)
    module = cls.__module__
    summary, sections, history = class_sections(cls, "##")
    text = [
        f"```{{figure}} /_generated/gifs/{envgifs.gif_name(env_id)}\n:alt: A game of {env_id}\n\n"
        f"{envgifs.caption(env_id)}\n```\n",
        summary,
        f"```{{py:currentmodule}} {module}\n```\n",
        summary_table(env_id),
        sections,
    ]
    if spec.vector_entry_point:
        vcls = load_env_creator(spec.vector_entry_point)
        vsummary, vsections, vhistory = class_sections(vcls, "###")
        text += [
            "## Vector env\n",
            f"```{{py:currentmodule}} {vcls.__module__}\n```\n",
            f'`gymnasium.make_vec("{env_id}", num_envs=N)` makes {_ref(spec.vector_entry_point)}: {vsummary}',
            vsections,
            f"### Vector env version history\n\n{myst(vhistory) if vhistory else 'As the single env.'}\n",
            f"```{{py:currentmodule}} {module}\n```\n",
        ]
    return "\n".join(text), f"## Version History\n\n{version_history(env_id, history)}"


def generate(app: Sphinx) -> None:
    """Write every env page's include and GIF into ``docs/_generated/`` (before Sphinx reads the sources)."""
    out = Path(app.srcdir) / "_generated"
    (out / "envs").mkdir(parents=True, exist_ok=True)
    for env_id in package_ids():
        for suffix, text in zip(("", "-history"), env_include(env_id), strict=True):
            target = out / "envs" / f"{page_name(env_id)}{suffix}.md"
            if not target.is_file() or target.read_text(encoding="utf-8") != text:
                target.write_text(text, encoding="utf-8")  # unchanged files keep their time: no needless rebuilds
    envgifs.write_all(out / "gifs", LOGGER)


def rubric_headings(app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    """In the API pages, a docstring's ``## Title`` line (the env pages' sections) becomes a reST rubric.

    The env classes write their Gymnasium-style sections as ``## Title`` (Markdown, which the env pages
    read); as reST such a line is a paragraph that swallows the list under it.
    """
    for i in reversed(range(len(lines))):
        heading = re.match(r"^(\s*)## (.+)$", lines[i])
        if heading:
            lines[i : i + 1] = [f"{heading.group(1)}.. rubric:: {heading.group(2)}", ""]


def clear_api_stubs(app: Sphinx) -> None:
    """Delete the API stubs of the last build before autosummary writes this build's.

    autosummary never deletes a stub, so a module renamed since the last build (issue 15 renamed several)
    would leave a page outside every toctree, a warning, and with ``-W`` a failed build.
    """
    shutil.rmtree(Path(app.srcdir) / "api" / "_autosummary", ignore_errors=True)


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the generator, the stub cleaner and the docstring hook with Sphinx."""
    app.connect("builder-inited", clear_api_stubs, priority=100)  # before autosummary's (priority 500)
    app.connect("builder-inited", generate)
    app.connect("autodoc-process-docstring", rubric_headings)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
