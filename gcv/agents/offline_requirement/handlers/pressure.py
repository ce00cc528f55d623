"""Pressure: "denser", "harder", "更密集" (more) and "sparser", "easier", "降低难度" (less)."""

from __future__ import annotations

import re

from gcv.agents.offline_requirement.phrases import PRESSURE_DOWN, PRESSURE_NEGATED, PRESSURE_UP
from gcv.agents.offline_requirement.questions import PRESSURE_CHOICES, contradiction
from gcv.agents.offline_requirement.state import Clause, Context, Reading, sub_all


def read(ctx: Context, text: str, r: Reading, clause: Clause) -> str:
    def negated(m: re.Match[str]) -> None:
        r.pressure_negated = True
        r.note(f"keep the pressure ('{m.group().strip()}')")

    def press(kind: str, m: re.Match[str]) -> None:
        if r.pressure != "keep" and r.pressure != kind:
            r.ask(contradiction("pressure", "The request asks for both more and less pressure; which one?",
                                "请求同时要求更有压迫感和更轻松，要哪一个？", PRESSURE_CHOICES))
        r.pressure = kind
        clause.signals.append(f"pressure:{kind}")
        r.note(f"pressure: {kind} ('{m.group().strip()}')")
    text = sub_all(PRESSURE_NEGATED, text, negated)
    text = sub_all(PRESSURE_DOWN, text, lambda m: press("decrease", m))
    return sub_all(PRESSURE_UP, text, lambda m: press("increase", m))


__all__ = ["read"]
