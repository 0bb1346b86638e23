"""A saved notebook shows the board: the widget's cell, run by nbclient and exported by nbconvert as they come.

The notebook plays two moves through the widget's session while it runs, then is exported with
``nbconvert.HTMLExporter()`` and its default options. nbclient saves the widget's state in the notebook (as
``jupyter nbconvert --execute`` does), and with that state nbconvert renders the widget's own output as the widget
view alone, a script that needs the widget manager from a CDN: offline the page showed nothing. The page must hold,
inline, the board as it was at the last move and the status line beside it.

The kernel is this test's Python, through a kernel spec in a temporary folder (a user's own ``python3`` spec
cannot stand in for it), with an IPython folder of its own. Skipped without the ``notebook`` extra (anywidget, a
failure under CI, which installs it) or without nbclient, nbconvert and ipykernel (which JupyterLab, the
``browser`` extra, brings). Waits have no deadline but a hang guard.
"""

import base64
import copy
import hashlib
import html
import json
import os
import re
import sys

import pytest

pytest.importorskip("pygame")
if not os.environ.get("CI"):  # CI installs the notebook extra: there a missing one is a broken install
    pytest.importorskip("anywidget", reason="the notebook extra (anywidget) is not installed")
for _module in ("nbclient", "nbconvert", "ipykernel"):
    pytest.importorskip(_module, reason=f"{_module} (brought by jupyterlab, the browser extra) is not installed")

import nbformat  # noqa: E402
from jupyter_client.kernelspec import KernelSpecManager  # noqa: E402
from jupyter_client.manager import KernelManager  # noqa: E402
from nbclient import NotebookClient  # noqa: E402
from nbconvert import HTMLExporter  # noqa: E402

HANG_GUARD_S = 600
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

START = """\
import hashlib, time
import gym_boardgames

widget = gym_boardgames.play("connectfour", "random", ui="notebook")
first = hashlib.sha256(widget.png).hexdigest()
widget"""

# Two moves of the person, each waited for until the agent has replied and the widget shows it (its traits), so
# that the watcher has sent the still while a cell runs: nbclient takes a cell's messages only.
PLAY = f"""\
def settled(moves):
    session = widget.session
    with session.lock:
        now = (session.png(), session.status(), len(session.env.moves))
        return not session.thinking and now == (widget.png, widget.status, widget.moves) and now[2] == moves

for moves in (2, 4):
    widget.session.play(3)
    deadline = time.monotonic() + {HANG_GUARD_S}
    while not settled(moves):
        assert time.monotonic() < deadline, "the agent never replied"
        time.sleep(0.05)
print(first, hashlib.sha256(widget.png).hexdigest(), widget.status, sep="\\n")"""


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """The notebook, run by nbclient in a kernel of this Python; and what its last cell printed."""
    folder = tmp_path_factory.mktemp("export")
    spec = folder / "kernels" / "gym-boardgames-test"
    spec.mkdir(parents=True)
    env = {"IPYTHONDIR": str(folder / "ipython"), "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    kernel = {"argv": argv, "display_name": "gym-boardgames test", "language": "python", "env": env}
    (spec / "kernel.json").write_text(json.dumps(kernel), encoding="utf-8")
    specs = KernelSpecManager(kernel_dirs=[str(folder / "kernels")], ensure_native_kernel=False)
    manager = KernelManager(kernel_name="gym-boardgames-test", kernel_spec_manager=specs)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(START), nbformat.v4.new_code_cell(PLAY)])
    NotebookClient(nb, km=manager, timeout=HANG_GUARD_S, resources={"metadata": {"path": str(folder)}}).execute()
    printed = "".join(output.get("text", "") for output in nb.cells[1].outputs if output.output_type == "stream")
    first, last, status = printed.splitlines()
    return nb, {"first": first, "last": last, "status": status}


def pictures(page):
    """The PNGs the page shows inline (nbconvert's ``<img>`` of an output's ``image/png``), decoded."""
    return [base64.b64decode(data) for data in re.findall(r'<img\b[^>]*\bsrc="data:image/png;base64,([^"]+)"', page)]


def shows_text(page, text):
    """Whether the page shows ``text`` as an output's text (nbconvert's ``<pre>`` of a ``text/plain``)."""
    return re.search(rf"<pre>\s*{re.escape(html.escape(text, quote=False))}\s*</pre>", page) is not None


def test_an_executed_notebook_exported_to_html_shows_the_last_board_and_status_offline(executed):
    nb, printed = executed
    assert printed["first"] != printed["last"]  # the moves changed the board
    assert "widgets" in nb.metadata  # the widget's state is saved: the case where the page showed nothing
    page, _resources = HTMLExporter().from_notebook_node(nb)
    assert f'<script type="{WIDGET_VIEW}">' in page  # the widget, for a reader online
    (picture,) = pictures(page)  # the board, inline: no CDN, no script
    assert picture.startswith(b"\x89PNG") and hashlib.sha256(picture).hexdigest() == printed["last"]
    assert shows_text(page, printed["status"]), f"the status line {printed['status']!r} is not shown"


def test_without_the_widget_state_the_export_shows_the_board_once(executed):
    nb, printed = executed
    stateless = copy.deepcopy(nb)
    del stateless.metadata["widgets"]  # as JupyterLab saves a notebook by default
    page, _resources = HTMLExporter().from_notebook_node(stateless)
    (picture,) = pictures(page)
    assert hashlib.sha256(picture).hexdigest() == printed["last"] and shows_text(page, printed["status"])
    assert "object at 0x" not in page and "PlayWidget(" not in page


def test_the_cell_holds_the_widget_then_a_still_that_a_live_notebook_hides(executed):
    nb, printed = executed
    widget, status, board = nb.cells[0].outputs
    model_id = widget.data[WIDGET_VIEW]["model_id"]
    assert model_id in nb.metadata.widgets["application/vnd.jupyter.widget-state+json"]["state"]
    assert "image/png" not in widget.data  # one board in an export: the still's
    # The view of no model, ipywidgets' mark of a removed view: JupyterLab hides the output, nbconvert skips it.
    assert status.data[WIDGET_VIEW]["model_id"] == board.data[WIDGET_VIEW]["model_id"] == ""
    assert status.data["text/plain"] == printed["status"]
    assert hashlib.sha256(base64.b64decode(board.data["image/png"])).hexdigest() == printed["last"]
