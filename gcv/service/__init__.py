"""The use cases of a workflow, once, under both front doors (the CLI and the console).

``gcv run`` and the console's "New change" both *submit*; ``gcv answer`` and the answer form
both *answer*; and so on for *authorize* (with the one budget merge), *resume*, *decide* and
*finish* (the evidence, with one error policy). Each use case takes the workflow's lock for
its whole work, returns a typed result (``gcv.service.results``) and refuses with a typed
exception (``gcv.service.errors``) whose ``kind`` a machine can read. The interfaces only
translate: the CLI maps a refusal's type to its documented exit code, the console to an HTTP
status; neither matches message text, and neither holds business rules.
"""

from __future__ import annotations
