"""agents.persistence: .npz with a format header, atomic writes, specific load errors, hostile files."""

import functools
import io
import json
import os
import stat
import sys
import zipfile
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from agents import persistence
from agents.dots import LayeredValueAgent, LayerTable
from agents.persistence import ArraySpec, SavedFileError, load_npz, parse_json, save_npz
from agents.tabular.td import TDAgent
from gym_boardgames import checks

sys.path.insert(0, str(Path(__file__).parent))  # importlib import mode: put the sibling helper on the path
from saved_file_helpers import (  # noqa: E402
    REFUSAL_BYTES,
    REFUSAL_LINES,
    expect_refused,
    header_npy,
    npy_bytes,
    only_the_header_is_read,
    write_zip,
)

FORMAT = "gym_boardgames.test"
SCHEMA = {"table": ArraySpec((2, None), np.float64), "counts": ArraySpec((3,), np.int32)}


def arrays():
    return {"table": np.arange(10, dtype=np.float64).reshape(2, 5) / 10, "counts": np.array([1, 2, 3], dtype=np.int32)}


def load(path, **overrides):
    kwargs = {"format": FORMAT, "versions": {1}, "schema": SCHEMA, **overrides}
    return load_npz(path, **kwargs)


@pytest.fixture
def saved(tmp_path):
    path = tmp_path / "agent.npz"
    save_npz(path, arrays(), format=FORMAT, version=1, meta={"game": "TicTacToe()", "episodes": 7})
    return path


def test_npz_round_trip_keeps_arrays_meta_and_version(saved):
    loaded = load(saved)
    assert loaded.version == 1
    assert loaded.meta == {"game": "TicTacToe()", "episodes": 7}
    for name, array in arrays().items():
        assert loaded.arrays[name].dtype == array.dtype
        np.testing.assert_array_equal(loaded.arrays[name], array)


def test_saved_npz_opens_with_plain_numpy_without_pickle(saved):
    with np.load(saved, allow_pickle=False) as archive:
        header = json.loads(str(archive[persistence.HEADER]))
        assert header["format"] == FORMAT and header["version"] == 1
        np.testing.assert_array_equal(archive["counts"], [1, 2, 3])


def test_loading_never_unpickles(monkeypatch, saved):
    seen = []
    real_load = np.load

    def spy(*args, **kwargs):
        seen.append(kwargs.get("allow_pickle"))
        return real_load(*args, **kwargs)

    monkeypatch.setattr(np, "load", spy)
    load(saved)
    assert seen == [False]


def test_object_arrays_are_refused_when_saving(tmp_path):
    with pytest.raises(ValueError, match="dtype object"):
        save_npz(tmp_path / "x.npz", {"a": np.array([{}, []], dtype=object)}, format=FORMAT, version=1)
    assert not (tmp_path / "x.npz").exists()


def test_failed_write_leaves_the_old_file_intact_and_no_temp_file(monkeypatch, saved):
    before = saved.read_bytes()

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    new = {"table": np.zeros((2, 5)), "counts": np.zeros(3, dtype=np.int32)}
    with pytest.raises(OSError, match="disk full"):
        save_npz(saved, new, format=FORMAT, version=1)
    assert saved.read_bytes() == before
    assert os.listdir(saved.parent) == [saved.name]
    np.testing.assert_array_equal(load(saved).arrays["table"], arrays()["table"])


def test_missing_file_error_names_the_path(tmp_path):
    path = tmp_path / "nowhere.npz"
    with pytest.raises(FileNotFoundError, match="nowhere.npz"):
        load(path)


def expect_problem(path, pattern, **overrides):
    with pytest.raises(ValueError, match=pattern) as info:
        load(path, **overrides)
    assert str(path) in str(info.value)
    assert isinstance(info.value, SavedFileError)


def test_truncated_npz_is_reported_as_corrupt(saved):
    data = saved.read_bytes()
    saved.write_bytes(data[: len(data) // 2])
    expect_problem(saved, "corrupt or truncated")


def test_npz_with_a_damaged_member_is_reported_as_corrupt(saved):
    data = bytearray(saved.read_bytes())
    # Flip bytes inside the first member's compressed data (after its 30-byte local header and name).
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive:
        info = archive.infolist()[0]
    start = info.header_offset + 30 + len(info.filename.encode()) + 20
    for i in range(start, start + 16):
        data[i] ^= 0xFF
    saved.write_bytes(bytes(data))
    expect_problem(saved, "corrupt or truncated")


def test_text_file_is_not_an_npz(tmp_path):
    path = tmp_path / "notes.npz"
    path.write_text("hello, I am not numpy")
    expect_problem(path, "not an .npz file")


def test_single_npy_array_is_not_an_npz(tmp_path):
    path = tmp_path / "table.npz"
    with open(path, "wb") as handle:
        np.save(handle, np.zeros(3))
    expect_problem(path, "single .npy array")


def test_foreign_npz_without_header_is_refused(tmp_path):
    path = tmp_path / "foreign.npz"
    np.savez(path, **arrays())
    expect_problem(path, "no '__header__' header: not a gym_boardgames file")


def test_wrong_format_name_is_refused(saved):
    expect_problem(
        saved, "holds format 'gym_boardgames.test', expected 'gym_boardgames.td'", format="gym_boardgames.td"
    )


def test_unsupported_version_is_refused(tmp_path):
    path = tmp_path / "future.npz"
    save_npz(path, arrays(), format=FORMAT, version=3)
    expect_problem(path, "version 3 is not supported .this code reads versions 1, 2.", versions={1, 2})


def test_missing_array_is_named(tmp_path):
    path = tmp_path / "partial.npz"
    save_npz(path, {"table": arrays()["table"]}, format=FORMAT, version=1)
    expect_problem(path, "missing array 'counts'")


def test_wrong_shape_is_named(tmp_path):
    path = tmp_path / "shape.npz"
    save_npz(path, {**arrays(), "table": np.zeros((3, 5))}, format=FORMAT, version=1)
    expect_problem(path, r"array 'table' has shape \(3, 5\), expected \(2, 'any'\)")


def test_wrong_dtype_is_named(tmp_path):
    path = tmp_path / "dtype.npz"
    save_npz(path, {**arrays(), "counts": np.array([1, 2, 3], dtype=np.int64)}, format=FORMAT, version=1)
    expect_problem(path, "array 'counts' has dtype int64, expected int32")


def test_header_that_is_not_json_is_reported(tmp_path):
    path = tmp_path / "badheader.npz"
    np.savez(path, **{persistence.HEADER: np.array("{not json"), **arrays()})
    expect_problem(path, "header is not valid JSON")


def test_meta_that_json_cannot_hold_is_refused_when_saving(tmp_path):
    with pytest.raises(ValueError, match="meta must be JSON-serialisable"):
        save_npz(tmp_path / "x.npz", arrays(), format=FORMAT, version=1, meta={"v": float("nan")})
    assert not (tmp_path / "x.npz").exists()


@pytest.mark.parametrize(
    ("header", "pattern"),
    [
        ('{"format": "gym_boardgames.test", "version": 1, "me', "the header is not valid JSON, or is truncated"),
        ("[1, 2, 3]", "no 'format' and 'version' fields"),
        ('{"weights": [1, 2]}', "no 'format' and 'version' fields"),
        ('{"format": "other.thing", "version": 1}', "holds format 'other.thing'"),
        ('{"format": "gym_boardgames.test", "version": 9}', "version 9 is not supported"),
        ('{"format": "gym_boardgames.test", "version": true}', "version True is not supported"),
        ('{"format": "gym_boardgames.test", "version": 1, "meta": [1]}', "the header's 'meta' is list, expected an"),
    ],
)
def test_bad_headers_raise_value_errors_naming_file_and_problem(tmp_path, header, pattern):
    path = tmp_path / "agent.npz"
    np.savez(path, **{persistence.HEADER: np.array(header), **arrays()})
    expect_problem(path, pattern)


# ---- files that hang or take gigabytes -----------------------------------------------------------
# agents.persistence: saved files that hang or take gigabytes are refused at once, as SavedFileError naming the file.
#
# Every hostile file here is small; the loaders must see through it from the file's kind, its size, the
# header's sizes and the arrays' ``.npy`` headers, before building a board or allocating an array.


@pytest.fixture
def refused(work_budget):
    """``refused(call, path, pattern, max_lines=...)``: saved_file_helpers.expect_refused on this test's budget."""
    return functools.partial(expect_refused, work_budget)


def never_read(monkeypatch):
    """Make reading a file's bytes fail the test: a FIFO would block the read, a device never ends."""

    def spy(fd, *args, **kwargs):
        pytest.fail(f"descriptor {fd} was read")

    # The reader is gym_boardgames.checks.read_regular_file: give it an ``os`` whose ``read`` fails.
    monkeypatch.setattr(checks, "os", SimpleNamespace(**{**vars(os), "read": spy}))


# ---- .npz bombs ---------------------------------------------------------------------------------------


def test_npz_whose_array_header_claims_a_petabyte_is_refused_without_allocating(tmp_path, refused):
    path = tmp_path / "claim.npz"
    write_zip(path, {"__header__.npy": header_npy({}), "table.npy": npy_bytes((2, 10**15), data=b"\x00" * 100)})
    assert path.stat().st_size < 1000
    schema = {"table": ArraySpec((2, None), np.float64)}
    refused(
        lambda: load_npz(path, format=FORMAT, versions={1}, schema=schema),
        path,
        r"claims shape \(2, 1000000000000000\)",
    )


def test_npz_arrays_beyond_the_data_budget_are_refused_before_decompressing(tmp_path, monkeypatch, refused):
    path = tmp_path / "big.npz"
    save_npz(path, {"table": np.zeros((2, 5000))}, format=FORMAT, version=1)
    only_the_header_is_read(monkeypatch)
    schema = {"table": ArraySpec((2, None), np.float64)}
    refused(
        lambda: load_npz(path, format=FORMAT, versions={1}, schema=schema, max_data_bytes=50_000),
        path,
        r"more than the limit of 50000 bytes \(max_data_bytes\)",
    )


def test_npz_array_over_max_size_is_refused_from_its_header(tmp_path, refused):
    path = tmp_path / "long.npz"
    save_npz(path, {"keys": np.arange(100, dtype=np.uint64)}, format=FORMAT, version=1)
    schema = {"keys": ArraySpec((None,), np.uint64, max_size=99)}
    refused(lambda: load_npz(path, format=FORMAT, versions={1}, schema=schema), path, "100 elements, more than the 99")


def test_npz_with_a_huge_header_string_is_refused_from_its_dtype(tmp_path, refused):
    path = tmp_path / "header.npz"
    write_zip(path, {"__header__.npy": npy_bytes((), np.dtype("<U100000000"), data=b"\x00" * 100)})
    refused(lambda: load_npz(path, format=FORMAT, versions={1}, schema={}), path, "header is longer than 1000000")


def test_npz_with_too_many_members_is_refused_before_zipfile_reads_them(tmp_path, refused):
    path = tmp_path / "many.npz"
    write_zip(path, {f"a{i}.npy": b"" for i in range(persistence.MAX_MEMBERS + 1)})
    refused(lambda: load_npz(path, format=FORMAT, versions={1}, schema={}), path, "zip entries, more than the 1024")


def test_npz_object_array_header_is_refused(tmp_path, refused):
    path = tmp_path / "object.npz"
    write_zip(path, {"__header__.npy": header_npy({}), "table.npy": npy_bytes((2,), object, data=b"\x00" * 100)})
    schema = {"table": ArraySpec((None,), np.float64)}
    refused(lambda: load_npz(path, format=FORMAT, versions={1}, schema=schema), path, "dtype object")


def test_a_member_shadowing_an_array_is_never_read(tmp_path, work_budget):
    # np.load's archive["table"] reads a member named "table" before "table.npy": the loader must read the .npy
    # member whose header it checked, not a petabyte claim beside it (which numpy would allocate at once).
    path = tmp_path / "shadow.npz"
    members = {"__header__.npy": header_npy({}), "table.npy": npy_bytes((2, 3), data=np.ones((2, 3)).tobytes())}
    write_zip(path, {**members, "table": npy_bytes((2, 10**15), data=b"\x00" * 100)})
    with work_budget.bounded(max_lines=REFUSAL_LINES, max_bytes=REFUSAL_BYTES):
        loaded = load_npz(path, format=FORMAT, versions={1}, schema={"table": ArraySpec((2, None), np.float64)})
    np.testing.assert_array_equal(loaded.arrays["table"], np.ones((2, 3)))


# ---- files that are not regular files, or too large -------------------------------------------------------


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_dev_zero_is_refused_without_reading_it(refused, monkeypatch):
    never_read(monkeypatch)
    refused(lambda: TDAgent.load("/dev/zero"), "/dev/zero", r"not a regular file \(a character device\)")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_is_refused_without_reading_it(tmp_path, refused, monkeypatch):
    never_read(monkeypatch)
    path = tmp_path / "pipe.npz"
    os.mkfifo(path)
    assert stat.S_ISFIFO(os.stat(path).st_mode)
    refused(lambda: TDAgent.load(path), path, r"not a regular file \(a FIFO\)")


def test_file_over_the_size_cap_is_refused_from_its_size(tmp_path, refused):
    path = tmp_path / "sparse.npz"
    with open(path, "wb") as handle:
        handle.truncate(persistence.MAX_FILE_BYTES + 1)  # sparse: nothing is written or read
    refused(lambda: TDAgent.load(path), path, f"is {persistence.MAX_FILE_BYTES + 1} bytes, more than the limit")


def test_limits_must_be_positive_integers(tmp_path):
    path = tmp_path / "x.npz"
    save_npz(path, {}, format=FORMAT, version=1)
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="max_file_bytes must be an integer >= 1"):
            load_npz(path, format=FORMAT, versions={1}, schema={}, max_file_bytes=bad)
        with pytest.raises(ValueError, match="max_data_bytes must be an integer >= 1"):
            load_npz(path, format=FORMAT, versions={1}, schema={}, max_data_bytes=bad)


# ---- strict JSON --------------------------------------------------------------------------------------------


BAD_JSON = [
    ("NaN", "NaN is not a JSON number"),
    ("Infinity", "Infinity is not a JSON number"),
    ("-Infinity", "-Infinity is not a JSON number"),
    ("1e400", "overflows a float"),
    ("9" * 5000, "an integer of 5000 digits"),
]


@pytest.mark.parametrize(("number", "pattern"), BAD_JSON)
def test_json_parser_refuses_what_the_saver_refuses(tmp_path, number, pattern, refused):
    path = tmp_path / "run.train.npz"  # parse_json also reads a training state's learning curve
    refused(lambda: parse_json(path, f'{{"q": [{number}]}}'), path, "the file holds JSON .*" + pattern)


@pytest.mark.parametrize(("number", "pattern"), BAD_JSON)
def test_npz_header_json_is_as_strict(tmp_path, number, pattern, refused):
    path = tmp_path / "agent.npz"
    text = f'{{"format": "{FORMAT}", "version": 1, "meta": {{"x": {number}}}}}'
    np.savez(path, **{persistence.HEADER: np.array(text)})
    refused(lambda: load_npz(path, format=FORMAT, versions={1}, schema={}), path, "the header holds JSON .*" + pattern)


def test_deeply_nested_json_is_an_error_naming_the_file(tmp_path, refused):
    path = tmp_path / "deep.json"
    refused(lambda: parse_json(path, "[" * 100_000 + "]" * 100_000), path, "the file holds JSON nested too deeply")
    npz = tmp_path / "deep.npz"
    np.savez(npz, **{persistence.HEADER: np.array("[" * 100_000 + "]" * 100_000)})
    refused(lambda: load_npz(npz, format=FORMAT, versions={1}, schema={}), npz, "the header holds JSON nested too")


def test_reasonable_json_numbers_still_load(tmp_path):
    path = tmp_path / "agent.npz"
    meta = {"seed": 2**64, "x": -1.5e300, "small": 5e-324, "n": -12, "digits": 10**99, "zero": -0}
    save_npz(path, arrays(), format=FORMAT, version=1, meta=meta)
    assert load(path).meta == meta


def test_error_messages_stay_short_for_huge_values(tmp_path, refused):
    path = tmp_path / "agent.npz"
    np.savez(path, **{persistence.HEADER: np.array(json.dumps({"format": "x" * 900_000, "version": 1}))})
    error = refused(lambda: load_npz(path, format=FORMAT, versions={1}, schema={}), path, "holds format 'xxx")
    assert len(str(error)) < 300


# ---- the API the AlphaZero weights will use -------------------------------------------------------------------


def weights():
    rng = np.random.default_rng(0)
    return {
        "w1": rng.standard_normal((9, 32)).astype(np.float32),
        "b1": np.zeros(32, np.float32),
        "w2": rng.standard_normal((32, 10)).astype(np.float32),
    }


def weight_schema(version, meta):
    hidden = meta.get("hidden")
    if isinstance(hidden, bool) or not isinstance(hidden, int) or not 1 <= hidden <= 4096:
        raise ValueError(f"'hidden' must be an integer in 1..4096, got {hidden!r}")
    spec = {"w1": (9, hidden), "b1": (hidden,), "w2": (hidden, 10)}
    return {name: ArraySpec(shape, np.float32, finite=True) for name, shape in spec.items()}


def test_float32_weights_round_trip_with_a_schema_from_the_config(tmp_path):
    path = tmp_path / "net.npz"
    save_npz(path, weights(), format=FORMAT, version=1, meta={"hidden": 32, "lr": 0.01})
    loaded = load_npz(path, format=FORMAT, versions={1}, schema=weight_schema, allow_extra=False)
    assert loaded.meta == {"hidden": 32, "lr": 0.01}
    for name, array in weights().items():
        assert loaded.arrays[name].dtype == np.float32
        np.testing.assert_array_equal(loaded.arrays[name], array)


def test_weights_of_another_architecture_are_refused(tmp_path, refused):
    path = tmp_path / "net.npz"
    save_npz(path, weights(), format=FORMAT, version=1, meta={"hidden": 64})
    refused(
        lambda: load_npz(path, format=FORMAT, versions={1}, schema=weight_schema),
        path,
        r"array 'w1' has shape \(9, 32\), expected \(9, 64\)",
    )
    save_npz(path, weights(), format=FORMAT, version=1, meta={"hidden": "many"})
    refused(
        lambda: load_npz(path, format=FORMAT, versions={1}, schema=weight_schema),
        path,
        "header is not usable: 'hidden'",
    )
    save_npz(path, {**weights(), "w3": np.zeros(3, np.float32)}, format=FORMAT, version=1, meta={"hidden": 32})
    assert set(load_npz(path, format=FORMAT, versions={1}, schema=weight_schema).arrays) == {"w1", "b1", "w2"}
    refused(
        lambda: load_npz(path, format=FORMAT, versions={1}, schema=weight_schema, allow_extra=False),
        path,
        "arrays this format does not have: w3",
    )


def test_weights_must_be_float32_and_finite(tmp_path, refused):
    path = tmp_path / "net.npz"
    save_npz(path, {**weights(), "b1": np.zeros(32)}, format=FORMAT, version=1, meta={"hidden": 32})
    refused(
        lambda: load_npz(path, format=FORMAT, versions={1}, schema=weight_schema),
        path,
        "dtype float64, expected float32",
    )
    nan = weights()
    nan["w2"][3, 4] = np.nan
    save_npz(path, nan, format=FORMAT, version=1, meta={"hidden": 32})
    refused(lambda: load_npz(path, format=FORMAT, versions={1}, schema=weight_schema), path, "'w2' has NaN or infinite")


# ---- Dots and Boxes files -----------------------------------------------------------------------------------------


def test_dots_table_with_a_huge_board_is_refused_at_once(tmp_path, refused):
    path = tmp_path / "t.npz"
    meta = {"rows": 10**50, "cols": 10**50, "last_k": 3}
    save_npz(path, {"q": np.zeros(4, np.int8)}, format=LayerTable.FORMAT, version=1, meta=meta)
    refused(lambda: LayerTable.load(path), path, "is not one solve_layers makes")


def test_dots_table_shape_is_checked_from_its_header(tmp_path, monkeypatch, refused):
    path = tmp_path / "t.npz"
    meta = {"rows": 2, "cols": 2, "last_k": 3}
    write_zip(
        path,
        {
            "__header__.npy": header_npy(meta, LayerTable.FORMAT),
            "q.npy": npy_bytes((10**12,), np.int8, data=b"\x00" * 100),
        },
    )
    only_the_header_is_read(monkeypatch)
    refused(lambda: LayerTable.load(path), path, r"'q' has shape \(1000000000000,\), expected \(4096,\)")


def test_layered_q_file_with_too_many_entries_is_refused_from_the_header(tmp_path, monkeypatch, refused):
    path = tmp_path / "q.npz"
    meta = {"rows": 1, "cols": 1, "lr": 0.5, "explore": 0.1, "games_trained": 3}
    save_npz(
        path,
        {"keys": np.arange(17, dtype=np.uint64), "values": np.zeros(17)},
        format=LayeredValueAgent.FORMAT,
        version=1,
        meta=meta,
    )
    only_the_header_is_read(monkeypatch)
    refused(lambda: LayeredValueAgent.load(path), path, "17 elements, more than the 16 accepted")


def test_layered_q_entry_cap_is_documented_and_large_enough_for_the_study():
    assert LayeredValueAgent.MAX_LOAD_ENTRIES >= 1_000_000


def raw_npy(header_text, data=b"\x00" * 160):
    """A .npy member with this literal header text (padded as numpy pads it)."""
    text = header_text.encode("latin1")
    text += b" " * (-(10 + len(text) + 1) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text + data


@pytest.mark.parametrize(
    "header_text",
    [
        # Found by the fuzz: numpy re-tokenizes a header it cannot parse, and tokenize raises TokenError.
        "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 9), '''",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (2, -9), }",
        "{'descr': {'names': 3}, 'fortran_order': False, 'shape': (2, 9), }",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 9.5), }",
        "[1, 2]",
    ],
)
def test_npz_with_a_damaged_array_header_is_refused(tmp_path, header_text, refused):
    path = tmp_path / "damaged.npz"
    write_zip(path, {"__header__.npy": header_npy({}), "table.npy": raw_npy(header_text)})
    schema = {"table": ArraySpec((2, None), np.float64)}
    refused(lambda: load_npz(path, format=FORMAT, versions={1}, schema=schema), path, "corrupt")


def test_lzma_compression_round_trips_and_opens_with_plain_numpy(tmp_path):
    import zipfile

    path = tmp_path / "small.npz"
    save_npz(path, arrays(), format=FORMAT, version=1, compression="lzma")
    with zipfile.ZipFile(path) as archive:
        assert {info.compress_type for info in archive.infolist()} == {zipfile.ZIP_LZMA}
    loaded = load(path)
    np.testing.assert_array_equal(loaded.arrays["counts"], arrays()["counts"])
    with np.load(path, allow_pickle=False) as plain:
        np.testing.assert_array_equal(plain["table"], arrays()["table"])


def test_an_unknown_compression_is_refused_naming_the_choices(tmp_path):
    with pytest.raises(ValueError, match=r"compression must be one of \['deflate', 'lzma'\], got 'zstd'"):
        save_npz(tmp_path / "x.npz", arrays(), format=FORMAT, version=1, compression="zstd")
    assert not (tmp_path / "x.npz").exists()
