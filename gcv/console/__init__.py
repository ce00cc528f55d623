"""The GCV console: designers, operators and reviewers in a browser (``gcv serve``, docs/console.md).

An interface beside the CLI: it calls the same use cases (``gcv.service``), on the same
workspace, and imports nothing from ``gcv.cli``.
"""
