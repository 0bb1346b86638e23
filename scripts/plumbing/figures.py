"""A run's figures and curves: matplotlib figures written atomically, and scalars logged for TensorBoard.

Scripts draw on :func:`pyplot` (the headless Agg backend, the ``plot`` extra) and save with :func:`save_figure`
(rendered in memory, then written by :func:`gym_boardgames.outputs.write_bytes_atomic`);
:func:`check_figure_path` refuses, before any work, a name matplotlib cannot write. Training scripts take
``--tensorboard DIR`` (:func:`add_tensorboard_flag`, checked by :func:`check_tensorboard` in
:func:`plumbing.cli.parse_checked`) and log scalars through :class:`TensorBoardLog`.

This module imports the standard library, :mod:`gym_boardgames.outputs` and :mod:`plumbing.paths`; matplotlib and the
``tensorboard`` package (the ``tensorboard`` extra) are imported only when a figure is drawn or a log is
checked or opened.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import time
from typing import Any

from gym_boardgames.outputs import write_bytes_atomic

from .paths import check_output_path

__all__ = [
    "FIGURE_FORMATS",
    "TENSORBOARD_MISSING",
    "TensorBoardLog",
    "add_tensorboard_flag",
    "check_figure_path",
    "check_tensorboard",
    "pyplot",
    "save_figure",
]

#: The refusal of ``--tensorboard`` when the ``tensorboard`` package is missing.
TENSORBOARD_MISSING = '--tensorboard needs the tensorboard extra: pip install -e ".[tensorboard]"'

#: The figure formats matplotlib's Agg backend writes (a ``--plot`` name without a suffix is a PNG).
FIGURE_FORMATS = ("png", "pdf", "svg", "svgz", "eps", "ps", "jpg", "jpeg", "tif", "tiff", "webp", "pgf", "raw", "rgba")


def check_figure_path(path: str | os.PathLike[str] | None, flag: str) -> None:
    """Refuse, before any work, a figure name whose suffix matplotlib cannot write (``--plot x.xyz``).

    Raises:
        ValueError: ``--plot x.xyz: matplotlib cannot write .xyz; use one of png, pdf, ...``.
    """
    suffix = os.path.splitext(os.fspath(path or ""))[1].lstrip(".").lower()
    if path is not None and suffix and suffix not in FIGURE_FORMATS:
        raise ValueError(
            f"{flag} {os.fspath(path)}: matplotlib cannot write .{suffix}; use one of {', '.join(FIGURE_FORMATS)}"
        )


def pyplot() -> Any:
    """Return ``matplotlib.pyplot`` on the headless Agg backend (the ``plot`` extra, checked by the caller)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Any, path: str | os.PathLike[str], *, replace: bool = True, **savefig_kwargs: Any) -> str:
    """Save a matplotlib figure to ``path`` atomically, then close it (saved or not); return the path written.

    The figure is rendered in memory, in ``format`` if given, else the one ``path``'s suffix names (PNG
    without a suffix), as ``fig.savefig(path)`` would choose; then
    :func:`gym_boardgames.outputs.write_bytes_atomic` writes it (a temporary file in the same folder, then a
    publish that replaces a file only with ``replace``). An error or a kill mid-save leaves the earlier file at
    ``path`` whole and no partial file behind. The figure is closed either way, so pyplot does not keep it (the
    scripts draw each figure once).

    Args:
        fig: a ``matplotlib.figure.Figure``.
        path: the file to write, e.g. ``curve.png``.
        replace: replace a file at ``path`` (a script passes its ``--overwrite``).
        **savefig_kwargs: passed to ``fig.savefig``, e.g. ``dpi=100`` or ``format="png"``.
    """
    suffix = os.path.splitext(os.fspath(path))[1].lstrip(".").lower()
    savefig_kwargs.setdefault("format", suffix or "png")
    buffer = io.BytesIO()
    try:
        fig.savefig(buffer, **savefig_kwargs)
    finally:
        if "matplotlib.pyplot" in sys.modules:  # a figure pyplot made is pyplot's until closed
            sys.modules["matplotlib.pyplot"].close(fig)
    return write_bytes_atomic(path, buffer.getvalue(), replace=replace)


def add_tensorboard_flag(parser: argparse.ArgumentParser, what: str) -> None:
    """Add ``--tensorboard DIR``: log ``what`` (e.g. ``"the losses and evaluations"``) to TensorBoard."""
    parser.add_argument(
        "--tensorboard",
        metavar="DIR",
        help=f"log {what} to TensorBoard event files in DIR (created if missing; needs the tensorboard extra)",
    )


def check_tensorboard(logdir: str | os.PathLike[str] | None) -> None:
    """Check, before any work, that ``--tensorboard logdir`` can be written: the package and the folder.

    Does nothing when ``logdir`` is None (no ``--tensorboard``).

    Raises:
        ValueError: one line: :data:`TENSORBOARD_MISSING` without the ``tensorboard`` package, else the
            folder's problem (:func:`check_output_path`).
    """
    if logdir is None:
        return
    try:
        _tensorboard_api()
    except ImportError:
        raise ValueError(TENSORBOARD_MISSING) from None
    check_output_path(logdir, "--tensorboard", kind="dir")


def _tensorboard_api() -> tuple[Any, Any, Any]:
    """Return TensorBoard's ``EventFileWriter``, ``Event`` and ``Summary`` (raises ImportError without them)."""
    from tensorboard.compat.proto.event_pb2 import Event
    from tensorboard.compat.proto.summary_pb2 import Summary
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    return EventFileWriter, Event, Summary


class TensorBoardLog:
    """Scalars to a TensorBoard event file in ``logdir``, written by the ``tensorboard`` package alone (no torch).

    Each :meth:`scalar` is one event with a ``simple_value`` summary, the record ``SummaryWriter.add_scalar``
    of PyTorch writes, so TensorBoard's Scalars tab and its ``EventAccumulator.Scalars`` read it. A run
    resumed into the same folder adds a new event file; TensorBoard shows both on one curve by step.
    Use it as a context manager, or call :meth:`close` (which flushes).

    Args:
        logdir: the folder (created if missing); :func:`check_tensorboard` has checked it.
        flush_secs: how often buffered events reach the file while training runs.
    """

    def __init__(self, logdir: str | os.PathLike[str], flush_secs: float = 10.0) -> None:
        event_file_writer, self._event, self._summary = _tensorboard_api()
        os.makedirs(logdir, exist_ok=True)
        self.logdir = os.fspath(logdir)
        self._writer = event_file_writer(self.logdir, flush_secs=flush_secs)

    def scalar(self, tag: str, value: float, step: int) -> None:
        """Log ``value`` under ``tag`` (e.g. ``"loss/policy"``) at ``step``."""
        summary = self._summary(value=[self._summary.Value(tag=tag, simple_value=float(value))])
        self._writer.add_event(self._event(summary=summary, step=int(step), wall_time=time.time()))

    def scalars(self, values: dict[str, float], step: int) -> None:
        """Log each ``tag: value`` of ``values`` at ``step``."""
        for tag, value in values.items():
            self.scalar(tag, value, step)

    def close(self) -> None:
        """Flush and close the event file."""
        self._writer.close()

    def __enter__(self) -> TensorBoardLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
