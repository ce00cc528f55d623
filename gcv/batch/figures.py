"""How a batch's figures are written for people: one place for ``gcv batch``'s summary table
and the console's batches page, so both show the same numbers in the same form.

The intervals are the ones ``gcv.batch.stats`` computed (Wilson for survival, the seeded
bootstrap for the mean): nothing here recomputes a figure, it only writes it.
"""

from __future__ import annotations

from typing import Any


def fmt(value: Any, digits: int = 1) -> str:
    """A figure: ``-`` when unknown, a float with ``digits`` decimals, anything else as it is."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def interval(low: Any, high: Any, digits: int = 1) -> str:
    """``[low,high]`` (a bound the sample is too small for shows as ``-``)."""
    return f"[{fmt(low, digits)},{fmt(high, digits)}]"


def survival(metrics: dict[str, Any]) -> str:
    """``95.3 [89.1,98.0]``: the survival rate in percent and its 95% Wilson interval; ``-`` without runs."""
    rate = metrics["survival_rate"]
    if rate is None:
        return "-"
    return f"{rate * 100:.1f} {interval(metrics['survival_low'] * 100, metrics['survival_high'] * 100)}"


def hits_mean(metrics: dict[str, Any]) -> str:
    """``1.25 [0.80,1.75]``: the mean hits and its 95% bootstrap interval."""
    return f"{fmt(metrics['hits_mean'], 2)} {interval(metrics['hits_mean_low'], metrics['hits_mean_high'], 2)}"


def quantiles(metrics: dict[str, Any], short: str) -> str:
    """``p50/p90/p99`` of ``hits`` or ``peak_alive``: ``2/3/5``."""
    return "/".join(fmt(metrics[f"{short}_{q}"]) for q in ("p50", "p90", "p99"))


__all__ = ["fmt", "interval", "survival", "hits_mean", "quantiles"]
