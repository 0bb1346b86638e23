"""Reading Pons' Connect Four sets (agents.matches.testsets) from files made here: his own are fetched data."""

import os

import pytest

from agents.matches.testsets import (
    MAX_FILE_BYTES,
    PONS_MEAN_NODES,
    TESTSETS,
    PonsPosition,
    find_testsets,
    line_number,
    read_testset,
)


def write_folder(folder, files):
    """Write ``{file name: text}`` into ``folder``; return it."""
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


def test_a_line_is_the_columns_played_from_zero_and_the_score_for_the_player_to_move(tmp_path):
    path = tmp_path / "Test_L3_R1"
    path.write_text("4455 18\n44455554221 -15\n\n  \n7 -2\n")  # blank lines (and one of spaces) are skipped
    read = read_testset(path)
    assert read.name == "Test_L3_R1" and read.path == str(path)  # without a name: the file's
    assert read.positions == [PonsPosition((3, 3, 4, 4), 18), PonsPosition((3, 3, 3, 4, 4, 4, 4, 3, 1, 1, 0), -15),
                              PonsPosition((6,), -2)]  # fmt: skip
    assert read_testset(path, "End-Easy").name == "End-Easy"


def test_the_line_of_a_position_counts_the_blank_lines_back_in(tmp_path):
    path = tmp_path / "set"
    path.write_text("\n4455 18\n\n\n7 -2\n")
    read = read_testset(path)
    assert [line_number(read, i) for i in range(2)] == [2, 5]
    with pytest.raises(IndexError, match="has 2 positions, no position 2"):
        line_number(read, 2)


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("4a55 18", "MOVES must be the columns played as digits 1-7, got '4a55'"),
        ("4405 18", "MOVES must be the columns played as digits 1-7, got '4405'"),
        ("4485 18", "MOVES must be the columns played as digits 1-7, got '4485'"),
        ("-4 18", "MOVES must be the columns played as digits 1-7, got '-4'"),
        ("4455", "expected 'MOVES SCORE' (two fields), got '4455'"),
        ("4455 18 3", "expected 'MOVES SCORE' (two fields), got '4455 18 3'"),
        ("4455 x", "SCORE must be an integer, got 'x'"),
        ("4455 1.5", "SCORE must be an integer, got '1.5'"),
    ],
)
def test_a_malformed_line_is_refused_naming_the_file_and_the_line(tmp_path, line, says):
    path = tmp_path / "Test_L2_R1"
    path.write_text(f"4455 18\n\n{line}\n7 -2\n")
    with pytest.raises(ValueError) as error:
        read_testset(path)
    assert str(error.value) == f"{path}, line 3: {says}"


def test_a_file_without_positions_is_refused(tmp_path):
    path = tmp_path / "Test_L1_R1"
    path.write_text("\n\n")
    with pytest.raises(ValueError, match="no positions"):
        read_testset(path)


def test_the_sets_are_found_by_pons_name_or_file_name_in_pons_order(tmp_path):
    folder = write_folder(tmp_path / "sets", {"Test_L3_R1": "4455 18\n", "Test_L1_R3": "7 -2\n", "Test_L2_R2": "1 -1\n",
                                             "README.md": "not a set\n"})  # fmt: skip
    everything = find_testsets(folder)  # all six named: the three that are there
    assert [found.name for found in everything] == ["End-Easy", "Middle-Medium", "Begin-Hard"]
    assert [found.path for found in everything] == [str(folder / name) for name in ("Test_L3_R1", "Test_L2_R2",
                                                                                    "Test_L1_R3")]  # fmt: skip
    picked = find_testsets(folder, ["Begin-Hard", "Test_L3_R1"])  # a Pons name and a file name, in either order
    assert [found.name for found in picked] == ["End-Easy", "Begin-Hard"]
    assert picked[1].positions == [PonsPosition((6,), -2)]
    assert [found.name for found in find_testsets(str(folder), ["End-Easy", "Test_L3_R1"])] == ["End-Easy"]


def test_an_unknown_set_name_is_refused_listing_the_sets(tmp_path):
    folder = write_folder(tmp_path / "sets", {"Test_L3_R1": "4455 18\n"})
    with pytest.raises(ValueError) as error:
        find_testsets(folder, ["End-Easy", "Begin-Impossible", "Test_L9"])
    choices = "End-Easy, Middle-Easy, Middle-Medium, Begin-Easy, Begin-Medium, Begin-Hard"
    assert str(error.value) == (
        f"unknown test set(s) Begin-Impossible, Test_L9: the sets are {choices} (or their file names)"
    )


def test_a_folder_missing_or_lacking_the_files_is_refused_naming_what_was_expected(tmp_path):
    missing = tmp_path / "nowhere"
    with pytest.raises(ValueError, match=f"--testsets '{missing}' is not a folder"):
        find_testsets(missing)
    empty = write_folder(tmp_path / "empty", {"other": "4455 18\n"})
    with pytest.raises(ValueError) as error:
        find_testsets(empty)
    assert str(error.value) == f"{str(empty)!r} holds none of Pons' set files ({', '.join(f for f, _ in TESTSETS)})"
    with pytest.raises(ValueError, match=r"holds none of Pons' set files \(Test_L1_R3\)$"):
        find_testsets(empty, ["Begin-Hard"])
    some = write_folder(tmp_path / "some", {"Test_L3_R1": "4455 18\n"})
    with pytest.raises(ValueError) as error:  # a named set must be there, even when another one is
        find_testsets(some, ["End-Easy", "Begin-Hard", "Test_L2_R1"])
    assert (
        str(error.value)
        == f"{str(some)!r} lacks the file of a set named: Test_L2_R1 (Middle-Easy), Test_L1_R3 (Begin-Hard)"
    )


def test_a_malformed_line_in_a_found_set_is_refused_naming_it(tmp_path):
    folder = write_folder(tmp_path / "sets", {"Test_L3_R1": "4455 18\n", "Test_L2_R1": "4455 18\n0 3\n"})
    with pytest.raises(ValueError, match=r"Test_L2_R1, line 2: MOVES must be the columns played as digits 1-7"):
        find_testsets(folder)


def test_pons_published_node_counts_cover_the_six_sets():
    assert list(PONS_MEAN_NODES) == [pons for _, pons in TESTSETS]
    assert [file for file, _ in TESTSETS] == ["Test_L3_R1", "Test_L2_R1", "Test_L2_R2", "Test_L1_R1", "Test_L1_R2",
                                              "Test_L1_R3"]  # fmt: skip
    assert PONS_MEAN_NODES["End-Easy"] == 51.28 and PONS_MEAN_NODES["Begin-Hard"] == 65_920_000
    assert all(nodes > 0 for nodes in PONS_MEAN_NODES.values())


def test_a_crlf_file_is_read_as_its_lines(tmp_path):
    path = tmp_path / "Test_L3_R1"
    path.write_bytes(b"4455 18\r\n\r\n44455554221 -15\r\n")
    read = read_testset(path)
    assert read.positions == [PonsPosition((3, 3, 4, 4), 18), PonsPosition((3, 3, 3, 4, 4, 4, 4, 3, 1, 1, 0), -15)]
    assert [line_number(read, i) for i in range(2)] == [1, 3]


#: Files that are no set, each refused in one line naming the file (``@``) and, where one is to blame, the line.
BAD_FILES = [
    (b"", "@: is empty (expected 'MOVES SCORE' lines)"),
    (b"\n \n", "@: no positions (expected 'MOVES SCORE' lines)"),
    (b"4455 18\n112233", "@, line 2: the file ends inside this line (no line break): it was cut short"),
    (b"4455 18\n112233 1", "@, line 2: the file ends inside this line (no line break): it was cut short"),
    (b"4455 18\n\x89PNG\r\n\x1a\n", "@, line 2: byte 0x89 is not ASCII (a set is ASCII text)"),
    (b"4455 18\n\n\xff\xfe4\x004\x00\n", "@, line 3: byte 0xff is not ASCII (a set is ASCII text)"),
    (b"\x00\x01\x02\x03 18\n", "@, line 1: MOVES must be the columns played as digits 1-7, got '\\x00\\x01\\x02\\x03'"),
    (b"4455 18\n" + b"1" * 5000 + b"\n", "@, line 2: 5,000 characters, more than a line 'MOVES SCORE' holds (64)"),
    (b"4455\n", "@, line 1: expected 'MOVES SCORE' (two fields), got '4455'"),
    (b"4455 18 3\n", "@, line 1: expected 'MOVES SCORE' (two fields), got '4455 18 3'"),
    (b"4485 18\n", "@, line 1: MOVES must be the columns played as digits 1-7, got '4485'"),
    (b"4405 18\n", "@, line 1: MOVES must be the columns played as digits 1-7, got '4405'"),
    (b"1234567" * 6 + b" 0\n", "@, line 1: MOVES holds 42 moves, more than the 41 a position to play has"),
    (b"4455 20\n", "@, line 1: SCORE 20 is impossible at ply 4 (scores are -19..19)"),
    (b"4455 18\n7 -21\n", "@, line 2: SCORE -21 is impossible at ply 1 (scores are -20..21)"),
    (b"4455 1" + b"0" * 50 + b"\n", f"@, line 1: SCORE 1{'0' * 50} is impossible at ply 4 (scores are -19..19)"),
    (b"4455 18\n44 -" + b"9" * 61 + b"\n", "@, line 2: 65 characters, more than a line 'MOVES SCORE' holds (64)"),
]  # fmt: skip


@pytest.mark.parametrize(("data", "message"), BAD_FILES)
def test_a_bad_file_is_refused_in_one_line_naming_the_file_and_the_line(tmp_path, data, message):
    path = tmp_path / "Test_L3_R1"
    path.write_bytes(data)
    with pytest.raises(ValueError) as error:
        find_testsets(tmp_path)
    assert str(error.value) == message.replace("@", str(path))


def test_a_fifo_or_a_folder_of_a_sets_name_is_refused_not_passed_over_nor_waited_on(tmp_path):
    folder = write_folder(tmp_path / "sets", {"Test_L3_R1": "4455 18\n"})
    os.mkfifo(folder / "Test_L2_R1")  # no writer: opening it for reading the usual way would block for ever
    with pytest.raises(ValueError) as error:
        find_testsets(folder)
    assert str(error.value) == f"{folder / 'Test_L2_R1'}: is not a regular file (a FIFO), not a Pons set file"
    (folder / "Test_L2_R1").unlink()
    (folder / "Test_L2_R1").mkdir()
    with pytest.raises(ValueError) as error:
        find_testsets(folder, ["Middle-Easy"])
    assert str(error.value) == f"{folder / 'Test_L2_R1'}: is a directory, not a Pons set file"


def test_a_file_larger_than_the_bound_is_refused_before_it_is_parsed(tmp_path):
    assert MAX_FILE_BYTES >= 6 * 37_836  # several times Pons' largest file (Test_L3_R1)
    path = tmp_path / "Test_L3_R1"
    line = b"44455554221 -15\n"
    path.write_bytes(line * (MAX_FILE_BYTES // len(line) + 1))
    with pytest.raises(ValueError) as error:
        read_testset(path)
    assert str(error.value) == f"{path}: is {path.stat().st_size} bytes, more than the limit of {MAX_FILE_BYTES}"
    path.write_bytes(line * (MAX_FILE_BYTES // len(line)))  # at the bound: read
    assert len(read_testset(path).positions) == MAX_FILE_BYTES // len(line)
