"""The vector version of DotsAndBoxes-v0 (``gymnasium.make_vec``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from gym_boardgames.checks import check_choice
from gym_boardgames.envs.contract import DOTS_REWARD_MODES, score_reward
from gym_boardgames.rules.batch import DotsAndBoxesBatch
from gym_boardgames.rules.dots import DotsAndBoxes
from gym_boardgames.vector.base import TwoPlayerVectorEnv


class DotsAndBoxesVectorEnv(TwoPlayerVectorEnv):
    """``num_envs`` games of DotsAndBoxes-v0 stepped together.

    ## Description
    The rules, actions, observations, rewards and info of :class:`~gym_boardgames.envs.dots.DotsAndBoxesEnv`
    per sub-env, batched as in :class:`~gym_boardgames.vector.base.TwoPlayerVectorEnv` and advanced by
    :class:`~gym_boardgames.rules.batch.DotsAndBoxesBatch` on the scalar rules' edge/box maps. A completed
    box gives another move: against the opponent, ``step`` returns when it is the agent's turn again in
    every sub-env (or that sub-env's game is over), so one step may hold several opponent moves.

    ## Action Space
    ``MultiDiscrete([E] * num_envs)``, ``E = (rows+1)*cols + rows*(cols+1)`` edges numbered as in
    :mod:`gym_boardgames.rules.dots`.

    ## Observation Space
    ``Box(-1, 1, (num_envs, E + rows*cols), int8)``: per sub-env the edges (1 drawn), then the box owners
    from the agent's side (in self-play: the player to move).

    ## Rewards
    ``reward="win"``: +1/-1/0 at the end. ``reward="score"``: per step, boxes gained minus boxes conceded
    (in self-play: by the mover). An illegal move gives -1 in either mode.

    ## Info
    As every vector board env, plus ``scores``: ``(num_envs, 2)`` int64 boxes of player 0 and player 1.

    ## Arguments
    ``num_envs=1``, ``rows=3``, ``cols=3`` (boxes), ``tie_break="draw"`` (or ``"second"``),
    ``reward="win"`` (or ``"score"``), ``opponent="random"`` (or None, or an agent name of the scripts
    such as ``"always4never3"`` or ``"exact"``, asked per sub-env in a Python loop), ``agent_player=0`` (0, 1 or
    ``"random"``), ``illegal_action="lose"`` (or ``"raise"``), ``render_mode=None``.

    ## Version History
    * v0: initial version.
    """

    def __init__(
        self,
        num_envs: int = 1,
        rows: int = 3,
        cols: int = 3,
        tie_break: str = "draw",
        reward: str = "win",
        *,
        opponent: str | None = "random",
        agent_player: int | str = 0,
        illegal_action: str = "lose",
        render_mode: str | None = None,
    ) -> None:
        check_choice("reward", reward, DOTS_REWARD_MODES)  # before the board, as the single env checks them
        batch = DotsAndBoxesBatch(DotsAndBoxes(rows, cols, tie_break), num_envs)
        super().__init__(
            batch, opponent=opponent, agent_player=agent_player, illegal_action=illegal_action, render_mode=render_mode
        )
        self.reward_mode = reward

    def _scores(self) -> Any:
        return self.batch.scores.astype(np.int64) if self.reward_mode == "score" else None

    def _score_reward(self, seat: np.ndarray, before: Any) -> np.ndarray:
        gained = self.batch.scores - before
        return score_reward(gained[:, 0] - gained[:, 1], seat.astype(np.int64)).astype(np.float64)

    def _info(self, terminated: np.ndarray, winner: np.ndarray, illegal: np.ndarray, before: Any) -> dict[str, Any]:
        info = super()._info(terminated, winner, illegal, before)
        info["scores"] = self.batch.scores.astype(np.int64)
        return info
