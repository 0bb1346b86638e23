"""Saved agents: .npz and JSON with a format header, atomic writes, and loud, specific load errors."""

import io
import json
import os
import zipfile

import numpy as np
import pytest

from agents import persistence
from agents.persistence import ArraySpec, SavedFileError, load_json, load_npz, save_json, save_npz

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


def test_json_failed_write_leaves_the_old_file_intact(monkeypatch, tmp_path):
    path = tmp_path / "agent.json"
    save_json(path, {"v": 1}, format=FORMAT, version=1)
    before = path.read_bytes()
    monkeypatch.setattr(os, "replace", lambda src, dst: (_ for _ in ()).throw(OSError("no space")))
    with pytest.raises(OSError):
        save_json(path, {"v": 2}, format=FORMAT, version=1)
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["agent.json"]


def test_missing_file_error_names_the_path(tmp_path):
    path = tmp_path / "nowhere.npz"
    with pytest.raises(FileNotFoundError, match="nowhere.npz"):
        load(path)
    with pytest.raises(FileNotFoundError, match="nowhere.json"):
        load_json(tmp_path / "nowhere.json", format=FORMAT, versions={1})


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


def test_json_round_trip_keeps_data_and_meta(tmp_path):
    path = tmp_path / "agent.json"
    data = {"q": [[0.5, 1.0], [0.0, 0.25]], "name": "layered", "steps": 3}
    save_json(path, data, format=FORMAT, version=2, meta={"seed": 4})
    loaded = load_json(path, format=FORMAT, versions={1, 2}, required={"q": list, "steps": int})
    assert loaded == (2, {"seed": 4}, data)


def test_json_refuses_nan_when_saving(tmp_path):
    with pytest.raises(ValueError, match="JSON"):
        save_json(tmp_path / "x.json", {"v": float("nan")}, format=FORMAT, version=1)


@pytest.mark.parametrize(
    ("content", "pattern"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00", "not a JSON file"),
        (b'{"format": "gym_boardgames.test", "version": 1, "da', "not valid JSON, or is truncated"),
        (b"[1, 2, 3]", "holds a JSON list"),
        (b'{"weights": [1, 2]}', "no 'format' and 'version' fields"),
        (b'{"format": "other.thing", "version": 1, "data": {}}', "holds format 'other.thing'"),
        (b'{"format": "gym_boardgames.test", "version": 9, "data": {}}', "version 9 is not supported"),
        (b'{"format": "gym_boardgames.test", "version": true, "data": {}}', "version True is not supported"),
        (b'{"format": "gym_boardgames.test", "version": 1}', "no 'data' field"),
        (b'{"format": "gym_boardgames.test", "version": 1, "data": {"q": []}}', "missing the key 'steps'"),
        (b'{"format": "gym_boardgames.test", "version": 1, "data": {"q": [], "steps": "3"}}', "is str, expected int"),
        (b'{"format": "gym_boardgames.test", "version": 1, "data": {"q": [], "steps": true}}', "is bool, expected int"),
    ],
)
def test_bad_json_files_raise_value_errors_naming_file_and_problem(tmp_path, content, pattern):
    path = tmp_path / "agent.json"
    path.write_bytes(content)
    with pytest.raises(SavedFileError, match=pattern) as info:
        load_json(path, format=FORMAT, versions={1}, required={"q": list, "steps": int})
    assert str(info.value).startswith(str(path) + ": ")
