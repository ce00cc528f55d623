"""The evidence report: one self-contained HTML file a reviewer can open anywhere.

No network, no scripts, no fonts or styles from elsewhere: CSS is inline, frames are
``data:image/png`` URIs, charts are SVGs (``gcv.evidence.plots``) as ``data:image/svg+xml`` URIs (so
their ids cannot collide). It renders from an ``Evidence`` (``gcv.evidence.collect``), the
same in-memory bundle the verifier reads, so the report inside a bundle and the one
``gcv report`` writes are the same document. Output is deterministic: times come from
the event log (UTC), never from the clock at rendering.

Reading order: the verdict first (status, what was asked, what changed, whether the
targets and the designer's intent hold), then the request and goal, the change, the
validation layers, the metrics of every run against the targets, the checks, the charts,
the before/after frames, the review and repair history, the agent runs with their raw
output, the timeline, budgets, and how to verify the bundle.

This module prepares the data (plain dicts of text and numbers, one per section); the
markup is in ``report_templates/`` (Jinja2, autoescaped: the page, one template per section,
``_macros.html`` with the status pill, badges, tables and figures). ``gcv verify --replay``
re-renders a bundle's report and compares bytes, so the templates render exactly the page
the f-string renderer before them did: their lines are joined (no whitespace between tags)
and values are escaped as that renderer escaped them (``&quot;`` and ``&#x27;``).
"""

from __future__ import annotations

import base64
import html
import io
import json
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from jinja2.ext import Extension
from markupsafe import Markup

import gcv
from gcv.evidence import plots
from gcv.evidence.index import RunFiles
from gcv.evidence.collect import Evidence, EvidenceError, as_json, as_json_value, as_workspace, collect
from gcv.evidence.versions import evidence_version
from gcv.analysis import FairnessReport
from gcv.analysis.frames import safe_area_svg
from gcv.contract.models import BulletHellConfig
from gcv.contract.policies import POLICY_WORDS
from gcv.contract.request_intent import LEAD
from gcv.contract.status import Reason, Status
from gcv.sim.engine import Simulation
from gcv.sim.fixed import TICK_HZ
from gcv.sim.program import compile_program
from gcv.simio.render import render_frame
from gcv.store.atomic import atomic_write_bytes
from gcv.store.catalog import Workspace
from gcv.validation.diff import change_with_origins
from gcv.workflow.events import HistoryError, parse_events
from gcv.workflow.history import history
from gcv.workflow.state import CAPTURE_TICKS, Round
from gcv.workflow.states import NOTE_REQUIRED, decisions_allowed
from gcv.evaluation.display import actual_text, detail_text, expected_text, seconds_text, survived_ticks, ticks_text
from gcv.evaluation.models import check_label
from gcv.contract.names import field_label, value_with_unit
from gcv.workflow.words import REVIEW_PASSED, decision_words, offline, trace_text, verdict_words

# The report's CSS classes for the status vocabulary's tones (gcv.contract.status).
TONE_CLASS = {"good": "ok", "warn": "warn", "bad": "bad", "neutral": "neutral", "active": "warn"}
METRICS = [
    ("status", "run status"), ("end_reason", "end reason"), ("survival_ticks", "survival (ticks)"),
    ("peak_alive_bullets", "peak alive bullets"), ("player_hits", "player hits"),
    ("low_fps", "1% low FPS"), ("average_fps", "average FPS"), ("worst_frame_ms", "worst frame (ms)"),
    ("phases_reached", "phases reached"), ("total_bullets_spawned", "bullets spawned"),
    ("grazes", "grazes"), ("boss_health_remaining", "boss health left"),
    ("player_health_remaining", "player health left"),
]
GATE_TONE = {"accept": "ok", "repair": "info", "human_review": "warn", "stop": "bad"}
POPULATION_FIELDS = [("survival_rate", "survival rate", "survival_interval"),
                     ("hits_mean", "hits (mean)", "hits_mean_interval"),
                     ("hits_p90", "hits (p90)", "hits_p90_interval"),
                     ("peak_alive_p90", "peak alive (p90)", "peak_alive_p90_interval")]
CHART_ALTS = ["Alive bullets per second, baseline and candidates, with the limit",
              "Cumulative player hits over time, with the hit limit",
              "Bullets spawned and peak alive bullets per phase, baseline and final candidate"]


# ---------------------------------------------------------------------- formatting (text, never markup)
def fmt(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (list, dict)):
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    return str(value)


def utc(ts: Any) -> str:
    if not isinstance(ts, (int, float)):
        return "—"
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(ts)) + f".{int(ts * 1000) % 1000:03d}Z"


def tone(status: str) -> str:
    try:
        return TONE_CLASS[Status(status).tone]
    except ValueError:
        return "neutral"


def status_title(status: str) -> str:
    try:
        return Status(status).title
    except ValueError:
        return status


def fmt_seconds(tick: int) -> str:
    """A tick as seconds at the simulation's fixed rate (600 -> '10')."""
    return f"{round(tick / TICK_HZ, 2):g}"


def shown(path: str, value: Any) -> str:
    """A field's value as a person reads it, with the unit of ``path`` (``595 ms``, ``yes``);
    lists and objects as JSON (``fmt``)."""
    if isinstance(value, (list, dict)):
        return fmt(value)
    return "—" if value is None else value_with_unit(path, value)


def field_name(path: Any) -> str | None:
    """A JSON path's human name (``Phase 2 · bullet speed``), or None when it has none (a path
    the contract does not know, or no path): the page then shows the path alone."""
    if not isinstance(path, str):
        return None
    name = field_label(path)
    return None if name == path else name


def data_uri(mime: str, data: bytes) -> str:
    return f"data:{mime};base64," + base64.b64encode(data).decode("ascii")


# ---------------------------------------------------------------------- the template environment
class JoinedLines(Extension):
    """The report's ``.html`` templates are written one element a line, indented, but the page
    has no whitespace between its tags (and may not gain any: replay compares bytes). So each
    line of an ``.html`` template is stripped and the lines are joined before Jinja2 parses
    them; text that needs a space keeps it inside one line, and a line break that belongs to the
    page is written ``{{ "\\n" }}``. Other templates (``report.css``) are left as they are."""

    def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
        if name is None or not name.endswith(".html"):
            return source
        return "".join(line.strip() for line in source.splitlines())


def escape_value(value: Any) -> Any:
    """The environment's ``finalize``: every ``{{ value }}`` is escaped here, before autoescape
    sees it (which then leaves it alone). None is empty; markup (a macro's output, an SVG we
    drew) passes. This is the escaping of the reports made before the templates (``&quot;``,
    ``&#x27;``; markupsafe would write ``&#34;``, ``&#39;``), so their bundles still replay."""
    if hasattr(value, "__html__"):
        return value
    return Markup(html.escape("" if value is None else str(value), quote=True))


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(loader=PackageLoader("gcv.evidence", "report_templates"),
                      autoescape=select_autoescape(enabled_extensions=("html",), default_for_string=True),
                      undefined=StrictUndefined, finalize=escape_value, keep_trailing_newline=True,
                      extensions=[JoinedLines])
    env.filters.update(fmt=fmt, utc=utc, seconds=fmt_seconds, field=field_name)
    return env


# ---------------------------------------------------------------------- the data of every section
class _Report:
    def __init__(self, ev: Evidence, bundle_name: str) -> None:
        self.ev = ev
        self.state = ev.state
        self.bundle_name = bundle_name
        self.rounds = self.state.rounds
        self.final_no = ev.final_round()
        self.final_eval = ev.evaluation(self.final_no) if self.final_no else None
        self.base_tel = ev.telemetry(None)
        self.run_rounds = [r.round for r in self.rounds if ev.telemetry(r.round)]
        self.goal = ev.goal()
        # "final" when the review accepted it; otherwise the best verified candidate so far
        self.final_label = "final" if self.state.status.tone == "good" or (
            self.state.terminal_reason == Reason.ACCEPTED_BY_REVIEW) else "best"

    # ------------------------------------------------------------------ helpers
    def column(self, n: int) -> str:
        return f"candidate {n}" + (f" ({self.final_label})" if n == self.final_no else "")

    def any_evaluation(self) -> dict[str, Any] | None:
        if self.final_eval:
            return self.final_eval
        for r in reversed(self.rounds):
            e = self.ev.evaluation(r.round)
            if e:
                return e
        return None

    def phase_ids(self) -> list[str]:
        """The baseline's phase ids, for field names (``Phase 2 · bullets per wave``)."""
        return [str(p.get("phase_id", "")) for p in (self.ev.baseline_config() or {}).get("phases", [])]

    def field(self, path: str) -> str:
        return field_label(path, self.phase_ids())

    def final_change(self) -> list[dict[str, Any]]:
        """The final candidate's change with each edit's origin: requested, or added by a repair."""
        n = self.final_no or (self.ev.rounds()[0].round if self.ev.rounds() else None)
        if n is None:
            return []
        entries = sorted(self.ev.rounds(), key=lambda e: e.round)
        rounds = [(e.round, e.origin or "", self.ev.json(e.config)) for e in entries if e.round <= n]
        return change_with_origins(self.ev.baseline_config(), rounds, n)

    def engine_text(self) -> str:
        """What actually ran (the runner's label, e.g. ue5-harness), never just what was asked for."""
        s = self.state
        ran = s.engines_used()
        requested = s.settings.engine
        if not ran:
            return f"{requested} (requested; nothing ran)"
        return ", ".join(ran) + ("" if ran == [requested] else f" (requested {requested})")

    # ------------------------------------------------------------------ sections
    def verdict(self) -> dict[str, Any]:
        s = self.state
        status = str(s.status)
        diff = self.final_change()
        changes = [{"path": c["path"], "label": self.field(c["path"]), "before": shown(c["path"], c.get("before")),
                    "after": shown(c["path"], c.get("after")),
                    "percent": None if c.get("percent") is None else f"{c['percent']:+g}",
                    "requested": c["requested"], "origin": c["origin"].replace(":", ": ")} for c in diff]
        targets = None
        ev = self.final_eval
        if ev:
            hard = ev.get("checks", [])
            intent = ev.get("intent_checks", [])
            targets = {"hard_passed": sum(1 for c in hard if c["passed"]), "hard": len(hard),
                       "failing": ", ".join(check_label(c) for c in hard if not c["passed"]),
                       "intent_passed": sum(1 for c in intent if c["passed"]), "intent": len(intent)}
        req = s.requirement
        human = as_json(s.human_decision)
        pending = None
        if not human and decisions_allowed(Status(status)):
            # exactly the decisions the state machine takes from here (the CLI refuses any other)
            allowed = decisions_allowed(Status(status))
            pending = "|".join(allowed) + (" --actor NAME --note TEXT" if NOTE_REQUIRED & set(allowed)
                                           else " --actor NAME")
        version = evidence_version(self.ev.history(), status)
        return {"id": s.id, "status": status, "tone": tone(status), "title": status_title(status),
                "reason": as_json_value(s.terminal_reason), "message": s.terminal_message, "request": s.request,
                "reason_words": REVIEW_PASSED if s.terminal_reason == Reason.ACCEPTED_BY_REVIEW else None,
                "decided": decision_words(human) if human else None,
                "changes": changes[:8], "changed": len(diff), "has_requirement": req is not None,
                "which": f"candidate {self.final_no}" if self.final_no else "the candidate",
                "final_no": self.final_no, "targets": targets, "questions": req.questions if req else [],
                "issues": req.issues if req else [], "usage": as_json(s.usage), "engine": self.engine_text(),
                "seed": s.settings.seed, "player": fmt(s.settings.player), "human": human,
                "pending": pending, "version": version.number, "interim": version.interim}

    def request_section(self) -> dict[str, Any]:
        s = self.state
        goal = None
        g = self.goal
        if g:
            c = g.get("constraints") or {}
            edits = ", ".join(f"{e['field']} {e['operation']} {fmt(e['value'])}" for e in g.get("edits", [])) or "—"
            goal = [
                ("target phases", ", ".join(g.get("target_phase_ids", []))),
                ("pattern type", fmt(g.get("pattern_type"))),
                ("bidirectional", fmt(g.get("bidirectional"))),
                ("reverse rotation", fmt(g.get("reverse_rotation"))),
                ("pressure", fmt(g.get("pressure"))),
                ("explicit edits", edits),
                ("max alive bullets (designer)", fmt(c.get("max_alive_bullets"))),
                ("min 1% low FPS (designer)", fmt(c.get("min_low_fps"))),
                ("max player hits (designer)", fmt(c.get("max_player_hits"))),
                ("preserve visual style", fmt(g.get("preserve_visual_style"))),
            ]
        targets = None
        ev = self.any_evaluation()
        if ev:
            t = ev["targets"]
            targets = [{"name": k, "value": ticks_text(t.get(k)) if k == "min_survival_ticks" else fmt(t.get(k)),
                        "source": (t.get("sources") or {}).get(k, ""),
                        "derivation": t.get("derivation", {}).get(k, "")}
                       for k in ("max_alive_bullets", "max_player_hits", "min_low_fps", "min_survival_ticks",
                                 "require_all_phases")]
        return {"request": s.request, "decision": (s.requirement.decision if s.requirement else "") or "—",
                "provider": s.settings.provider, "baseline_source": s.baseline_source or "",
                "baseline_hash": s.baseline_hash[:12],
                "goal": goal, "targets": targets, "intent": self._intent_rows()}

    def _intent_rows(self) -> list[dict[str, str]] | None:
        """Each thing the accepted request asks for (intent.json; None in bundles made before it)."""
        intent = self.ev.intent()
        if not intent:
            return None
        return [{"where": ", ".join(e["phases"]) or "the whole fight", "field": e["field"],
                 "asked": LEAD[e["direction"]] + e["size"], "exact": "yes" if e["exact"] else "no (a word)",
                 "held_by": ", ".join(e["held_by"])} for e in intent["edits"]]

    def changes_section(self) -> dict[str, Any]:
        entries = self.ev.rounds()
        diffs = {e.round: (self.ev.json(e.diff) or []) for e in entries}
        paths: list[str] = []
        base_val: dict[str, Any] = {}
        for n in sorted(diffs):
            for c in diffs[n]:
                if c["path"] not in paths:
                    paths.append(c["path"])
                base_val.setdefault(c["path"], c.get("before"))
        rows = []
        for p in paths:
            cells = []
            for n in sorted(diffs):
                change = next((c for c in diffs[n] if c["path"] == p), None)
                cells.append({"final": n == self.final_no, "changed": change is not None,
                              "value": shown(p, base_val.get(p) if change is None else change.get("after"))})
            rows.append({"path": p, "label": self.field(p), "baseline": shown(p, base_val.get(p)), "cells": cells})
        return {"any": bool(entries), "rows": rows,
                "headers": ["field", "baseline"] + [self.column(n) for n in sorted(diffs)],
                "head_classes": ["", ""] + ["final" if n == self.final_no else "" for n in sorted(diffs)],
                "origin": " · ".join(f"candidate {e.round}: {e.origin or ''}" for e in entries)}

    def second_reading_section(self) -> dict[str, Any] | None:
        """The second reading of the request (issue 26, item 6): each thing the designer's words ask
        for, and whether the candidate shown does it. None when no round was read again."""
        rnd = next((r for r in reversed(self.rounds) if r.second_reading), None)
        if rnd is None or rnd.second_reading is None:
            return None
        sr = rnd.second_reading
        verdict = {"holds": "every thing asked for holds", "misses": "the result does not do what was asked",
                   "unread": "not checked"}[sr.verdict]
        return {"round": rnd.round, "verdict": sr.verdict, "verdict_text": verdict, "reader": sr.reader,
                "note": sr.note, "rows": [{"asked": i.asked, "expected": i.expected, "found": i.found,
                                           "holds": i.holds} for i in sr.items]}

    def validation_section(self) -> dict[str, Any]:
        reports = {e.round: self.ev.json(e.validation) for e in self.ev.rounds()}
        rows = []
        for name in ["schema", "reference", "rules", "safety"]:
            rows.append({"layer": name, "cells": [
                next((lr for lr in (reports[n] or {}).get("layers", []) if lr["layer"] == name), None)
                for n in sorted(reports)]})
        return {"any": bool(reports), "rows": rows, "headers": ["layer"] + [f"candidate {n}" for n in sorted(reports)],
                "oks": [bool((reports[n] or {}).get("ok")) for n in sorted(reports)]}

    def metrics_section(self) -> dict[str, Any]:
        if not self.base_tel and not self.run_rounds:
            return {"any": False}
        evals = {n: self.ev.evaluation(n) for n in self.run_rounds}
        check_by_field: dict[int, dict[str, dict[str, Any]]] = {
            n: {c["field"]: c for c in (e or {}).get("checks", [])} for n, e in evals.items()}
        targets = {c["field"]: expected_text(c) for c in (self.any_evaluation() or {}).get("checks", [])}
        tels = {n: self.ev.telemetry(n) for n in self.run_rounds}

        def figure(tel: dict[str, Any] | None, key: str) -> str:
            if key != "survival_ticks":
                return fmt((tel or {}).get(key))
            ticks = survived_ticks(tel)  # never longer than the fight ran (gcv.evaluation.display)
            return "—" if ticks is None else f"{ticks} ({seconds_text(ticks)})"

        rows = []
        for key, label in METRICS:
            cells = []
            for n in self.run_rounds:
                check = check_by_field[n].get(key)
                cells.append({"final": n == self.final_no, "passed": None if check is None else check["passed"],
                              "value": figure(tels[n], key)})
            rows.append({"label": label, "target": targets.get(key, ""), "baseline": figure(self.base_tel, key),
                         "cells": cells})
        verdicts = [{"final": n == self.final_no, "passed": None if evals[n] is None else evals[n]["passed"],
                     "miss": None if evals[n] is None else f"{evals[n]['miss_score']:.3f}"} for n in self.run_rounds]
        return {"any": True, "rows": rows, "verdicts": verdicts,
                "headers": ["figure", "target", "baseline"] + [self.column(n) for n in self.run_rounds],
                "head_classes": ["", "", ""] + ["final" if n == self.final_no else "" for n in self.run_rounds],
                "modeled": (self.base_tel or {}).get("fps_source") == "model", "population": self.population()}

    def population(self) -> dict[str, Any] | None:
        """Seeded bot populations (when the workflow ran them): per skill, baseline vs candidates."""
        columns: list[tuple[int | None, str]] = [(None, "baseline")] + [(e.round, self.column(e.round))
                                                                     for e in self.ev.rounds()]
        summaries = {n: self.ev.json(self.ev.index.baseline.population if n is None else
                                     next(e for e in self.ev.rounds() if e.round == n).population)
                     for n, _ in columns}
        columns = [(n, label) for n, label in columns if summaries[n]]
        if not columns:
            return None
        base = summaries[columns[0][0]]
        rows = []
        for skill in [s["skill"] for s in base["skills"]]:
            for key, label, interval in POPULATION_FIELDS:
                cells: list[dict[str, Any] | None] = []
                for n, _ in columns:
                    sk = next((x for x in summaries[n]["skills"] if x["skill"] == skill), None)
                    if sk is None:
                        cells.append(None)
                        continue
                    lo, hi = (sk.get(interval) or [None, None])[:2]
                    cells.append({"value": fmt(sk.get(key)), "lo": fmt(lo), "hi": fmt(hi)})
                rows.append({"label": f"bot:{skill} {label}", "cells": cells})
        chart = None
        last_n, last_label = columns[-1]
        if len(columns) > 1:
            skills = [s["skill"] for s in base["skills"]]
            by_skill = {n: {s["skill"]: s for s in summaries[n]["skills"]} for n, _ in columns}
            if all(skill in by_skill[last_n] for skill in skills):
                # gcv.evidence.plots draws it (gcv.svg_chart escapes every text it writes): safe as markup
                chart = Markup(plots.population_plot(skills, by_skill[columns[0][0]], by_skill[last_n], last_label))
        return {"seeds": base["seeds"], "labels": [label for _, label in columns], "rows": rows, "chart": chart}

    def checks_section(self) -> dict[str, Any]:
        if not self.final_eval:
            return {"any": False}
        history = []
        for n in self.run_rounds:
            e = self.ev.evaluation(n)
            if not e:
                continue
            failed = [c for c in e["checks"] + e.get("intent_checks", []) if not c["passed"]]
            tel = self.ev.telemetry(n)
            history.append({"round": n, "passed": e["passed"], "miss": f"{e['miss_score']:.4f}",
                            "failed": ", ".join(f"{check_label(c)} {actual_text(c, tel)} vs {expected_text(c)}"
                                                for c in failed) or "all checks pass"})
        final_tel = self.ev.telemetry(self.final_no)

        def rows(checks: list[dict[str, Any]]) -> list[dict[str, Any]]:
            return [{"label": check_label(c), "field": c["field"], "expected": expected_text(c),
                     "actual": actual_text(c, final_tel), "passed": c["passed"], "phase": c.get("phase_id") or "",
                     "detail": detail_text(c, final_tel)} for c in checks]

        return {"any": True, "final_no": self.final_no, "hard": rows(self.final_eval["checks"]),
                "intent": rows(self.final_eval.get("intent_checks") or []), "history": history}

    def plots_section(self) -> dict[str, Any]:
        if not self.base_tel or not self.run_rounds:
            return {"charts": []}
        final_no = self.final_no or self.run_rounds[-1]
        ev = self.any_evaluation() or {}
        targets = ev.get("targets") or {}
        alive = [("baseline", self.base_tel.get("alive_per_second", []), "baseline")]
        hits = [("baseline", self.base_tel.get("hit_ticks", []), self.base_tel.get("ticks", 0), "baseline")]
        for n in self.run_rounds:
            tel = self.ev.telemetry(n)
            role = "final" if n == final_no else "other"
            alive.append((f"candidate {n}", tel.get("alive_per_second", []), role))
            hits.append((f"candidate {n}", tel.get("hit_ticks", []), tel.get("ticks", 0), role))
        charts = [plots.alive_plot(alive, targets.get("max_alive_bullets")),
                  plots.hits_plot(hits, targets.get("max_player_hits"), int(self.base_tel.get("tick_hz", 60)))]
        final_tel = self.ev.telemetry(final_no)
        phases = [p["phase_id"] for p in self.base_tel.get("phase_results", [])]

        def per_phase(tel: dict[str, Any]) -> dict[str, list[int]]:
            by = {p["phase_id"]: p for p in tel.get("phase_results", [])}
            return {"spawned": [int(by.get(p, {}).get("bullets_spawned", 0)) for p in phases],
                    "peak": [int(by.get(p, {}).get("peak_alive_bullets", 0)) for p in phases]}

        charts.append(plots.phase_bars(phases, per_phase(self.base_tel), per_phase(final_tel), f"candidate {final_no}"))
        return {"charts": [{"alt": a, "src": data_uri("image/svg+xml", c.encode("utf-8")), "wide": w}
                           for a, c, w in zip(CHART_ALTS, charts, [False, False, True])]}

    def frames_section(self) -> dict[str, Any]:
        base = self.ev.run_entry(None)
        final_no = self.final_no or (self.run_rounds[-1] if self.run_rounds else None)
        cand = self.ev.run_entry(final_no) if final_no else None
        if not base:
            return {"any": False}

        def frames_of(entry: RunFiles | None) -> dict[int, str]:
            out = {}
            for name in entry.frames if entry else []:
                stem = Path(name).stem
                if stem.startswith("tick_"):
                    out[int(stem[5:])] = name
            return out

        def cell(frames: dict[int, str], tick: int, tel: dict[str, Any] | None) -> dict[str, Any]:
            if tick in frames and self.ev.has(frames[tick]):
                return {"src": data_uri("image/png", self.ev.files[frames[tick]])}
            why = "no frame"
            if tel and tel.get("ticks", 0) <= tick:
                why = f"no frame: the run ended at tick {tel.get('ticks')} ({tel.get('status')})"
            return {"src": None, "why": why}

        bf, cf = frames_of(base), frames_of(cand)
        cand_tel = self.ev.telemetry(final_no) if final_no else None
        ticks = [{"tick": tick, "baseline": cell(bf, tick, self.base_tel), "candidate": cell(cf, tick, cand_tel)}
                 for tick in sorted(set(bf) | set(cf) | set(CAPTURE_TICKS))]
        return {"any": True, "seed": self.state.settings.seed, "player": fmt(self.state.settings.player),
                "column": self.column(final_no) if final_no else "candidate", "ticks": ticks,
                "moments": self.moments()}

    def moments(self) -> list[dict[str, Any]]:
        """Frames where it matters, not only at fixed seconds: the first hit and the peak of every
        evaluated candidate, and the moment a failing one failed (its death)."""
        cards = []
        for e in self.ev.rounds():
            n = e.round
            tel = self.ev.telemetry(n)
            if not tel:
                continue
            wanted: list[tuple[str, int]] = []
            if tel.get("hit_ticks"):
                wanted.append(("first hit", int(tel["hit_ticks"][0])))
            if tel.get("status") == "died":
                wanted.append(("the player dies", int(tel["ticks"]) - 1))
            per_second = tel.get("alive_per_second") or []
            if per_second:
                peak = max(range(len(per_second)), key=lambda i: (per_second[i], -i))
                wanted.append((f"peak: {per_second[peak]} bullets alive", min(peak * 60 + 59, int(tel["ticks"]) - 1)))
            frames = self._frames_at(n, [(tick, f"{label}, tick {tick} ({fmt_seconds(tick)} s)")
                                         for label, tick in dict.fromkeys(wanted)])
            if frames:
                cards.append({"column": self.column(n), "frames": frames})
        return cards

    def _frames_at(self, n: int | None, wanted: list[tuple[int, str]], player: dict[str, Any] | None = None,
                   seed: int | None = None) -> list[dict[str, str]]:
        """The arena at each (tick, caption) of round ``n`` (None: the baseline), drawn by the
        reference simulator from one run up to the last tick wanted: captions and data: URIs."""
        entry = self.ev.run_entry(n)
        request = (self.ev.json(entry.request) if entry else None) or {}
        config = self.ev.baseline_config() if n is None else self.ev.json(
            next(e for e in self.ev.rounds() if e.round == n).config)
        program = compile_program(BulletHellConfig.model_validate(config))
        player = player or request.get("player") or self.state.settings.player
        seed = request.get("seed", self.state.settings.seed) if seed is None else seed
        snapshots = Simulation(program, player).snapshots_at(seed=seed, ticks=[tick for tick, _ in wanted])
        figures = []
        for tick, caption in wanted:
            if tick not in snapshots:
                continue
            buf = io.BytesIO()
            render_frame(program, snapshots[tick]).save(buf, format="PNG", optimize=False)
            figures.append({"caption": caption, "src": data_uri("image/png", buf.getvalue())})
        return figures

    def fairness_section(self) -> dict[str, Any] | None:
        """The fair-fight analysis: verdict, the safe-area curve, and the tightest moment's frame."""
        reports = [(None, self.ev.fairness(None))] + [(e.round, self.ev.fairness(e.round))
                                                      for e in self.ev.rounds()]
        parsed = [(n, FairnessReport.model_validate(r)) for n, r in reports if r is not None]
        if not parsed:
            return None
        cards = []
        for n, rep in parsed:
            area = rep.safe_area
            card: dict[str, Any] = {"column": self.column(n) if n else "baseline", "verdict": rep.verdict,
                                    "witness": None, "unfair": None, "reason": rep.reason, "tightest": None}
            if rep.verdict == "fair" and rep.witness is not None:
                card["witness"] = {"ticks": rep.witness.ticks, "hits": rep.witness.replay.player_hits}
            elif rep.verdict == "unfair" and rep.unfair is not None:
                u = rep.unfair
                card["unfair"] = {"tick": u.tick, "seconds": f"{u.seconds:.2f}", "phase": u.responsible_phase_id,
                                  "wave": u.responsible_wave.wave_index}
            if area.tightest_milli is not None:
                card["tightest"] = {"percent": f"{area.tightest_milli / 10:g}", "tick": area.tightest_tick,
                                    "phase": area.tightest_phase_id}
            tick = area.tightest_tick if rep.verdict != "unfair" else (rep.unfair.tick if rep.unfair else None)
            card["frames"] = self._tick_frame(n, rep, tick)
            card["chart"] = data_uri("image/svg+xml", safe_area_svg(rep).encode("utf-8"))
            cards.append(card)
        return {"cards": cards}

    def _tick_frame(self, n: int | None, rep: FairnessReport, tick: int | None) -> list[dict[str, str]]:
        """The arena at ``tick`` with the witness's path as the player (or the scripted one)."""
        if tick is None:
            return []
        player = ({"kind": "inputs", "trace": rep.witness.trace} if rep.witness is not None
                  else {"kind": "scripted"})
        return self._frames_at(n, [(tick, f"tick {tick} ({fmt_seconds(tick)} s)")], player=player, seed=rep.seed)

    def review_section(self) -> dict[str, Any]:
        cards = []
        for r in self.rounds:
            gate = r.gate
            allowed = None
            if r.allowed:
                a = r.allowed
                allowed = {"count": len(a.intents), "can_accept": a.can_accept,
                           "intents": [{"intent": i, "phases": ", ".join(a.phases.get(i, [])),
                                        "reason": a.reasons.get(i, "")} for i in a.intents],
                           "refused": list(a.refused.items())}
            rep = None
            if r.repair:
                p = r.repair
                rep = {"ok": p.ok, "text": p.explanation or p.error or "",
                       "changes": [{"path": c.path, "label": self.field(c.path), "before": shown(c.path, c.before),
                                    "after": shown(c.path, c.after)} for c in p.changes],
                       "search": [{"ratio": s.ratio, "value": fmt(s.value), "passes": s.outcome == "passes",
                                   "outcome": s.outcome.replace("_", " "), "failed": ", ".join(s.failed_checks)}
                                  for s in p.search or []]}
            cards.append({"round": r.round, "origin": r.origin, "engine": self.engine_line(r),
                          "passed": r.passed, "miss": None if r.passed is None else f"{r.miss_score:.4f}",
                          "verdict": as_json(r.verdict), "gate": as_json(gate),
                          "verdict_words": verdict_words(r.verdict.verdict) if r.verdict else None,
                          "gate_tone": GATE_TONE.get(gate.outcome, "neutral") if gate else None,
                          "allowed": allowed, "repair": rep})
        return {"cards": cards}

    @staticmethod
    def engine_line(r: Round) -> dict[str, Any]:
        """Per candidate: pre-screened and not run in the engine, or the engine run and its parity."""
        run = r.run
        return {"prescreen_failed": ", ".join(r.prescreen_failed) if r.prescreen_failed else None,
                "ran": run is not None, "engine": run.engine if run else None, "ok": bool(run and run.ok),
                "parity": r.prescreen is not None}

    def agents_section(self) -> dict[str, Any]:
        entries = []
        req = self.ev.index.requirement.agent if self.ev.index.requirement else None
        if req:
            entries.append(("requirement", self.ev.json(req)))
        for e in self.ev.rounds():
            if e.agent:
                entries.append((f"review, round {e.round}", self.ev.json(e.agent)))
        calls = []
        for label, rec in entries:
            for i, call in enumerate((rec or {}).get("calls", [])):
                u = call.get("usage") or {}
                cached = u.get("cache_read_input_tokens", 0)
                calls.append({
                    "label": label, "number": i + 1, "provider": call.get("provider"), "model": call.get("model"),
                    "prompt_id": call.get("prompt_id"),
                    "latency": f"{'' if call.get('latency_ms') is None else call['latency_ms']} ms",
                    "tokens": ("none (offline rules)" if offline(str(call.get("provider")), u.get("input_tokens", 0)
                                                                 + u.get("output_tokens", 0))
                               else f"{u.get('input_tokens', 0)} in / {u.get('output_tokens', 0)} out"
                               + (f" / {cached} cached" if cached else "")),
                    "retries": call.get("retries", 0), "stop": call.get("stop_reason") or "",
                    "error_type": call.get("error_type"), "error": call.get("error"),
                    "raw": call.get("raw_output", ""), "prompt_sha": (call.get("prompt_sha256") or "")[:12]})
        return {"any": bool(entries), "calls": calls}

    def timeline_section(self) -> dict[str, Any]:
        events = self.ev.events()
        # the event log holds every trace line (the state can miss the last one of a step)
        trace = [trace_text(e["data"]["line"]) for e in events if e.get("type") == "trace"] or [
            trace_text(line) for line in self.state.trace]
        rows = []
        t0 = events[0]["at"] if events else 0
        for e in events:
            kind = e.get("type")
            data = e.get("data") or {}
            row = {"seq": e["seq"], "at": utc(e.get("at")), "elapsed": f"{(e.get('at', t0) - t0):.2f}",
                   "kind": kind, "from": None, "to": None, "hash": e["hash"][:12]}
            if kind == "transition" or kind == "created":
                row.update({"from": e.get("from"), "to": e.get("to")})
                detail = {k: v for k, v in data.items() if k not in ("settings", "request")}
                if "authorization" in detail:
                    a = detail.pop("authorization")
                    detail["authorized_by"] = f"{a.get('actor')} via {a.get('via')}"
                row["detail"] = ", ".join(f"{k}={v[:12] if isinstance(v, str) and len(v) == 64 else fmt(v)}"
                                          for k, v in detail.items())
            elif kind == "trace":
                row["detail"] = data.get("line", "")
            else:
                row["detail"] = fmt(data)
            rows.append(row)
        try:  # each step with its start and duration, from the events alone (gcv.workflow.history)
            steps = [{"label": h.label, "key": h.key if h.kind == "step" else "", "lines": [trace_text(line) for line in h.lines],
                      "at": h.start_utc, "offset": h.offset_words, "duration": h.duration_words}
                     for h in history(parse_events(events))]
        except HistoryError:
            steps = []
        return {"trace": trace, "history": steps, "events": rows}

    def budget_section(self) -> dict[str, Any]:
        s = self.state
        b = s.settings.budgets
        u = s.usage
        rows: list[tuple[str, Any, Any]] = [
            ("candidate engine runs", u.candidate_runs, b.max_candidate_runs),
            ("baseline runs", u.baseline_runs, 1),
            *([("model calls (offline rules, no tokens)", u.model_calls, b.max_model_calls),
               ("tokens", "none (offline rules)", b.max_tokens)] if offline(s.settings.provider, u.tokens) else
              [("model calls", u.model_calls, b.max_model_calls), ("tokens", u.tokens, b.max_tokens)]),
            ("deadline (s after authorization)", "—", fmt(b.deadline_seconds)),
            ("stagnation rounds", "—", b.stagnation_rounds)]
        if u.population_runs:
            rows.insert(2, ("bot population runs", u.population_runs, "—"))
        auth = None
        if s.authorization:
            a = s.authorization
            policy = a.scope.fairness_policy
            auth = {"actor": a.actor, "via": a.via, "at": utc(a.at), "engine": a.engine, "policy": policy,
                    "policy_words": POLICY_WORDS.get(policy, "") if policy else ""}
        return {"rows": rows, "auth": auth}

    def verify_section(self) -> dict[str, Any]:
        red = self.ev.index.redactions
        return {"bundle_name": self.bundle_name, "files": red.files,
                "events": ", ".join(map(str, red.events)) if red.events else None}

    def context(self) -> dict[str, Any]:
        s = self.state
        sections = [
            ("request", "Request and goal", self.request_section()),
            ("changes", "What changed", self.changes_section()),
            *([("second-reading", "Second reading of the request", sr)] if (sr := self.second_reading_section())
              else []),
            ("validation", "Validation", self.validation_section()),
            ("metrics", "Metrics: baseline vs every candidate", self.metrics_section()),
            ("checks", "Checks", self.checks_section()),
            ("charts", "Charts", self.plots_section()),
            ("frames", "Before / after frames", self.frames_section()),
            *([("fairness", "Fair fight", fair)] if (fair := self.fairness_section()) else []),
            ("review", "Review and repair history", self.review_section()),
            ("agents", "Agent runs", self.agents_section()),
            ("timeline", "Trace and timeline", self.timeline_section()),
            ("budgets", "Budgets and usage", self.budget_section()),
            ("verify", "How to verify", self.verify_section()),
        ]
        page = {"id": s.id, "status": str(s.status), "created": utc(s.created_at), "engine": self.engine_text(),
                "provider": s.settings.provider, "seed": s.settings.seed, "version": gcv.__version__}
        return {"page": page, "verdict": self.verdict(),
                "sections": [{"id": sid, "title": title, "data": data} for sid, title, data in sections]}


def report_context(ev: Evidence, *, bundle_name: str | None = None) -> dict[str, Any]:
    """What the report shows, as plain data (text, numbers, data: URIs; the population chart as markup)."""
    return _Report(ev, bundle_name or f"{ev.wf_id}.evidence.zip").context()


def render_report(ev: Evidence, *, bundle_name: str | None = None) -> str:
    """The HTML report of ``ev`` as one string."""
    return environment().get_template("report.html").render(report_context(ev, bundle_name=bundle_name))


def default_report_path(workspace: Workspace | Path | str, wf_id: str) -> Path:
    return as_workspace(workspace).workflow_dir(wf_id).root / "evidence" / "report.html"


def write_report(workspace: Workspace | Path | str, wf_id: str, out: Path) -> Path:
    """Render workflow ``wf_id``'s report to ``out`` (atomically). Returns ``out``."""
    out = Path(out)
    ev = collect(workspace, wf_id)
    page = render_report(ev)
    data = page.encode("utf-8")
    assert ev.scrubber is not None
    leaks = ev.scrubber.leaks(data)
    if leaks:  # pragma: no cover - the collector scrubs everything the report shows
        raise EvidenceError(f"refusing to write the report: it would contain {', '.join(leaks)}")
    atomic_write_bytes(out, data)
    return out
