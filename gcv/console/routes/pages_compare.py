"""The compare page: two workflows or two batches side by side (``gcv compare A B`` in a browser).

``GET /compare?a=WF1&b=WF2`` compares two workflows: their curves overlaid (alive bullets,
cumulative hits, the safe area when a fair-fight analysis ran; drawn by
``gcv.evidence.compare_page.curves``, the function ``gcv compare --html`` draws with), the
judged figures side by side with B - A, and the config diffs (A's candidate -> B's, each
workflow's own change, the baselines when they differ). ``GET /compare?batch_a=N1&batch_b=N2``
compares two batches of the workspace (``batches/<name>/``): per cell the figures of A and B
and B - A, and the field diff of a config both ran under one label with another content.
``/compare`` alone, or with one side given, is the picker with that side chosen.

Read only (GET), for anyone signed in. The reading is the use case ``gcv.service.compare``; a
refusal is its status by type, on this page with the picker (404 for an unknown workflow or
batch, 409 for a workflow with no run yet), naming the parameter; a parameter the page does not
take, given twice, or workflows and batches mixed is 400.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from markupsafe import Markup

from gcv.batch import figures
from gcv.console.context import Console
from gcv.console.deps import ConsoleDep, PageCaller
from gcv.console.refusals import http_status, message_of
from gcv.console.rendering import page
from gcv.console.security import Caller
from gcv.contract.names import figure_text, signed_text
from gcv.evidence.compare_page import curves
from gcv.service import compare as use
from gcv.service.errors import Refusal

router = APIRouter(include_in_schema=False)

WORKFLOW_PARAMS = ("a", "b")
BATCH_PARAMS = ("batch_a", "batch_b")
PARAMS = WORKFLOW_PARAMS + BATCH_PARAMS
# the batch figures a delta is good or bad in (True: higher is better for the player)
BETTER = {"survival_rate": True, "error_rate": False, "hits_mean": False, "hits_p90": False, "hits_p99": False}


class BadQuery(Exception):
    """A query the page cannot take: 400, naming the parameter."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = f"{field}: {message}"


def _query(request: Request) -> dict[str, str]:
    """The page's parameters (empty when not given): 400 for any other, or one given twice."""
    params = request.query_params
    for key in params.keys():
        if key not in PARAMS:
            raise BadQuery(key[:40], "not a parameter of the compare page; it takes a and b (two workflows) "
                                     "or batch_a and batch_b (two batches)")
        if len(params.getlist(key)) > 1:
            raise BadQuery(key, "given more than once; give one value")
    got = {k: params.get(k, "").strip() for k in PARAMS}
    workflow = next((k for k in WORKFLOW_PARAMS if got[k]), None)
    batch = next((k for k in BATCH_PARAMS if got[k]), None)
    if workflow and batch:
        raise BadQuery(batch, f"names a batch, but {workflow} names a workflow: compare two workflows (a and b) "
                              "or two batches (batch_a and batch_b)")
    return got


def _picker(console: Console, got: dict[str, str], checked: bool) -> dict[str, Any]:
    """The select boxes' choices; a side the query chose and the page ``checked`` is one of them
    (a workflow older than the picker's latest ones)."""
    rows = use.comparable_workflows(console.ws)
    known = {r["id"] for r in rows}
    names = use.comparable_batches(console.ws.root)
    chosen = [{"id": got[k], "status": "", "request": ""} for k in WORKFLOW_PARAMS
              if checked and got[k] and got[k] not in known]
    return {"choices": [*chosen, *rows],
            "batch_choices": [*[got[k] for k in BATCH_PARAMS if checked and got[k] and got[k] not in names], *names]}


def _compare(console: Console, got: dict[str, str]) -> dict[str, Any]:
    """What the page shows for the query: a comparison when both sides of a kind are given."""
    if got["a"] and got["b"]:
        done = use.compare_workflows(console.ws, got["a"], got["b"], require_runs=True)
        charts = {k: Markup(v) for k, v in curves(done.sides, done.result["same_baseline"]).items()}  # our SVG
        return {"kind": "workflows", "r": done.result, "charts": charts, "own": done.own_changes,
                "fair": [bool(s["baseline_safe_area"] or s["candidate_safe_area"]) for s in done.sides]}
    if got["batch_a"] and got["batch_b"]:
        done_b = use.compare_workspace_batches(console.ws, got["batch_a"], got["batch_b"], fields=BATCH_PARAMS)
        return {"kind": "batches", "r": done_b.result, "config_changes": done_b.config_changes,
                "config_unknown": done_b.config_unknown,
                "listings": [side["listing"] for side in done_b.sides]}
    # one side given (the workflow page's and the batches page's links): check it, then pick the other
    for key in WORKFLOW_PARAMS:
        if got[key]:
            use.workflow_side(console.ws, got[key], field=key, require_run=True)
    for key in BATCH_PARAMS:
        if got[key]:
            use.read_batch(console.ws.root, got[key], field=key)
    return {"kind": None}


def _render(console: Console, request: Request, caller: Caller, got: dict[str, str], shown: dict[str, Any],
            status: int = 200, error: str = "") -> HTMLResponse:
    response = page(console, request, "compare.html", caller, q=got, **_picker(console, got, not error), **shown,
                    metrics=use.BATCH_METRICS, better=BETTER, fmt=figure_text, signed=signed_text, short=use.short_figure,
                    figures=figures, error=error)
    response.status_code = status
    return response


@router.get("/compare")
def compare(request: Request, console: ConsoleDep, caller: PageCaller) -> HTMLResponse:
    try:
        got = _query(request)
    except BadQuery as exc:
        return _render(console, request, caller, {k: "" for k in PARAMS}, {"kind": None}, 400, exc.message)
    try:
        shown = _compare(console, got)
    except Refusal as exc:
        return _render(console, request, caller, got, {"kind": None}, http_status(exc), message_of(exc))
    return _render(console, request, caller, got, shown)


__all__ = ["router"]
