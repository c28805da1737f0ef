"""The batch engine's reservoir picks the node the reference picks, drawing the same numbers.

kube-scheduler's ``selectHost`` (``pkg/scheduler/schedule_one.go``, v1.33)
walks the nodes sorted by score and, for the k-th node tied with the best,
replaces its choice when ``rand.Intn(k) == 0``: one draw per tied node. The
reference writes that loop with ``rng.randrange(k)``. The batch engine must
make exactly the same draws, so that the random stream, and every later
choice, stays in step; with hundreds of ties per cycle it draws them in
bulk. Equality is checked here on the choice and on the RNG's whole state.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from framework.batch.engine import _reservoir


def reference_reservoir(rng: random.Random, tied: int) -> int:
    selected = 0
    for count_of_max in range(2, tied + 1):
        if rng.randrange(count_of_max) == 0:
            selected = count_of_max - 1
    return selected


@given(seed=st.integers(0, 2**32 - 1), tied=st.integers(0, 3000), before=st.integers(0, 5))
@settings(max_examples=300, deadline=None)
def test_the_bulk_reservoir_draws_the_reference_numbers(seed: int, tied: int, before: int) -> None:
    batch_rng, reference_rng = random.Random(seed), random.Random(seed)
    for rng in (batch_rng, reference_rng):
        for _ in range(before):  # a stream already under way
            rng.random()
    assert _reservoir(batch_rng, tied) == reference_reservoir(reference_rng, tied)
    assert batch_rng.getstate() == reference_rng.getstate()
    # and the streams go on in step
    assert batch_rng.random() == reference_rng.random()


@given(
    seed=st.integers(0, 2**32 - 1),
    tied=st.sampled_from([2**b + d for b in range(1, 12) for d in (-1, 0, 1)]),
)
@settings(max_examples=100, deadline=None)
def test_at_powers_of_two(seed: int, tied: int) -> None:
    """Where the number of bits a draw needs changes, and rejections are likeliest."""
    batch_rng, reference_rng = random.Random(seed), random.Random(seed)
    assert _reservoir(batch_rng, tied) == reference_reservoir(reference_rng, tied)
    assert batch_rng.getstate() == reference_rng.getstate()


class CountingRandom(random.Random):
    """A subclass: the engine must not assume how it draws, so it calls randrange."""

    def randrange(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        self.calls = getattr(self, "calls", 0) + 1
        return super().randrange(*args, **kwargs)


def test_any_other_rng_gets_the_calls_themselves() -> None:
    rng, reference_rng = CountingRandom(3), random.Random(3)
    assert _reservoir(rng, 50) == reference_reservoir(reference_rng, 50)
    assert rng.calls == 49
