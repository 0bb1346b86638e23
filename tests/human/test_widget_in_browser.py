"""The notebook widget end to end: a real JupyterLab, a notebook of one cell, Debian's headless Chromium.

The test starts JupyterLab on 127.0.0.1 with a random port and a token of its own, every Jupyter folder (config,
data, runtime, IPython's) in a temporary directory so the user's are untouched, and writes a notebook whose one
cell is ``gym_boardgames.play("tictactoe", "alphabeta", ui="notebook")``. In Chromium it runs the cell, narrows
the widget so that the picture is shown scaled down, clicks the centre cell and waits for the agent's reply,
pushed from the kernel's watcher thread. The picture shown must then be, byte for byte, the frame of the same
game played here. Last, the kernel must listen on no TCP port it did not listen on before the cell ran: the
widget speaks through the kernel's own channel, with no server of its own (``ui="page"`` in the cell fails it).

Skipped, with the reason, without Selenium, Chromium, JupyterLab or anywidget; under CI (``CI`` set, as
``.ci/run`` runs), which installs the ``notebook`` and ``browser`` extras, a missing JupyterLab or anywidget fails
instead. Waits have no deadline but a hang guard: a busy machine starts JupyterLab slowly (10-30 s).
"""

import base64
import importlib.util
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import pytest

webdriver = pytest.importorskip("selenium.webdriver", reason="the browser extra (selenium) is not installed")
from selenium.common.exceptions import TimeoutException  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

for _module, _extra in (("jupyterlab", "browser"), ("anywidget", "notebook")):
    if not os.environ.get("CI"):  # CI installs both extras: there a missing one is a broken install, not a skip
        pytest.importorskip(_module, reason=f"{_module} (the {_extra} extra) is not installed")


# The page's browser tests hold Chromium's paths and options; the importlib import mode puts no test folder on
# sys.path, so their module is loaded from its file.
_spec = importlib.util.spec_from_file_location("_page_in_browser", Path(__file__).with_name("test_page_in_browser.py"))
page_tests = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(page_tests)
CHROMIUM, CHROMEDRIVER, HANG_GUARD_S = page_tests.CHROMIUM, page_tests.CHROMEDRIVER, page_tests.HANG_GUARD_S

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (shutil.which(CHROMIUM) and shutil.which(CHROMEDRIVER)),
        reason=f"no {CHROMIUM} and {CHROMEDRIVER}: apt-get install chromium chromium-driver",
    ),
    pytest.mark.skipif(not Path("/proc/self/net/tcp").exists(), reason="reads the kernel's sockets in /proc (Linux)"),
]

CELL = 'import gym_boardgames\ngym_boardgames.play("tictactoe", "alphabeta", ui="notebook")'


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def jupyterlab(tmp_path):
    """JupyterLab serving ``tmp_path/root``, which holds the one-cell notebook: the notebook's URL, runtime dir, log."""
    root, runtime = tmp_path / "root", tmp_path / "runtime"
    root.mkdir()
    kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": CELL}
    notebook = {"cells": [cell], "metadata": {"kernelspec": kernelspec}, "nbformat": 4, "nbformat_minor": 5}
    (root / "play.ipynb").write_text(json.dumps(notebook))
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(runtime), JUPYTER_CONFIG_DIR=str(tmp_path / "config"))
    env.update(JUPYTER_DATA_DIR=str(tmp_path / "data"), IPYTHONDIR=str(tmp_path / "ipython"))
    env.pop("SDL_VIDEODRIVER", None)  # as in a user's notebook: drawing the frames needs no display driver
    token, port = secrets.token_hex(24), free_port()
    command = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1"]
    command += [f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}"]
    command += [f"--ServerApp.root_dir={root}", "--allow-root"]  # root: CI runs in a container as root
    # Nothing reaches out: no news feed, no update check, no extension index.
    command += ["--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    command += ["--LabApp.extension_manager=readonly", "--LabApp.expose_app_in_browser=True"]
    log_path = tmp_path / "jupyterlab.log"
    log = log_path.open("w")
    server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        # Started once its API answers (10-30 s on a busy machine).
        start = time.monotonic()
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={token}", timeout=10).close()
                break
            except OSError:
                assert server.poll() is None, f"JupyterLab exited:\n{log_path.read_text()[-3000:]}"
                assert time.monotonic() - start < HANG_GUARD_S, (
                    f"JupyterLab did not start:\n{log_path.read_text()[-3000:]}"
                )
                time.sleep(0.5)
        yield SimpleNamespace(
            url=f"http://127.0.0.1:{port}/lab/tree/play.ipynb?token={token}", runtime=runtime, log=log_path
        )
    finally:
        server.terminate()  # SIGTERM: JupyterLab shuts its kernels down, then exits
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        log.close()


@pytest.fixture
def browser(tmp_path):
    driver = page_tests.start_chromium(tmp_path / "chromium-profile")
    yield driver
    driver.quit()


def kernel_ports(runtime):
    """The TCP ports the kernel listens on (its connection file's and ipykernel's own), found through /proc.

    Read again until the kernel's process is found: its descriptors come and go while it runs (a descriptor closed
    between listing and reading is skipped, not the process), and a process may end while /proc is read.
    """
    seen = []
    for _ in range(300):  # about 30 s and more: a kernel that is connected has its process
        for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
            try:
                words = cmdline.read_bytes().decode(errors="replace").split("\0")
            except OSError:  # a process that ended meanwhile
                continue
            if "ipykernel_launcher" in words:
                seen.append(words)
            if "ipykernel_launcher" not in words or not any(str(runtime) in word for word in words):
                continue
            inodes = set()
            for fd in cmdline.parent.glob("fd/*"):
                try:
                    target = os.readlink(fd)
                except OSError:  # closed meanwhile
                    continue
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
            try:
                tables = [(cmdline.parent / "net" / name).read_text().splitlines()[1:] for name in ("tcp", "tcp6")]
            except OSError:
                continue
            # Each line: sl, local address:port (hex), remote, state (0A: LISTEN), ..., the socket's inode (10th).
            rows = [line.split() for table in tables for line in table]
            return {int(row[1].rsplit(":", 1)[1], 16) for row in rows if row[3] == "0A" and row[9] in inodes}
        time.sleep(0.1)
    raise AssertionError(f"no kernel process with a connection file in {runtime}; kernels seen: {seen[-3:]}")


def test_one_cell_plays_tictactoe_through_the_widget_channel(jupyterlab, browser):
    from gym_boardgames.human.doors import resolve

    wait = WebDriverWait(browser, HANG_GUARD_S, poll_frequency=0.2)

    def until(script, what):
        try:
            return wait.until(lambda _: browser.execute_script(script))
        except TimeoutException:
            outputs = browser.execute_script(
                "return [...document.querySelectorAll('.jp-OutputArea')].map(o => o.innerText)"
            )
            log = jupyterlab.log.read_text()[-3000:]
            raise AssertionError(
                f"no {what} within {HANG_GUARD_S} s; the cell's output: {outputs}; the log:\n{log}"
            ) from None

    browser.get(jupyterlab.url)
    # The app, as JupyterLab's own UI tests reach it (expose_app_in_browser): once the notebook is connected to
    # its kernel, it is made the current tab (a headless window never gets the focus) and the Run button runs the cell.
    panel = "[...window.jupyterapp.shell.widgets('main')].find(w => w.sessionContext)"
    until(
        f"return window.jupyterapp && {panel}?.sessionContext.session?.kernel?.connectionStatus === 'connected'",
        "kernel",
    )
    before = kernel_ports(jupyterlab.runtime)
    (connection,) = jupyterlab.runtime.glob("kernel-*.json")
    own = {value for key, value in json.loads(connection.read_text()).items() if key.endswith("_port")}
    assert len(own) == 5 and own <= before, (own, before)  # what is read is the kernel's sockets
    browser.execute_script(f"window.jupyterapp.shell.activateById({panel}.id)")
    browser.find_element(
        "css selector", '.jp-NotebookPanel-toolbar [data-command="notebook:run-cell-and-select-next"]'
    ).click()
    until(
        "const b = document.querySelector('.gbg-play img.gbg-board'); return b?.complete && b.naturalWidth > 0", "board"
    )
    board = browser.find_element("css selector", ".gbg-play img.gbg-board")
    opening = browser.find_element("css selector", ".gbg-play .gbg-status").text
    assert opening.startswith("your move"), opening

    # A cell narrower than the picture: it scales down, and a click still means the cell under the pointer.
    browser.execute_script("document.querySelector('.gbg-play').style.width = '200px'")
    until("const b = document.querySelector('.gbg-play img.gbg-board'); return b.clientWidth === 200", "narrow board")
    expected = resolve("tictactoe", "alphabeta").session()  # the game the cell's play() makes, made here
    view = expected.view  # the kernel's widget draws with the same view: the same geometry
    scale = board.size["width"] / view.size[0]
    x, y = view.cell_rect(4).center
    offset = (round(x * scale - board.size["width"] / 2), round(y * scale - board.size["height"] / 2))
    ActionChains(browser).move_to_element_with_offset(board, *offset).click().perform()
    # The centre, then alpha-beta's reply, pushed by the widget's watcher thread from the agent's worker.
    widget = "document.querySelector('.gbg-play').dataset"
    until(f"return {widget}.moves === '2' && {widget}.thinking === 'false'", "reply")
    status = browser.find_element("css selector", ".gbg-play .gbg-status").text
    assert re.match(r"your move \(X\)", status), status
    # The same game here, the centre clicked: the page shows exactly its frame.
    expected.click(view.cell_rect(4).center)
    for _ in range(HANG_GUARD_S):
        if not expected.thinking:
            break
        expected.wait_for_change(expected.version, 1.0)
    shown = browser.execute_async_script(
        "const done = arguments[0]; const b = document.querySelector('.gbg-play img.gbg-board');"
        "fetch(b.src).then(r => r.arrayBuffer()).then(a => done(btoa(String.fromCharCode(...new Uint8Array(a)))))"
    )
    assert base64.b64decode(shown) == expected.png(), "the page does not show the game with the centre played"

    # No port of the package's own: playing opened none in the kernel (the old route served the page on one).
    opened = kernel_ports(jupyterlab.runtime) - before
    assert not opened, f"the kernel listens on port(s) {sorted(opened)} since the cell ran"
