"""agents._rng: ``seed=`` as an int, a Generator or None, and the block-wise stream of uniform floats."""

import numpy as np
import pytest

from agents._rng import make_rng, uniform_stream


def test_a_generator_is_used_as_it_is_and_an_int_seeds_a_new_one():
    rng = np.random.default_rng(5)
    assert make_rng(rng) is rng
    assert make_rng(7).random(4).tolist() == np.random.default_rng(7).random(4).tolist()
    assert make_rng(np.int64(7)).random(4).tolist() == make_rng(7).random(4).tolist()
    assert isinstance(make_rng(None), np.random.Generator)


@pytest.mark.parametrize("bad", [True, 1.5, "3", [1]])
def test_other_seeds_are_refused_naming_the_three_forms(bad):
    with pytest.raises(ValueError, match="seed must be None, an int or a numpy.random.Generator"):
        make_rng(bad)


def test_the_stream_gives_the_generators_floats_in_order_across_blocks():
    stream = uniform_stream(np.random.default_rng(0), block=3)
    assert [stream() for _ in range(8)] == np.random.default_rng(0).random(8).tolist()


def test_the_stream_draws_nothing_before_its_first_call():
    rng = np.random.default_rng(0)
    stream = uniform_stream(rng, block=4)
    assert rng.random() == np.random.default_rng(0).random()  # making the stream left rng untouched
    expected = np.random.default_rng(0)
    expected.random()
    assert stream() == expected.random(4)[0]
