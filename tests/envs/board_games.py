"""The board games the contract tests run on, every id and shape: single envs (test_base.py) and vector envs
(tests/vector/test_base.py) alike. With pytest's importlib import mode each test puts this directory on
``sys.path`` to import it.
"""

GAMES = [
    ("TicTacToe-v0", {}),
    ("ConnectFour-v0", {}),
    ("ConnectN-v0", {"rows": 4, "cols": 5, "n": 3, "gravity": True}),
    ("ConnectN-v0", {"rows": 5, "cols": 5, "n": 4, "gravity": False}),
    ("ConnectN-v0", {"rows": 9, "cols": 9, "n": 5, "gravity": False}),
    ("DotsAndBoxes-v0", {}),
    ("DotsAndBoxes-v0", {"rows": 2, "cols": 3, "reward": "score"}),
    ("DotsAndBoxes-v0", {"rows": 1, "cols": 2, "tie_break": "second"}),
]
IDS = [f"{env_id}{kwargs or ''}" for env_id, kwargs in GAMES]
