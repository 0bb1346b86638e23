"""The tables of the TD player (:mod:`agents.tabular.td`): which games can have them, and their saved file.

A TD table holds, for each seat, one float64 value per key of the game (``game.key``, ``0 .. num_keys - 1``),
so a game needs ``key`` and an integer ``num_keys`` of at most :data:`MAX_KEYS` (:func:`table_size`).

A saved TD file is an ``.npz`` file of :mod:`agents.persistence` (format :data:`FORMAT`, version
:data:`VERSION`) holding one array, ``values``: float64, shape ``(2, num_keys)``, every entry in [0, 1].
Its header's ``meta`` holds ``game``, the game as every saved file records it
(:func:`~gym_boardgames.rules.registry.game_to_config`) plus, for a reader's eyes, its ``repr`` and key
count ``n_keys``; and ``training``, JSON notes on how the tables were made.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from agents import persistence
from agents.persistence import ArraySpec, SavedFileError, check_file, load_npz, save_npz, short_repr
from gym_boardgames.checks import check_int
from gym_boardgames.rules.registry import family_of, game_from_config, game_to_config

#: Format name and version of saved TD files (see :mod:`agents.persistence`).
FORMAT = "gym_boardgames.td"
VERSION = 1

#: Largest table this module agrees to allocate (two seats of float64: about 0.8 GB at this size).
MAX_KEYS = 50_000_000


#: Most cells of a ConnectN board whose TD table fits :data:`MAX_KEYS` (16: ``3**16`` keys), the largest
#: ``cells`` with ``3**cells <= MAX_KEYS``: one less than the base-3 digits of MAX_KEYS.
MAX_TABLE_CELLS = len(np.base_repr(MAX_KEYS, 3)) - 1


def table_size(game: Any) -> int:
    """Return ``game.num_keys`` after checking that the game can have a TD table.

    Raises:
        ValueError: if the game has no integer ``num_keys`` and ``key(state)``, or more than
            :data:`MAX_KEYS` keys.
    """
    num_keys = getattr(game, "num_keys", None)
    if not isinstance(num_keys, (int, np.integer)) or not callable(getattr(game, "key", None)):
        raise ValueError(f"{game!r} has no integer num_keys and key(state): a TD value table cannot index it")
    return check_int(f"the num_keys of {game!r} (a TD table's memory)", num_keys, 1, MAX_KEYS)


def save_tables(
    path: str | os.PathLike[str], game: Any, values: np.ndarray, training: dict[str, Any], *, replace: bool = True
) -> str:
    """Write both seats' ``values`` of ``game`` and the ``training`` notes to one ``.npz`` file; return the path.

    Written atomically; ``replace`` as :func:`agents.persistence.save_npz`'s.

    Raises:
        OSError: if the file cannot be written (an existing file at ``path`` is then untouched).
    """
    described = {**game_to_config(game), "repr": repr(game), "n_keys": int(game.num_keys)}
    meta = {"game": described, "training": training}
    return save_npz(path, {"values": values}, format=FORMAT, version=VERSION, meta=meta, replace=replace)


def load_tables(
    path: str | os.PathLike[str],
    game: Any | None = None,
    *,
    max_file_bytes: int = persistence.MAX_FILE_BYTES,
    max_data_bytes: int = persistence.MAX_DATA_BYTES,
) -> tuple[Any, np.ndarray, dict[str, Any]]:
    """Read a TD file written by :func:`save_tables`, checking it before anything is built or allocated.

    The checks come in this order (see :mod:`agents.persistence`): the stored board's sizes against the
    rules' limits and :data:`MAX_TABLE_CELLS`, then the table's shape ``(2, num_keys)`` and dtype from its
    header, then its values.

    Args:
        path: the ``.npz`` file.
        game: the rules object the tables must be for; None rebuilds the stored one (tic-tac-toe and
            ConnectN boards can be rebuilt; other games must be passed).
        max_file_bytes: the largest file accepted (default 64 MiB).
        max_data_bytes: the largest table accepted once decompressed (default 256 MiB, i.e. ConnectN
            boards of up to 15 cells; a 16-cell table takes 688 MB).

    Returns:
        ``(game, values, training)``: the game (``game`` itself when given), the ``(2, num_keys)`` table and
        the stored training notes (``{}`` if the file has none).

    Raises:
        FileNotFoundError: if ``path`` does not exist.
        ValueError: if ``game`` cannot have a table (:func:`table_size`); or
            (:class:`~agents.persistence.SavedFileError`) naming the file and the problem: not a regular
            file, too large, not a TD file, corrupt, another version, a board beyond the limits, tables for
            another game than ``game``, or tables of the wrong shape, dtype or range.
    """
    # The caller's game is trusted: check it first, so that its errors are not blamed on the file.
    expected_keys = table_size(game) if game is not None else None
    chosen: list[Any] = []

    def schema(version: int, meta: dict[str, Any]) -> dict[str, ArraySpec]:
        chosen.append(_game_for_file(path, meta, game))
        num_keys = expected_keys if game is not None else table_size(chosen[0])
        return {"values": ArraySpec((2, num_keys), np.float64)}

    limits = {"max_file_bytes": max_file_bytes, "max_data_bytes": max_data_bytes}
    loaded = load_npz(path, format=FORMAT, versions={VERSION}, schema=schema, **limits)
    values = loaded.arrays["values"]
    in_range = np.isfinite(values).all() and values.min() >= 0.0 and values.max() <= 1.0
    check_file(in_range, path, "array 'values' holds values outside [0, 1] (or NaN): not a TD table")
    training = loaded.meta.get("training")
    return chosen[0], values, training if isinstance(training, dict) else {}


def _game_for_file(path: str | os.PathLike[str], meta: dict[str, Any], game: Any | None) -> Any:
    """Return the game a TD file's tables are for: ``game`` if given and matching, else the rebuilt one."""
    stored = meta.get("game")
    described = isinstance(stored, dict) and isinstance(stored.get("class"), str)
    check_file(described, path, "its header does not say which game the tables are for")
    try:
        rebuilt = _rebuild_game(stored)
    except (TypeError, ValueError) as exc:
        raise SavedFileError(path, f"its game description {short_repr(stored)} is invalid: {exc}") from None
    label = stored.get("repr") if isinstance(stored.get("repr"), str) else stored["class"]
    label = label if len(label) <= 80 else label[:77] + "..."
    if game is None:
        check_file(rebuilt is not None, path, f"holds tables for {label}, which cannot be rebuilt: pass game=")
        return rebuilt
    described = {"class": stored["class"], "config": stored.get("config")}  # for a game the registry cannot rebuild
    same = game == rebuilt if rebuilt is not None else game_to_config(game) == described
    check_file(same, path, f"holds tables for {label}, not for {game!r}")
    return game


def _rebuild_game(description: dict[str, Any]) -> Any | None:
    """Return the rules object a stored description names, or None for a class the registry does not know.

    The description comes from a file: :func:`~gym_boardgames.rules.registry.game_from_config` checks every
    size against the rules' documented limits before building anything, and a board beyond
    :data:`MAX_TABLE_CELLS` is refused here before any table is allocated.

    Raises:
        ValueError: naming what is wrong with the description.
    """
    game = game_from_config(description)
    if family_of(game) == "connect" and game.num_cells > MAX_TABLE_CELLS:
        raise ValueError(
            f"a {game.rows}x{game.cols} board has {game.num_cells} cells; a TD table covers at most "
            f"{MAX_TABLE_CELLS} (3**cells keys, at most MAX_KEYS={MAX_KEYS})"
        )
    return game
