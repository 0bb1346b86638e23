"""One random-move driver per library on the same games: ours (gymnasium, the vector envs), PettingZoo, OpenSpiel, pgx.

A workload is called as ``workload(moves, uniforms)``: it plays about ``moves`` moves, choosing each legal
move from the next of ``uniforms`` (uniform numbers in [0, 1)) where the driver is ours to write, and returns
the moves it made. scripts/bench.py's docstring says what each one times and how a move is counted.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

Workload = Callable[[int, np.ndarray], int]

#: The parameters that make OpenSpiel's game the same as ours (bench.py's GAMES names the games).
OPENSPIEL_PARAMS = {"dots_and_boxes": {"num_rows": 3, "num_cols": 3}, "mnk": {"m": 15, "n": 15, "k": 5}}


def pick_legal(mask: np.ndarray, u: float) -> int:
    """Return a uniformly chosen legal action given a uniform number ``u`` in [0, 1)."""
    legal = np.flatnonzero(mask)
    return int(legal[int(u * len(legal))])


def gym_workload(env_id: str, kwargs: dict, opponent: str | None) -> Workload:
    """Return a workload stepping ``env_id`` with random legal moves; ``opponent=None`` is self-play.

    Self-play counts moves (the driver plays both sides); against the built-in opponent it counts the
    agent's steps.
    """

    def workload(steps: int, uniforms: np.ndarray) -> int:
        import gymnasium as gym

        import gym_boardgames  # noqa: F401  (registers the ids)

        env = gym.make(env_id, opponent=opponent, **kwargs)
        _, info = env.reset(seed=0)
        for i in range(steps):
            _, _, terminated, _, info = env.step(pick_legal(info["action_mask"], uniforms[i]))
            if terminated:
                _, info = env.reset()
        return steps

    return workload


def pettingzoo_workload(module: str) -> Workload:
    """Return a workload stepping ``pettingzoo.classic.<module>.env()`` with random legal moves."""

    def workload(moves: int, uniforms: np.ndarray) -> int:
        import importlib

        env = importlib.import_module(f"pettingzoo.classic.{module}").env()
        env.reset(seed=0)
        done = 0
        while done < moves:
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.reset()
                continue
            env.step(pick_legal(observation["action_mask"], uniforms[done]))
            done += 1
        return done

    return workload


def openspiel_workload(name: str) -> Workload:
    """Return a workload playing random legal moves on OpenSpiel's game ``name`` (:data:`OPENSPIEL_PARAMS`).

    Per move: ``legal_actions()``, ``apply_action()`` and ``observation_tensor()`` (what an RL loop reads).
    """

    def workload(moves: int, uniforms: np.ndarray) -> int:
        import pyspiel

        game = pyspiel.load_game(name, OPENSPIEL_PARAMS.get(name, {}))
        state = game.new_initial_state()
        for i in range(moves):
            legal = state.legal_actions()
            state.apply_action(legal[int(uniforms[i] * len(legal))])
            if state.is_terminal():
                state.observation_tensor(0)  # the final board (no player is to move)
                state = game.new_initial_state()
            else:
                state.observation_tensor()
        return moves

    return workload


#: How each single-env peer's workload is made from its name of the game.
PEER_WORKLOADS: dict[str, Callable[[str], Workload]] = {
    "pettingzoo": pettingzoo_workload,
    "openspiel": openspiel_workload,
}


def vector_steps(moves: int, num_envs: int, max_steps: int) -> int:
    """Steps of one timed vector run: ``moves / num_envs``, at least 2 and at most ``max_steps``."""
    return max(2, min(moves // num_envs, max_steps))


def vector_workload(env_id: str, kwargs: dict, num_envs: int, opponent: str | None, max_steps: int) -> Workload:
    """Return a workload stepping ``gymnasium.make_vec(env_id, num_envs=...)`` with random legal moves.

    It counts moves: every sub-env moves at every step except those restarting after their game ended.
    The env is made once and keeps playing across runs.
    """
    import gymnasium as gym

    import gym_boardgames  # noqa: F401  (registers the ids)
    from gym_boardgames.rules.batch import random_legal_actions

    envs = gym.make_vec(env_id, num_envs=num_envs, opponent=opponent, **kwargs)
    rng = np.random.default_rng(0)
    _, info = envs.reset(seed=0)
    restarting = np.zeros(num_envs, dtype=bool)

    def workload(moves: int, uniforms: np.ndarray) -> int:
        nonlocal info, restarting
        done = 0
        for _ in range(vector_steps(moves, num_envs, max_steps)):
            _, _, terminated, _, info = envs.step(random_legal_actions(info["action_mask"], rng))
            done += num_envs - int(np.count_nonzero(restarting))
            restarting = terminated
        return done

    return workload


def pgx_workload(name: str, num_envs: int, max_steps: int) -> Workload:
    """Return a workload stepping ``num_envs`` pgx games at once; every sub-env moves at every step.

    Nothing touches jax until the first call, which compiles (run it as the warm-up).
    """
    compiled: dict = {}

    def setup() -> None:
        import jax
        import pgx
        from pgx.experimental import act_randomly, auto_reset

        env = pgx.make(name)
        step = jax.jit(jax.vmap(auto_reset(env.step, env.init)))

        @jax.jit
        def policy(key: jax.Array, mask: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
            key, act_key, step_key = jax.random.split(key, 3)
            return key, act_randomly(act_key, mask), jax.random.split(step_key, mask.shape[0])

        key, init_key = jax.random.split(jax.random.PRNGKey(0))
        compiled.update(step=step, policy=policy, key=key)
        compiled["state"] = jax.jit(jax.vmap(env.init))(jax.random.split(init_key, num_envs))

    def workload(moves: int, uniforms: np.ndarray) -> int:
        if not compiled:
            setup()
        step, policy, key, state = compiled["step"], compiled["policy"], compiled["key"], compiled["state"]
        steps = vector_steps(moves, num_envs, max_steps)
        for _ in range(steps):
            key, actions, step_keys = policy(key, state.legal_action_mask)
            state = step(state, actions, step_keys)
        state.observation.block_until_ready()
        compiled.update(key=key, state=state)
        return steps * num_envs

    return workload


def pgx_status() -> str:
    """Return ``"ok"`` if pgx imports and makes a game, else why not (for the skip message).

    Running it is checked by the warm-up, which compiles every pgx workload anyway.
    """
    try:
        import jax  # noqa: F401
        import pgx

        pgx.make("tic_tac_toe")
    except ImportError as error:
        return f"pgx is not installed ({error.name} is missing): pip install pgx"
    except Exception as error:  # noqa: BLE001  (any failure is a reason to skip, reported verbatim)
        return f"pgx does not run here: {type(error).__name__}: {error}"
    return "ok"


def pgx_versions() -> str:
    """Return the versions of pgx and jax, for the summary (call it only once :func:`pgx_status` is ok)."""
    import jax
    import pgx

    return f"pgx {pgx.__version__}, jax {jax.__version__}"


def time_workload(workload: Workload, moves: int, uniforms: np.ndarray) -> float:
    """Return moves per second of one run."""
    start = time.perf_counter()
    done = workload(moves, uniforms)
    return done / (time.perf_counter() - start)
