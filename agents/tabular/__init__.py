"""The textbook learners on tables.

In this room: TD self-play (``td``, its file ``td_file``), dynamic programming on a known model
(``dp``) and Monte Carlo prediction and control (``mc``), with their shared episode loop.
"""

__all__: list[str] = []
