"""Explicit no-op ("keep everything as it is", 保持不变, 不用改) and "keep the look"."""

from __future__ import annotations

from gcv.agents.offline_requirement.phrases import NO_CHANGE, PRESERVE_VISUAL
from gcv.agents.offline_requirement.state import Clause, Context, Reading, sub_all


def read(ctx: Context, text: str, r: Reading, clause: Clause) -> str:
    text = sub_all(PRESERVE_VISUAL, text, lambda m: setattr(r, "preserve_visual", True))
    return sub_all(NO_CHANGE, text, lambda m: setattr(r, "no_change", True))


__all__ = ["read"]
