"""Matches and ratings.

In this room: games between agents (``arena``), the rating ladder (``ladder``) and its Elo fit (``rating``),
and grading a player against a solved game (``grading``, ``perfect_play``).
"""

__all__: list[str] = []
