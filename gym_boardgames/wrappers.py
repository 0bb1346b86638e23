"""Wrappers that give any env of this package a flat ``float32`` vector observation.

Single-file training scripts such as CleanRL's ``dqn.py`` and ``ppo.py`` size their first linear layer by
``prod(observation_space.shape)`` and feed the observation to it as it comes. The board envs observe a 2-D
``int8`` board (``Box(-1, 1, (3, 3), int8)`` for TicTacToe-v0) and the tabular envs an integer
(``Discrete(16)`` for GridWorld-v0), so those scripts crash on them. :func:`make_flat` wraps an id with
Gymnasium's own ``FlattenObservation`` (a 2-D board becomes a vector, a ``Discrete`` state a one-hot vector)
and ``DtypeObservation`` (``float32``, what the network takes); :class:`ActionMaskObservation` can append the
legal-move mask, so that a script whose network sees only the observation can still mask illegal moves.
See docs/tutorials/cleanrl.md.

Importing this module registers the ids (it is part of the package) and, like ``import gym_boardgames``,
never imports pygame or ``agents``.
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.wrappers import DtypeObservation, FlattenObservation

__all__ = ["ActionMaskObservation", "flat_float32", "make_flat"]


class ActionMaskObservation(gym.Wrapper[np.ndarray, Any, np.ndarray, Any]):
    """Append the legal-move mask to a 1-D ``Box`` observation: ``[observation..., mask...]``.

    The mask is ``info["action_mask"]`` (1 for each legal move, all zeros once the episode has ended), which
    every board env gives after each ``reset`` and ``step``; for an env that gives none (the tabular envs,
    where every action is legal) it is all ones. The last ``n_actions`` entries of every observation are the
    mask, so a network can read it from its input: a replay buffer then stores the next state's mask with the
    next observation, which a masked DQN target needs. The info is passed through unchanged.

    Args:
        env: an env with a 1-D ``Box`` observation space (wrap it with ``FlattenObservation`` first) and a
            ``Discrete`` action space.

    Raises:
        ValueError: if the observation space is not a 1-D ``Box`` or the action space not ``Discrete``.
    """

    def __init__(self, env: gym.Env[np.ndarray, Any]) -> None:
        super().__init__(env)
        space, actions = env.observation_space, env.action_space
        if not (isinstance(space, spaces.Box) and len(space.shape) == 1 and isinstance(actions, spaces.Discrete)):
            raise ValueError(
                f"ActionMaskObservation needs a 1-D Box observation space and a Discrete action space, got {space} "
                f"and {actions} (gymnasium.wrappers.FlattenObservation flattens a board)"
            )
        #: The number of actions: the observation's last ``n_actions`` entries are the mask.
        self.n_actions = int(actions.n)
        dtype = space.dtype
        self.observation_space = spaces.Box(
            low=np.concatenate([space.low, np.zeros(self.n_actions, dtype=dtype)]),
            high=np.concatenate([space.high, np.ones(self.n_actions, dtype=dtype)]),
            dtype=dtype,
        )
        self._all_legal = np.ones(self.n_actions, dtype=dtype)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset the env; the observation ends with the mask of the first position."""
        observation, info = self.env.reset(seed=seed, options=options)
        return self._with_mask(observation, info), info

    def step(self, action: Any) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the env; the observation ends with the mask of the new position (all zeros at the end)."""
        observation, reward, terminated, truncated, info = self.env.step(action)
        return self._with_mask(observation, info), reward, terminated, truncated, info

    def _with_mask(self, observation: np.ndarray, info: dict[str, Any]) -> np.ndarray:
        mask = info.get("action_mask")
        mask = self._all_legal if mask is None else np.asarray(mask, dtype=self.observation_space.dtype)
        if mask.shape != (self.n_actions,):
            raise ValueError(f"info['action_mask'] has shape {mask.shape}, expected ({self.n_actions},)")
        return np.concatenate([np.asarray(observation, dtype=self.observation_space.dtype), mask])


def flat_float32(env: gym.Env[Any, Any], *, action_mask: bool = False) -> gym.Env[np.ndarray, Any]:
    """Wrap ``env`` so that it observes a flat ``float32`` vector.

    ``FlattenObservation`` turns a board into a vector and a ``Discrete`` state into a one-hot vector;
    ``DtypeObservation`` makes it ``float32``. Both are Gymnasium's own wrappers.

    Args:
        env: any env of this package (or any env whose observation space Gymnasium can flatten).
        action_mask: also append the legal-move mask (:class:`ActionMaskObservation`).

    Returns:
        the wrapped env, whose observation space is a 1-D ``float32`` ``Box``.
    """
    flat = DtypeObservation(FlattenObservation(env), np.float32)
    return ActionMaskObservation(flat) if action_mask else flat


def make_flat(env_id: str, *, action_mask: bool = False, **kwargs: Any) -> gym.Env[np.ndarray, Any]:
    """``gymnasium.make(env_id, **kwargs)``, wrapped by :func:`flat_float32`.

    The drop-in replacement for ``gym.make(env_id)`` in a training script's env factory, e.g. CleanRL's
    ``make_env``: ``make_flat("TicTacToe-v0")`` observes ``Box(-1.0, 1.0, (9,), float32)``.

    Args:
        env_id: a registered id, e.g. ``"TicTacToe-v0"`` (importing this module registers the package's ids).
        action_mask: also append the legal-move mask (:class:`ActionMaskObservation`).
        **kwargs: passed to ``gymnasium.make`` (``opponent=``, ``render_mode=``...).

    Returns:
        the wrapped env.
    """
    return flat_float32(gym.make(env_id, **kwargs), action_mask=action_mask)
