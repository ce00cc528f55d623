"""The sine tables of gcv.sim.trig: the vectorised build of ``fixed.isin`` (moved here from
tests/sim/test_fixed.py, which tests the scalar specification)."""

from __future__ import annotations

from gcv.sim import fixed, trig


def test_tables_match_the_scalar_functions_everywhere() -> None:
    # the vectorised build is exact: every entry of every table equals the scalar spec
    assert trig.QUARTER_SIN.tolist() == [fixed.quarter_sin(x) for x in range(fixed.QUARTER + 1)]
    sines = [fixed.isin(a) for a in range(fixed.TURN)]
    assert trig.SIN_TABLE.tolist() == sines == trig.SIN_LIST
    assert trig.COS_TABLE.tolist() == [fixed.icos(a) for a in range(fixed.TURN)]


def test_the_tables_span_one_turn_with_the_cosine_a_quarter_ahead() -> None:
    assert len(trig.SIN_TABLE) == len(trig.COS_TABLE) == fixed.TURN and len(trig.QUARTER_SIN) == fixed.QUARTER + 1
    assert (trig.SIN_LIST[0], trig.SIN_LIST[fixed.QUARTER], trig.SIN_LIST[3 * fixed.QUARTER]) == (0, 65536, -65536)
    assert int(trig.COS_TABLE[0]) == 65536 and int(trig.COS_TABLE[fixed.QUARTER]) == trig.SIN_LIST[2 * fixed.QUARTER]
