"""Saving and loading agents as ``.npz`` (numpy arrays) or JSON, with a format header; never pickle.

Every saved file names its format (e.g. ``"gym_boardgames.td"``) and an integer version, plus free
JSON metadata (``meta``: the game, training settings, ...):

* ``.npz``: a zip of ``.npy`` arrays as written by :func:`numpy.savez_compressed`. The header is the
  array ``__header__``, a 0-d unicode string holding ``{"format": ..., "version": ..., "meta": ...}``
  as JSON, so the file stays readable with ``np.load(path, allow_pickle=False)``.
* JSON: one object ``{"format": ..., "version": ..., "meta": ..., "data": ...}``.

Writes are atomic (:func:`gym_boardgames.utils.write_bytes_atomic`: a temporary file in the same
folder, then ``os.replace``), so an interrupted save leaves the previous file intact. Loading checks
everything it relies on and raises :class:`SavedFileError` (a :class:`ValueError`) naming the file
and what is wrong: not the
expected kind of file, corrupt or truncated, a foreign file without our header, another format, an
unsupported version, a missing array, or an array of the wrong shape or dtype. Arrays are always read
with ``allow_pickle=False``: a file can never run code when it is loaded.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
import zlib
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from gym_boardgames.utils import write_bytes_atomic

#: Name of the header array inside our ``.npz`` files.
HEADER = "__header__"

PathLike = str | os.PathLike[str]

# A zip file (npz) starts with a local file header, or with the end-of-central-directory record when empty.
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_NPY_MAGIC = b"\x93NUMPY"
# What numpy and zipfile raise on damaged archives: bad CRCs and truncated members (BadZipFile, EOFError),
# broken deflate streams (zlib.error), unreadable .npy headers (ValueError), short reads (OSError).
_CORRUPT = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, KeyError)


class SavedFileError(ValueError):
    """A saved file that cannot be used: the message names the file and what is wrong with it."""

    def __init__(self, path: PathLike, problem: str) -> None:
        super().__init__(f"{os.fspath(path)}: {problem}")
        self.path = os.fspath(path)
        self.problem = problem


@dataclass(frozen=True)
class ArraySpec:
    """What an array in a saved file must look like.

    Attributes:
        shape: the expected shape; ``None`` in a position accepts any length there.
        dtype: the exact expected dtype (e.g. ``np.float64``).
    """

    shape: tuple[int | None, ...]
    dtype: Any

    def problem(self, array: np.ndarray) -> str | None:
        """Return what is wrong with ``array`` (a phrase), or None if it matches."""
        expected_dtype = np.dtype(self.dtype)
        if array.dtype != expected_dtype:
            return f"dtype {array.dtype}, expected {expected_dtype}"
        if len(array.shape) != len(self.shape) or any(
            want is not None and got != want for got, want in zip(array.shape, self.shape, strict=True)
        ):
            shown = tuple("any" if s is None else s for s in self.shape)
            return f"shape {array.shape}, expected {shown}"
        return None


class LoadedArrays(NamedTuple):
    """The content of a checked ``.npz`` file.

    Attributes:
        version: the file's format version (one of the versions the caller accepts).
        meta: the JSON metadata stored with the arrays.
        arrays: the arrays named in the caller's schema, checked against it.
    """

    version: int
    meta: dict[str, Any]
    arrays: dict[str, np.ndarray]


class LoadedJSON(NamedTuple):
    """The content of a checked JSON file.

    Attributes:
        version: the file's format version (one of the versions the caller accepts).
        meta: the JSON metadata.
        data: the payload.
    """

    version: int
    meta: dict[str, Any]
    data: Any


def _header(format_name: str, version: int, meta: Mapping[str, Any] | None) -> dict[str, Any]:
    """Build and check a header; ``meta`` must be JSON-serialisable."""
    if not isinstance(format_name, str) or not format_name:
        raise ValueError(f"format must be a non-empty string, got {format_name!r}")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise ValueError(f"version must be an integer >= 1, got {version!r}")
    header = {"format": format_name, "version": version, "meta": dict(meta or {})}
    try:
        json.dumps(header, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"meta must be JSON-serialisable: {exc}") from None
    return header


def save_npz(
    path: PathLike,
    arrays: Mapping[str, np.ndarray],
    *,
    format: str,  # noqa: A002  (the word users see in the file and the error messages)
    version: int,
    meta: Mapping[str, Any] | None = None,
) -> None:
    """Write ``arrays`` and a format header to a compressed ``.npz`` file, atomically.

    The archive is built in memory, then written through a temporary file and a rename, so readers
    never see half a file and a failed write leaves any old file at ``path`` untouched.

    Args:
        path: the file to write (conventionally ending in ``.npz``).
        arrays: name -> array; names must not start with ``__``; object arrays are refused.
        format: the format name stored in the header, e.g. ``"gym_boardgames.td"``.
        version: the integer format version (>= 1).
        meta: JSON-serialisable metadata stored in the header.

    Raises:
        ValueError: on a bad format/version, non-JSON metadata, a reserved name or an object array.
        OSError: if the file cannot be written.
    """
    header = _header(format, version, meta)
    payload: dict[str, np.ndarray] = {}
    for name, value in arrays.items():
        if name.startswith("__"):
            raise ValueError(f"array name {name!r} is reserved (names starting with '__')")
        array = np.asarray(value)
        if array.dtype.hasobject:
            raise ValueError(f"array {name!r} has dtype object, which can only be stored by pickling")
        payload[name] = array
    payload[HEADER] = np.array(json.dumps(header, allow_nan=False))
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **payload)
    write_bytes_atomic(path, buffer.getvalue())


def _read_bytes(path: PathLike) -> bytes:
    """Read a whole file, with errors that name it."""
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        raise FileNotFoundError(f"{os.fspath(path)}: no such file") from None
    except IsADirectoryError:
        raise SavedFileError(path, "is a directory, not a saved file") from None


def _check_header(path: PathLike, header: Any, format_name: str, versions: Collection[int]) -> tuple[int, dict]:
    """Validate a decoded header; return ``(version, meta)``."""
    where = os.fspath(path)
    if not isinstance(header, dict) or "format" not in header or "version" not in header:
        raise SavedFileError(where, "the header has no 'format' and 'version' fields: not a gym_boardgames file")
    found = header["format"]
    if found != format_name:
        raise SavedFileError(where, f"holds format {found!r}, expected {format_name!r}")
    version = header["version"]
    accepted = sorted(versions)
    if isinstance(version, bool) or not isinstance(version, int) or version not in accepted:
        raise SavedFileError(
            where,
            f"format {format_name!r} version {version!r} is not supported (this code reads versions "
            f"{', '.join(map(str, accepted))})",
        )
    meta = header.get("meta", {})
    if not isinstance(meta, dict):
        raise SavedFileError(where, f"the header's 'meta' is {type(meta).__name__}, expected an object")
    return version, meta


def load_npz(
    path: PathLike,
    *,
    format: str,  # noqa: A002
    versions: Collection[int],
    schema: Mapping[str, ArraySpec],
) -> LoadedArrays:
    """Read and check an ``.npz`` file written by :func:`save_npz` (never unpickling anything).

    Args:
        path: the file to read.
        format: the format name the file must hold.
        versions: the format versions this caller understands.
        schema: name -> :class:`ArraySpec` of every array the caller needs; other arrays are ignored.

    Returns:
        The version, metadata and the checked arrays (only those in ``schema``).

    Raises:
        FileNotFoundError: if ``path`` does not exist (the message names it).
        ValueError: naming the file and the problem, if it is not an ``.npz`` file, is corrupt or
            truncated, has no header (a foreign file), holds another format or an unsupported version,
            lacks an array of ``schema`` or has one of the wrong shape or dtype.
    """
    where = os.fspath(path)
    raw = _read_bytes(path)
    if raw.startswith(_NPY_MAGIC):
        raise SavedFileError(where, "is a single .npy array, not an .npz archive")
    if not raw.startswith(_ZIP_MAGIC):
        raise SavedFileError(where, "is not an .npz file (no zip signature)")
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as archive:
            names = set(archive.files)
            if HEADER not in names:
                listed = ", ".join(sorted(names)) or "none"
                raise SavedFileError(where, f"has no {HEADER!r} header: not a gym_boardgames file (arrays: {listed})")
            header_array = archive[HEADER]
            if header_array.shape != () or header_array.dtype.kind != "U":
                raise SavedFileError(where, f"the {HEADER!r} array is not a JSON string")
            try:
                header = json.loads(str(header_array))
            except json.JSONDecodeError as exc:
                raise SavedFileError(where, f"the header is not valid JSON ({exc})") from None
            version, meta = _check_header(path, header, format, versions)
            arrays: dict[str, np.ndarray] = {}
            for name, spec in schema.items():
                if name not in names:
                    raise SavedFileError(where, f"missing array {name!r}")
                array = archive[name]
                problem = spec.problem(array)
                if problem is not None:
                    raise SavedFileError(where, f"array {name!r} has {problem}")
                arrays[name] = array
    except SavedFileError:
        raise
    except _CORRUPT as exc:
        raise SavedFileError(where, f"corrupt or truncated .npz file ({type(exc).__name__}: {exc})") from None
    return LoadedArrays(version, meta, arrays)


def save_json(
    path: PathLike,
    data: Any,
    *,
    format: str,  # noqa: A002
    version: int,
    meta: Mapping[str, Any] | None = None,
) -> None:
    """Write ``data`` with a format header as one JSON object, atomically.

    Args:
        path: the file to write.
        data: the JSON-serialisable payload (NaN and infinities are refused: JSON has no such numbers).
        format: the format name stored in the header.
        version: the integer format version (>= 1).
        meta: JSON-serialisable metadata.

    Raises:
        ValueError: on a bad format/version or content JSON cannot hold.
        OSError: if the file cannot be written.
    """
    document = _header(format, version, meta)
    try:
        document["data"] = json.loads(json.dumps(data, allow_nan=False))
        text = json.dumps(document, allow_nan=False, indent=1)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"data must be JSON-serialisable: {exc}") from None
    write_bytes_atomic(path, (text + "\n").encode("utf-8"))


def load_json(
    path: PathLike,
    *,
    format: str,  # noqa: A002
    versions: Collection[int],
    required: Mapping[str, type | tuple[type, ...]] | None = None,
) -> LoadedJSON:
    """Read and check a JSON file written by :func:`save_json`.

    Args:
        path: the file to read.
        format: the format name the file must hold.
        versions: the format versions this caller understands.
        required: if given, ``data`` must be an object with these keys, each of the given type(s).

    Returns:
        The version, metadata and payload.

    Raises:
        FileNotFoundError: if ``path`` does not exist (the message names it).
        ValueError: naming the file and the problem, if it is not UTF-8 JSON (or is truncated), has no
            header, holds another format or an unsupported version, or lacks a required key.
    """
    where = os.fspath(path)
    raw = _read_bytes(path)
    try:
        document = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise SavedFileError(where, "is not a JSON file (not UTF-8 text)") from None
    except json.JSONDecodeError as exc:
        raise SavedFileError(where, f"is not valid JSON, or is truncated ({exc})") from None
    if not isinstance(document, dict):
        raise SavedFileError(where, f"holds a JSON {type(document).__name__}, expected an object with a header")
    version, meta = _check_header(path, document, format, versions)
    if "data" not in document:
        raise SavedFileError(where, "has no 'data' field")
    data = document["data"]
    if required:
        if not isinstance(data, dict):
            raise SavedFileError(where, f"'data' is {type(data).__name__}, expected an object")
        for key, kind in required.items():
            if key not in data:
                raise SavedFileError(where, f"'data' is missing the key {key!r}")
            value = data[key]
            # bool is an int in Python; a flag where a number is expected is still a wrong type.
            if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _as_tuple(kind)):
                raise SavedFileError(where, f"'data'[{key!r}] is {type(value).__name__}, expected {_type_names(kind)}")
    return LoadedJSON(version, meta, data)


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _type_names(kind: type | tuple[type, ...]) -> str:
    return " or ".join(k.__name__ for k in _as_tuple(kind))
