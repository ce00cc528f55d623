"""Fixed-point arithmetic, integer trigonometry and the RNG: the numeric core of the spec.

Everything here is specified in docs/simulation.md and ported verbatim to C# and C++.
Rules that must never change without regenerating the golden vectors:

* Lengths are Q16.16 in signed 64-bit integers (``ONE = 65536`` is one world unit).
* Angles are integers, 65536 per turn, reduced with ``& 0xFFFF``.
* ``>>`` on a signed value is an arithmetic shift (floor). Every shift below is applied to
  a non-negative value unless a comment says otherwise.
* Decimal -> fixed conversion happens only in the Python compiler, exactly (``Fraction`` of
  the shortest decimal text), rounding half away from zero. Engines never see a decimal.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any, overload

if TYPE_CHECKING:  # for the types only: this module never imports numpy at run time
    import numpy as np
    from numpy.typing import NDArray

ONE = 1 << 16
TICK_HZ = 60
TURN = 1 << 16
QUARTER = 1 << 14
ANGLE_MASK = TURN - 1
U64 = (1 << 64) - 1

# sin(pi/2 * u) = u*(C0 - u^2*(C1 - u^2*(C2 - u^2*(C3 - u^2*C4)))), Q30 coefficients.
SIN_C = (1686629713, 693598668, 85569306, 5026995, 172272)


def exact(value: float | int) -> Fraction:
    """The decimal a person wrote: the shortest round-trip text of the float, exactly."""
    if isinstance(value, int):
        return Fraction(value)
    return Fraction(repr(float(value)))


def round_half_away(x: Fraction) -> int:
    """Round to the nearest integer, ties away from zero (never banker's rounding)."""
    n = math.floor(abs(x) + Fraction(1, 2))
    return -n if x < 0 else n


def to_q16(value: float | int) -> int:
    return round_half_away(exact(value) * ONE)


def seconds_to_ticks(seconds: float | int) -> int:
    return round_half_away(exact(seconds) * TICK_HZ)


def ms_to_ticks(ms: int) -> int:
    return round_half_away(Fraction(ms * TICK_HZ, 1000))


def speed_to_q16_per_tick(units_per_second: float | int) -> int:
    return round_half_away(exact(units_per_second) * ONE / TICK_HZ)


def deg_to_angle(deg: float | int | Fraction) -> int:
    value = deg if isinstance(deg, Fraction) else exact(deg)
    return round_half_away(value * TURN / 360)


@overload
def quarter_sin(x: int) -> int: ...
@overload
def quarter_sin(x: NDArray[np.int64]) -> NDArray[np.int64]: ...
def quarter_sin(x: Any) -> Any:  # an int, or an int64 numpy array (elementwise)
    """sin for x in [0, 16384] angle units, Q16 result in [0, 65536]. All terms >= 0.

    Plain integer steps, so ``x`` may also be an int64 numpy array (``gcv.sim.trig`` builds its
    tables that way): every intermediate is non-negative and below 2^62, so each shift floors
    exactly as on a Python int."""
    u = x << 16  # Q30, u in [0, 2^30]
    u2 = (u * u) >> 30
    c0, c1, c2, c3, c4 = SIN_C
    t = c3 - ((u2 * c4) >> 30)
    t = c2 - ((u2 * t) >> 30)
    t = c1 - ((u2 * t) >> 30)
    t = c0 - ((u2 * t) >> 30)
    v = (u * t) >> 30
    return (v + (1 << 13)) >> 14


def isin(angle: int) -> int:
    """sin of an angle (65536 per turn), Q16: the quarter polynomial folded by quadrant.

    The scalar form of the spec; ``gcv.sim.trig`` tabulates it for the simulator's hot loops
    (this module stays free of numpy so that validation starts without it)."""
    a = angle & ANGLE_MASK
    quadrant, x = a >> 14, a & (QUARTER - 1)
    value = quarter_sin(QUARTER - x if quadrant & 1 else x)
    return value if quadrant < 2 else -value


def icos(angle: int) -> int:
    return isin(angle + QUARTER)


def _atan_octant(r: int) -> int:
    """atan(r) for r in [0, 65536] (Q16), in angle units [0, 8192]."""
    p = (r * (ONE - r)) >> 16
    q = 2552 + ((692 * r) >> 16)
    return (8192 * r + p * q + (1 << 15)) >> 16


def iatan2(dy: int, dx: int) -> int:
    """Angle of (dx, dy) in [0, 65536). (0, 0) points straight down (49152)."""
    ax, ay = abs(dx), abs(dy)
    if ax == 0 and ay == 0:
        return 3 * QUARTER
    if ax >= ay:
        base = _atan_octant((ay << 16) // ax)
    else:
        base = QUARTER - _atan_octant((ax << 16) // ay)
    if dx >= 0 and dy >= 0:
        angle = base
    elif dx < 0 and dy >= 0:
        angle = 2 * QUARTER - base
    elif dx < 0:
        angle = 2 * QUARTER + base
    else:
        angle = TURN - base
    return angle & ANGLE_MASK


def isqrt_floor(n: int) -> int:
    return math.isqrt(n)


class SplitMix64:
    """The run's only random generator. Draw order is part of the spec."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & U64

    def next_u64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & U64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & U64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & U64
        return z ^ (z >> 31)

    def below(self, span: int) -> int:
        """Uniform-ish integer in [0, span) for span <= 2^32: ((next >> 32) * span) >> 32."""
        return ((self.next_u64() >> 32) * span) >> 32
