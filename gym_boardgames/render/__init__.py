"""Drawing, from states: the views take the rules, a state and what the frame marks, never an env.

* :mod:`.board`: the marks of a board frame (:class:`~.board.BoardMarks`), the players' names and symbols,
  the status line, and the ansi entry point :func:`~.board.board_text`;
* :mod:`.text`: ansi boards (no pygame);
* :mod:`.connect_view`, :mod:`.dots_view`, :mod:`.gridworld_view`, :mod:`.blackjack_view`: the pygame views;
* :mod:`.modes`: ``render()``/``close()`` of every env (the render-mode mixin) and :func:`~.modes.board_view`,
  the pygame view of a board game; :mod:`.pygame_canvas`,
  the off-screen surface and window behind it.

The envs (and the PettingZoo adapter and the play window) compute the marks and call the views; nothing
here imports :mod:`gym_boardgames.envs`. pygame is imported only inside the pygame modules, which are
imported only when a pygame frame is first drawn, so ``import gym_boardgames`` and ansi rendering never
load it.
"""
