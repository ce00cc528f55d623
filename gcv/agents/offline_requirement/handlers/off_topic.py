"""Things GCV does not change at all (music, art, UI, the weather, other game systems)."""

from __future__ import annotations

import re

from gcv.agents.offline_requirement.phrases import OFF_TOPIC
from gcv.agents.offline_requirement.state import Clause, Context, Reading, has


def read(ctx: Context, text: str, r: Reading, clause: Clause) -> str:
    for topic, pattern in OFF_TOPIC.items():
        if has(pattern, text):
            if topic not in r.off_topic:
                r.off_topic.append(topic)
            text = re.sub(pattern, " ", text)
    return text


__all__ = ["read"]
