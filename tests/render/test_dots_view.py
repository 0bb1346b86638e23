"""The Dots and Boxes view: edges in the colour of who drew them, free edges pale, owned boxes tinted."""

import pytest

from gym_boardgames.render.board import BoardMarks
from gym_boardgames.rules import DotsAndBoxes

pygame = pytest.importorskip("pygame")
dots_view = pytest.importorskip("gym_boardgames.render.dots_view")


def colour_at(surface, point):
    return tuple(surface.get_at((round(point[0]), round(point[1]))))[:3]


def middle(view, edge):
    (x0, y0), (x1, y1) = view.edge_segment(edge)
    return (x0 + x1) / 2, (y0 + y1) / 2


def test_edges_take_their_drawers_colour_and_a_completed_box_its_owners_tint():
    game = DotsAndBoxes(1, 1)
    view = dots_view.DotsView(game)
    surface = pygame.Surface(view.size)
    state, drawers = game.initial_state(), {}
    for edge in (0, 1, 2):  # X, O, X: three sides, no box yet
        drawers[edge] = game.current_player(state)
        state = game.apply(state, edge)
    view.draw(surface, state, BoardMarks(last=2, status="O to move", drawers=drawers))
    for edge in (0, 1, 2):
        assert colour_at(surface, middle(view, edge)) == dots_view.PLAYER_COLOURS[drawers[edge]]
    assert colour_at(surface, middle(view, 3)) == dots_view.FREE_EDGE
    centre = (view.dot_position(0, 0)[0] + view.spacing / 2, view.dot_position(0, 0)[1] + view.spacing / 2)
    assert colour_at(surface, centre) != dots_view.BOX_TINTS[1]

    drawers[3] = game.current_player(state)  # O closes the box
    state = game.apply(state, 3)
    assert state.owners == bytes([2])
    view.draw(surface, state, BoardMarks(last=3, status="O wins", over=True, drawers=drawers))
    assert colour_at(surface, middle(view, 3)) == dots_view.PLAYER_COLOURS[1]
    assert colour_at(surface, centre) == dots_view.BOX_TINTS[1]
