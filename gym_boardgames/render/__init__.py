"""Drawing: ansi text (:mod:`.text`, no pygame) and pygame views (:mod:`.grid_view`, :mod:`.pygame_canvas`).

pygame is imported only inside the pygame modules, which are imported only when a pygame frame is
first drawn, so ``import gym_boardgames`` and ansi rendering never load it.
"""
