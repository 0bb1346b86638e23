"""Plain-text boards for ``render_mode="ansi"``; never imports pygame.

Each board function draws a position from the rules object, the state and what it marks (the last move and
the status line); see :mod:`gym_boardgames.render.board`. The boards carry the labels a person types in the
terminal game (:mod:`gym_boardgames.human.terminal`), and each game kind reads them back with one pair of functions
here, so the board and the parser cannot disagree (:func:`move_labels`):

* gravity boards (Connect Four): the column numbers 1, 2, ... above the board (the action is the number less 1);
* other Connect-N boards (tic-tac-toe): a cell is its column letter over the board and its row number beside
  it, ``b2`` (columns past ``z`` go on ``aa``, ``ab``, ... as in a spreadsheet);
* Dots and Boxes: the dots are named the same way, and an edge by the two dots it joins, ``a1b1`` or ``b2b3``.

GridWorld's text is the map with the agent's cell,
and its value and policy tables laid out as the grid, as Figure 4.1 of Sutton & Barto prints them
(:func:`format_values`, :func:`format_policy`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from gym_boardgames.rules.connect import ConnectN
from gym_boardgames.rules.dots import DotsAndBoxes
from gym_boardgames.rules.gridworld import TERMINAL, WALL
from gym_boardgames.tabular import best_actions, check_policy

# One-character arrows for GridWorld's policy table, UP, DOWN, LEFT, RIGHT (plain ASCII, so any terminal shows them).
_ARROW_TEXT = ("^", "v", "<", ">")


def _cell(symbol: str, marked: bool) -> str:
    """A three-character cell: the symbol in brackets when marked (the last move, the agent), else in spaces."""
    return f"[{symbol}]" if marked else f" {symbol} "


def connect_text(game: Any, state: Any, last_cell: int | None, status: str, symbols: tuple[str, str]) -> str:
    """Return a Connect-N board as text, the last move's cell in brackets, then the status line.

    Gravity boards get a header with the column numbers from 1 (the labels :func:`connect_label` gives);
    other boards get column letters above and row numbers beside, which name the cells (``b2``).

    Args:
        game: the :class:`~gym_boardgames.rules.connect.ConnectN` rules.
        state: the position, or None (then only the status line).
        last_cell: the cell (row-major) of the last move, or None.
        status: the status line.
        symbols: the pieces of player 0 and player 1.
    """
    if state is None:
        return status + "\n"
    pieces = (".", *symbols)
    # Row numbers take the left margin on boards without gravity; gravity boards need none.
    width = 0 if game.gravity else len(str(game.rows)) + 1
    heads = [str(c + 1) if game.gravity else _letters(c) for c in range(game.cols)]
    lines = [(" " * width + " ".join(f"{head:^3}" for head in heads)).rstrip()]
    for r in range(game.rows):
        cells = range(r * game.cols, (r + 1) * game.cols)
        if r:
            lines.append(" " * width + "+".join(["---"] * game.cols))
        margin = "" if game.gravity else f"{r + 1:>{width - 1}} "
        lines.append(margin + "|".join(_cell(pieces[state.board[i]], i == last_cell) for i in cells))
    lines.append(status)
    return "\n".join(lines) + "\n"


def dots_text(game: Any, state: Any, last_edge: int | None, status: str, initials: tuple[str, str]) -> str:
    """Return a Dots and Boxes board as text, then the status line.

    Dots are ``+``, named by the column letters above and the row numbers beside (an edge is typed as the
    two dots it joins, :func:`dots_label`); drawn edges are ``---`` and ``|``, the last one ``***`` or
    ``*``; a scored box shows its owner's initial.

    Args:
        game: the :class:`~gym_boardgames.rules.dots.DotsAndBoxes` rules.
        state: the position, or None (then only the status line).
        last_edge: the edge of the last move, or None.
        status: the status line.
        initials: the one-letter marks of player 0's and player 1's boxes.
    """
    if state is None:
        return status + "\n"
    owners = (" ", *initials)

    def drawn(edge: int, line: str) -> str:
        """``line`` (``---`` or ``|``) for a drawn edge, stars for the last one, spaces for a free one."""
        return ("*" * len(line) if edge == last_edge else line) if state.edges[edge] else " " * len(line)

    width = len(str(game.rows + 1)) + 1  # the dot rows' numbers
    lines = [" " * width + "".join(f"{_letters(c):<4}" for c in range(game.cols + 1)).rstrip()]
    for r in range(game.rows + 1):
        dots = "+" + "+".join(drawn(r * game.cols + c, "---") for c in range(game.cols)) + "+"
        lines.append(f"{r + 1:>{width - 1}} {dots}")
        if r < game.rows:
            row = " " * width
            for c in range(game.cols + 1):
                row += drawn(game.num_horizontal + r * (game.cols + 1) + c, "|")
                if c < game.cols:
                    row += f" {owners[state.owners[r * game.cols + c]]} "
            lines.append(row)
    lines.append(status)
    return "\n".join(lines) + "\n"


# ---- the labels a person types, both ways -------------------------------------------------------------


class MoveLabels(NamedTuple):
    """How a person names the moves of one kind of board game, as its text labels them.

    Attributes:
        label: ``(game, action) -> str``, the label of a move (``"4"``, ``"b2"``, ``"a1b1"``).
        parse: ``(game, typed, state) -> action``, the legal move a typed label names; raises ``ValueError``
            naming the problem (``"z9" is not a column``, ``column 4 is full``).
        choices: ``(game) -> str``, what a person may type, for help and errors (``a column 1-7``).
    """

    label: Callable[[Any, int], str]
    parse: Callable[[Any, str, Any], int]
    choices: Callable[[Any], str]


def _letters(index: int) -> str:
    """Spreadsheet column letters: 0 is ``a``, 25 ``z``, 26 ``aa``."""
    text = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        text = chr(ord("a") + rest) + text
    return text


def _point(row: int, col: int) -> str:
    """The name of a cell or a dot: its column letters, then its row from 1 (``b2`` is row 1, column 1)."""
    return f"{_letters(col)}{row + 1}"


_POINT = r"([a-z]+)\s*([0-9]+)"


def _read_point(letters: str, digits: str, rows: int, cols: int) -> tuple[int, int] | None:
    """The ``(row, col)`` a point's letters and digits name, or None when it is off a ``rows x cols`` grid."""
    col = 0
    for char in letters:
        col = col * 26 + ord(char) - ord("a") + 1
        if col > cols:  # off the board already; growing the integer further made long input quadratic
            return None
    if len(digits) > len(str(rows)):  # off the board too, and int() refuses over 4,300 digits
        return None
    row = int(digits) - 1
    return (row, col - 1) if 0 <= row < rows and 0 < col <= cols else None


def connect_label(game: Any, action: int) -> str:
    """Return how :func:`connect_text` labels ``action``: its column from 1 (gravity), else its cell (``b2``)."""
    return str(action + 1) if game.gravity else _point(*divmod(action, game.cols))


def connect_choices(game: Any) -> str:
    """Return what a person types for a Connect-N move: ``a column 1-7``, or ``a cell a1-c3``."""
    if game.gravity:
        return f"a column 1-{game.cols}"
    return f"a cell a1-{_point(game.rows - 1, game.cols - 1)} (column letter, then row)"


def connect_move(game: Any, typed: str, state: Any) -> int:
    """Return the legal action a Connect-N label names (the inverse of :func:`connect_label`).

    Args:
        game: the :class:`~gym_boardgames.rules.connect.ConnectN` rules.
        typed: what the person typed; case and spaces do not matter.
        state: the position the move is for.

    Raises:
        ValueError: naming the problem: not a label, off the board, or a full column or taken cell.
    """
    text = typed.strip().lower()
    if game.gravity:
        if not re.fullmatch("[0-9]+", text):
            raise ValueError(f'"{typed.strip()}" is not a column')
        action = int(text) - 1
        if not 0 <= action < game.cols:
            raise ValueError(f"there is no column {int(text)}")
        where = f"column {action + 1} is full"
    else:
        match = re.fullmatch(_POINT, text)
        point = match and _read_point(*match.groups(), game.rows, game.cols)
        if not point:
            raise ValueError(f'"{typed.strip()}" is not a cell' if not match else f"{text} is off the board")
        action = point[0] * game.cols + point[1]
        where = f"{_point(*point)} is taken"
    return _legal(game, state, action, where)


def _legal(game: Any, state: Any, action: int, taken: str) -> int:
    """Return ``action`` if it is legal in ``state``, else raise ``ValueError``: ``taken``, or the game is over."""
    if not game.is_legal(state, action):
        raise ValueError(taken if not game.is_terminal(state) else "the game is over")
    return action


def dots_label(game: Any, edge: int) -> str:
    """Return how :func:`dots_text` labels ``edge``: the two dots it joins, left or top one first (``a1b1``)."""
    return "".join(_point(*dot) for dot in game.edge_endpoints(edge))


def dots_choices(game: Any) -> str:
    """Return what a person types for a Dots and Boxes move."""
    return f"an edge: two neighbouring dots a1-{_point(game.rows, game.cols)}, as a1b1 or a1a2"


def dots_move(game: Any, typed: str, state: Any) -> int:
    """Return the legal edge a Dots and Boxes label names (the inverse of :func:`dots_label`).

    The two dots may come in either order, with a space, ``-`` or ``,`` between them.

    Raises:
        ValueError: naming the problem: not two dots, a dot off the board, dots that are not neighbours, or
            an edge already drawn.
    """
    text = typed.strip().lower()
    match = re.fullmatch(_POINT + r"[\s,-]*" + _POINT, text)
    if not match:
        raise ValueError(f'"{typed.strip()}" is not an edge')
    dots = [_read_point(*match.groups()[i : i + 2], game.rows + 1, game.cols + 1) for i in (0, 2)]
    if None in dots:
        raise ValueError(f"{text} has a dot off the board")
    (r, c), (r2, c2) = sorted(dots)  # type: ignore[type-var]  (None is refused above)
    if (r2 - r, c2 - c) == (0, 1):
        edge = r * game.cols + c
    elif (r2 - r, c2 - c) == (1, 0):
        edge = game.num_horizontal + r * (game.cols + 1) + c
    else:
        raise ValueError(f"{_point(r, c)} and {_point(r2, c2)} are not neighbouring dots")
    return _legal(game, state, edge, f"{dots_label(game, edge)} is drawn")


def move_labels(game: Any) -> MoveLabels:
    """Return the labels of a board game's moves, both ways, as its text shows them.

    Raises:
        NotImplementedError: for a game other than the Connect-N boards and Dots and Boxes.
    """
    if isinstance(game, DotsAndBoxes):
        return MoveLabels(dots_label, dots_move, dots_choices)
    if isinstance(game, ConnectN):
        return MoveLabels(connect_label, connect_move, connect_choices)
    raise NotImplementedError(f"no move labels for {game!r}: only the Connect-N boards and Dots and Boxes have them")


def gridworld_text(env: Any, status: str, values: np.ndarray | None = None, policy: np.ndarray | None = None) -> str:
    """Return a GridWorld map as text, the agent's cell in brackets, then the status line and the tables.

    Args:
        env: a GridWorld env (wrapped or not), for its map ``desc`` and the agent's state ``s`` (None before
            ``reset``).
        status: the status line.
        values: ``(nS,)`` state values printed under ``values:`` (:func:`format_values`), or None.
        policy: ``(nS, nA)`` action probabilities printed under ``policy:`` (:func:`format_policy`), or None.
    """
    base = env.unwrapped
    cols = base.shape[1]
    lines = [
        "".join(_cell(char, r * cols + c == base.s) for c, char in enumerate(row)).rstrip()
        for r, row in enumerate(base.desc)
    ]
    lines.append(status)
    if values is not None:
        lines += ["values:", format_values(base, values)]
    if policy is not None:
        lines += ["policy:", format_policy(base, policy)]
    return "\n".join(lines) + "\n"


def format_values(env: Any, values: np.ndarray, decimals: int = 1) -> str:
    """Return ``values`` laid out as the grid, one text line per row, as Figure 4.1 prints them.

    Args:
        env: a GridWorld env (wrapped or not), for its shape.
        values: ``(nS,)`` or ``(rows, cols)`` state values.
        decimals: digits after the decimal point.

    Raises:
        ValueError: if ``values`` does not have ``nS`` entries.
    """
    base = env.unwrapped
    array = np.asarray(values, dtype=np.float64)
    if array.size != base.nS:
        raise ValueError(f"values must have {base.nS} entries, got {array.size}")
    grid = array.reshape(base.shape) + 0.0  # + 0.0 turns -0.0 into 0.0, so no "-0.0" is printed
    width = max(len(f"{v:.{decimals}f}") for v in grid.flat) + 2
    return "\n".join("".join(f"{v:{width}.{decimals}f}" for v in row) for row in grid)


def format_policy(env: Any, policy: np.ndarray) -> str:
    """Return ``policy`` laid out as the grid: ``^ v < >`` for each of a state's most probable actions.

    Terminal cells show ``T`` and walls ``#``.

    Args:
        env: a GridWorld env (wrapped or not), for its shape and cells.
        policy: ``(nS, nA)`` action probabilities.

    Raises:
        ValueError: if ``policy`` is not ``(nS, 4)`` rows of probabilities
            (:func:`gym_boardgames.tabular.check_policy`).
    """
    base = env.unwrapped
    array = check_policy(policy, base.nS, base.nA)
    arrows = ["".join(_ARROW_TEXT[a] for a in best_actions(row)) for row in array]
    symbols = [WALL if base.is_wall(s) else TERMINAL if base.is_terminal(s) else arrows[s] for s in range(base.nS)]
    width = max(len(symbol) for symbol in symbols) + 2
    cols = base.shape[1]
    return "\n".join(
        "".join(f"{symbol:>{width}}" for symbol in symbols[r * cols : (r + 1) * cols]) for r in range(base.shape[0])
    )
