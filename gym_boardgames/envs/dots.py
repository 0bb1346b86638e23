"""DotsAndBoxes-v0."""

from __future__ import annotations

from typing import Any

from gym_boardgames.checks import check_choice
from gym_boardgames.envs.base import Agent, OpponentPolicy, TwoPlayerEnv
from gym_boardgames.envs.contract import DOTS_REWARD_MODES, score_reward
from gym_boardgames.rules.dots import DotsAndBoxes, DotsState


class DotsAndBoxesEnv(TwoPlayerEnv):
    """Dots and Boxes on ``rows x cols`` boxes against an opponent or in self-play.

    ## Description
    Players draw edges between neighbouring dots; the fourth edge of a box scores it (one edge can
    score two) and gives the same player another move. When every edge is drawn the player with more
    boxes wins; equal boxes is a draw, or with ``tie_break="second"`` a win for player 1 (who did not
    start). The default 3x3 boxes (4x4 dots, 24 edges) is the board of the Dots and Boxes study in this
    project's seeds. Rules: :class:`gym_boardgames.rules.DotsAndBoxes` (``env.unwrapped.game``).

    ## Action Space
    ``Discrete(E)`` with ``E = (rows+1)*cols + rows*(cols+1)``: the edge, numbered as in
    :mod:`gym_boardgames.rules.dots` (horizontal edges row by row, then vertical ones; OpenSpiel's order).

    ## Observation Space
    ``Box(-1, 1, (E + rows*cols,), int8)``: the edges (1 drawn, 0 free), then the box owners from the
    agent's side (in self-play: the player to move): +1 own, -1 the other player's, 0 free.

    ## Rewards
    ``reward="win"`` (default): +1/-1/0 on the final step. ``reward="score"``: at every step, the boxes
    the agent gained minus the boxes the opponent gained during that step (in self-play: the boxes the
    mover gained), so the episode return is the final margin. An illegal move (a drawn edge) with
    ``illegal_action="lose"`` gives -1 in either mode and ends the episode.

    ## Turns
    After the agent's move the opponent moves as long as it is its turn (several boxes in a row);
    ``step`` returns when it is the agent's turn again or the game is over. If the agent completes a
    box, ``step`` returns at once with the agent still to move.

    ## Episode End
    All edges drawn, or an illegal move with ``illegal_action="lose"``. Never truncated.

    ## Info
    ``action_mask``, ``current_player``, ``illegal_action``, ``scores`` (``[boxes of player 0, boxes of
    player 1]``), and at the end ``winner`` (0, 1, or -1 for a draw).

    ## Arguments
    ``rows=3``, ``cols=3`` (boxes), ``tie_break="draw"`` (or ``"second"``), ``reward="win"`` (or
    ``"score"``), and the two-player keywords ``opponent``, ``agent_player``, ``illegal_action``,
    ``render_mode`` (see :class:`~gym_boardgames.envs.base.TwoPlayerEnv`; ``opponent`` also takes the scripts' agent
    names, e.g. ``"always4never3"``, ``"exact"`` or ``"mcts:200"``).

    ## Version History
    * v0: initial version. Since gym-boardgames 0.2.0 a draw's ``winner`` is -1 (it was None).
    """

    def __init__(
        self,
        rows: int = 3,
        cols: int = 3,
        tie_break: str = "draw",
        reward: str = "win",
        *,
        opponent: str | Agent | OpponentPolicy | None = "random",
        agent_player: int | str = 0,
        illegal_action: str = "lose",
        render_mode: str | None = None,
    ) -> None:
        check_choice("reward", reward, DOTS_REWARD_MODES)  # before the board, as the vector env checks them
        game = DotsAndBoxes(rows, cols, tie_break)
        super().__init__(
            game, opponent=opponent, agent_player=agent_player, illegal_action=illegal_action, render_mode=render_mode
        )
        self.reward_mode = reward

    def _info(self) -> dict[str, Any]:
        info = super()._info()
        info["scores"] = list(self.game.scores(self.state))
        return info

    def _reward(self, before: DotsState, after: DotsState, seat: int) -> float:
        if self.reward_mode == "win":
            return super()._reward(before, after, seat)
        (before0, before1), (after0, after1) = self.game.scores(before), self.game.scores(after)
        return float(score_reward((after0 - before0) - (after1 - before1), seat))
