"""``gcv compare A B --html FILE``: two workflows or two batch results as one page to look at.

Two workflows: their curves overlaid (alive bullets per second, cumulative hits: A's
candidate, B's candidate and the baseline, from the recorded telemetry), the judged figures
side by side with B - A, and the field diff of the candidates. Two batches: the per-cell
statistics of A and B with their deltas. A Jinja2 template with autoescape (request texts and
labels are a designer's words); the charts are ``gcv.evidence.plots``' deterministic SVG.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from gcv.contract.names import figure_text, signed_text
from gcv.evidence.plots import alive_plot, hits_plot


@lru_cache(maxsize=1)
def _env() -> Environment:
    return Environment(loader=PackageLoader("gcv.evidence", "compare_templates"),
                       autoescape=select_autoescape(default=True, default_for_string=True),
                       undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)


def _curves(sides: list[dict[str, Any]], same_baseline: bool) -> dict[str, str]:
    alive: list[tuple[str, list[int], str]] = []
    hits: list[tuple[str, list[int], int, str]] = []
    for name, side in zip("AB", sides):
        base = side.get("baseline_telemetry")
        if base is not None and (name == "A" or not same_baseline):
            label = "baseline" if same_baseline else f"{name} baseline"
            alive.append((label, list(base.get("alive_per_second") or []), "baseline"))
            hits.append((label, list(base.get("hit_ticks") or []), int(base.get("ticks") or 0), "baseline"))
    for name, role, side in (("A", "final", sides[0]), ("B", "other", sides[1])):
        tel = side.get("candidate_telemetry")
        if tel is not None:
            alive.append((f"{name} candidate", list(tel.get("alive_per_second") or []), role))
            hits.append((f"{name} candidate", list(tel.get("hit_ticks") or []), int(tel.get("ticks") or 0), role))
    if not alive:
        return {}
    return {"alive": alive_plot(alive, None), "hits": hits_plot(hits, None)}


def workflows_html(result: dict[str, Any], sides: list[dict[str, Any]]) -> str:
    """The page for ``gcv.cli.commands.compare_cmds.compare_workflows``' result and its sides."""
    curves = {k: Markup(v) for k, v in _curves(sides, result["same_baseline"]).items()}  # SVG we drew ourselves
    return _env().get_template("compare.html").render(kind="workflows", result=result, curves=curves, fmt=figure_text,
                                                      signed=signed_text)


def batches_html(result: dict[str, Any], metrics: tuple[str, ...]) -> str:
    """The page for ``compare_batches``' result."""
    return _env().get_template("compare.html").render(kind="batches", result=result, curves={}, metrics=metrics,
                                                      fmt=figure_text, signed=signed_text)


__all__ = ["workflows_html", "batches_html"]
