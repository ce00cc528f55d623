"""Evaluation: the candidate's run against targets that come from the baseline and the goal.

Pure functions over configs and telemetry dicts (no I/O). Entry point: :func:`evaluate`.
"""

from gcv.evaluation.evaluate import death_phase, evaluate
from gcv.evaluation.models import Check, EffectiveTargets, Evaluation
from gcv.evaluation.targets import effective_targets, round_half_up

__all__ = ["Check", "EffectiveTargets", "Evaluation", "death_phase", "effective_targets", "evaluate",
           "round_half_up"]
