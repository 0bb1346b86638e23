"""Saved agents as ``.npz`` files: numpy arrays under a format header, written atomically, never pickled.

An ``.npz`` is a zip of ``.npy`` arrays plus :data:`HEADER`, a 0-d string holding ``{"format", "version", "meta"}``
as JSON, so ``np.load(path, allow_pickle=False)`` opens it. Loading treats every file as hostile and checks before
it allocates: the file's kind and size, the zip's entry count, the header, the arrays' total size from the zip
directory, each array's dtype and shape from its ``.npy`` header, then the data. Problems raise SavedFileError.
"""

from __future__ import annotations

import io
import json
import lzma
import math
import os
import struct
import tokenize
import zipfile
import zlib
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import numpy.lib.format as npy_format

from gym_boardgames.checks import check_choice, check_int, read_regular_file
from gym_boardgames.errors import BadFileError
from gym_boardgames.outputs import write_bytes_atomic

HEADER = "__header__"  #: Name of the header array inside our ``.npz`` files.
MAX_FILE_BYTES = 64 * 1024 * 1024  #: Default largest ``.npz`` read (a TD table is 20 KB, a network 250 KB).
MAX_DATA_BYTES = 256 * 1024 * 1024  #: Default largest total size of the arrays an ``.npz`` load decompresses.
MAX_MEMBERS = 1024  #: Most members (arrays) an ``.npz`` file may hold.
MAX_HEADER_CHARS = 1_000_000  #: Longest ``.npz`` header, in characters.
MAX_INT_DIGITS = 100  #: Most digits of an integer in saved JSON (Python refuses beyond 4300, naming no file).

PathLike = str | os.PathLike[str]
_COMPRESSIONS = {"deflate": zipfile.ZIP_DEFLATED, "lzma": zipfile.ZIP_LZMA}
_NPY_HEADERS = {(1, 0): npy_format.read_array_header_1_0, (2, 0): npy_format.read_array_header_2_0}
# What zipfile and numpy raise on damage: bad CRCs, truncation, broken deflate/lzma streams, unparsable .npy headers
# (SyntaxError, TokenError; TypeError or KeyError from a strange dtype), an encrypted or unknown member (RuntimeError).
_CORRUPT = (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, OSError, ValueError, KeyError, TypeError)
_CORRUPT += (SyntaxError, struct.error, RuntimeError, OverflowError, tokenize.TokenError)


class SavedFileError(BadFileError):
    """A saved file that cannot be used: a ``BadFileError`` (a ``ValueError``) naming the file and the problem."""

    def __init__(self, path: PathLike, problem: str) -> None:
        super().__init__(os.fspath(path), problem)


def check_file(ok: object, path: PathLike, problem: str) -> None:
    """Raise :class:`SavedFileError` naming ``path`` and ``problem`` unless ``ok``: every loader's one refusal."""
    if not ok:
        raise SavedFileError(path, problem)


def short_repr(value: Any, limit: int = 80) -> str:
    """Return ``repr(value)`` cut to ``limit`` characters: a hostile file's values can be megabytes long."""
    text = repr(value) if not isinstance(value, (dict, list)) or len(value) < 100 else f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class ArraySpec:
    """What an array in a saved file must look like.

    Attributes:
        shape: the expected shape; ``None`` in a position accepts any length there.
        dtype: the exact expected dtype (e.g. ``np.float32``).
        max_size: if given, the most elements accepted (bounds a shape holding ``None``).
        finite: if True, NaN and infinities are refused.
    """

    shape: tuple[int | None, ...]
    dtype: Any
    max_size: int | None = None
    finite: bool = False

    def shape_problem(self, shape: tuple[int, ...], dtype: np.dtype) -> str | None:
        """Return what is wrong with an array of this ``shape`` and ``dtype`` (a phrase), or None."""
        if dtype != np.dtype(self.dtype):
            return f"dtype {dtype}, expected {np.dtype(self.dtype)}"
        if len(shape) != len(self.shape) or any(w not in (None, g) for g, w in zip(shape, self.shape, strict=True)):
            return f"shape {short_repr(shape)}, expected {tuple('any' if s is None else s for s in self.shape)}"
        if self.max_size is not None and math.prod(shape) > self.max_size:
            return f"{math.prod(shape)} elements, more than the {self.max_size} accepted"
        return None

    def problem(self, array: np.ndarray) -> str | None:
        """Return what is wrong with ``array`` (a phrase), or None if it matches."""
        problem = self.shape_problem(array.shape, array.dtype)
        if problem is None and self.finite and array.dtype.kind in "fc" and not np.isfinite(array).all():
            return "NaN or infinite values"
        return problem


#: The arrays a caller needs: a fixed mapping, or a function of ``(version, meta)`` returning it.
Schema = Mapping[str, ArraySpec] | Callable[[int, dict[str, Any]], Mapping[str, ArraySpec]]


class LoadedArrays(NamedTuple):
    """A checked ``.npz`` file: its ``version``, ``meta`` and the ``arrays`` of the caller's schema."""

    version: int
    meta: dict[str, Any]
    arrays: dict[str, np.ndarray]


def save_npz(
    path: PathLike,
    arrays: Mapping[str, np.ndarray],
    *,
    format: str,
    version: int,
    meta: Mapping[str, Any] | None = None,
    compression: str = "deflate",
    replace: bool = True,
) -> str:
    """Write ``arrays`` (numeric, dtypes kept) and a format header to an ``.npz`` file, atomically; return the path.

    Args:
        path: the file to write.
        arrays: name -> array; names non-empty, not starting with ``__``; fewer than :data:`MAX_MEMBERS`.
        format: the format name stored in the header, e.g. ``"gym_boardgames.td"``.
        version: the integer format version (>= 1).
        meta: JSON-serialisable metadata stored in the header.
        compression: ``"deflate"`` (as ``numpy.savez_compressed``) or ``"lzma"`` (smaller, slower to write).
        replace: replace a file at ``path``; with False a taken name is refused
            (:func:`gym_boardgames.outputs.write_bytes_atomic`).

    Raises:
        ValueError: on a bad argument, non-JSON metadata, an object array or too many arrays.
        OSError: if the file cannot be written.
    """
    if not isinstance(format, str) or not format:
        raise ValueError(f"format must be a non-empty string, got {format!r}")
    header = {"format": format, "version": check_int("version", version, 1), "meta": dict(meta or {})}
    try:
        text = json.dumps(header, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"meta must be JSON-serialisable: {exc}") from None
    if len(text) > MAX_HEADER_CHARS:
        raise ValueError(f"meta is too large: its JSON header has {len(text)} characters, at most {MAX_HEADER_CHARS}")
    check_choice("compression", compression, list(_COMPRESSIONS))
    if len(arrays) >= MAX_MEMBERS:
        raise ValueError(f"at most {MAX_MEMBERS - 1} arrays can be saved in one file, got {len(arrays)}")
    payload = {name: np.asarray(value) for name, value in arrays.items()}
    for name, array in payload.items():
        if not isinstance(name, str) or not name or name.startswith("__"):
            raise ValueError(f"array names must be non-empty strings not starting with '__', got {name!r}")
        if array.dtype.hasobject:
            raise ValueError(f"array {name!r} has dtype object, which can only be stored by pickling")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=_COMPRESSIONS[compression]) as archive:
        for name, array in {**payload, HEADER: np.array(text)}.items():
            with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
                npy_format.write_array(member, array, allow_pickle=False)
    return write_bytes_atomic(path, buffer.getvalue(), replace=replace)


def _strict_number(text: str) -> int | float:
    if text in ("NaN", "Infinity", "-Infinity"):
        raise ValueError(f"{text} is not a JSON number")
    if (digits := text.lstrip("-")).isdigit():
        if len(digits) > MAX_INT_DIGITS:
            raise ValueError(f"an integer of {len(digits)} digits (at most {MAX_INT_DIGITS})")
        return int(text)
    if not math.isfinite(value := float(text)):
        raise ValueError(f"the number {text[:40]} overflows a float")
    return value


def parse_json(path: PathLike, text: str, subject: str = "the file") -> Any:
    """Parse saved JSON strictly, or raise :class:`SavedFileError` naming ``path`` and ``subject``.

    Refused: ``NaN`` and ``Infinity`` (not JSON), numbers that overflow a float, integers of more than
    :data:`MAX_INT_DIGITS` digits, and nesting deeper than Python's recursion limit.
    """
    try:
        return json.loads(text, parse_constant=_strict_number, parse_float=_strict_number, parse_int=_strict_number)
    except json.JSONDecodeError as exc:
        problem = f"is not valid JSON, or is truncated ({exc})"
    except RecursionError:
        problem = "holds JSON nested too deeply"
    except ValueError as exc:
        problem = f"holds JSON this loader refuses: {exc}"
    raise SavedFileError(path, f"{subject} {problem}") from None


def _check_header(path: PathLike, header: Any, format_name: str, versions: Collection[int]) -> tuple[int, dict]:
    fields = isinstance(header, dict) and "format" in header and "version" in header
    check_file(fields, path, "the header has no 'format' and 'version' fields: not a gym_boardgames file")
    found, version, meta = header["format"], header["version"], header.get("meta", {})
    check_file(found == format_name, path, f"holds format {short_repr(found)}, expected {format_name!r}")
    accepted = ", ".join(map(str, sorted(versions)))
    supported = not isinstance(version, bool) and isinstance(version, int) and version in versions
    problem = f"version {short_repr(version)} is not supported (this code reads versions {accepted})"
    check_file(supported, path, f"format {format_name!r} {problem}")
    check_file(isinstance(meta, dict), path, f"the header's 'meta' is {type(meta).__name__}, expected an object")
    return version, meta


def _read_checked(path: PathLike, archive: zipfile.ZipFile, name: str, problem: Callable[..., str | None]) -> Any:
    """Read member ``name`` once its ``.npy`` header passes ``problem(shape, dtype)`` and fits the member's size."""
    # The header's bytes alone are decompressed first: read_array allocates what the header claims before it
    # reads, so a claim beyond the member's size (zipfile never gives more) is refused.
    with archive.open(info := archive.getinfo(f"{name}.npy")) as handle:
        version = npy_format.read_magic(handle)
        check_file(version in _NPY_HEADERS, path, f"array {name!r} has .npy version {version}, expected 1.0 or 2.0")
        shape, _, dtype = _NPY_HEADERS[version](handle)
    found = problem(shape, dtype)
    check_file(found is None, path, f"array {name!r} has {found}")
    fits = min(shape, default=0) >= 0 and math.prod(shape) * dtype.itemsize <= info.file_size
    claim = f"claims shape {short_repr(shape)} in a zip member of {info.file_size} bytes: corrupt"
    check_file(fits, path, f"array {name!r} {claim}")
    with archive.open(info) as handle:
        return npy_format.read_array(handle, allow_pickle=False)


def _header_problem(shape: tuple[int, ...], dtype: np.dtype) -> str | None:
    if shape != () or dtype.kind != "U":
        return f"shape {short_repr(shape)} and dtype {dtype}: the header is not a JSON string"
    if dtype.itemsize > 4 * MAX_HEADER_CHARS:
        return f"dtype {dtype}: the header is longer than {MAX_HEADER_CHARS} characters"
    return None


def load_npz(
    path: PathLike,
    *,
    format: str,
    versions: Collection[int],
    schema: Schema,
    allow_extra: bool = True,
    max_file_bytes: int = MAX_FILE_BYTES,
    max_data_bytes: int = MAX_DATA_BYTES,
) -> LoadedArrays:
    """Read and check an ``.npz`` file written by :func:`save_npz`, never allocating before checking.

    Args:
        path: the file to read.
        format: the format name the file must hold.
        versions: the format versions this caller reads.
        schema: name -> :class:`ArraySpec` of every array needed, or ``schema(version, meta)`` returning it,
            called once the header is checked; a ``ValueError`` or ``TypeError`` it raises names the file.
        allow_extra: if False, arrays not in the schema are refused; if True, they are never decompressed.
        max_file_bytes: the largest file accepted.
        max_data_bytes: the largest total size of the schema's arrays, decompressed.

    Returns:
        The version, the metadata and the arrays of ``schema``.

    Raises:
        FileNotFoundError: if ``path`` does not exist.
        SavedFileError: naming the file and the problem.
        ValueError: if ``max_file_bytes`` or ``max_data_bytes`` is not a positive integer.
    """
    check_int("max_data_bytes", max_data_bytes, 1)
    try:
        raw = read_regular_file(path, max_file_bytes, limit_name="max_file_bytes")
    except BadFileError as error:
        raise SavedFileError(path, error.problem) from None
    check_file(not raw.startswith(npy_format.MAGIC_PREFIX), path, "is a single .npy array, not an .npz archive")
    # A zip's first local header, or an empty zip's end.
    check_file(raw.startswith((b"PK\x03\x04", b"PK\x05\x06")), path, "is not an .npz file (no zip signature)")
    # Opening a zip builds a Python object per central-directory entry: count them first, at C speed.
    entries = raw.count(b"PK\x01\x02")
    check_file(entries <= MAX_MEMBERS, path, f"holds about {entries} zip entries, more than the {MAX_MEMBERS} accepted")
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as npz:
            archive, names = npz.zip, {n[:-4] for n in npz.zip.namelist() if n.endswith(".npy")}
            check_file(HEADER in names, path, f"has no {HEADER!r} header: not a gym_boardgames file")
            header = parse_json(path, str(_read_checked(path, archive, HEADER, _header_problem)), "the header")
            version, meta = _check_header(path, header, format, versions)
            try:
                wanted = dict(schema(version, meta) if callable(schema) else schema)
            except (TypeError, ValueError) as exc:
                problem = f"its header is not usable: {exc}"
                raise exc if isinstance(exc, SavedFileError) else SavedFileError(path, problem) from None
            extra = ", ".join(sorted(names - set(wanted) - {HEADER})[:20])
            check_file(allow_extra or not extra, path, f"holds arrays this format does not have: {extra}")
            missing = [name for name in wanted if name not in names]
            check_file(not missing, path, f"missing array {', '.join(map(repr, missing[:1]))}")
            size = sum(archive.getinfo(f"{name}.npy").file_size for name in wanted)
            too_much = f"its arrays take more than the limit of {max_data_bytes} bytes (max_data_bytes)"
            check_file(size <= max_data_bytes, path, too_much)
            arrays = {name: _read_checked(path, archive, name, spec.shape_problem) for name, spec in wanted.items()}
    except _CORRUPT as exc:
        problem = f"corrupt or truncated .npz file ({type(exc).__name__}: {short_repr(str(exc))})"
        raise exc if isinstance(exc, SavedFileError) else SavedFileError(path, problem) from None
    for name, spec in wanted.items():
        problem = spec.problem(arrays[name])  # the data may still disagree with a forged header
        check_file(problem is None, path, f"array {name!r} has {problem}")
    return LoadedArrays(version, meta, arrays)
