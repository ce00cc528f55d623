"""Repair: the policy gate and the calculators that turn an allowed intent into one edit.

Pure functions (no I/O). ``gcv.repair.policy.allowed_intents`` -> ``gcv.repair.policy.gate``
-> ``gcv.repair.calculators.apply_repair``; formulas in ``gcv.repair.calculators`` and
docs/repair.md. The records a workflow keeps are ``gcv.repair.models``.

Nothing is imported here, so that reading a workflow's state (``gcv status``) does not load
the calculators, the search and the validators behind them; import from the modules.
"""
