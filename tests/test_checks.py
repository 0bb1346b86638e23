"""Tests of gym_boardgames.checks: the shared argument checks and the bounded file read."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

from gym_boardgames.checks import check_int, check_number, read_regular_file
from gym_boardgames.errors import BadFileError


def test_check_int_returns_plain_int() -> None:
    value = check_int("episodes", np.int64(7), 1)
    assert value == 7 and type(value) is int


@pytest.mark.parametrize("value", [True, np.bool_(True), 0, 6, 1.0, "3", None])
def test_check_int_refuses_names_range_and_value(value: object) -> None:
    with pytest.raises(ValueError, match=r"^episodes must be an integer in \[1, 5\], got "):
        check_int("episodes", value, 1, 5)


def test_check_int_without_upper_bound() -> None:
    assert check_int("seed", 10**30, 0) == 10**30
    with pytest.raises(ValueError, match="seed must be an integer >= 0, got -1"):
        check_int("seed", -1, 0)


def test_check_number_interval_ends() -> None:
    assert check_number("alpha", 1, 0, 1, low_open=True) == 1.0
    with pytest.raises(ValueError, match=r"alpha must be a number in \(0, 1\], got 0"):
        check_number("alpha", 0, 0, 1, low_open=True)
    with pytest.raises(ValueError, match=r"gamma must be a number in \[0, 1\), got 1.0"):
        check_number("gamma", 1.0, 0, 1, high_open=True)
    assert check_number("c", 1e300, 0, math.inf) == 1e300


@pytest.mark.parametrize("value", [math.nan, True, "0.5", None, math.inf])
def test_check_number_refuses(value: object) -> None:
    with pytest.raises(ValueError, match=r"^epsilon must be a number in \[0, 1\], got "):
        check_number("epsilon", value, 0, 1)


def test_read_regular_file_reads_up_to_the_limit(tmp_path) -> None:
    path = tmp_path / "f.bin"
    path.write_bytes(b"abc")
    assert read_regular_file(path, 3) == b"abc"
    with pytest.raises(BadFileError, match=r"f.bin: is 3 bytes, more than the limit of 2$"):
        read_regular_file(path, 2)


def test_read_regular_file_refuses_special_files(tmp_path) -> None:
    with pytest.raises(BadFileError, match="is a directory, not a map file"):
        read_regular_file(tmp_path, 10, what="a map file")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # opening it for reading must not block
    with pytest.raises(BadFileError, match=r"is not a regular file \(a FIFO\)"):
        read_regular_file(fifo, 10)
    with pytest.raises(BadFileError, match=r"character device"):
        read_regular_file("/dev/zero", 10)
    with pytest.raises(FileNotFoundError, match="no such file"):
        read_regular_file(tmp_path / "missing", 10)
    with pytest.raises(ValueError, match="max_bytes must be an integer >= 1"):
        read_regular_file(tmp_path / "missing", 0)


def test_read_regular_file_names_the_callers_setting(tmp_path) -> None:
    path = tmp_path / "f.bin"
    path.write_bytes(b"abc")
    with pytest.raises(BadFileError, match=r"more than the limit of 2 \(max_file_bytes\)$"):
        read_regular_file(path, 2, limit_name="max_file_bytes")
    with pytest.raises(ValueError, match="max_file_bytes must be an integer >= 1, got 0"):
        read_regular_file(path, 0, limit_name="max_file_bytes")
