"""A search node: its fresh fields, its tried moves in the node's order, and their statistics in action order."""

import math

from agents.search.node import ChildStats, Node
from gym_boardgames.rules import TicTacToe

GAME = TicTacToe()


def test_a_fresh_node_has_no_visits_and_a_terminal_one_is_proven():
    node = Node(GAME.initial_state(), 0, 1, None)
    assert (node.n, node.w, node.q, node.inv_sqrt_n) == (0, 0.0, 0.0, math.inf)
    assert node.actions is None and node.tried() == [] and node.statistics() == []
    assert not node.terminal and Node(GAME.initial_state(), 0, 1, (1.0, -1.0)).terminal


def test_tried_moves_keep_the_nodes_order_and_statistics_are_sorted_from_the_movers_side():
    root = Node(GAME.initial_state(), 0, 1, None)
    root.actions = [4, 0, 8]
    won, drawn = Node(GAME.apply(root.state, 4), 1, 0, (1.0, -1.0)), Node(GAME.apply(root.state, 8), 1, 0, None)
    root.children = [won, None, drawn]
    drawn.n, drawn.q = 3, 0.5
    assert root.tried() == [(4, won), (8, drawn)]
    assert root.statistics() == [ChildStats(4, 0, 0.0, 1.0), ChildStats(8, 3, 0.5, None)]
