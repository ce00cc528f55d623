"""Where runtime output goes: the workspace (``$GCV_HOME`` or ``./.gcv``), never the tree."""

from __future__ import annotations

import os
from pathlib import Path


def workspace_root() -> Path:
    return Path(os.environ.get("GCV_HOME") or ".gcv").resolve()
