"""Packaging promises: a light import, string registration, agents/ importable, the version, the changelog, what
the sdist and the wheel hold, and the wheel working in a fresh virtual environment without PyTorch."""

import importlib.metadata
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from fnmatch import fnmatch
from pathlib import Path

import pytest

import gym_boardgames

ROOT = Path(__file__).resolve().parents[1]


def run_python(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def test_import_does_not_load_pygame_or_the_envs():
    out = run_python(
        "import sys, gym_boardgames; print('pygame' in sys.modules, 'gym_boardgames.envs.base' in sys.modules)"
    )
    assert out == "False False"


def test_make_with_module_prefix_works_without_importing_the_package():
    out = run_python(
        "import gymnasium as gym; env = gym.make('gym_boardgames:TicTacToe-v0'); "
        "obs, info = env.reset(seed=0); print(obs.shape, type(env.unwrapped).__name__)"
    )
    assert out == "(3, 3) TicTacToeEnv"


def test_ansi_rendering_never_imports_pygame():
    out = run_python(
        "import sys, gymnasium as gym, gym_boardgames; "
        "env = gym.make('TicTacToe-v0', render_mode='ansi'); env.reset(seed=0); env.step(0); env.render(); "
        "print('pygame' in sys.modules)"
    )
    assert out == "False"


def test_lazy_public_names():
    assert gym_boardgames.TicTacToe().num_actions == 9
    assert gym_boardgames.TicTacToeEnv.__name__ == "TicTacToeEnv"
    with pytest.raises(AttributeError, match="no attribute 'Chess'"):
        gym_boardgames.Chess  # noqa: B018


def test_agents_package_is_light_and_every_module_its_docstring_names_imports():
    # `import agents` alone must load none of its algorithms (nor PyTorch or pygame): the envs' opponent provider
    # and a user who imports one agent pay only for what they use.
    out = run_python(
        "import sys, agents; loaded = sys.modules; "
        "print(sorted(m for m in loaded if m.startswith('agents.')), 'torch' in loaded, 'pygame' in loaded)"
    )
    assert out == "[] False False"
    import agents

    named = re.findall(r"``(agents\.[\w.]+)``", agents.__doc__)
    assert {"agents.search.minimax", "agents.search.solver", "agents.search.mcts", "agents.factory"} <= set(named)
    for name in named:
        module = importlib.import_module(name)
        assert module.__name__ == name and module.__doc__, name


def test_every_id_is_registered_in_one_place_from_its_games_layers():
    import gymnasium as gym

    from agents.alphazero.encoding import ENCODERS, encoder_for
    from gym_boardgames.registration import LAYERS
    from gym_boardgames.rules.registry import GAMES

    ours = [env_id for env_id, spec in gym.registry.items() if str(spec.entry_point).startswith("gym_boardgames.")]
    assert ours == [f"{name}-v0" for name in LAYERS] + ["GridWorld-v0", "TabularBlackjack-v0"]
    assert list(LAYERS) == list(GAMES) == ["TicTacToe", "ConnectN", "ConnectFour", "DotsAndBoxes"]
    assert set(ENCODERS) < set(GAMES)  # ConnectFour's rules are ConnectN's row
    for name, layers in LAYERS.items():
        spec = gym.spec(f"{name}-v0")
        assert (spec.entry_point, spec.vector_entry_point) == (layers.env, layers.vector)
        assert spec.reward_threshold == layers.reward_threshold
        game = GAMES[name].make()
        env = layers.make_env(game, opponent=None)
        assert env.game == game and type(env).__name__ == layers.env.split(":")[1]
        assert type(encoder_for(game)) is ENCODERS["ConnectN" if name == "ConnectFour" else name]
    assert [gym.spec(env_id).max_episode_steps for env_id in ("GridWorld-v0", "TabularBlackjack-v0")] == [100, None]


def test_missing_pygame_gives_a_clear_message():
    out = run_python(
        "import sys; sys.modules['pygame'] = None\n"
        "import gymnasium as gym, gym_boardgames\n"
        "env = gym.make('TicTacToe-v0', render_mode='rgb_array'); env.reset(seed=0)\n"
        "try:\n    env.render()\nexcept Exception as e:\n    print(type(e).__name__, '|', e)"
    )
    assert out.startswith("DependencyNotInstalled |") and "pip install pygame-ce" in out


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


def test_ci_constraints_pin_versions_every_extra_admits() -> None:
    """.ci/constraints.txt pins CI's builds (PyTorch 2.13.0); each pin must satisfy every requirement of an extra
    on that package (torch>=2.3,<3 in alphazero and rllib), and .ci/run must install with it."""
    tomllib = pytest.importorskip("tomllib")
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    lines = (ROOT / ".ci" / "constraints.txt").read_text(encoding="utf-8").splitlines()
    pins = [Requirement(line) for line in lines if line.strip() and not line.lstrip().startswith("#")]
    assert [str(pin) for pin in pins if pin.name == "torch"] == ["torch==2.13.0"]
    extras = tomllib.loads(_pyproject())["project"]["optional-dependencies"]
    for pin in pins:
        (version,) = (spec.version for spec in pin.specifier if spec.operator == "==")
        wanted = [
            (extra, str(req))
            for extra, reqs in extras.items()
            for req in map(Requirement, reqs)
            if canonicalize_name(req.name) == canonicalize_name(pin.name)
        ]
        assert wanted, f"{pin} constrains no extra of pyproject.toml"
        refused = [
            (extra, req) for extra, req in wanted if not Requirement(req).specifier.contains(version, prereleases=True)
        ]
        assert not refused, f".ci/constraints.txt pins {pin}, outside {refused}"
    assert "pip install -c .ci/constraints.txt " in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


# The packages' files besides their modules: pyproject.toml's package-data.
PACKAGES = ("gym_boardgames", "agents")
PACKAGE_DATA = (
    "agents/alphazero/models/*.npz",
    "agents/data/*.npz",
    "gym_boardgames/human/page.html",
    "gym_boardgames/human/page.js",
    "gym_boardgames/human/widget.js",
    "gym_boardgames/py.typed",
)
SHIPPED_DATA = {
    "agents/alphazero/models/connectfour.npz",
    "agents/alphazero/models/tictactoe.npz",
    "agents/data/connectfour_labels.npz",
    "agents/data/connectfour_heldout.npz",
    "agents/data/connectfour_random.npz",
    "agents/data/dots_3x3_table.npz",
    "gym_boardgames/human/page.html",
    "gym_boardgames/human/page.js",
    "gym_boardgames/human/widget.js",
    "gym_boardgames/py.typed",
}
# An sdist's files besides the packages: setuptools' metadata, the files it always takes, and license files
# (setuptools' default license-files patterns).
SDIST_TOP = {"PKG-INFO", "README.md", "pyproject.toml", "setup.cfg", "MANIFEST.in"}
LICENSE_FILES = ("LICEN[CS]E*", "COPYING*", "NOTICE*", "AUTHORS*")


def checkout_files() -> list[str]:
    """The checkout's files as its next commit would hold them: tracked and new ones, git-ignored ones left out."""
    try:
        result = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            check=True,
            timeout=60,
        )
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("building from the sources needs a git checkout (to leave out git-ignored files)")
    return [name for name in result.stdout.decode().split("\0") if name and (ROOT / name).is_file()]


class Dists:
    """An sdist and the wheel built from it, with the files the packages should ship and the build's log."""

    def __init__(self, sdist: Path, wheel: Path, expected: set[str], log: str) -> None:
        self.sdist, self.wheel, self.expected, self.log = sdist, wheel, expected, log


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> Dists:
    """`python -m build`: the sdist, then the wheel from the unpacked sdist, as a release is built.

    It builds from a copy of the checkout (the checkout gets no egg-info or build/), with the venv's setuptools:
    no isolation, nothing downloaded.
    """
    if importlib.util.find_spec("build") is None:
        pytest.fail("building the sdist and the wheel needs 'build', in the dev extra: pip install -e '.[dev]'")
    tmp = tmp_path_factory.mktemp("dists")
    source = tmp / "src"
    for name in checkout_files():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    modules = {path.relative_to(source).as_posix() for package in PACKAGES for path in (source / package).rglob("*.py")}
    data = {path.relative_to(source).as_posix() for pattern in PACKAGE_DATA for path in source.glob(pattern)}
    assert SHIPPED_DATA <= data, f"the checkout lacks shipped files: {sorted(SHIPPED_DATA - data)}"
    out = tmp / "dist"
    result = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(source)],
        cwd=tmp,
        capture_output=True,
        text=True,
        timeout=600,
    )
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-3000:]
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    return Dists(sdist, wheel, modules | data, log)


@pytest.mark.slow
def test_the_wheel_holds_every_module_the_shipped_models_and_label_sets_and_nothing_else(dists: Dists) -> None:
    assert dists.wheel.name == "gym_boardgames-0.2.0-py3-none-any.whl"
    names = {name for name in zipfile.ZipFile(dists.wheel).namelist() if not name.endswith("/")}
    files = {name for name in names if not name.startswith("gym_boardgames-0.2.0.dist-info/")}
    assert not dists.expected - files, f"missing from the wheel: {sorted(dists.expected - files)}"
    assert not files - dists.expected, f"not the package's files, in the wheel: {sorted(files - dists.expected)}"
    # The MIT licence asks that its text travel with every copy.
    assert "gym_boardgames-0.2.0.dist-info/licenses/LICENSE" in names, sorted(names - files)


@pytest.mark.slow
def test_the_sdist_holds_the_packages_and_metadata_and_no_tests_docs_or_build_output(dists: Dists) -> None:
    root = "gym_boardgames-0.2.0/"
    with tarfile.open(dists.sdist) as tar:
        members = [member.name for member in tar.getmembers() if member.isfile()]
    assert all(name.startswith(root) for name in members), members
    names = {name.removeprefix(root) for name in members}
    package = {name for name in names if name.split("/")[0] in PACKAGES}
    assert not dists.expected - package, f"missing from the sdist: {sorted(dists.expected - package)}"
    assert not package - dists.expected, f"not the package's files, in the sdist: {sorted(package - dists.expected)}"
    junk = sorted(
        name
        for name in names - package
        if name not in SDIST_TOP
        and not name.startswith("gym_boardgames.egg-info/")
        and not any(fnmatch(name, pattern) for pattern in LICENSE_FILES)
    )
    assert not junk, f"the sdist holds files that are not the package's (tests, docs, build output): {junk}"
    assert "LICENSE" in names, "the sdist must carry the licence text"


@pytest.mark.slow
def test_the_build_gives_no_deprecation_warning(dists: Dists) -> None:
    """setuptools' deprecations become build errors on a date it prints (a TOML-table `license`: 2027-02-18)."""
    warnings = sorted({line.strip() for line in dists.log.splitlines() if "deprecat" in line.lower()})
    assert not warnings, "building warns of deprecations:\n" + "\n".join(warnings)


PLAY_CONNECT_FOUR = """
import importlib.metadata, importlib.util, json, sys
import gymnasium as gym
import agents, gym_boardgames
from agents.alphazero import load_pretrained
from agents.matches.perfect_play import load_labels, shipped_labels_path

# The shipped model by name, as the opponent; the other seat plays the shipped model through the API.
env = gym.make("ConnectFour-v0", opponent="alphazero:20", agent_player=0, render_mode="rgb_array")
player = load_pretrained("connectfour", n_simulations=20, seed=0)
obs, info = env.reset(seed=0)
moves, terminated = 0, False
while not terminated:
    action = player.act(env.unwrapped.game, env.unwrapped.state)
    obs, reward, terminated, truncated, info = env.step(action)
    moves += 1
print(json.dumps({
    "files": [agents.__file__, gym_boardgames.__file__],
    "version": importlib.metadata.version("gym-boardgames"),
    "torch": importlib.util.find_spec("torch") is not None or "torch" in sys.modules,
    "moves": moves,
    "winner": int(info["winner"]),
    "frame": list(env.render().shape),
    "tictactoe": load_pretrained("tictactoe").n_simulations,
    "labels": {name: len(load_labels(shipped_labels_path(name)).moves) for name in ("labels", "heldout", "random")},
}))
"""


@pytest.mark.slow
def test_the_wheel_installs_in_a_fresh_venv_and_plays_the_shipped_model_without_pytorch(
    dists: Dists, tmp_path: Path
) -> None:
    """A plain venv outside the checkout (no system site-packages), only the wheel and its four dependencies,
    headless: a whole game of Connect Four against the shipped AlphaZero model named "alphazero"."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(PYTHONNOUSERSITE="1", SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")

    def run(*command: object) -> str:
        result = subprocess.run(
            [str(part) for part in command], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
        )
        shown = " ".join(str(part) for part in command)[:300]
        assert result.returncode == 0, f"{shown}\n{result.stdout[-2000:]}\n{result.stderr[-3000:]}"
        return result.stdout

    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", venv)
    python = venv / ("Scripts" if os.name == "nt" else "bin") / "python"
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    shutil.copy(dists.wheel, wheels)
    # The dependencies at the versions this environment runs, as wheels (from pip's index or its cache), so
    # that the install itself is offline: --no-index takes nothing but the files in `wheels`.
    pins = [f"{name}=={importlib.metadata.version(name)}" for name in ("gymnasium", "numpy", "pygame-ce", "tqdm")]
    run(sys.executable, "-m", "pip", "download", "--quiet", "--only-binary=:all:", "--dest", wheels, *pins)
    run(python, "-m", "pip", "install", "--quiet", "--no-index", "--find-links", wheels, wheels / dists.wheel.name)

    report = json.loads(run(python, "-c", PLAY_CONNECT_FOUR).splitlines()[-1])
    site = venv.resolve()
    assert all(Path(path).resolve().is_relative_to(site) for path in report["files"]), report["files"]
    assert report["version"] == "0.2.0"
    assert report["torch"] is False
    assert 7 <= report["moves"] <= 21 and report["winner"] in (-1, 0, 1)
    assert report["frame"][2] == 3
    assert report["tictactoe"] == 100
    assert report["labels"]["labels"] > 0 and report["labels"]["heldout"] > 0 and report["labels"]["random"] > 0
