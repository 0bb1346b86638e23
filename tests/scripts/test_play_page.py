"""scripts/play.py --web: the token given by --token or --token-file, its refusals, --allow-remote's one line, and
the page's menus set by --opponent and --side.

Each server runs in a subprocess and is stopped with Ctrl-C; nothing is timed but the hang guard.
"""

import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("pygame")

ROOT = Path(__file__).resolve().parents[2]
HANG_GUARD_S = 300
TOKEN = "a-token-for-the-tests_made-once-and-kept-0123456789"  # 51 URL-safe characters


def play(*flags):
    return [sys.executable, str(ROOT / "scripts" / "play.py"), "tictactoe", *flags]


def serve(*flags):
    """Start play.py --web, read its URL and page, stop it with Ctrl-C; return (URL, stdout after it, stderr, page)."""
    server = subprocess.Popen(
        play("--web", "--port", "0", *flags),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C as a terminal sends it, even from a test run started in the background (tests/human/test_window.py).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        serving = server.stdout.readline()
        assert serving.startswith("Serving "), serving
        url = server.stdout.readline().strip()
        with urllib.request.urlopen(url, timeout=HANG_GUARD_S) as response:
            assert response.status == 200
            page = serving + response.read().decode("utf-8")
    finally:
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=HANG_GUARD_S)
    assert server.returncode == 0, err
    return url, out, err, page


def test_a_token_file_gives_the_same_token_at_every_start(tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")  # as `print(secrets.token_urlsafe(32)) > FILE` writes it
    token_file.chmod(0o600)  # private, as the help's recipe makes it: a file others can read is refused
    first, _, err, _ = serve("--token-file", str(token_file))
    second, _, _, _ = serve("--token-file", str(token_file))
    assert first.endswith(f"/?token={TOKEN}") and second.endswith(f"/?token={TOKEN}") and err == ""
    assert serve("--token", TOKEN)[0].endswith(f"/?token={TOKEN}")


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--web", "--token", "short"], "--token: a token must be 43 to 256 characters of A-Z a-z 0-9 - _"),
        (["--web", "--token", TOKEN + "!"], "--token: a token must be 43 to 256 characters"),
        (["--web", "--token", TOKEN, "--token-file", "FILE"], "give --token or --token-file, not both"),
        (["--token", TOKEN], "--token is the page's: add --web"),
        (["--token-file", "FILE"], "--token-file is the page's: add --web"),
        (["--web", "--token-file", "MISSING"], "--token-file MISSING: no such file"),
        (["--web", "--token-file", "DIR"], "--token-file DIR: is a directory, not a token file"),
        (["--web", "--token-file", "SHORT"], "--token-file: a token must be 43 to 256 characters"),
    ],
)
def test_a_bad_token_or_token_file_is_refused_in_one_line(flags, message, tmp_path):
    (tmp_path / "FILE").write_text(TOKEN)
    (tmp_path / "SHORT").write_text("abc\n")
    paths = {name: str(tmp_path / name) for name in ("FILE", "MISSING", "SHORT")} | {"DIR": str(tmp_path)}
    flags = [paths.get(flag, flag) for flag in flags]
    result = subprocess.run(play(*flags), capture_output=True, text=True, timeout=HANG_GUARD_S)
    lines = result.stderr.strip().splitlines()
    for name, path in paths.items():
        message = message.replace(name, path)
    assert result.returncode == 2 and len(lines) == 1 and message in lines[0], result.stderr


def test_allow_remote_says_so_in_one_plain_line():
    _, _, err, _ = serve("--host", "0.0.0.0", "--allow-remote")
    assert err == "play server: warning: on 0.0.0.0, any machine that reaches it with the token can play\n"


@pytest.mark.parametrize("side", ["first", "second", "both"])
def test_the_pages_menus_start_on_the_opponent_and_the_side_given(side):
    page = serve("--opponent", "random", "--side", side)[3]
    assert page.startswith("Serving Tic-tac-toe against random on this machine only.")
    assert f'"side": "{side}"' in page and '"opponents": ["random", "alphabeta", ' in page


def test_the_side_is_one_of_its_names():
    result = subprocess.run(play("--web", "--side", "1"), capture_output=True, text=True, timeout=HANG_GUARD_S)
    (line,) = result.stderr.splitlines()  # argparse's own line: how it quotes the choices depends on the Python
    assert result.returncode == 2 and "argument --side: invalid choice: '1' (choose from " in line
    assert all(side in line for side in ("first", "second", "both"))
