"""Play a board game against an agent with the mouse: the same as ``python -m gym_boardgames.play``.

Examples:
  python scripts/play.py tictactoe --opponent alphabeta
  python scripts/play.py connectfour --opponent mcts:2000 --you second
  python scripts/play.py connectn --rows 9 --cols 9 --n 5 --no-gravity --opponent alphabeta:2
  python scripts/play.py dots --rows 3 --cols 3 --opponent exact
"""

from gym_boardgames.play import main

if __name__ == "__main__":
    main()
