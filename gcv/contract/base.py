"""The root of every GCV pydantic model.

Models are built on first use (``defer_build``): a command pays for the models it validates
with, not for every model its imports define. The README's ``gcv run`` imports 94 model
classes and uses 36 of them; ``gcv validate`` uses fewer still. A model whose definition is
broken therefore fails at its first use, which every model's tests reach.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class GcvModel(BaseModel):
    model_config = ConfigDict(defer_build=True)
