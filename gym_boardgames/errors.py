"""Exceptions raised by gym-boardgames, each also an instance of the built-in type users expect.

Also the one way a message shows a value that came from a caller or a user's agent (a move, a setting, an
exception's message): :func:`shown` for a value, :func:`describe_error` for an exception, both cut by
:func:`shorten` to :data:`MAX_SHOWN_CHARS`. So a 5 MB string played as a move, or raised, still gives a
one-line message a person can read (and a status line that draws at once), and an integer of 5,000 digits is
named by its size, not handed to Python's int-to-string conversion, which refuses it.
"""

from __future__ import annotations

import math
from typing import Any

import gymnasium.error

#: The most characters of a user's value that a message shows; a longer one is cut, saying its length.
MAX_SHOWN_CHARS = 200
#: The most characters of a whole message that carries a user's text: an :class:`AgentError` a user's agent raised
#: itself, or one that a child process sent (whose parts are each bounded already).
MAX_MESSAGE_CHARS = 2000
# An integer of more bits than this has more digits than a message shows (log10(2) < 0.302).
_SHOWN_INT_BITS = int(MAX_SHOWN_CHARS / 0.301)


class ActionTypeError(TypeError, ValueError):
    """An action that is not an integer at all (a float, a string, an array of several values).

    It is both a ``TypeError`` (the usual Python signal) and a ``ValueError`` (what docs/design.md, section
    "Errors", promises for any action outside the action space), so either ``except`` clause catches it.
    """


class ResetNeeded(gymnasium.error.ResetNeeded, RuntimeError):
    """``step()`` was called before ``reset()`` or after the episode ended."""


class BadFileError(ValueError):
    """A file that cannot be used: the message names the file and what is wrong with it."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


class AgentError(ValueError):
    """A user's agent failed: it raised, exited or ran out of time. The message is one line naming it."""


def shorten(text: str, limit: int = MAX_SHOWN_CHARS) -> str:
    """Return ``text`` if it has at most ``limit`` characters, else its first ``limit``, ``...`` and its length.

    ``"a" * 5000`` -> ``"aaa...a... (5,000 characters)"``.
    """
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text):,} characters)"


class ShownValue:
    """A value another process wrote with :func:`shown`: its ``repr`` is that text, which :func:`shown` keeps as it is.

    A child process's agent that plays something JSON cannot carry (a 5 MB string, a generator) sends its
    shown text; the parent's move check refuses this stand-in in the words it uses for the value itself.
    """

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = shorten(text, MAX_MESSAGE_CHARS)  # cut by the other process already: only a bound here

    def __repr__(self) -> str:
        return self.text


def shown(value: Any) -> str:
    """Return ``repr(value)`` as a message shows it: cut by :func:`shorten`, and never raising.

    An integer with more digits than a message shows is named by its size (``an integer of about 5,001
    digits``): Python refuses to write one of more than 4300 digits, and writing one costs time quadratic in
    its length. A value whose ``repr`` raises is named by its type. Ctrl-C (``KeyboardInterrupt``) passes.
    """
    if type(value) is ShownValue:  # shown already, in another process
        return value.text
    if isinstance(value, int) and not isinstance(value, bool) and int.bit_length(value) > _SHOWN_INT_BITS:
        number = int.__int__(value)  # the number itself: a subclass's own methods are not called
        digits = math.floor(math.log10(abs(number))) + 1  # log10 of an int is exact enough and linear in its size
        return f"{'a negative' if number < 0 else 'an'} integer of about {digits:,} digits"
    try:
        text = repr(value)
    except KeyboardInterrupt:
        raise
    except BaseException:  # noqa: BLE001  (a user's __repr__ may raise anything, SystemExit included)
        return f"<{shorten(type(value).__name__, 80)} object whose repr() failed>"
    return shorten(text)


def describe_error(error: BaseException) -> str:
    """``SystemExit(0)`` -> ``SystemExit: 0``: the exception's type and message, on one line of bounded length.

    The message is cut by :func:`shorten`; one whose ``str()`` raises is named as such.
    """
    try:
        text = " ".join(str(error).split())
    except KeyboardInterrupt:
        raise
    except BaseException:  # noqa: BLE001  (a user's __str__ may raise anything)
        text = "<its message cannot be shown: str() failed>"
    name = shorten(type(error).__name__, 80)
    return f"{name}: {shorten(text)}" if text else name
