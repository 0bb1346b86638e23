"""Fuzz: random sizes at every board constructor, random actions at every board ``step``.

A seeded loop draws sizes from a pool of good and hostile values (huge, zero, negative, bools, floats, NaN,
strings, None, numpy scalars, lists) and actions from another (out of range, bools, floats, numpy
scalars, arrays of every shape, None). Every call must return or raise one of the documented exceptions
(``ValueError``, which ``gym_boardgames.errors.ActionTypeError`` also is; ``TypeError`` only where Python
itself rejects a keyword a game does not take), run at most ``CALL_LINES`` Python lines (counted, not timed, so
a busy machine changes nothing: tests/work_budget.py), and allocate under 1 GB (tracemalloc peak, which numpy
reports to).
"""

from __future__ import annotations

import math
import tracemalloc
import warnings
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import gym_boardgames
from gym_boardgames.errors import ResetNeeded
from gym_boardgames.rules import ConnectN, DotsAndBoxes, TicTacToe
from gym_boardgames.rules.common import MAX_BOARD_SIDE, MAX_DOTS_SIDE

gym.register_envs(gym_boardgames)

#: The most Python lines one call may run. The largest board that builds, 64x64 with n=32, runs about 490,000
#: (its geometry); a hostile size that reached a loop over it (10**18 rows) would run without end.
CALL_LINES = 2_000_000
GIGABYTE = 2**30
SEED = 13

#: Sizes every game takes (some only up to the Dots limit), drawn half of the time so that many boards build.
GOOD_SIZES: list[Any] = [*range(1, 9), 12, MAX_DOTS_SIDE, MAX_BOARD_SIDE, np.int64(5), np.uint8(3)]
BAD_SIZES: list[Any] = [
    MAX_DOTS_SIDE + 1,
    MAX_BOARD_SIDE + 1,
    100,
    1000,
    10**6,
    10**18,
    2**63,
    10**100,
    0,
    -1,
    -(10**9),
    True,
    False,
    np.bool_(True),
    2.0,
    3.5,
    math.nan,
    math.inf,
    -math.inf,
    "6",
    "",
    None,
    [6],
    (6,),
    np.int8(-3),
    np.uint64(2**63),
    np.float64(6.0),
    np.array(4),
    np.array([4, 4]),
    1 + 0j,
]
SIZES = GOOD_SIZES + BAD_SIZES
GOOD_GRAVITIES: list[Any] = [True, False, np.bool_(False)]
GRAVITIES = GOOD_GRAVITIES + [1, 0, "yes", None, 1.0]
GOOD_TIE_BREAKS: list[Any] = ["draw", "second"]
TIE_BREAKS = GOOD_TIE_BREAKS + ["Draw", "", None, 0, ["draw"], np.array(["draw"])]
NUM_ENVS: list[Any] = [1, 2, 3, 0, -1, True, 2.0, "2", None, np.int64(2), 10**6 * 10**6]


def _actions(num_actions: int) -> list[Any]:
    return [
        0,
        num_actions - 1,
        num_actions,
        -1,
        10**20,
        -(10**20),
        True,
        False,
        np.bool_(True),
        1.0,
        1.5,
        math.nan,
        math.inf,
        np.int64(0),
        np.int8(-1),
        np.uint8(255),
        np.uint64(2**64 - 1),
        np.float32(1.0),
        np.array(0),
        np.array([0]),
        np.array([[0]]),
        np.array([0, 1]),
        np.array([]),
        np.array(0.5),
        None,
        "0",
        [0],
        (0,),
        {0},
        object(),
    ]


@pytest.fixture
def call(work_budget):
    """``call(what, allowed, function, *args, **kwargs)``: the result, or the exception of ``allowed`` it raised.

    Any other exception, a call that runs more than ``CALL_LINES`` Python lines or a peak allocation over
    1 GB fails the test.
    """

    def call(
        what: str, allowed: tuple[type[BaseException], ...], function: Callable[..., Any], *args: Any, **kwargs: Any
    ) -> Any:
        try:
            with work_budget.bounded(max_lines=CALL_LINES, max_bytes=GIGABYTE):
                try:
                    result = function(*args, **kwargs)
                except allowed as error:
                    result = error
                except Exception as error:  # pragma: no cover - the failure message is the point
                    pytest.fail(f"{what} raised an undocumented {type(error).__name__}: {error}")
        except (AssertionError, work_budget.WorkBudgetExceeded) as error:
            pytest.fail(f"{what}: {error}")
        return result

    return call


@pytest.fixture(autouse=True)
def _traced():
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Gymnasium's env checker warns about odd but accepted values
            yield
    finally:
        tracemalloc.stop()


def _pick(rng: np.random.Generator, pool: list[Any], good: list[Any] | None = None) -> Any:
    """A random element of ``pool``, or half of the time of ``good`` when given."""
    if good is not None and rng.random() < 0.5:
        pool = good
    return pool[int(rng.integers(len(pool)))]


@pytest.mark.slow
def test_rules_constructors_take_any_size_safely(call):
    rng = np.random.default_rng(SEED)
    built = dots_built = 0
    for _ in range(2000):
        rows, cols, n = (_pick(rng, SIZES, GOOD_SIZES) for _ in range(3))
        gravity, tie_break = _pick(rng, GRAVITIES, GOOD_GRAVITIES), _pick(rng, TIE_BREAKS, GOOD_TIE_BREAKS)
        game = call(
            f"ConnectN({rows!r}, {cols!r}, {n!r}, {gravity!r})", (ValueError,), ConnectN, rows, cols, n, gravity
        )
        built += not isinstance(game, BaseException)
        dots = call(
            f"DotsAndBoxes({rows!r}, {cols!r}, {tie_break!r})", (ValueError,), DotsAndBoxes, rows, cols, tie_break
        )
        dots_built += not isinstance(dots, BaseException)
        call(f"ConnectN(rows={rows!r})", (ValueError,), ConnectN, rows=rows)
        call(f"DotsAndBoxes(cols={cols!r})", (ValueError,), DotsAndBoxes, cols=cols)
    assert built > 100 and dots_built > 100  # the pools have good sizes too
    # TicTacToe has a fixed size: any argument is Python's TypeError.
    call("TicTacToe()", (), TicTacToe)
    call("TicTacToe(10**6)", (TypeError,), TicTacToe, 10**6)


def _make_kwargs(rng: np.random.Generator, env_id: str) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    for key, pool, good in (
        ("rows", SIZES, GOOD_SIZES),
        ("cols", SIZES, GOOD_SIZES),
        ("n", SIZES, GOOD_SIZES),
        ("gravity", GRAVITIES, GOOD_GRAVITIES),
    ):
        if rng.random() < 0.6:
            kwargs[key] = _pick(rng, pool, good)
    if env_id == "DotsAndBoxes-v0":
        kwargs.pop("n", None)
        kwargs.pop("gravity", None)
    return kwargs


#: Ids that take size keywords; the others (fixed boards) reject any with Python's TypeError.
SIZED = {"ConnectN-v0", "DotsAndBoxes-v0"}
BOARD_IDS = ["TicTacToe-v0", "ConnectN-v0", "ConnectFour-v0", "DotsAndBoxes-v0"]


@pytest.mark.slow
@pytest.mark.parametrize(("vector", "rounds", "fewest"), [(False, 200, 100), (True, 80, 40)], ids=["make", "make_vec"])
def test_gym_make_and_make_vec_take_any_size_and_count_safely(call, vector, rounds, fewest):
    rng = np.random.default_rng(SEED + (2 if vector else 1))
    built = 0
    for _ in range(rounds):
        for env_id in BOARD_IDS:
            kwargs = _make_kwargs(rng, env_id)
            allowed = (ValueError,) if env_id in SIZED or not kwargs else (TypeError,)
            if vector:
                num_envs = _pick(rng, NUM_ENVS, [1, 2, 3])
                what = f"gym.make_vec({env_id!r}, num_envs={num_envs!r}, **{kwargs!r})"
                made = call(
                    what, allowed, gym.make_vec, env_id, num_envs, vectorization_mode="vector_entry_point", **kwargs
                )
            else:
                what = f"gym.make({env_id!r}, **{kwargs!r})"
                made = call(what, allowed, gym.make, env_id, **kwargs)
            if not isinstance(made, BaseException):
                built += 1
                call(f"{what} reset", (), made.reset, seed=0)
                made.close()
    assert built > fewest


STEP_CONFIGS = [
    ("TicTacToe-v0", {}),
    ("ConnectFour-v0", {}),
    ("ConnectN-v0", {"rows": 3, "cols": 5, "n": 3, "gravity": False}),
    ("ConnectN-v0", {"rows": MAX_BOARD_SIDE, "cols": MAX_BOARD_SIDE, "n": 5, "gravity": True}),
    ("DotsAndBoxes-v0", {"rows": 2, "cols": 2}),
    ("DotsAndBoxes-v0", {"rows": MAX_DOTS_SIDE, "cols": MAX_DOTS_SIDE}),
]


@pytest.mark.parametrize(("env_id", "kwargs"), STEP_CONFIGS, ids=lambda value: str(value))
def test_step_takes_any_action_safely(env_id, kwargs, call):
    rng = np.random.default_rng(SEED + 3)
    env = gym.make(env_id, **kwargs)
    n = env.action_space.n
    pool = _actions(n)
    env.reset(seed=0)
    ended = False
    for i in range(150):
        action = _pick(rng, pool)
        what = f"{env_id} step({action!r})"
        # After the end, step raises ResetNeeded (documented); a bad action raises ValueError.
        result = call(what, (ValueError, ResetNeeded) if ended else (ValueError,), env.step, action)
        if isinstance(result, ResetNeeded):
            env.reset(seed=i)
            ended = False
        elif not isinstance(result, BaseException):
            ended = result[2] or result[3]
    env.close()


@pytest.mark.parametrize(("env_id", "kwargs"), STEP_CONFIGS, ids=lambda value: str(value))
def test_vector_step_takes_any_actions_safely(env_id, kwargs, call):
    rng = np.random.default_rng(SEED + 4)
    envs = gym.make_vec(env_id, num_envs=3, vectorization_mode="vector_entry_point", **kwargs)
    n = envs.single_action_space.n
    pool = [
        *(np.full(3, a) for a in (0, n - 1, n, -1)),
        np.array([0, 1, 2]) % n,
        np.array([0, 1]),
        np.zeros((3, 1), dtype=np.int64),
        np.zeros(3, dtype=np.float64),
        np.array([0.5, 0, 0]),
        np.array([True, False, True]),
        np.array([10**19, 0, 0], dtype=np.uint64),
        [0, 0, 0],
        (0, 0, 0),
        0,
        None,
        "000",
        np.array(["0", "0", "0"]),
        np.array([None, None, None]),
    ]
    envs.reset(seed=0)
    for _ in range(100):
        actions = _pick(rng, pool)
        call(f"{env_id} vector step({actions!r})", (ValueError,), envs.step, actions)
    envs.close()


def test_rules_apply_takes_any_action_safely(call):
    rng = np.random.default_rng(SEED + 5)
    for game in (TicTacToe(), ConnectN(MAX_BOARD_SIDE, MAX_BOARD_SIDE, 4), DotsAndBoxes(MAX_DOTS_SIDE, 3)):
        pool = _actions(game.num_actions)
        state = game.initial_state()
        for _ in range(100):
            action = _pick(rng, pool)
            result = call(f"{game!r}.apply({action!r})", (ValueError,), game.apply, state, action)
            if not isinstance(result, BaseException):
                state = game.initial_state() if game.is_terminal(result) else result
