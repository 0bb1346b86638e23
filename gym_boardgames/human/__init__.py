"""The human-play wing: a person plays an agent through one of four doors (:func:`gym_boardgames.play`).

It stands above the agents it needs and imports them plainly; nothing below it (rules, envs, render, vector)
imports it or ``agents``. :mod:`~gym_boardgames.human.doors` holds :func:`play`; :mod:`~gym_boardgames.human.table`
the one builder of its arguments (:func:`~gym_boardgames.human.table.resolve`); :mod:`~gym_boardgames.human.session`
the game every door shows; ``window``, ``server`` (the page), ``widget`` (the notebook) and ``terminal`` the doors.
"""
