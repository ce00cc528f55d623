"""Fair-fight analysis: a replayed witness that no hit is forced, or a sound proof that one is.

Public API (what the loop and the CLI use):

* :func:`analyze` (config, seed, budget) -> :class:`FairnessReport`
* :func:`run_analysis` -> :class:`Analysis` (the report plus its frames)
* :func:`fairness_check` (report) -> :class:`FairnessCheck` (a ``danger``-family check)

docs/analysis.md states what each verdict means and why the impossibility proof is sound.
"""

from gcv.analysis.analyze import DEFAULT_BUDGET_SECONDS, Analysis, analyze, run_analysis
from gcv.analysis.budget import DEFAULT_BUDGET_WORK, DEFAULT_SAFETY_SECONDS
from gcv.analysis.report import CHECK_NAME, FairnessCheck, FairnessReport, fairness_check

__all__ = ["CHECK_NAME", "DEFAULT_BUDGET_SECONDS", "DEFAULT_BUDGET_WORK", "DEFAULT_SAFETY_SECONDS", "Analysis", "FairnessCheck", "FairnessReport", "analyze",
           "fairness_check", "run_analysis"]
