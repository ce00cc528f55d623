"""``gcv compare A B --html FILE``: two workflows or two batch results as one page to look at.

Two workflows: their curves overlaid (alive bullets per second, cumulative hits: A's
candidate, B's candidate and the baseline, from the recorded telemetry; the safe area of a
fair-fight analysis when one ran; :func:`curves`, which the console's compare page draws too), the judged figures
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
from gcv.evidence.plots import alive_plot, hits_plot, safe_area_plot


@lru_cache(maxsize=1)
def _env() -> Environment:
    return Environment(loader=PackageLoader("gcv.evidence", "compare_templates"),
                       autoescape=select_autoescape(default=True, default_for_string=True),
                       undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)


def _inline(svg: str) -> str:
    """An SVG document as an element of an HTML page (without its XML declaration)."""
    return svg[svg.index("<svg"):] if svg.startswith("<?xml") else svg


def curves(sides: list[dict[str, Any]] | tuple[dict[str, Any], ...], same_baseline: bool) -> dict[str, str]:
    """Two workflows' curves overlaid, as inline SVG: ``alive`` (alive bullets per second) and
    ``hits`` (cumulative hits) from the recorded telemetry, and ``safe_area`` (the fair-fight
    analyses' safe-area curves) when a side has one. Each chart draws A's candidate, B's
    candidate and the baseline (each workflow's, when they differ). The sides are those of
    ``gcv.service.compare.workflow_side``; ``gcv compare --html`` and the console's compare page
    both draw them here."""
    alive: list[tuple[str, list[int], str]] = []
    hits: list[tuple[str, list[int], int, str]] = []
    safe: list[tuple[str, list[int], str]] = []
    for name, side in zip("AB", sides):
        label = "baseline" if same_baseline else f"{name} baseline"
        base = side.get("baseline_telemetry")
        if base is not None and not (same_baseline and hits):  # one shared baseline is drawn once
            alive.append((label, list(base.get("alive_per_second") or []), "baseline"))
            hits.append((label, list(base.get("hit_ticks") or []), int(base.get("ticks") or 0), "baseline"))
        curve = side.get("baseline_safe_area")
        if curve and not (same_baseline and safe):
            safe.append((label, list(curve), "baseline"))
    for name, role, side in (("A", "final", sides[0]), ("B", "other", sides[1])):
        tel = side.get("candidate_telemetry")
        if tel is not None:
            alive.append((f"{name} candidate", list(tel.get("alive_per_second") or []), role))
            hits.append((f"{name} candidate", list(tel.get("hit_ticks") or []), int(tel.get("ticks") or 0), role))
        if side.get("candidate_safe_area"):
            safe.append((f"{name} candidate", list(side["candidate_safe_area"]), role))
    out: dict[str, str] = {}
    if alive:
        out["alive"] = _inline(alive_plot(alive, None))
        out["hits"] = _inline(hits_plot(hits, None))
    if safe:
        out["safe_area"] = _inline(safe_area_plot(safe))
    return out


def workflows_html(result: dict[str, Any], sides: list[dict[str, Any]]) -> str:
    """The page for ``gcv.service.compare.compare_workflows``' result and its sides."""
    charts = {k: Markup(v) for k, v in curves(sides, result["same_baseline"]).items()}  # SVG we drew ourselves
    return _env().get_template("compare.html").render(kind="workflows", result=result, curves=charts, fmt=figure_text,
                                                      signed=signed_text)


def batches_html(result: dict[str, Any], metrics: tuple[str, ...]) -> str:
    """The page for ``compare_batches``' result."""
    return _env().get_template("compare.html").render(kind="batches", result=result, curves={}, metrics=metrics,
                                                      fmt=figure_text, signed=signed_text)


__all__ = ["curves", "workflows_html", "batches_html"]
