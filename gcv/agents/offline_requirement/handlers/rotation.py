"""Rotation: bidirectional or one direction, clockwise or counter-clockwise, reversed."""

from __future__ import annotations

import re

from gcv.agents.offline_requirement.phrases import BIDIR_OFF, BIDIR_ON, BIDIR_SPIRAL, DIRECTION_CCW, DIRECTION_CW, REVERSE
from gcv.agents.offline_requirement.questions import contradiction
from gcv.agents.offline_requirement.state import Clause, Context, Reading, sub_all


def read_bidirectional(ctx: Context, text: str, r: Reading, clause: Clause) -> str:
    def set_bidir(value: bool, said: str) -> None:
        if r.bidirectional is not None and r.bidirectional != value:
            r.ask(contradiction("bidirectional",
                                "The request asks for both a bidirectional and a one-directional pattern; which one?",
                                "请求同时要求双向和单向，要哪一个？",
                                [("bidirectional", "双向", "bidirectional"), ("one direction", "单向", "one direction")]))
        r.bidirectional = value
        clause.signals.append(f"bidirectional:{value}")
        r.note(f"bidirectional: {str(value).lower()} ('{said.strip()}')")
    text = sub_all(BIDIR_OFF, text, lambda m: set_bidir(False, m.group()))

    def to_spiral(m: re.Match[str]) -> str:  # "a bidirectional spiral": read, then the word stays
        set_bidir(True, m.group())
        return " spiral "
    text = re.sub(BIDIR_SPIRAL, to_spiral, text)
    return sub_all(BIDIR_ON, text, lambda m: set_bidir(True, m.group()))


def read_direction(ctx: Context, text: str, r: Reading, clause: Clause) -> str:
    def turn(sign: int, said: str) -> None:
        if r.direction and r.direction != sign:
            r.ask(contradiction("direction",
                                "The request asks for both clockwise and counter-clockwise rotation; which one?",
                                "请求同时要求顺时针和逆时针旋转，要哪一个？",
                                [("clockwise", "顺时针", "clockwise"), ("counter-clockwise", "逆时针", "counter-clockwise")]))
        r.direction = sign
        clause.signals.append(f"direction:{sign}")
        r.note(f"rotation: {'counter-clockwise' if sign > 0 else 'clockwise'} ('{said.strip()}')")
    text = sub_all(DIRECTION_CCW, text, lambda m: turn(+1, m.group()))
    text = sub_all(DIRECTION_CW, text, lambda m: turn(-1, m.group()))

    def rev(m: re.Match[str]) -> None:
        r.reverse = True
        clause.signals.append("reverse")
        r.note(f"reverse the rotation ('{m.group().strip()}')")
    return sub_all(REVERSE, text, rev)


__all__ = ["read_bidirectional", "read_direction"]
