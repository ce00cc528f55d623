"""The console's routers, one module per area; ``gcv.console.app`` includes each of them.

API (``/api/...``, JSON with response models): ``api_workflows``, ``api_baselines``,
``api_system``. Pages (HTML forms, Post/Redirect/Get): ``pages_session``,
``pages_workflows``, ``pages_evidence``, ``pages_registry``, ``pages_batches``. A new page or endpoint goes in
the router of its area; what it *does* is a use case in ``gcv.service`` (called through
``gcv.console.actions`` when the API and a page share it).
"""

from __future__ import annotations
