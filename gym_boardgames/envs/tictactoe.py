"""TicTacToe-v0."""

from __future__ import annotations

from gym_boardgames.envs.base import Agent, OpponentPolicy
from gym_boardgames.envs.connect import ConnectBoardEnv
from gym_boardgames.rules.tictactoe import TicTacToe


class TicTacToeEnv(ConnectBoardEnv):
    """Tic-tac-toe against a built-in opponent, or self-play.

    ## Description
    Two players take turns putting X (player 0, moves first) and O (player 1) on a 3x3 board; three in a
    row, column or diagonal wins, a full board is a draw. The rules object is
    :class:`gym_boardgames.rules.TicTacToe` (``env.unwrapped.game``); ``env.unwrapped.state`` is the
    current immutable state, so search agents can plan from it.

    ## Action Space
    ``Discrete(9)``: the cell ``row * 3 + col``, row 0 at the top. ``info["action_mask"]`` and
    ``action_masks()`` mark the legal ones.

    ## Observation Space
    ``Box(-1, 1, (3, 3), int8)``: +1 the agent's pieces, -1 the opponent's, 0 empty. Against an opponent
    every observation (the final one too) is from the agent's side; in self-play it is from the side of
    the player to move (at the end: the player who would have moved next).

    ## Rewards
    +1 win, -1 loss, 0 draw, on the final step; 0 before. In self-play the reward belongs to the player
    who just moved. An illegal move (an occupied cell) with ``illegal_action="lose"`` gives -1 to the
    offender, ends the episode with the other player as winner and leaves the board unchanged.

    ## Episode End
    Terminated on a line of three, a full board or an illegal move (with ``illegal_action="lose"``).
    Never truncated.

    ## Info
    ``action_mask`` (int8, all zeros at the end), ``current_player``, ``illegal_action``, and at the end
    ``winner`` (0, 1, or -1 for a draw).

    ## Arguments
    ``opponent="random"`` (``"random"``, an agent name the scripts take such as ``"alphabeta"`` or
    ``"mcts:200"``, seeded from ``reset(seed=...)``; an object with ``act(game, state)``, a callable
    ``(game, state) -> int`` or ``None`` for self-play), ``agent_player=0`` (0, 1 or ``"random"``;
    ``reset(options={"agent_player": ...})`` overrides it for one episode), ``illegal_action="lose"``
    (or ``"raise"``), ``render_mode`` (``"human"``, ``"rgb_array"``, ``"ansi"``).

    ## Version History
    * v0: initial version. Since gym-boardgames 0.2.0 a draw's ``winner`` is -1 (it was None).
    """

    def __init__(
        self,
        *,
        opponent: str | Agent | OpponentPolicy | None = "random",
        agent_player: int | str = 0,
        illegal_action: str = "lose",
        render_mode: str | None = None,
    ) -> None:
        game = TicTacToe()
        super().__init__(
            game, opponent=opponent, agent_player=agent_player, illegal_action=illegal_action, render_mode=render_mode
        )
