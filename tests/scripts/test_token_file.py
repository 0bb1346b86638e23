"""scripts/play.py --token-file refuses a token other local users can read, as ssh does with a key file."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from script_helpers import load_script, run_script  # noqa: E402

TOKEN = "A" * 43
pytestmark = pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX's")


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o620])
def test_a_token_file_others_can_read_is_refused_in_one_line(tmp_path, mode):
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    token_file.chmod(mode)
    result = run_script("play", "connectfour", "--web", "--token-file", token_file, timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.strip().splitlines() == [
        f"play.py: error: --token-file {token_file}: its mode {mode:04o} lets other users read or change the token; "
        f"make it private: chmod 600 {token_file}"
    ]


def test_a_private_token_file_is_read(tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    token_file.chmod(0o600)
    args = load_script("play").parse_args(["connectfour", "--web", "--token-file", str(token_file)])
    assert args.token == TOKEN


def test_the_helps_recipe_makes_a_private_file_under_umask_022(tmp_path):
    help_text = " ".join(run_script("play", "--help", check=True).stdout.split())
    recipe = "(umask 077; python -c 'import secrets; print(secrets.token_urlsafe(32))' > FILE)"
    assert recipe in help_text
    command = recipe.replace("python", sys.executable).replace("FILE", str(tmp_path / "token"))
    subprocess.run(f"umask 022; {command}", shell=True, check=True)
    assert (tmp_path / "token").stat().st_mode & 0o777 == 0o600
    assert load_script("play").parse_args(["connectfour", "--web", "--token-file", str(tmp_path / "token")]).token
