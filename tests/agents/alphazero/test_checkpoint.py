"""agents.alphazero.checkpoint: a training state is written, read back and checked, and old files still resume.

``data/tictactoe_v1.train.npz`` is a one-iteration tic-tac-toe run written by the code before the training module
was split (``TrainConfig(iterations=2, games=2, channels=4, blocks=1, value_hidden=8, eval_games=0,
replay_window=64, selfplay=SelfPlayConfig(simulations=2, parallel_games=2), seed=3)``): format version 1 as
shipped, kept so that a change of the file's layout shows here.
"""

import json
import shutil
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest

from agents.alphazero.checkpoint import (
    TRAIN_FORMAT,
    TRAIN_VERSION,
    CurvePoint,
    model_path,
    read_curve,
    read_training_state,
    save_training_state,
    training_state_path,
)
from agents.persistence import SavedFileError, save_npz

OLD_STATE = Path(__file__).with_name("data") / "tictactoe_v1.train.npz"
#: The game as every saved file records it (gym_boardgames.rules.registry.game_to_config).
GAME_RECORD = {"class": "TicTacToe", "config": [3, 3, 3, False]}


def contents(path):
    """The header (parsed) and the arrays of an ``.npz`` file."""
    with np.load(path, allow_pickle=False) as data:
        header = json.loads(str(data["__header__"]))
        return header, {k: data[k] for k in data.files if k != "__header__"}


def rewritten(header, arrays):
    """What saving a state read from the version 1 file writes: the same game record, the settings
    ``games_per_iteration`` named ``games`` (version 3) and ``n_simulations`` ``simulations`` (4), settings
    added since at their defaults (``perfect_games`` 0), and the learning curve moved from the header into
    the array ``curve`` (its JSON's bytes, version 2)."""
    assert header["meta"]["game"] == GAME_RECORD and header["version"] == 1
    meta = {k: v for k, v in header["meta"].items() if k != "curve"}
    training = {("games" if k == "games_per_iteration" else k): v for k, v in meta["training"].items()}
    assert training != meta["training"]
    selfplay = {("simulations" if k == "n_simulations" else k): v for k, v in training["selfplay"].items()}
    assert selfplay != training["selfplay"]  # version 4's name
    training["selfplay"] = selfplay
    assert "perfect_games" not in training
    training["perfect_games"] = 0
    curve = json.dumps(header["meta"]["curve"], separators=(",", ":")).encode()
    meta = {**meta, "game": GAME_RECORD, "training": training}
    return {**header, "version": TRAIN_VERSION, "meta": meta}, {
        **arrays,
        "curve": np.frombuffer(curve, np.uint8),
    }


def rewrite(path, arrays=None, meta=None, drop=()):
    """Rewrite a training state with some arrays or metadata replaced (as a hostile edit would)."""
    header, kept = contents(path)
    kept.update(arrays or {})
    for name in drop:
        del kept[name]
    save_npz(path, kept, format=TRAIN_FORMAT, version=header["version"], meta={**header["meta"], **(meta or {})})


def test_the_state_sits_beside_its_model_and_back():
    assert training_state_path("runs/c4.npz") == "runs/c4.train.npz"
    assert training_state_path("runs/c4") == "runs/c4.train.npz"
    assert model_path("runs/c4.train.npz") == "runs/c4.npz"


def test_reading_a_state_and_writing_it_again_gives_the_same_file_but_the_game_record(tmp_path):
    state = tmp_path / "run.train.npz"
    shutil.copy(OLD_STATE, state)
    saved = read_training_state(tmp_path / "run.npz")  # the model's path finds the state beside it
    assert (saved.iteration, saved.games, saved.positions) == (1, 2, 16)
    assert len(saved.replay.values) == 16 and saved.replay.planes.dtype == np.float32
    assert set(np.unique(saved.replay.planes * 4)) <= {0.0, 1.0, 2.0, 3.0, 4.0}
    assert saved.curve == [CurvePoint(**point) for point in contents(OLD_STATE)[0]["meta"]["curve"]]
    save_training_state(tmp_path / "again.train.npz", saved)
    (old_header, old_arrays), (header, arrays) = rewritten(*contents(OLD_STATE)), contents(tmp_path / "again.train.npz")
    assert header == old_header
    assert list(arrays) == list(old_arrays)  # the same members, in the same order
    for name, value in old_arrays.items():
        assert arrays[name].dtype == value.dtype and np.array_equal(arrays[name], value), name


def test_a_state_written_before_the_split_resumes_and_is_saved_unchanged_but_the_game_record(tmp_path):
    pytest.importorskip("torch", reason="the alphazero extra (PyTorch) is needed to train")
    from agents.alphazero.training import Trainer

    shutil.copy(OLD_STATE, tmp_path / "run.train.npz")
    trainer = Trainer.resume(tmp_path / "run.train.npz")
    assert trainer.out == str(tmp_path / "run.npz") and trainer.iteration == 1 and trainer.replay.size == 16
    trainer.save()  # nothing has changed since the resume: the optimizer, window, counters and RNG round-trip
    (old_header, old_arrays), (header, arrays) = rewritten(*contents(OLD_STATE)), contents(tmp_path / "run.train.npz")
    assert header == old_header and list(arrays) == list(old_arrays)
    assert all(np.array_equal(arrays[name], value) for name, value in old_arrays.items())
    from agents.alphazero import AlphaZeroAgent

    model = AlphaZeroAgent.load(tmp_path / "run.npz")
    assert all(np.array_equal(model.params[name], old_arrays[f"model.{name}"]) for name in model.params)


def test_the_learning_curve_is_read_without_the_replay(tmp_path):
    state = tmp_path / "run.train.npz"
    shutil.copy(OLD_STATE, state)
    rewrite(state, drop=["replay.values"])  # a state without its window still has its curve
    assert read_curve(tmp_path / "run.npz") == read_training_state(OLD_STATE).curve
    with pytest.raises(SavedFileError, match="replay.values"):
        read_training_state(state)


@pytest.mark.parametrize(
    ("arrays", "meta", "message"),
    [
        ({"replay.values": "nan"}, None, "NaN"),
        ({"second": -1.0}, None, "second moments must be >= 0"),
        ({"replay.values": "short"}, None, "different lengths"),
        ({"replay.planes": 5}, None, "planes above 1"),
        (None, {"seconds": "soon"}, "seconds must be a number"),
        (None, {"curve": [{"iteration": "x"}]}, "bad run record"),
        (None, {"iteration": 10**30}, "iteration must be an integer"),
        (None, {"net": {"channels": 5}}, "does not match the training settings"),
    ],
)
def test_bad_training_states_are_refused_naming_the_file(tmp_path, arrays, meta, message):
    state = tmp_path / "run.train.npz"
    shutil.copy(OLD_STATE, state)
    _, kept = contents(state)
    edits = {}
    for name, edit in (arrays or {}).items():
        if name == "second":
            name = next(k for k in kept if k.startswith("adam.exp_avg_sq."))
        value = kept[name].copy()
        if edit == "short":
            value = value[:-1]
        elif edit == "nan":
            value[0] = np.nan
        else:
            value.flat[0] = edit
        edits[name] = value
    rewrite(state, edits, meta)
    with pytest.raises(SavedFileError, match=message) as info:
        read_training_state(state)
    assert str(info.value).startswith(str(state))


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"value_hidden": 16}, "does not match the training settings"),
        ({"replay_window": 90_000_000}, "more than the 4 GiB limit"),
        ({"workers": 10**6}, "workers must be an integer"),
        ({"epsilon": 0.1}, "unknown training settings"),
    ],
)
def test_settings_that_do_not_fit_the_network_or_the_memory_are_refused(tmp_path, settings, message):
    state = tmp_path / "run.train.npz"
    shutil.copy(OLD_STATE, state)
    rewrite(state, meta={"training": {**contents(state)[0]["meta"]["training"], **settings}})
    with pytest.raises(SavedFileError, match=message):
        read_training_state(state)


def test_a_missing_state_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_training_state(tmp_path / "none.npz")


def test_a_curve_far_past_the_header_limit_saves_and_reads_back(tmp_path):
    """Version 1 kept the curve in the header: past about 4,100 iterations no save, and no resume, worked."""
    saved = read_training_state(OLD_STATE)
    point = saved.curve[0]
    saved.curve = [CurvePoint(**{**asdict(point), "iteration": i}) for i in range(1, 10_001)]
    save_training_state(tmp_path / "long.train.npz", saved)
    header, arrays = contents(tmp_path / "long.train.npz")
    assert "curve" not in header["meta"] and arrays["curve"].nbytes > 1_000_000
    assert read_curve(tmp_path / "long.npz") == saved.curve
    assert read_training_state(tmp_path / "long.npz").curve == saved.curve


@pytest.mark.parametrize(
    "stored, message",
    [
        (b"\xff\xfe", "not UTF-8"),
        (b"[{]", "not valid JSON"),
        (b'[{"iteration": NaN}]', "NaN"),
        (b'{"iteration": 1}', "must be a list of objects"),
        (
            b'[{"iteration": -1, "seconds": 1, "games": 1, "positions": 1, "policy_loss": 1, "value_loss": 1}]',
            "bad run",
        ),
    ],
)
def test_a_version_2_curve_that_is_not_a_curve_is_refused_naming_the_file(tmp_path, stored, message):
    saved = read_training_state(OLD_STATE)
    save_training_state(tmp_path / "run.train.npz", saved)
    rewrite(tmp_path / "run.train.npz", arrays={"curve": np.frombuffer(stored, np.uint8)})
    for read in (read_curve, read_training_state):
        with pytest.raises(SavedFileError, match=f"run.train.npz: .*{message}"):
            read(tmp_path / "run.npz")


@pytest.mark.parametrize(
    "change, message",
    [
        ({"optimal_rate": 5.0}, "curve optimal_rate"),
        ({"outcome_kept": -0.1}, "curve outcome_kept"),
        ({"scores": {"random": 2}}, "curve score against random"),
        ({"scores": {"random": "all"}}, "curve score against random"),
        ({"outcome_kept_other": {"random": [0.5, 1.5]}}, "curve outcome kept on random"),
        ({"outcome_kept_other": {"random": [0.5]}}, r"curve outcome kept on random must be \[all, critical\]"),
        ({"outcome_kept_other": [0.5, 0.5]}, "curve outcome_kept_other must be an object"),
    ],
)
def test_curve_shares_outside_0_to_1_are_refused(tmp_path, change, message):
    saved = read_training_state(OLD_STATE)
    point = {**asdict(saved.curve[0]), **change}
    save_training_state(tmp_path / "run.train.npz", saved)
    rewrite(tmp_path / "run.train.npz", arrays={"curve": np.frombuffer(json.dumps([point]).encode(), np.uint8)})
    with pytest.raises(SavedFileError, match=f"bad run record: {message}"):
        read_curve(tmp_path / "run.npz")


def _first_step_name(path):
    return next(k for k in contents(path)[1] if k.startswith("adam.step."))


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda path: {_first_step_name(path): np.array(-3.0, np.float32)}, "step counts must be whole numbers"),
        (lambda path: {_first_step_name(path): np.array(2.5, np.float32)}, "step counts must be whole numbers"),
        (lambda path: {"replay.policies": -contents(path)[1]["replay.policies"]}, "probability distributions"),
        (lambda path: {"replay.policies": 2 * contents(path)[1]["replay.policies"]}, "probability distributions"),
    ],
)
def test_optimizer_steps_and_policy_targets_must_be_what_training_makes(tmp_path, edit, message):
    state = tmp_path / "run.train.npz"
    shutil.copy(OLD_STATE, state)
    rewrite(state, arrays=edit(state))
    with pytest.raises(SavedFileError, match=message):
        read_training_state(state)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"state": -1}, "state must be an integer in"),
        ({"inc": 10**90}, "inc must be an integer in"),
        ({"inc": 2}, "inc must be odd"),
        ({"bit_generator": "MT19937"}, "expected numpy's PCG64 state"),
    ],
)
def test_an_impossible_random_generator_state_is_refused(tmp_path, change, message):
    state = tmp_path / "run.train.npz"
    shutil.copy(OLD_STATE, state)
    rng = contents(state)[0]["meta"]["rng"]
    inner = {k: v for k, v in change.items() if k in ("state", "inc")}
    outer = {k: v for k, v in change.items() if k not in inner}
    rewrite(state, meta={"rng": {**rng, **outer, "state": {**rng["state"], **inner}}})
    with pytest.raises(SavedFileError, match=f"bad random generator state: {message}"):
        read_training_state(state)
