"""The two-node ``ray start`` route of docs/tutorials/rllib.md, run as written, after a local ``ray.init()``
(issue 26).

A local ``ray.init()`` (Ray 2.60; Ray's site says since 2.59) turns token authentication on and writes
``~/.ray/auth_token``. From then on ``ray start --head`` finds the token and enables token authentication, while a
worker's ``ray start --address``, ``ray status --address`` and a driver given an explicit address stay in the
default mode, send no token and are refused with ``InvalidAuthToken``. The page's route exports
``RAY_AUTH_MODE=token`` (after ``ray get-auth-token --generate``, which keeps an existing token) so that every
command sends it.

This test reads the page's bash block of the route and runs its commands in order on 127.0.0.1, with a home
folder of its own (its ``~/.ray/auth_token`` made by a local ``ray.init()`` first, as in the issue), free ports
in place of the page's 6390 and 8275, and Ray's files in a temporary folder. Each ``ray start`` gets ``--block``
and its own process group, so that the test stops exactly the nodes it started (the page's ``ray stop`` would
stop every Ray process of this user). Then the page's ``train_alphazero.py --ray-address`` command runs on the
two nodes. Opt-in: skipped without Ray and PyTorch, and slow.
"""

import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="the rllib extra (ray) is needed for a Ray cluster")
pytest.importorskip("torch", reason="the alphazero extra (PyTorch) is needed for self-play workers")

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "tutorials" / "rllib.md"
PAGE_PORT, PAGE_DASHBOARD_PORT = "6390", "8275"
STARTED = "Ray runtime started"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def page_bash_blocks() -> list[str]:
    text = PAGE.read_text()
    return re.findall(r"^```bash\n(.*?)^```", text, re.S | re.M)


def page_commands(block: str) -> list[str]:
    """A bash block's commands, one a line, comments dropped."""
    lines = [re.sub(r"(^|\s)#.*", "", line).strip() for line in block.splitlines()]
    return [line for line in lines if line]


def route_commands() -> list[str]:
    blocks = [block for block in page_bash_blocks() if "ray start --head --node-ip-address 127.0.0.1" in block]
    assert len(blocks) == 1, f"{PAGE.name} should hold the two-node route in one bash block"
    return page_commands(blocks[0])


def training_command() -> list[str]:
    found = [
        command.split("&&")[-1].strip()
        for block in page_bash_blocks()
        for command in page_commands(block)
        if "scripts/train_alphazero.py" in command and f"--ray-address 127.0.0.1:{PAGE_PORT}" in command
    ]
    assert len(found) == 1, f"{PAGE.name} should run train_alphazero.py --ray-address 127.0.0.1:{PAGE_PORT} once"
    return shlex.split(found[0])


def test_the_page_route_sets_the_token_mode_before_the_nodes_start():
    commands = route_commands()
    export = commands.index("export RAY_AUTH_MODE=token")
    assert commands.index("ray get-auth-token --generate > /dev/null") < export
    starts = [i for i, command in enumerate(commands) if command.startswith("ray start")]
    assert len(starts) == 2 and export < min(starts)


class Nodes:
    """The ``ray start --block`` processes this test started, each in its own process group."""

    def __init__(self, log_dir: Path):
        self.log_dir = log_dir
        self.procs: list[subprocess.Popen] = []

    def start(self, command: list[str], env: dict, timeout: float = 180.0) -> None:
        log = self.log_dir / f"node{len(self.procs)}.log"
        with open(log, "w") as out:
            proc = subprocess.Popen(
                [*command, "--block"], stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
            )
        self.procs.append(proc)
        deadline = time.monotonic() + timeout
        while STARTED not in log.read_text():
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"{shlex.join(command)} did not start a node:\n{log.read_text()[-3000:]}")
            time.sleep(0.5)

    def stop(self) -> None:
        for proc in reversed(self.procs):  # the worker node first, then the head
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait(timeout=30)


def run(command, env: dict, timeout: float = 300.0, **options) -> subprocess.CompletedProcess:
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout, cwd=ROOT, **options)


def test_documented_two_node_route_works_after_a_local_ray_init(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "SDL_VIDEODRIVER": "dummy", "RAY_USAGE_STATS_ENABLED": "0"}
    # The page's `ray` and `python` are this interpreter's venv's, as in a shell with the venv activated.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    for name in ("RAY_ADDRESS", "RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH"):
        env.pop(name, None)
    # Ray's sockets live under the temp dir: a short path keeps them under the 107-character limit of Unix sockets.
    temp_dir = Path(tempfile.mkdtemp(prefix="rayr", dir="/tmp"))
    nodes = Nodes(tmp_path)
    try:
        # The start: any local Ray run writes the token file.
        local = run([sys.executable, "-c", "import ray; ray.init(num_cpus=1, include_dashboard=False)"], env)
        assert local.returncode == 0, local.stderr[-3000:]
        assert (home / ".ray" / "auth_token").is_file(), "a local ray.init() no longer writes ~/.ray/auth_token"

        port, dashboard, client = str(_free_port()), str(_free_port()), str(_free_port())
        for command in route_commands():
            command = command.replace(PAGE_PORT, port).replace(PAGE_DASHBOARD_PORT, dashboard)
            if command.startswith("export "):
                name, value = command.removeprefix("export ").split("=", 1)
                env[name] = value
            elif command.startswith("ray start --head"):
                nodes.start(
                    [*shlex.split(command), "--temp-dir", str(temp_dir), "--ray-client-server-port", client], env
                )
                # The issue: without the page's export, a second node, ray status and a driver are refused.
                plain = {key: value for key, value in env.items() if key != "RAY_AUTH_MODE"}
                refused = run(["ray", "status", "--address", f"127.0.0.1:{port}"], plain, timeout=120)
                assert refused.returncode != 0 and "InvalidAuthToken" in refused.stdout + refused.stderr, (
                    "ray status without RAY_AUTH_MODE=token was not refused: the page's explanation is out of date"
                )
            elif command.startswith("ray start"):
                nodes.start([*shlex.split(command), "--temp-dir", str(temp_dir)], env)
            elif command.startswith("ray status"):
                # The autoscaler's report lags a second node's join by a second or two.
                deadline = time.monotonic() + 60
                while True:
                    status = run(shlex.split(command), env, timeout=120)
                    assert status.returncode == 0, status.stdout[-2000:] + status.stderr[-3000:]
                    active = status.stdout.split("Active:")[1].split("Pending:")[0]
                    if active.count("node_") == 2 or time.monotonic() > deadline:
                        break
                    time.sleep(1)
                assert active.count("node_") == 2, status.stdout
                assert "0.0/2.0 CPU" in status.stdout
            else:
                result = run(command, env, shell=True, timeout=120)
                assert result.returncode == 0, f"{command}:\n{result.stderr[-3000:]}"

        argv = training_command()
        assert argv[0] == "python"
        argv = [sys.executable, str(ROOT / argv[1]), *argv[2:]]
        argv[argv.index("--ray-address") + 1] = f"127.0.0.1:{port}"
        out = tmp_path / "run" / "doc.npz"
        out.parent.mkdir()
        argv[argv.index("--out") + 1] = str(out)
        result = run(argv, env, timeout=600)
        assert result.returncode == 0, result.stderr[-3000:]
        summary = json.loads(result.stdout.strip().splitlines()[-1])
        assert summary["games"] == 16 and summary["positions"] > 0
        assert out.is_file() and out.with_suffix(".train.npz").is_file()
    finally:
        nodes.stop()
        shutil.rmtree(temp_dir, ignore_errors=True)
