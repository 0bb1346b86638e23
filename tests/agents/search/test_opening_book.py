"""agents.search.opening_book: the installed 12-ply book is read once and checked; without the package (or its
file) there is no book; a file that is no book is refused naming it.

Reading a hand-made book and the refusal of truncated, unsorted and out-of-range files are in
test_connect_four_solver.py, beside the solver that reads the book.
"""

import numpy as np
import pytest

from agents.search import opening_book
from agents.search.opening_book import BOOK_FILE, default_book, read_book


@pytest.fixture
def fresh_default_book():
    """``default_book`` with its cache emptied before and after (the next caller reads the real book again)."""
    default_book.cache_clear()
    yield default_book
    default_book.cache_clear()


def test_the_installed_book_scores_millions_of_12_stone_positions_and_is_read_once():
    pytest.importorskip("bitbully_databases", reason="the solver extra holds the opening book")
    book = default_book()
    assert book is not None and book is default_book()
    assert book.path.endswith(BOOK_FILE) and 4_000_000 < len(book) < 5_000_000
    assert repr(book) == f"OpeningBook({book.path!r}, {len(book)} positions)"
    assert np.all(np.diff(book.codes) > 0)
    # Every score is a draw or a win or loss after the 12th stone: in 100 - d, d is between 1 and 30 plies.
    distances = 100 - np.abs(book.scores[book.scores != 0].astype(np.int16))
    assert distances.min() >= 1 and distances.max() <= 30
    assert {-1, 0, 1} == set(np.sign(book.scores).tolist())


def test_without_the_package_there_is_no_book(fresh_default_book, monkeypatch):
    def missing(name):
        raise ModuleNotFoundError(f"No module named {name!r}")

    monkeypatch.setattr(opening_book.resources, "files", missing)
    assert fresh_default_book() is None


def test_a_package_without_the_book_file_gives_no_book(fresh_default_book, monkeypatch, tmp_path):
    (tmp_path / "assets").mkdir()
    monkeypatch.setattr(opening_book.resources, "files", lambda name: tmp_path)
    assert fresh_default_book() is None


def test_an_empty_file_is_refused_and_a_missing_one_is_an_os_error(tmp_path):
    empty = tmp_path / "empty.dat"
    empty.touch()
    with pytest.raises(ValueError, match=rf"{empty}: 0 bytes is not a whole number of 5-byte book records"):
        read_book(empty)
    with pytest.raises(OSError):
        read_book(tmp_path / "absent.dat")
