"""Helpers of the saved-file tests (agents.persistence and the formats built on it): hand-made hostile
files and a bounded refusal check."""

import io
import json
import os
import zipfile

import numpy as np
import numpy.lib.format as npy_format
import pytest

from agents import persistence
from agents.persistence import SavedFileError


def npy_bytes(shape, dtype=np.float64, data=b""):
    """The bytes of a .npy file whose header claims ``shape`` and ``dtype``, followed by ``data``."""
    out = io.BytesIO()
    header = {"descr": npy_format.dtype_to_descr(np.dtype(dtype)), "fortran_order": False, "shape": shape}
    npy_format.write_array_header_1_0(out, header)
    return out.getvalue() + data


def header_npy(meta, format_name="gym_boardgames.test", version=1):
    """The bytes of the ``__header__`` member ``save_npz`` writes for ``meta``, ``format_name`` and ``version``."""
    out = io.BytesIO()
    np.save(out, np.array(json.dumps({"format": format_name, "version": version, "meta": meta})))
    return out.getvalue()


def write_zip(path, members):
    """Write the zip archive ``path`` holding ``members`` ({name: bytes}) as they are."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def only_the_header_is_read(monkeypatch):
    """Make reading any array but the ``__header__`` string fail the test."""
    real = npy_format.read_array

    def spy(fp, *args, **kwargs):
        if getattr(fp, "name", None) != "__header__.npy":
            pytest.fail(f"array data was read from {getattr(fp, 'name', fp)}")
        return real(fp, *args, **kwargs)

    monkeypatch.setattr(npy_format, "read_array", spy)


#: Work a refusal may take, counted, not timed. Refusals run a few thousand Python lines (100,000 covers numpy's
#: re-tokenizing of a damaged .npy header, about 50,000) and hold at most the read buffer of a file at the size
#: cap (MAX_FILE_BYTES, 64 MiB). The files claim boards of a million rows or arrays of terabytes: building or
#: allocating what they claim would run millions of lines or take gigabytes.
REFUSAL_LINES = 100_000
REFUSAL_BYTES = 2 * persistence.MAX_FILE_BYTES


def expect_refused(work_budget, call, path, pattern, max_lines=REFUSAL_LINES):
    """Assert ``call()`` raises SavedFileError naming ``path`` and matching ``pattern``, within ``max_lines``
    Python lines and ``REFUSAL_BYTES`` of allocation; return the error."""
    with work_budget.bounded(max_lines=max_lines, max_bytes=REFUSAL_BYTES):
        with pytest.raises(SavedFileError, match=pattern) as info:
            call()
    assert str(info.value).startswith(os.fspath(path) + ": ")
    return info.value
