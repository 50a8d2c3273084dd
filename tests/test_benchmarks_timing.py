"""The benchmarks' timers keep every sample; rounds pool into the median of their medians
and the range of all their samples; a time is shown with its range, or says it has none."""

import time

from hypothesis import given
from hypothesis import strategies as st

from benchmarks.timing import Spread, host_spread, of_samples, pooled, with_range

samples = st.lists(st.floats(min_value=1e-4, max_value=1e3), min_size=1, max_size=20)


@given(st.lists(samples, min_size=1, max_size=6))
def test_pooled_rounds_keep_every_samples_range(rounds):
    spreads = [of_samples(r) for r in rounds]
    pool = pooled(spreads)
    everything = [x for r in rounds for x in r]
    assert (pool.min_ms, pool.max_ms) == (min(everything), max(everything))
    assert pool.min_ms <= pool.median_ms <= pool.max_ms
    assert min(s.median_ms for s in spreads) <= pool.median_ms <= max(s.median_ms
                                                                      for s in spreads)


def test_no_rounds_pool_to_no_time():
    assert pooled([]) is None


def test_the_host_timer_times_each_call():
    calls = []
    spread = host_spread(lambda: calls.append(time.sleep(0.001)), repeat=5, warmup=2)
    assert len(calls) == 7 and 1.0 <= spread.min_ms <= spread.median_ms <= spread.max_ms


def test_a_time_is_shown_with_its_range_or_says_there_is_none():
    assert with_range(1.2754, Spread(1.2754, 1.19, 1.57).range_ms) == "1.2754 [1.19–1.57]"
    assert with_range(1.2754, None) == "1.2754 (range not recorded)"
    assert with_range(None, None) == "–"
