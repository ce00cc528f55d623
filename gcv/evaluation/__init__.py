"""Evaluation: the candidate's run against targets that come from the baseline and the goal.

Pure functions over configs and telemetry dicts (no I/O). Entry point:
:func:`gcv.evaluation.evaluate.evaluate`; the models are ``gcv.evaluation.models``, the
targets ``gcv.evaluation.targets``.

Nothing is imported here, so that reading an evaluation (``gcv status``) does not load the
evaluator and the simulator's modules behind it; import from the modules.
"""
