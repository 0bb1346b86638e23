"""gym_boardgames.errors.shown, shorten and describe_error: a user's value is shown cut, and never raises."""

from __future__ import annotations

import gymnasium as gym
import pytest

import gym_boardgames  # noqa: F401  (registers the envs)
from gym_boardgames.checks import as_integer, check_action, check_int
from gym_boardgames.errors import MAX_SHOWN_CHARS, describe_error, shorten, shown


def test_a_short_value_is_its_repr_and_a_long_one_is_cut_with_its_length():
    assert shown("abc") == "'abc'" and shown(True) == "True" and shown(10**100) == repr(10**100)
    assert shorten("a" * MAX_SHOWN_CHARS) == "a" * MAX_SHOWN_CHARS
    assert shown("a" * 5_000_000) == "'" + "a" * (MAX_SHOWN_CHARS - 1) + "... (5,000,002 characters)"


def test_an_integer_too_long_to_write_is_named_by_its_size():
    # Python's int-to-string conversion refuses it ("Exceeds the limit (4300 digits)").
    assert shown(10**5000) == "an integer of about 5,001 digits"
    assert shown(-(10**5000)) == "a negative integer of about 5,001 digits"


class _Hostile(int):
    """An int whose own methods all fail: the number itself is still taken, and shown by its type."""

    def __int__(self):
        raise RuntimeError("no int")

    __index__ = __int__

    def __repr__(self):
        raise SystemExit("no repr")

    def __lt__(self, other):
        raise RuntimeError("no comparison")

    __le__ = __ge__ = __gt__ = __lt__


def test_a_value_whose_repr_or_str_raises_is_named_by_its_type():
    assert shown(_Hostile(3)) == "<_Hostile object whose repr() failed>"

    class Unprintable(Exception):
        def __str__(self):
            raise RuntimeError("no str")

    assert describe_error(Unprintable()) == "Unprintable: <its message cannot be shown: str() failed>"


def test_an_exceptions_message_is_one_line_and_cut():
    text = describe_error(ValueError("m\n" * 3_000_000))
    assert "\n" not in text and text.endswith("... (5,999,999 characters)") and len(text) < 2 * MAX_SHOWN_CHARS


def test_a_move_and_a_setting_of_5000_digits_are_refused_naming_the_range():
    """The env's own move check (gym.make's door) and a setting's check, where Python's conversion raised."""
    env = gym.make("TicTacToe-v0", opponent=None)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"^action an integer of about 5,001 digits is not an integer in 0\.\.8$"):
        env.step(10**5000)
    with pytest.raises(ValueError, match=r"^episodes must be an integer in \[1, 10\], got an integer of about 5,001"):
        check_int("episodes", 10**5000, 1, 10)
    opponent = gym.make("TicTacToe-v0", opponent=lambda game, state: 10**5000, agent_player=1)
    with pytest.raises(ValueError, match=r"played an integer of about 5,001 digits, which is not an integer in 0\.\.8"):
        opponent.reset(seed=0)  # it opens at the reset


def test_an_int_subclass_is_its_number_whatever_its_own_methods_do():
    assert as_integer(_Hostile(3)) == 3 and check_action(_Hostile(3), 9) == 3
    with pytest.raises(ValueError, match=r"^action 9 is not an integer in 0\.\.8$"):
        check_action(_Hostile(9), 9)
