"""Saving and loading agents as ``.npz`` (numpy arrays) or JSON, with a format header; never pickle.

Every saved file names its format (e.g. ``"gym_boardgames.td"``) and an integer version, plus free
JSON metadata (``meta``: the game, training settings, a network's configuration, ...):

* ``.npz``: a zip of ``.npy`` arrays as written by :func:`numpy.savez_compressed`. The header is the
  array ``__header__``, a 0-d unicode string holding ``{"format": ..., "version": ..., "meta": ...}``
  as JSON, so the file stays readable with ``np.load(path, allow_pickle=False)``.
* JSON: one object ``{"format": ..., "version": ..., "meta": ..., "data": ...}``.

Writes are atomic (:func:`gym_boardgames.utils.write_bytes_atomic`: a temporary file in the same
folder, then ``os.replace``), so an interrupted save leaves the previous file intact.

Loading treats every file as hostile and checks everything it can *before* allocating, so a small
file can neither hang the loader nor make it take gigabytes:

1. the path must be a regular file (:func:`gym_boardgames.checks.read_regular_file`: opened without
   blocking and checked before a byte is read, so a FIFO, ``/dev/zero`` or a directory is refused) of at
   most ``max_file_bytes`` (default :data:`MAX_FILE_BYTES`, 64 MiB, for ``.npz``;
   :data:`MAX_JSON_FILE_BYTES`, 16 MiB, for JSON);
2. an ``.npz`` may hold at most :data:`MAX_MEMBERS` arrays; the header is read first and checked (format,
   version, metadata), then the caller's schema, which may depend on the metadata (e.g. the board size);
3. each needed array's shape and dtype are read from its ``.npy`` header inside the zip and checked
   against the schema, and its byte size against the member's declared size and the ``max_data_bytes``
   budget (default :data:`MAX_DATA_BYTES`, 256 MiB, for all arrays together), all before a byte of data
   is decompressed; zip decompression never yields more than the declared size;
4. JSON (the ``.npz`` header and JSON files alike) is parsed strictly: no ``NaN``/``Infinity``, no
   number that overflows a float, integers of at most :data:`MAX_INT_DIGITS` digits, and nesting deeper
   than Python's recursion limit is an error, not a crash.

Every problem raises :class:`SavedFileError` (a :class:`ValueError`) naming the file and what is wrong:
not a regular file, too large, not the expected kind of file, corrupt or truncated, a foreign file
without our header, another format, an unsupported version, a missing array, or an array of the wrong
shape, size or dtype. A missing file raises :class:`FileNotFoundError` naming it. Arrays are always read
with ``allow_pickle=False``: a file can never run code when it is loaded.

Example: the weights of a network, several float32 arrays of known shapes plus a JSON configuration::

    save_npz("net.npz", {"w1": w1, "b1": b1}, format="my.net", version=1, meta={"hidden": 64})

    def schema(version, meta):  # called after the header is checked, before any array is read
        hidden = meta["hidden"]  # check it (raise SavedFileError or ValueError) before trusting it
        return {"w1": ArraySpec((9, hidden), np.float32, finite=True), "b1": ArraySpec((hidden,), np.float32)}

    loaded = load_npz("net.npz", format="my.net", versions={1}, schema=schema, allow_extra=False)
    w1 = loaded.arrays["w1"]
"""

from __future__ import annotations

import io
import json
import lzma
import math
import os
import struct
import tokenize
import warnings
import zipfile
import zlib
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import numpy.lib.format as npy_format

from gym_boardgames.checks import check_int, read_regular_file
from gym_boardgames.errors import BadFileError
from gym_boardgames.outputs import write_bytes_atomic

#: Name of the header array inside our ``.npz`` files.
HEADER = "__header__"

#: Default largest saved file the loaders read (64 MiB): far above the real files (a tic-tac-toe TD file
#: is about 20 KB, a network's weights a few MB); pass ``max_file_bytes=`` to read larger ones.
MAX_FILE_BYTES = 64 * 1024 * 1024
#: Default largest JSON file :func:`load_json` reads (16 MiB): parsing JSON is slower than reading arrays
#: (about a second per 10-20 MB), and JSON is not the format for big tables.
MAX_JSON_FILE_BYTES = 16 * 1024 * 1024
#: Default largest total size of the arrays an ``.npz`` load decompresses (256 MiB), checked from the
#: arrays' headers before decompressing; pass ``max_data_bytes=`` to allow more.
MAX_DATA_BYTES = 256 * 1024 * 1024
#: Most members (arrays) an ``.npz`` file may hold.
MAX_MEMBERS = 1024
#: Longest ``.npz`` header string, in characters (the JSON of the format, version and metadata).
MAX_HEADER_CHARS = 1_000_000
#: Most digits of an integer in a saved JSON document (Python itself refuses beyond 4300, without the file).
MAX_INT_DIGITS = 100

PathLike = str | os.PathLike[str]

# A zip file (npz) starts with a local file header, or with the end-of-central-directory record when empty.
#: The zip methods :func:`save_npz` writes, by the name its ``compression`` takes.
_COMPRESSIONS = {"deflate": zipfile.ZIP_DEFLATED, "lzma": zipfile.ZIP_LZMA}
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_ZIP_CENTRAL_ENTRY = b"PK\x01\x02"
_NPY_MAGIC = b"\x93NUMPY"
# What numpy and zipfile raise on damaged archives: bad CRCs and truncated members (BadZipFile, EOFError),
# broken deflate/bzip2/lzma streams (zlib.error, OSError, EOFError, lzma.LZMAError), unreadable .npy headers
# (ValueError, SyntaxError from the header's literal, TypeError/KeyError from a strange dtype description), truncated
# records (struct.error), an encrypted member (RuntimeError), an unknown compression (NotImplementedError),
# and numpy's tokenizing of an old-style header (tokenize.TokenError).
_CORRUPT = (
    zipfile.BadZipFile,
    zlib.error,
    lzma.LZMAError,
    EOFError,
    OSError,
    ValueError,
    KeyError,
    TypeError,
    SyntaxError,
    struct.error,
    RuntimeError,
    NotImplementedError,
    OverflowError,
    tokenize.TokenError,
)


class SavedFileError(BadFileError):
    """A saved file that cannot be used: the message names the file and what is wrong with it.

    A :class:`gym_boardgames.errors.BadFileError` (so a ``ValueError``) with the same ``path`` and ``problem``.
    """

    def __init__(self, path: PathLike, problem: str) -> None:
        super().__init__(os.fspath(path), problem)


def short_repr(value: Any, limit: int = 80) -> str:
    """Return ``repr(value)`` cut to ``limit`` characters, for messages about values read from a file.

    A hostile file's strings and lists can be megabytes long; an error message should stay one line.
    """
    text = repr(value) if not isinstance(value, (dict, list)) or len(value) < 100 else f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class ArraySpec:
    """What an array in a saved file must look like.

    Attributes:
        shape: the expected shape; ``None`` in a position accepts any length there.
        dtype: the exact expected dtype (e.g. ``np.float64``, ``np.float32``).
        max_size: if given, the most elements accepted (bounds an array with ``None`` in its shape).
        finite: if True (for float arrays), NaN and infinities are refused.
    """

    shape: tuple[int | None, ...]
    dtype: Any
    max_size: int | None = None
    finite: bool = False

    def shape_problem(self, shape: tuple[int, ...], dtype: np.dtype) -> str | None:
        """Return what is wrong with an array of this ``shape`` and ``dtype`` (a phrase), or None."""
        expected_dtype = np.dtype(self.dtype)
        if dtype != expected_dtype:
            return f"dtype {dtype}, expected {expected_dtype}"
        if len(shape) != len(self.shape) or any(
            want is not None and got != want for got, want in zip(shape, self.shape, strict=True)
        ):
            shown = tuple("any" if s is None else s for s in self.shape)
            return f"shape {short_repr(shape)}, expected {shown}"
        size = math.prod(shape)
        if self.max_size is not None and size > self.max_size:
            return f"{size} elements, more than the {self.max_size} accepted"
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
    header = {"format": format_name, "version": check_int("version", version, 1), "meta": dict(meta or {})}
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
    compression: str = "deflate",
) -> None:
    """Write ``arrays`` and a format header to a compressed ``.npz`` file, atomically.

    The archive is built in memory, then written through a temporary file and a rename, so readers
    never see half a file and a failed write leaves any old file at ``path`` untouched. Any numeric
    dtype is kept as is (e.g. float32 network weights stay float32).

    Args:
        path: the file to write (conventionally ending in ``.npz``).
        arrays: name -> array; names must be non-empty strings not starting with ``__``; object arrays
            are refused; at most :data:`MAX_MEMBERS` - 1 arrays.
        format: the format name stored in the header, e.g. ``"gym_boardgames.td"``.
        version: the integer format version (>= 1).
        meta: JSON-serialisable metadata stored in the header.
        compression: ``"deflate"`` (``numpy.savez_compressed``'s, quick to write) or ``"lzma"`` (several times
            smaller on large tables, slower to write; numpy and :func:`load_npz` read both, as any zip reader).

    Raises:
        ValueError: on a bad format/version, non-JSON metadata, a bad or reserved name, an object array,
            too many arrays or an unknown compression.
        OSError: if the file cannot be written.
    """
    header = _header(format, version, meta)
    if compression not in _COMPRESSIONS:
        raise ValueError(f"compression must be one of {', '.join(_COMPRESSIONS)}, got {compression!r}")
    if len(arrays) >= MAX_MEMBERS:
        raise ValueError(f"at most {MAX_MEMBERS - 1} arrays can be saved in one file, got {len(arrays)}")
    payload: dict[str, np.ndarray] = {}
    for name, value in arrays.items():
        if not isinstance(name, str) or not name:
            raise ValueError(f"array names must be non-empty strings, got {name!r}")
        if name.startswith("__"):
            raise ValueError(f"array name {name!r} is reserved (names starting with '__')")
        array = np.asarray(value)
        if array.dtype.hasobject:
            raise ValueError(f"array {name!r} has dtype object, which can only be stored by pickling")
        payload[name] = array
    text = json.dumps(header, allow_nan=False)
    if len(text) > MAX_HEADER_CHARS:
        raise ValueError(f"meta is too large: its JSON header has {len(text)} characters, at most {MAX_HEADER_CHARS}")
    payload[HEADER] = np.array(text)
    buffer = io.BytesIO()
    # numpy's own writer is savez_compressed's: each array as a .npy member, here with the chosen zip method.
    with zipfile.ZipFile(buffer, "w", compression=_COMPRESSIONS[compression]) as archive:
        for name, array in payload.items():
            with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, array, allow_pickle=False)
    write_bytes_atomic(path, buffer.getvalue())


def _read_bytes(path: PathLike, max_file_bytes: int) -> bytes:
    """Read a whole regular file of at most ``max_file_bytes`` (:func:`gym_boardgames.checks.read_regular_file`).

    Raises:
        FileNotFoundError: naming the file.
        SavedFileError: naming the file and the problem; a file over the limit also names the setting
            (``max_file_bytes``) that lets a caller read it.
    """
    try:
        return read_regular_file(path, max_file_bytes, limit_name="max_file_bytes")
    except BadFileError as error:
        raise SavedFileError(error.path, error.problem) from None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} overflows a float")
    return value


def _bounded_int(text: str) -> int:
    digits = len(text) - text.startswith("-")
    if digits > MAX_INT_DIGITS:
        raise ValueError(f"an integer of {digits} digits (at most {MAX_INT_DIGITS})")
    return int(text)


def parse_json(path: PathLike, text: str, *, header: bool = False) -> Any:
    """Parse a saved JSON document strictly, raising :class:`SavedFileError` naming ``path``.

    Refused: ``NaN``, ``Infinity`` and ``-Infinity`` (not JSON, and :func:`save_json` never writes them),
    numbers that overflow a float (``1e400``), integers of more than :data:`MAX_INT_DIGITS` digits, and
    nesting deeper than Python's recursion limit.

    Args:
        path: the file the text came from, for the messages.
        text: the JSON text.
        header: True if ``text`` is an ``.npz`` file's header (the messages then say so).

    Returns:
        The decoded value.

    Raises:
        SavedFileError: naming the file and the problem.
    """
    subject = "the header" if header else "the file"
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float, parse_int=_bounded_int)
    except json.JSONDecodeError as exc:
        problem = "the header is not valid JSON" if header else "is not valid JSON, or is truncated"
        raise SavedFileError(path, f"{problem} ({exc})") from None
    except RecursionError:
        raise SavedFileError(path, f"{subject} holds JSON nested too deeply") from None
    except ValueError as exc:
        raise SavedFileError(path, f"{subject} holds JSON this loader refuses: {exc}") from None


def _check_header(path: PathLike, header: Any, format_name: str, versions: Collection[int]) -> tuple[int, dict]:
    """Validate a decoded header; return ``(version, meta)``."""
    if not isinstance(header, dict) or "format" not in header or "version" not in header:
        raise SavedFileError(path, "the header has no 'format' and 'version' fields: not a gym_boardgames file")
    found = header["format"]
    if found != format_name:
        raise SavedFileError(path, f"holds format {short_repr(found)}, expected {format_name!r}")
    version = header["version"]
    accepted = sorted(versions)
    if isinstance(version, bool) or not isinstance(version, int) or version not in accepted:
        raise SavedFileError(
            path,
            f"format {format_name!r} version {short_repr(version)} is not supported (this code reads versions "
            f"{', '.join(map(str, accepted))})",
        )
    meta = header.get("meta", {})
    if not isinstance(meta, dict):
        raise SavedFileError(path, f"the header's 'meta' is {type(meta).__name__}, expected an object")
    return version, meta


class _NpyHeader(NamedTuple):
    shape: tuple[int, ...]
    dtype: np.dtype
    nbytes: int
    member_size: int


def _read_npy_header(where: str, archive: zipfile.ZipFile, name: str) -> _NpyHeader:
    """Read the ``.npy`` header of array ``name`` (decompressing only the header's few bytes)."""
    try:
        info = archive.getinfo(name + ".npy")
    except KeyError:
        raise SavedFileError(where, f"missing array {name!r}") from None
    with archive.open(info) as handle:
        try:
            version = npy_format.read_magic(handle)
        except ValueError:
            raise SavedFileError(where, f"array {name!r} is not a .npy array") from None
        if version not in ((1, 0), (2, 0)):
            raise SavedFileError(where, f"array {name!r} has .npy format version {version}, expected 1.0 or 2.0")
        read_header = npy_format.read_array_header_1_0 if version == (1, 0) else npy_format.read_array_header_2_0
        with warnings.catch_warnings():
            # numpy warns (and reparses) on headers written by Python 2; a damaged header can look like one.
            warnings.simplefilter("ignore")
            shape, _, dtype = read_header(handle)
    if dtype.hasobject:
        raise SavedFileError(where, f"array {name!r} has dtype object, which would need unpickling")
    if any(length < 0 for length in shape):
        raise SavedFileError(where, f"array {name!r} claims the negative shape {short_repr(shape)}: corrupt")
    return _NpyHeader(shape, dtype, math.prod(shape) * dtype.itemsize, info.file_size)


def _check_member_size(where: str, name: str, found: _NpyHeader) -> None:
    """Refuse an array whose header claims more bytes than its zip member declares.

    zipfile never decompresses more than the declared size, so once this holds, reading the array
    allocates what its header says and no more.
    """
    if found.nbytes > found.member_size:
        raise SavedFileError(
            where,
            f"array {name!r} claims shape {short_repr(found.shape)} ({found.nbytes} bytes) in a zip member of "
            f"{found.member_size} bytes: corrupt",
        )


def load_npz(
    path: PathLike,
    *,
    format: str,  # noqa: A002
    versions: Collection[int],
    schema: Schema,
    allow_extra: bool = True,
    max_file_bytes: int = MAX_FILE_BYTES,
    max_data_bytes: int = MAX_DATA_BYTES,
) -> LoadedArrays:
    """Read and check an ``.npz`` file written by :func:`save_npz` (never unpickling anything).

    Nothing is allocated before it is checked: the file's kind and size, then the header, then each
    array's shape, dtype and byte size from its ``.npy`` header, and only then the arrays' data.

    Args:
        path: the file to read.
        format: the format name the file must hold.
        versions: the format versions this caller understands.
        schema: name -> :class:`ArraySpec` of every array the caller needs, or a function
            ``schema(version, meta)`` returning that mapping, called once the header is checked and
            before any array is read (so the expected shapes can follow from the metadata, e.g. a board
            size or a layer width). It should check what it reads from ``meta``; a ``ValueError`` or
            ``TypeError`` it raises is reported as a :class:`SavedFileError` naming the file.
        allow_extra: if False, arrays not named in the schema are an error (e.g. network weights from
            another architecture); if True they are ignored, and never decompressed.
        max_file_bytes: the largest file accepted (default :data:`MAX_FILE_BYTES`).
        max_data_bytes: the largest total size of the schema's arrays once decompressed (default
            :data:`MAX_DATA_BYTES`).

    Returns:
        The version, metadata and the checked arrays (only those in ``schema``).

    Raises:
        FileNotFoundError: if ``path`` does not exist (the message names it).
        SavedFileError: (a ``ValueError``) naming the file and the problem, if it is not a regular file,
            too large, not an ``.npz`` file, corrupt or truncated, has no header (a foreign file), holds
            another format or an unsupported version, lacks an array of ``schema``, has one of the wrong
            shape, size or dtype, or its arrays exceed ``max_data_bytes``.
        ValueError: if ``max_file_bytes`` or ``max_data_bytes`` is not a positive integer.
    """
    where = os.fspath(path)
    check_int("max_data_bytes", max_data_bytes, 1)
    raw = _read_bytes(path, max_file_bytes)
    if raw.startswith(_NPY_MAGIC):
        raise SavedFileError(where, "is a single .npy array, not an .npz archive")
    if not raw.startswith(_ZIP_MAGIC):
        raise SavedFileError(where, "is not an .npz file (no zip signature)")
    # zipfile parses the whole central directory when it opens the archive: bound its entries first
    # (a count of the signature is an upper bound, found at C speed).
    entries = raw.count(_ZIP_CENTRAL_ENTRY)
    if entries > MAX_MEMBERS:
        raise SavedFileError(where, f"holds about {entries} zip entries, more than the {MAX_MEMBERS} accepted")
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as archive:
            names = set(archive.files)
            if HEADER not in names:
                listed = ", ".join(sorted(names)[:20]) or "none"
                raise SavedFileError(where, f"has no {HEADER!r} header: not a gym_boardgames file (arrays: {listed})")
            header_spec = _read_npy_header(where, archive.zip, HEADER)
            if header_spec.shape != () or header_spec.dtype.kind != "U":
                raise SavedFileError(where, f"the {HEADER!r} array is not a JSON string")
            if header_spec.dtype.itemsize > 4 * MAX_HEADER_CHARS:
                raise SavedFileError(where, f"the header is longer than {MAX_HEADER_CHARS} characters")
            _check_member_size(where, HEADER, header_spec)
            header = parse_json(where, str(archive[HEADER]), header=True)
            version, meta = _check_header(path, header, format, versions)
            if callable(schema):
                try:
                    wanted = dict(schema(version, meta))
                except SavedFileError:
                    raise
                except (TypeError, ValueError) as exc:
                    raise SavedFileError(where, f"its header is not usable: {exc}") from None
            else:
                wanted = dict(schema)
            extra = sorted(names - set(wanted) - {HEADER})
            if extra and not allow_extra:
                raise SavedFileError(where, f"holds arrays this format does not have: {', '.join(extra[:20])}")
            budget = max_data_bytes
            for name, spec in wanted.items():
                found = _read_npy_header(where, archive.zip, name)
                problem = spec.shape_problem(found.shape, found.dtype)
                if problem is not None:
                    raise SavedFileError(where, f"array {name!r} has {problem}")
                _check_member_size(where, name, found)
                budget -= found.nbytes
                if budget < 0:
                    raise SavedFileError(
                        where, f"its arrays take more than the limit of {max_data_bytes} bytes (max_data_bytes)"
                    )
            arrays: dict[str, np.ndarray] = {}
            for name, spec in wanted.items():
                array = archive[name]
                problem = spec.problem(array)  # the data may still disagree with a forged header
                if problem is not None:
                    raise SavedFileError(where, f"array {name!r} has {problem}")
                arrays[name] = array
    except SavedFileError:
        raise
    except _CORRUPT as exc:
        raise SavedFileError(
            where, f"corrupt or truncated .npz file ({type(exc).__name__}: {short_repr(str(exc))})"
        ) from None
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
    max_file_bytes: int = MAX_JSON_FILE_BYTES,
) -> LoadedJSON:
    """Read and check a JSON file written by :func:`save_json`.

    Args:
        path: the file to read.
        format: the format name the file must hold.
        versions: the format versions this caller understands.
        required: if given, ``data`` must be an object with these keys, each of the given type(s).
        max_file_bytes: the largest file accepted (default :data:`MAX_JSON_FILE_BYTES`).

    Returns:
        The version, metadata and payload.

    Raises:
        FileNotFoundError: if ``path`` does not exist (the message names it).
        SavedFileError: (a ``ValueError``) naming the file and the problem, if it is not a regular file,
            too large, not UTF-8 JSON (or is truncated), holds what :func:`parse_json` refuses, has no
            header, holds another format or an unsupported version, or lacks a required key.
        ValueError: if ``max_file_bytes`` is not a positive integer.
    """
    raw = _read_bytes(path, max_file_bytes)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SavedFileError(path, "is not a JSON file (not UTF-8 text)") from None
    document = parse_json(path, text)
    if not isinstance(document, dict):
        raise SavedFileError(path, f"holds a JSON {type(document).__name__}, expected an object with a header")
    version, meta = _check_header(path, document, format, versions)
    if "data" not in document:
        raise SavedFileError(path, "has no 'data' field")
    data = document["data"]
    if required:
        if not isinstance(data, dict):
            raise SavedFileError(path, f"'data' is {type(data).__name__}, expected an object")
        for key, kind in required.items():
            if key not in data:
                raise SavedFileError(path, f"'data' is missing the key {key!r}")
            value, kinds = data[key], kind if isinstance(kind, tuple) else (kind,)
            # bool is an int in Python; a flag where a number is expected is still a wrong type.
            if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
                names = " or ".join(k.__name__ for k in kinds)
                raise SavedFileError(path, f"'data'[{key!r}] is {type(value).__name__}, expected {names}")
    return LoadedJSON(version, meta, data)
