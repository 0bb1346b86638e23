"""README's block of the four doors, run as a user runs it: saved as a file, ``python file.py``, one ``ui`` each.

The page serves until Ctrl-C, printing its URL first (it once returned at once and the script ended with nothing
served); the terminal plays typed moves; the notebook door, outside a Jupyter kernel, says nothing will show; the
window without a screen says what works instead.
"""

import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Generous bounds for a busy machine (the network loads, the agent is built).
START_S, EXIT_S = 120, 60

pytestmark = pytest.mark.slow  # fresh interpreters that build the shipped network


def _readme_block(tmp_path: Path, ui: str) -> Path:
    """README's Python block that calls ``gym_boardgames.play``, its ``ui`` changed to ``ui``, saved as a file."""
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    block = next(block for block in blocks if "gym_boardgames.play(" in block)
    code, count = re.subn(r'ui="notebook"', f'ui="{ui}"', block)
    assert count == 1, block
    path = tmp_path / f"play_{ui}.py"
    path.write_text(code)
    return path


def _run(path: Path, **options):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SDL_VIDEODRIVER": "dummy"}
    return subprocess.Popen(
        [sys.executable, str(path)], cwd=path.parent, env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        **options,
    )  # fmt: skip


def test_the_page_door_from_a_script_prints_its_url_and_serves_until_ctrl_c(tmp_path):
    child = _run(_readme_block(tmp_path, "page"))
    try:
        lines, deadline = [], time.monotonic() + START_S
        while not any("?token=" in line for line in lines):
            assert time.monotonic() < deadline and child.poll() is None, (lines, child.communicate())
            lines.append(child.stdout.readline())
        lines.append(child.stdout.readline())  # read here: communicate() reads the pipe, not readline's buffer
        url = next(line.strip() for line in lines if "?token=" in line)
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/\?token=[A-Za-z0-9_-]{43}", url), url
        with urllib.request.urlopen(url, timeout=EXIT_S) as page:  # it serves: the page, with the token
            assert page.status == 200 and b"Connect Four" in page.read()
        assert child.poll() is None  # still serving
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=EXIT_S)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert child.returncode == 0, err  # Ctrl-C is how a served page stops: no error
    printed = ("".join(lines) + out).splitlines()
    assert printed[0].startswith("Serving Connect Four against alphazero on this machine only. Open this URL")
    assert printed[1:] == [f"  {url}", "Press Ctrl-C to stop.", "stopped"]
    assert "Traceback" not in err


def test_the_terminal_door_from_a_script_plays_typed_moves(tmp_path):
    child = _run(_readme_block(tmp_path, "terminal"), stdin=subprocess.PIPE)
    out, err = child.communicate("4\nq\n", timeout=START_S)
    assert child.returncode == 0, err
    assert "Traceback" not in err and out.rstrip().endswith("goodbye"), out
    assert "you play Red against alphazero" in out and out.count("your move (Red)") == 2, out  # its reply came


def test_the_notebook_door_from_a_script_says_nothing_will_show(tmp_path):
    child = _run(_readme_block(tmp_path, "notebook"))
    _, err = child.communicate(timeout=START_S)
    assert child.returncode == 0, err
    assert "NoNotebookWarning: ui='notebook' shows the game in a Jupyter cell, and no Jupyter kernel runs here" in err
    assert "use ui='window', 'page' or 'terminal'" in err


def test_the_window_door_from_a_script_without_a_screen_says_what_works_instead(tmp_path):
    child = _run(_readme_block(tmp_path, "window"))
    _, err = child.communicate(timeout=START_S)
    assert child.returncode == 1
    assert err.splitlines()[-1].startswith("gym_boardgames.human.window.NoScreenError: no screen to show the window on")
    assert "ui='page'" in err.splitlines()[-1]


def test_the_page_door_in_a_repl_returns_a_server_whose_value_shows_the_url(tmp_path):
    typed = "import gym_boardgames\nserver = gym_boardgames.play('tictactoe', 'random', ui='page')\nserver\n"
    typed += "server.close()\nserver\n"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SDL_VIDEODRIVER": "dummy"}
    repl = subprocess.run(
        [sys.executable, "-i", "-q"], input=typed, cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=START_S,
    )  # fmt: skip
    assert repl.returncode == 0, repl.stderr
    shown = re.findall(r"<PlayServer of Tic-tac-toe[^>]*>", repl.stdout)
    assert len(shown) == 2 and re.fullmatch(
        r"<PlayServer of Tic-tac-toe at http://127\.0\.0\.1:\d+/\?token=[\w-]{43} \(server\.close\(\) stops it\)>",
        shown[0],
    ), repl.stdout
    assert shown[1] == "<PlayServer of Tic-tac-toe: stopped>"
