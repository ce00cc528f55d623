"""Repair: the policy gate and the calculators that turn an allowed intent into one edit.

Pure functions (no I/O). ``allowed_intents`` -> ``gate`` -> ``apply_repair``; formulas in
``gcv.repair.calculators`` and docs/repair.md.
"""

from gcv.repair.calculators import PatternLoad, apply_repair, keeps_pressure, miss_ratio, spawn_rate
from gcv.repair.intents import CHECK_FAMILY, FAMILY_INTENTS, INTENT_FIELD
from gcv.repair.models import AllowedIntents, GateResult, RepairOutcome
from gcv.repair.policy import allowed_intents, gate

__all__ = ["AllowedIntents", "CHECK_FAMILY", "FAMILY_INTENTS", "GateResult", "INTENT_FIELD",
           "PatternLoad", "RepairOutcome", "allowed_intents", "apply_repair", "gate",
           "keeps_pressure", "miss_ratio", "spawn_rate"]
