"""The 12-ply Connect Four opening book that :mod:`agents.search.connect_four` reads instead of searching.

The book is ``book_12ply_distances.dat`` of the MIT-licensed ``bitbully-databases`` package (the ``solver``
extra), read here by our own code. It scores about 4.2 million positions with 12 stones on the 6x7 board
(mirror images once): each record is a 4-byte big-endian signed position code and a signed byte,
0 for a draw, ``100 - d`` when the player to move wins in ``d`` plies and ``-(100 - d)`` when they lose.
Records are sorted by code, so a lookup is a binary search (:func:`agents.search.connect_four._book_score`
computes the code).

We read this book rather than compute one: a 12-ply book takes days of CPU to build, this one is 21 MB on
disk, and without any book the solver still answers exactly, only more slowly in the opening.
"""

from __future__ import annotations

import functools
import os
from importlib import resources

import numpy as np

#: The book's file name inside the ``bitbully_databases`` package.
BOOK_FILE = "book_12ply_distances.dat"
_RECORD = np.dtype([("code", ">i4"), ("score", "i1")])


class OpeningBook:
    """Sorted position codes and their scores (see the module).

    Attributes:
        codes: ``(N,)`` int32, ascending.
        scores: ``(N,)`` int8, aligned with ``codes``.
        path: the file read.
    """

    def __init__(self, codes: np.ndarray, scores: np.ndarray, path: str) -> None:
        self.codes = codes
        self.scores = scores
        self.path = path

    def __len__(self) -> int:
        return len(self.codes)

    def __repr__(self) -> str:
        return f"OpeningBook({self.path!r}, {len(self)} positions)"


def read_book(path: str | os.PathLike[str]) -> OpeningBook:
    """Read and check a book file.

    Raises:
        ValueError: if the file is not a whole number of 5-byte records, its codes are not strictly ascending,
            or a score is outside the book's range (a draw, or 100 minus a game length of 1-42 plies).
        OSError: if the file cannot be read.
    """
    raw = np.fromfile(path, dtype=np.uint8)
    if raw.size == 0 or raw.size % _RECORD.itemsize:
        raise ValueError(f"{path}: {raw.size} bytes is not a whole number of {_RECORD.itemsize}-byte book records")
    records = raw.view(_RECORD)
    codes = records["code"].astype(np.int32)
    scores = records["score"].astype(np.int8)
    if not np.all(codes[1:] > codes[:-1]):
        raise ValueError(f"{path}: the position codes are not strictly ascending; not a book file")
    distance = 100 - np.abs(scores.astype(np.int16))
    if np.any((scores != 0) & ((distance < 1) | (distance > 42))):
        raise ValueError(f"{path}: a score outside 0 and ±(100 - 1..42); not a distance book")
    return OpeningBook(codes, scores, os.fspath(path))


@functools.cache
def default_book() -> OpeningBook | None:
    """Return the book of the installed ``bitbully-databases`` package, read once, or None if it is not installed."""
    try:
        folder = resources.files("bitbully_databases") / "assets"
    except ModuleNotFoundError:
        return None
    with resources.as_file(folder / BOOK_FILE) as path:
        return read_book(path) if path.is_file() else None
