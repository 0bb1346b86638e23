"""GridWorld's maps: the text format and its checks, map files, and the documented cell limit."""

import itertools
import os
import re

import gymnasium as gym
import pytest

import gym_boardgames  # noqa: F401  (registers the ids)
from gym_boardgames.rules.gridworld import (
    EXAMPLE_4_1,
    MAX_CELLS,
    MAX_MAP_FILE_BYTES,
    load_map,
    map_from_parts,
    parse_map,
)


def test_a_map_is_rows_of_cells_from_a_sequence_or_a_text():
    assert parse_map(["T..#", ".#..", "S..T"]) == ("T..#", ".#..", "S..T")
    assert parse_map("\n    T..\n    ...\n    ..T\n") == ("T..", "...", "..T")
    assert map_from_parts((4, 4), None, None) == EXAMPLE_4_1  # the two terminal corners of example 4.1
    assert map_from_parts((2, 5), [4], [2]) == ("..#.T", ".....")


def test_the_documented_limit_is_a_200_by_200_grid():
    assert MAX_CELLS == 40_000


@pytest.mark.parametrize(
    "desc",
    [
        ["T" + "." * MAX_CELLS],
        ["T"] + ["."] * MAX_CELLS,
        "\n".join(["T" + "." * 200] + ["." * 201] * 199),
    ],
)
def test_a_map_over_the_limit_is_refused_naming_the_limit(desc):
    with pytest.raises(ValueError, match=f"at most {MAX_CELLS}"):
        parse_map(desc)


def test_an_endless_terminals_or_walls_iterable_is_refused():
    with pytest.raises(ValueError, match="more terminal states than the 16 cells"):
        map_from_parts((4, 4), itertools.repeat(0), None)
    with pytest.raises(ValueError, match="more wall states than the 16 cells"):
        map_from_parts((4, 4), None, itertools.repeat(5))
    with pytest.raises(ValueError, match="more terminal states"):
        map_from_parts((4, 4), itertools.count(), None)


def test_a_binary_map_is_a_clear_value_error():
    with pytest.raises(ValueError, match=r"the map is not text \(invalid UTF-8 at byte 1\)"):
        parse_map(b"T\xff\xfe..T")
    with pytest.raises(ValueError, match="not text"):
        parse_map([b"T..", b"\x80.T"])


def test_load_map_reads_a_map_file(tmp_path):
    path = tmp_path / "maze.txt"
    path.write_text("  T..#\n  .#..\n\n  S..T\n")
    assert load_map(path) == ("T..#", ".#..", "S..T")
    assert gym.make("GridWorld-v0", desc=load_map(str(path))).unwrapped.starts == (8,)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (bytes(range(256)), "not text"),
        (b"T.x\n..T\n", "unknown map character 'x'"),
        (b"", "empty"),
        (
            b"." * (MAX_MAP_FILE_BYTES + 1),
            f"is {MAX_MAP_FILE_BYTES + 1} bytes, more than the limit of {MAX_MAP_FILE_BYTES}",
        ),
        ((("T" + "." * 300 + "\n") * 200).encode(), f"at most {MAX_CELLS}"),
    ],
)
def test_load_map_refuses_bad_files_naming_the_file(tmp_path, content, message):
    path = tmp_path / "bad.map"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=message) as error:
        load_map(path)
    assert str(error.value).startswith(f"map file {path}: ")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_load_map_refuses_special_files_without_blocking(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, message in ((fifo, r"not a regular file \(a FIFO\), not a map file"), (tmp_path, "is a directory")):
        with pytest.raises(ValueError, match=f"^map file {re.escape(str(path))}: .*{message}"):
            load_map(path)
    if os.path.exists("/dev/zero"):
        with pytest.raises(ValueError, match=r"not a regular file \(a character device\)"):
            load_map("/dev/zero")
    with pytest.raises(ValueError, match=f"map file {tmp_path / 'missing'}: cannot read it"):
        load_map(tmp_path / "missing")
