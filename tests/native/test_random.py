"""The native engine's generator draws what numpy's Generator(PCG64) draws, method by method."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from city_envs.core.native import rng_state, rng_words

native = pytest.importorskip("city_envs._native")


def twin(seed: int):
    return np.random.default_rng(seed), native.Random.from_seed(seed)


@given(st.integers(0, 2**64 - 1))
def test_default_rng_seeds_alike(seed):
    generator, mine = twin(seed)
    assert rng_state(mine.words()) == generator.bit_generator.state
    assert rng_words(generator.bit_generator.state) == mine.words()


DRAWS = st.lists(
    st.one_of(
        st.tuples(st.just("integers"), st.integers(-(2**40), 2**40), st.integers(1, 2**40)),
        st.tuples(st.just("integers"), st.integers(-3, 3), st.integers(1, 70)),
        st.tuples(st.just("permutation"), st.integers(0, 120)),
        st.tuples(st.just("choice"), st.integers(1, 200), st.floats(0, 1)),
        st.tuples(st.just("below"), st.sampled_from([2**63, 2**64 - 1, 2**33 + 1, 1])),
    ),
    max_size=30,
)


@given(st.integers(0, 2**64 - 1), DRAWS)
def test_every_draw_and_state_alike(seed, draws):
    generator, mine = twin(seed)
    for draw in draws:
        if draw[0] == "integers":
            low, high = draw[1], draw[1] + draw[2]
            assert mine.integers(low, high) == generator.integers(low, high)
        elif draw[0] == "permutation":
            assert mine.permutation(draw[1]) == generator.permutation(draw[1]).tolist()
        elif draw[0] == "choice":
            n = draw[1]
            size = int(draw[2] * n)
            assert mine.choice(n, size) == generator.choice(n, size=size, replace=False).tolist()
        else:
            assert mine.below(draw[1]) == int(generator.integers(draw[1], dtype=np.uint64))
        assert rng_state(mine.words()) == generator.bit_generator.state


def test_a_numpy_generator_is_drawn_from_in_place():
    generator, reference = np.random.default_rng(9), np.random.default_rng(9)
    assert native.Random.numpy_integers(generator.bit_generator.capsule, 0, 1000) == reference.integers(0, 1000)
    assert generator.bit_generator.state == reference.bit_generator.state


def test_bad_arguments_are_value_errors():
    mine = native.Random.from_seed(1)
    with pytest.raises(ValueError):
        mine.integers(5, 5)
    with pytest.raises(ValueError):
        mine.choice(3, 4)
    with pytest.raises(ValueError):
        native.Random((0, 0, 0, 2, False, 0))  # an even increment is no PCG64 state
    with pytest.raises(TypeError):  # an address is not a capsule
        native.Random.numpy_integers(np.random.default_rng(0).bit_generator.ctypes.state_address, 0, 2)
    with pytest.raises(ValueError, match="bit generator"):  # a capsule of something else
        native.Random.numpy_integers(np._core._multiarray_umath._ARRAY_API, 0, 2)
