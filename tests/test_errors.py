"""Tests of gym_boardgames.errors: each exception is also the built-in type users expect to catch."""

from __future__ import annotations

import gymnasium
import pytest

from gym_boardgames.errors import ActionTypeError, BadFileError, ResetNeeded


def test_action_type_error_is_caught_as_type_error_and_value_error() -> None:
    assert issubclass(ActionTypeError, TypeError) and issubclass(ActionTypeError, ValueError)


def test_reset_needed_is_gymnasiums_and_a_runtime_error() -> None:
    assert issubclass(ResetNeeded, gymnasium.error.ResetNeeded) and issubclass(ResetNeeded, RuntimeError)


def test_bad_file_error_names_the_file_and_the_problem() -> None:
    error = BadFileError("models/x.npz", "is a directory, not a saved file")
    assert isinstance(error, ValueError)
    assert str(error) == "models/x.npz: is a directory, not a saved file"
    assert (error.path, error.problem) == ("models/x.npz", "is a directory, not a saved file")


def test_the_envs_raise_them() -> None:
    env = gymnasium.make("TicTacToe-v0").unwrapped  # past Gymnasium's own OrderEnforcing check
    with pytest.raises(ResetNeeded):
        env.step(0)
    env.reset(seed=0)
    with pytest.raises(ActionTypeError):
        env.step("4")
    env.close()
