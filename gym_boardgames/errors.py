"""Exceptions raised by gym-boardgames, each also an instance of the built-in type users expect."""

from __future__ import annotations

import gymnasium.error


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


def describe_error(error: BaseException) -> str:
    """``SystemExit(0)`` -> ``SystemExit: 0``: the exception's type and message, on one line."""
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
