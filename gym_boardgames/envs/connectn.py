"""ConnectN-v0 (the m,n,k game and gravity boards) and ConnectFour-v0."""

from __future__ import annotations

from functools import partialmethod

from gym_boardgames.envs.base import Agent, OpponentPolicy
from gym_boardgames.envs.connect import ConnectBoardEnv
from gym_boardgames.rules.connect import ConnectN


class ConnectNEnv(ConnectBoardEnv):
    """n in a row on a ``rows x cols`` board, with or without gravity, against an opponent or in self-play.

    ## Description
    Player 0 and player 1 alternately place a piece; the first with ``n`` in a row horizontally,
    vertically or diagonally wins, a full board is a draw. With ``gravity=True`` (the default, Connect
    Four on 6x7 with n=4) pieces fall to the lowest empty row of the chosen column; with
    ``gravity=False`` it is the m,n,k game (``ConnectN(15, 15, 5, gravity=False)`` is Gomoku; 3x3 with
    n=3 is tic-tac-toe). The rules object is :class:`gym_boardgames.rules.ConnectN`
    (``env.unwrapped.game``), the current state ``env.unwrapped.state``.

    ## Action Space
    With gravity ``Discrete(cols)``: the column. Without gravity ``Discrete(rows * cols)``: the cell
    ``row * cols + col``, row 0 at the top. ``info["action_mask"]`` marks the legal ones.

    ## Observation Space
    ``Box(-1, 1, (rows, cols), int8)``: +1 the agent's pieces (in self-play: the player to move), -1 the
    other player's, 0 empty; row 0 is the top of the board.

    ## Rewards
    +1 win, -1 loss, 0 draw on the final step, 0 before; in self-play the reward belongs to the player
    who just moved. An illegal move (a full column or an occupied cell) with ``illegal_action="lose"``
    gives -1 to the offender and ends the episode.

    ## Episode End
    A line of ``n``, a full board, or an illegal move with ``illegal_action="lose"``. Never truncated.
    (With ``n=1`` the first piece wins, so with ``agent_player=1`` the opponent's opening move inside
    ``reset`` already ends the episode: ``info["winner"]`` is 0 and ``step`` asks for a new ``reset``.)

    ## Info
    ``action_mask``, ``current_player``, ``illegal_action``, and at the end ``winner`` (0, 1, or -1 for a draw).

    ## Arguments
    ``rows=6``, ``cols=7``, ``n=4``, ``gravity=True`` (validated: sizes >= 1, ``1 <= n <= max(rows, cols)``),
    and the two-player keywords ``opponent``, ``agent_player``, ``illegal_action``, ``render_mode``
    (see :class:`~gym_boardgames.envs.base.TwoPlayerEnv`; ``opponent`` also takes the scripts' agent
    names, e.g. ``"alphabeta:4"`` or ``"mcts:200"``).

    ## Version History
    * v0: initial version. Since gym-boardgames 0.2.0 a draw's ``winner`` is -1 (it was None).
    """

    def __init__(
        self,
        rows: int = 6,
        cols: int = 7,
        n: int = 4,
        gravity: bool = True,
        *,
        opponent: str | Agent | OpponentPolicy | None = "random",
        agent_player: int | str = 0,
        illegal_action: str = "lose",
        render_mode: str | None = None,
    ) -> None:
        game = ConnectN(rows, cols, n, gravity)
        super().__init__(
            game, opponent=opponent, agent_player=agent_player, illegal_action=illegal_action, render_mode=render_mode
        )


class ConnectFourEnv(ConnectNEnv):
    """Connect Four: :class:`ConnectNEnv` fixed at 6 rows, 7 columns, 4 in a row, with gravity.

    ``Discrete(7)`` actions (the column), ``Box(-1, 1, (6, 7), int8)`` observations; everything else as
    :class:`ConnectNEnv`.
    """

    # ConnectNEnv's constructor with the board bound: only the two-player keywords remain, and a size is
    # refused (as a second value for it) rather than silently changing the game.
    __init__ = partialmethod(ConnectNEnv.__init__, 6, 7, 4, True)
