"""The numeric core: trig, atan2, RNG and exact conversions (docs/simulation.md 1-4)."""

from __future__ import annotations

import math
from fractions import Fraction

from hypothesis import given, strategies as st

from gcv.sim import fixed, trig


def test_sine_key_values_and_accuracy() -> None:
    assert fixed.isin(0) == 0
    assert fixed.isin(16384) == 65536
    assert fixed.isin(32768) == 0
    assert fixed.isin(49152) == -65536
    assert fixed.isin(8192) == 46341
    worst = max(abs(fixed.isin(a) - 65536 * math.sin(a * math.tau / 65536)) for a in range(0, 65536, 7))
    assert worst < 1.0


def test_sine_is_odd_periodic_and_monotone_on_the_quarter() -> None:
    for a in range(0, 65536, 97):
        assert fixed.isin(-a) == -fixed.isin(a)
        assert fixed.isin(a + 65536) == fixed.isin(a)
    q = trig.QUARTER_SIN.tolist()
    assert all(q[i] <= q[i + 1] for i in range(len(q) - 1))


@given(st.integers(-3_000_000, 3_000_000), st.integers(-3_000_000, 3_000_000))
def test_atan2_within_a_tenth_of_a_degree(dy: int, dx: int) -> None:
    angle = fixed.iatan2(dy, dx)
    assert 0 <= angle < 65536
    if dx == 0 and dy == 0:
        assert angle == 49152
        return
    true = math.atan2(dy, dx) * 65536 / math.tau % 65536
    error = min(abs(angle - true), 65536 - abs(angle - true))
    assert error < 65536 * 0.1 / 360


def test_splitmix64_reference_values() -> None:
    # SplitMix64 with state 0: published first outputs of the reference algorithm.
    rng = fixed.SplitMix64(0)
    assert [rng.next_u64() for _ in range(3)] == [
        0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


def test_below_stays_in_range_and_uses_one_draw() -> None:
    rng = fixed.SplitMix64(42)
    twin = fixed.SplitMix64(42)
    for span in (1, 2, 18, 65536, 1 << 32):
        value = rng.below(span)
        assert 0 <= value < span
        twin.next_u64()
    assert rng.state == twin.state


def test_round_half_away_from_zero_is_not_bankers() -> None:
    assert fixed.round_half_away(Fraction(5, 2)) == 3
    assert fixed.round_half_away(Fraction(-5, 2)) == -3
    assert fixed.round_half_away(Fraction(7, 2)) == 4
    assert fixed.ms_to_ticks(850) == 51
    assert fixed.ms_to_ticks(125) == 8  # 7.5 ticks rounds up, not to even
    assert fixed.to_q16(0.1) == 6554
    assert fixed.speed_to_q16_per_tick(3.0) == 3277
