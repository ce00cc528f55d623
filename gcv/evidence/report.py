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
"""

from __future__ import annotations

import base64
import html
import io
import json
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import gcv
from gcv.evidence import plots
from gcv.evidence.collect import Evidence, EvidenceError, as_workspace, collect
from gcv.evidence.versions import evidence_version
from gcv.analysis import FairnessReport
from gcv.analysis.frames import safe_area_svg
from gcv.contract.models import BulletHellConfig
from gcv.contract.policies import POLICY_WORDS
from gcv.contract.status import Status
from gcv.sim.engine import Simulation
from gcv.sim.fixed import TICK_HZ
from gcv.sim.program import compile_program
from gcv.simio.render import render_frame
from gcv.store.atomic import atomic_write_bytes
from gcv.store.catalog import Workspace
from gcv.validation.diff import change_with_origins
from gcv.workflow.state import CAPTURE_TICKS
from gcv.workflow.states import decisions_allowed
from gcv.evaluation.models import check_label

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

CSS = """
:root{--ink:#0f172a;--muted:#64748b;--line:#e2e8f0;--bg:#f8fafc;--card:#fff;--ok:#15803d;--ok-bg:#dcfce7;
--bad:#b91c1c;--bad-bg:#fee2e2;--warn:#a16207;--warn-bg:#fef9c3;--info:#1d4ed8;--info-bg:#dbeafe;--neutral-bg:#f1f5f9}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,
"Helvetica Neue",Arial,"Liberation Sans","DejaVu Sans","Noto Sans CJK SC","Noto Sans SC","Source Han Sans SC",
"WenQuanYi Zen Hei","WenQuanYi Micro Hei","Microsoft YaHei","PingFang SC","Hiragino Sans GB",sans-serif}
main{max-width:1180px;margin:0 auto;padding:24px 28px 64px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:0 0 12px;padding-bottom:6px;
border-bottom:2px solid var(--line)}
h3{font-size:15px;margin:18px 0 8px}
code,pre,.mono{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,"Liberation Mono","DejaVu Sans Mono",
monospace;font-size:12.5px}
pre{background:#0f172a;color:#e2e8f0;padding:12px 14px;border-radius:8px;overflow:auto;white-space:pre-wrap;
word-break:break-word}
.brand{font-size:12px;letter-spacing:.08em;text-transform:uppercase;color:var(--muted);font-weight:600}
.sub{color:var(--muted);font-size:13px}
section{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:18px 20px;margin:18px 0;
box-shadow:0 1px 2px rgba(15,23,42,.04)}
.verdict{border-radius:12px;padding:18px 20px;margin:16px 0;border:1px solid}
.verdict.ok{background:var(--ok-bg);border-color:#86efac}.verdict.bad{background:var(--bad-bg);border-color:#fca5a5}
.verdict.warn{background:var(--warn-bg);border-color:#fde047}.verdict.neutral{background:var(--neutral-bg);
border-color:#cbd5e1}
.verdict .headline{display:flex;align-items:center;gap:12px;flex-wrap:wrap}
.verdict .title{font-size:20px;font-weight:700}
.verdict dl{display:grid;grid-template-columns:190px 1fr;gap:6px 16px;margin:14px 0 0}
.verdict dt{color:#334155;font-weight:600}.verdict dd{margin:0}
.pill{display:inline-block;padding:2px 10px;border-radius:999px;font-size:12px;font-weight:700;letter-spacing:.02em;
text-transform:uppercase;white-space:nowrap}
.pill.ok{background:var(--ok);color:#fff}.pill.bad{background:var(--bad);color:#fff}.pill.warn{background:#ca8a04;
color:#fff}
.pill.neutral{background:#475569;color:#fff}.pill.info{background:var(--info);color:#fff}
.badge{display:inline-block;padding:1px 8px;border-radius:6px;font-size:12px;font-weight:600}
.badge.pass{background:var(--ok-bg);color:var(--ok)}.badge.fail{background:var(--bad-bg);color:var(--bad)}
.badge.skip{background:var(--neutral-bg);color:var(--muted)}.badge.info{background:var(--info-bg);color:var(--info)}
nav{display:flex;flex-wrap:wrap;gap:6px 14px;font-size:13px;margin:6px 0 0}
nav a{color:var(--info);text-decoration:none}nav a:hover{text-decoration:underline}
table{border-collapse:collapse;width:100%;margin:6px 0 4px;font-size:13px}
th,td{border-bottom:1px solid var(--line);padding:6px 10px;text-align:left;vertical-align:top}
th{background:#f1f5f9;font-weight:600;color:#334155;position:sticky;top:0}
tbody tr:nth-child(even) td{background:#fbfdff}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
td.pass{background:#f0fdf4 !important;color:var(--ok);font-weight:600}
td.fail{background:#fef2f2 !important;color:var(--bad);font-weight:600}
td.final,th.final{box-shadow:inset 2px 0 0 var(--info),inset -2px 0 0 var(--info)}
td.same{color:#94a3b8}
.grid2{display:grid;grid-template-columns:1fr 1fr;gap:16px}
.frames{display:grid;grid-template-columns:90px minmax(0,340px) minmax(0,340px);justify-content:center;gap:10px 14px;
align-items:start}
.moments{display:grid;grid-template-columns:repeat(auto-fill,minmax(220px,1fr));gap:10px 14px}
.moments img{width:100%;border-radius:8px;border:1px solid var(--line)}figure{margin:0}
.frames .hd{font-weight:700;color:#334155}.frames img{width:100%;border-radius:8px;border:1px solid var(--line);
display:block}
.frames .missing{border:1px dashed #cbd5e1;border-radius:8px;padding:24px;color:var(--muted);text-align:center;
background:#f8fafc}
.charts{display:grid;grid-template-columns:1fr 1fr;gap:12px;align-items:start}
.chart{margin:4px 0 10px}.chart img{max-width:100%;height:auto;display:block;margin:0 auto}.chart.wide{
grid-column:1/-1}
table.kvt{max-width:720px}table.kvt td:first-child{width:45%;color:#334155}
.nowrap,td.mono{white-space:nowrap}
.card{border:1px solid var(--line);border-radius:10px;padding:12px 14px;margin:12px 0;background:#fcfdff}
.card h3{margin-top:0;display:flex;gap:10px;align-items:center}
.kv{display:grid;grid-template-columns:170px 1fr;gap:4px 14px}.kv div:nth-child(odd){color:var(--muted)}
details{margin:6px 0}summary{cursor:pointer;color:var(--info)}
blockquote{margin:0;padding:10px 14px;border-left:4px solid var(--info);background:#eff6ff;border-radius:6px;
font-size:15px}
.trace{background:#0f172a;color:#e2e8f0;border-radius:8px;padding:10px 14px}
.trace div{font-family:ui-monospace,Menlo,Consolas,"DejaVu Sans Mono",monospace;font-size:12.5px;white-space:pre-wrap}
.muted{color:var(--muted)}.small{font-size:12px}
footer{color:var(--muted);font-size:12px;text-align:center;margin-top:28px}
@media (max-width:800px){.grid2{grid-template-columns:1fr}.verdict dl{grid-template-columns:1fr}}
@media print{section{break-inside:avoid;box-shadow:none}th{position:static}}
"""


def esc(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


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


def badge(passed: bool | None, text: str | None = None) -> str:
    if passed is None:
        return f'<span class="badge skip">{esc(text or "n/a")}</span>'
    cls = "pass" if passed else "fail"
    return f'<span class="badge {cls}">{esc(text or ("PASS" if passed else "FAIL"))}</span>'


def layer_badge(status: str) -> str:
    cls = {"passed": "pass", "failed": "fail"}.get(status, "skip")
    return f'<span class="badge {cls}">{esc(status)}</span>'


def table(headers: Iterable[str], rows: Iterable[Iterable[str]], *, cls: str = "",
          head_classes: Iterable[str] | None = None) -> str:
    """``headers`` are text (escaped here); cells are HTML (escaped by the caller)."""
    hc = list(head_classes or [])
    ths = "".join(f'<th class="{hc[i]}">{esc(h)}</th>' if i < len(hc) and hc[i] else f"<th>{esc(h)}</th>"
                  for i, h in enumerate(headers))
    body = "".join("<tr>" + "".join(c if c.startswith("<td") else f"<td>{c}</td>" for c in row) + "</tr>"
                   for row in rows)
    return f'<table class="{cls}"><thead><tr>{ths}</tr></thead><tbody>{body}</tbody></table>'


def num(value: Any) -> str:
    """A right-aligned numeric cell (``value`` is HTML)."""
    return f'<td class="num">{value}</td>'


def data_uri(mime: str, data: bytes) -> str:
    return f"data:{mime};base64," + base64.b64encode(data).decode("ascii")


def second_reading_section(state: dict[str, Any]) -> str | None:
    """The second reading of the request (issue 26, item 6): each thing the designer's words ask
    for, and whether the candidate shown does it. None when no round was read again."""
    rnd = next((r for r in reversed(state.get("rounds") or []) if r.get("second_reading")), None)
    if rnd is None:
        return None
    sr = rnd["second_reading"]
    verdict = {"holds": "every thing asked for holds", "misses": "the result does not do what was asked",
               "unread": "not checked"}.get(sr.get("verdict"), str(sr.get("verdict")))
    rows = [[esc(i["asked"]), esc(i["expected"]), esc(i["found"]), badge(bool(i["holds"]), "holds" if i["holds"]
                                                                          else "MISS")]
            for i in sr.get("items") or []]
    note = f'<p class="sub">{esc(sr["note"])}</p>' if sr.get("note") else ""
    return (f'<p>{badge(sr.get("verdict") != "misses", sr.get("verdict"))} candidate {esc(rnd["round"])}: '
            f'{esc(verdict)}</p><p class="sub">The request and the designer\'s answers, read again from scratch by '
            f'the {esc(sr.get("reader"))} reader, with nothing of the loop, against the candidate\'s change from '
            'the baseline. A stated number holds when the value equals it; a word without a number when the value '
            'moves that way; a target when it is at least as strict (docs/repair.md section 7).</p>' + note
            + (table(["asked", "expected", "found", ""], rows) if rows else ""))


class _Report:
    def __init__(self, ev: Evidence, bundle_name: str) -> None:
        self.ev = ev
        self.state = ev.state
        self.bundle_name = bundle_name
        self.rounds = [r for r in self.state.get("rounds", [])]
        self.final_no = ev.final_round()
        self.final_eval = ev.evaluation(self.final_no) if self.final_no else None
        self.base_tel = ev.telemetry(None)
        self.run_rounds = [r["round"] for r in self.rounds if ev.telemetry(r["round"])]
        self.goal = ev.goal()
        # "final" when the review accepted it; otherwise the best verified candidate so far
        self.final_label = "final" if Status(self.state["status"]).tone == "good" or (
            self.state.get("terminal_reason") == "accepted_by_review") else "best"

    # ------------------------------------------------------------------ helpers
    def column(self, n: int) -> str:
        return f"candidate {n}" + (f" ({self.final_label})" if n == self.final_no else "")

    def any_evaluation(self) -> dict[str, Any] | None:
        if self.final_eval:
            return self.final_eval
        for r in reversed(self.rounds):
            e = self.ev.evaluation(r["round"])
            if e:
                return e
        return None

    def final_diff(self) -> list[dict[str, Any]]:
        n = self.final_no or (self.rounds[-1]["round"] if self.rounds else None)
        if n is None:
            return []
        entry = next((e for e in self.ev.rounds() if e["round"] == n), None)
        return self.ev.json(entry.get("diff")) or [] if entry else []

    def final_change(self) -> list[dict[str, Any]]:
        """The final candidate's change with each edit's origin: requested, or added by a repair."""
        n = self.final_no or (self.ev.rounds()[0]["round"] if self.ev.rounds() else None)
        if n is None:
            return []
        entries = sorted(self.ev.rounds(), key=lambda e: e["round"])
        rounds = [(e["round"], e.get("origin") or "", self.ev.json(e["config"])) for e in entries if e["round"] <= n]
        return change_with_origins(self.ev.baseline_config(), rounds, n)

    # ------------------------------------------------------------------ sections
    def verdict(self) -> str:
        s = self.state
        status = s["status"]
        t = tone(status)
        reason = s.get("terminal_reason")
        message = s.get("terminal_message")
        head = (f'<div class="headline"><span class="pill {t}">{esc(status.replace("_", " "))}</span>'
                f'<span class="title">{esc(status_title(status))}</span></div>')
        if reason or message:
            sep = " — " if reason and message else ""
            head += f'<div class="sub" style="margin-top:6px">{esc(reason or "")}{sep}{esc(message or "")}</div>'
        rows: list[tuple[str, str]] = [("What was asked", f"“{esc(s['request'])}”")]
        diff = self.final_change()
        if diff:
            parts = [f"<code>{esc(c['path'])}</code> {esc(fmt(c.get('before')))} → <b>{esc(fmt(c.get('after')))}</b>"
                     + (f" ({c['percent']:+g}%)" if c.get("percent") is not None else "")
                     + (' <span class="badge info">requested</span>' if c["requested"] else
                        f' <span class="badge fail">added by {esc(c["origin"].replace(":", ": "))} · not requested'
                        f'</span>')
                     for c in diff[:8]]
            more = f" and {len(diff) - 8} more" if len(diff) > 8 else ""
            which = f"candidate {self.final_no}" if self.final_no else "the candidate"
            rows.append(("What changed", f"{len(diff)} field(s) in {esc(which)}:<br>" + "<br>".join(parts) + more))
        elif s.get("requirement"):
            rows.append(("What changed", "nothing was changed"))
        ev = self.final_eval
        if ev:
            hard = ev.get("checks", [])
            intent = ev.get("intent_checks", [])
            hp = sum(1 for c in hard if c["passed"])
            ip = sum(1 for c in intent if c["passed"])
            failed = [c for c in hard if not c["passed"]]
            rows.append(("Targets hold?", f"{badge(hp == len(hard), 'yes' if hp == len(hard) else 'no')} "
                                          f"{hp} of {len(hard)} hard checks pass on candidate {self.final_no}"
                         + (": failing " + ", ".join(esc(check_label(c)) for c in failed) if failed else "")))
            if intent:
                rows.append(("Intent holds?", f"{badge(ip == len(intent), 'yes' if ip == len(intent) else 'no')} "
                                              f"{ip} of {len(intent)} intent checks pass"))
            else:
                rows.append(("Intent holds?", '<span class="muted">no intent checks (the goal asks for none)</span>'))
        else:
            rows.append(("Targets hold?", '<span class="muted">no candidate was evaluated</span>'))
        req = s.get("requirement") or {}
        if req.get("questions"):
            rows.append(("Questions", "<br>".join(esc(q) for q in req["questions"])))
        if req.get("issues"):
            rows.append(("Issues", "<br>".join(f"<code>{esc(i.get('field'))}</code>: {esc(i.get('message'))}"
                                               for i in req["issues"])))
        settings = s["settings"]
        runs = s["usage"]["baseline_runs"] + s["usage"]["candidate_runs"]
        rows.append(("Runs", f"{runs} engine run(s) on <b>{esc(self.engine_text())}</b> "
                             f"({s['usage']['baseline_runs']} baseline, {s['usage']['candidate_runs']} candidate), "
                             f"seed {esc(settings['seed'])}, player <code>{esc(fmt(settings['player']))}</code>"))
        human = s.get("human_decision")
        if human:
            rows.append(("Human decision", f"<b>{esc(human['decision'])}</b> by {esc(human['actor'])} at "
                                           f"{esc(utc(human.get('at')))}"
                         + (f" — “{esc(human['note'])}”" if human.get("note") else "")
                         + (f"; promoted to baseline v{esc(human['promoted_version'])}"
                            if human.get("promoted_version") else "")))
        elif decisions_allowed(Status(status)):
            # exactly the decisions the state machine takes from here (the CLI refuses any other)
            rows.append(("Human decision", f'pending: <code>gcv decide {esc(s["id"])} '
                                           f'{"|".join(decisions_allowed(Status(status)))} --actor NAME</code>'))
        version = evidence_version(self.ev.history(), status)
        rows.append(("Evidence", f"<b>version {version.number}</b> of this workflow's evidence"
                                 + (" (interim: the workflow has not stopped yet; the evidence of its next stop "
                                    "replaces it)" if version.interim else
                                    "; a later decision gives a new version, this one stays verifiable")))
        dl = "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in rows)
        return f'<div class="verdict {t}">{head}<dl>{dl}</dl></div>'

    def engine_line(self, r: dict[str, Any]) -> str:
        """Per candidate: pre-screened and not run in the engine, or the engine run and its parity."""
        if r.get("prescreen_failed"):
            return (f'{badge(False, "pre-screened")} failed {esc(", ".join(r["prescreen_failed"]))} in the reference '
                    "simulator: not run in the engine (no engine run spent)")
        run = r.get("run")
        if not run:
            return '<span class="muted">not run</span>'
        parity = (f" · {badge(True, 'parity ok')} gameplay equals the reference pre-screen, figure for figure"
                  if r.get("prescreen") else "")
        return f"engine run on <b>{esc(run.get('engine'))}</b> ({'ok' if run.get('ok') else 'failed'}){parity}"

    def engine_text(self) -> str:
        """What actually ran (the runner's label, e.g. ue5-harness), never just what was asked for."""
        s = self.state
        records = [s.get("baseline_run"), *[r.get("run") for r in self.rounds]]
        ran = sorted({r["engine"] for r in records if r and r.get("engine")})
        requested = s["settings"]["engine"]
        if not ran:
            return f"{requested} (requested; nothing ran)"
        return ", ".join(ran) + ("" if ran == [requested] else f" (requested {requested})")

    def request_section(self) -> str:
        s = self.state
        out = [f"<blockquote>{esc(s['request'])}</blockquote>"]
        req = s.get("requirement") or {}
        out.append(f'<p class="sub">Requirement agent decision: <b>{esc(req.get("decision") or "—")}</b> · '
                   f'provider <code>{esc(s["settings"]["provider"])}</code> · baseline '
                   f'{esc(s.get("baseline_source") or "")} <code>{esc(s["baseline_hash"][:12])}</code></p>')
        g = self.goal
        if g:
            c = g.get("constraints") or {}
            edits = ", ".join(f"{e['field']} {e['operation']} {fmt(e['value'])}" for e in g.get("edits", [])) or "—"
            rows = [
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
            out.append("<h3>Structured goal</h3>" + table(["goal field", "value"],
                                                          [[esc(k), esc(v)] for k, v in rows], cls="kvt"))
        else:
            out.append('<p class="muted">No structured goal: the request did not become a candidate.</p>')
        ev = self.any_evaluation()
        if ev:
            t = ev["targets"]
            deriv = t.get("derivation", {})
            rows2 = [[esc(k), f'<td class="num">{esc(fmt(t.get(k)))}</td>', esc((t.get("sources") or {}).get(k, "")),
                      f'<span class="small mono">{esc(deriv.get(k, ""))}</span>']
                     for k in ("max_alive_bullets", "max_player_hits", "min_low_fps", "min_survival_ticks",
                               "require_all_phases")]
            out.append("<h3>Effective targets</h3><p class=\"sub\">From the baseline and the designer's constraints, "
                       "never from the candidate.</p>" + table(["target", "value", "source", "derivation"], rows2))
        return "".join(out)

    def changes_section(self) -> str:
        entries = self.ev.rounds()
        diffs = {e["round"]: (self.ev.json(e.get("diff")) or []) for e in entries}
        if not entries:
            return '<p class="muted">No candidate config was produced.</p>'
        paths: list[str] = []
        base_val: dict[str, Any] = {}
        for n in sorted(diffs):
            for c in diffs[n]:
                if c["path"] not in paths:
                    paths.append(c["path"])
                base_val.setdefault(c["path"], c.get("before"))
        if not paths:
            return '<p class="muted">The candidate is identical to the baseline.</p>'
        headers = ["field", "baseline"] + [self.column(n) for n in sorted(diffs)]
        head_classes = ["", ""] + ["final" if n == self.final_no else "" for n in sorted(diffs)]
        rows = []
        for p in paths:
            row = [f"<code>{esc(p)}</code>", f'<td class="num">{esc(fmt(base_val.get(p)))}</td>']
            for n in sorted(diffs):
                change = next((c for c in diffs[n] if c["path"] == p), None)
                fin = " final" if n == self.final_no else ""
                if change is None:
                    row.append(f'<td class="num same{fin}">{esc(fmt(base_val.get(p)))}</td>')
                else:
                    row.append(f'<td class="num{fin}"><b>{esc(fmt(change.get("after")))}</b></td>')
            rows.append(row)
        origin = " · ".join(f"candidate {e['round']}: {esc(e.get('origin') or '')}" for e in entries)
        return (f'<p class="sub">Every field that differs from the baseline in any candidate; greyed cells equal '
                f'the baseline. Origin — {origin}.</p>' + table(headers, rows, head_classes=head_classes))

    def validation_section(self) -> str:
        entries = self.ev.rounds()
        if not entries:
            return '<p class="muted">Nothing was validated.</p>'
        reports = {e["round"]: self.ev.json(e.get("validation")) for e in entries}
        layers = ["schema", "reference", "rules", "safety"]
        rows = []
        for name in layers:
            row = [f"<b>{esc(name)}</b>"]
            for n in sorted(reports):
                rep = reports[n]
                layer = next((lr for lr in (rep or {}).get("layers", []) if lr["layer"] == name), None)
                if layer is None:
                    row.append('<span class="badge skip">n/a</span>')
                    continue
                cell = layer_badge(layer["status"])
                if layer.get("reason"):
                    cell += f'<div class="small muted">{esc(layer["reason"])}</div>'
                for err in layer.get("errors", []):
                    cell += (f'<div class="small"><code>{esc(err["rule_id"])}</code> at <code>{esc(err["path"])}'
                             f'</code>: {esc(err["message"])}</div>')
                for note in layer.get("notes", []):
                    cell += f'<div class="small muted">{esc(note)}</div>'
                row.append(cell)
            rows.append(row)
        oks = [bool((reports[n] or {}).get("ok")) for n in sorted(reports)]
        overall = ["<b>overall</b>"] + [badge(ok, "valid" if ok else "invalid") for ok in oks]
        rows.append(overall)
        return ('<p class="sub">Schema → reference → rules → safety, each candidate against the baseline and the '
                'goal. A candidate is never run unless every layer passes.</p>'
                + table(["layer"] + [f"candidate {n}" for n in sorted(reports)], rows))

    def metrics_section(self) -> str:
        if not self.base_tel and not self.run_rounds:
            return '<p class="muted">No engine run took place.</p>'
        evals = {n: self.ev.evaluation(n) for n in self.run_rounds}
        check_by_field: dict[int, dict[str, dict[str, Any]]] = {
            n: {c["field"]: c for c in (e or {}).get("checks", [])} for n, e in evals.items()}
        any_eval = self.any_evaluation()
        targets = {c["field"]: f"{c['op']} {fmt(c['expected'])}" for c in (any_eval or {}).get("checks", [])}
        headers = ["figure", "target", "baseline"] + [self.column(n) for n in self.run_rounds]
        head_classes = ["", "", ""] + ["final" if n == self.final_no else "" for n in self.run_rounds]
        rows = []
        tels = {n: self.ev.telemetry(n) for n in self.run_rounds}
        for key, label in METRICS:
            row = [esc(label), f'<td class="num mono">{esc(targets.get(key, ""))}</td>',
                   f'<td class="num">{esc(fmt((self.base_tel or {}).get(key)))}</td>']
            for n in self.run_rounds:
                check = check_by_field[n].get(key)
                cls = "num" + (" final" if n == self.final_no else "")
                if check is not None:
                    cls += " pass" if check["passed"] else " fail"
                mark = "" if check is None else (" ✓" if check["passed"] else " ✗")
                row.append(f'<td class="{cls}">{esc(fmt((tels[n] or {}).get(key)))}{mark}</td>')
            rows.append(row)
        verdict_row = ["<b>evaluation</b>", "", '<td class="num muted">reference</td>']
        for n in self.run_rounds:
            e = evals[n]
            fin = " final" if n == self.final_no else ""
            if e is None:
                verdict_row.append(f'<td class="num{fin}">—</td>')
            else:
                verdict_row.append(f'<td class="num{fin}">{badge(e["passed"])} <span class="small muted">miss '
                                   f'{e["miss_score"]:.3f}</span></td>')
        rows.append(verdict_row)
        fps = (self.base_tel or {}).get("fps_source")
        note = (' Frame-time figures are <b>modeled</b> by the Python simulator (fps_source = model), not measured.'
                if fps == "model" else "")
        return (f'<p class="sub">Same seed, same player, fixed 60 Hz step for every run. Cells are green/red where a '
                f'hard check reads that figure.{note}</p>' + table(headers, rows, head_classes=head_classes)
                + self.population_table())

    def population_table(self) -> str:
        """Seeded bot populations (when the workflow ran them): per skill, baseline vs candidates."""
        columns = [(None, "baseline")] + [(e["round"], self.column(e["round"])) for e in self.ev.rounds()]
        summaries = {n: (self.ev.json(self.ev.index["baseline"].get("population")) if n is None else
                         self.ev.json(next(e for e in self.ev.rounds() if e["round"] == n).get("population")))
                     for n, _ in columns}
        columns = [(n, label) for n, label in columns if summaries[n]]
        if not columns:
            return ""
        base = summaries[columns[0][0]]
        rows = []
        fields = [("survival_rate", "survival rate", "survival_interval"), ("hits_mean", "hits (mean)",
                                                                            "hits_mean_interval"),
                  ("hits_p90", "hits (p90)", "hits_p90_interval"),
                  ("peak_alive_p90", "peak alive (p90)", "peak_alive_p90_interval")]
        for skill in [s["skill"] for s in base["skills"]]:
            for key, label, interval in fields:
                row = [f"bot:{esc(skill)} {esc(label)}"]
                for n, _ in columns:
                    sk = next((x for x in summaries[n]["skills"] if x["skill"] == skill), None)
                    if sk is None:
                        row.append(num("—"))
                        continue
                    lo, hi = (sk.get(interval) or [None, None])[:2]
                    row.append(num(f'{esc(fmt(sk.get(key)))} <span class="small muted">[{esc(fmt(lo))}, '
                                   f'{esc(fmt(hi))}]</span>'))
                rows.append(row)
        chart = ""
        last_n, last_label = columns[-1]
        if len(columns) > 1:
            skills = [s["skill"] for s in base["skills"]]
            by_skill = {n: {s["skill"]: s for s in summaries[n]["skills"]} for n, _ in columns}
            if all(skill in by_skill[last_n] for skill in skills):
                chart = ('<div class="chart">' + plots.population_plot(skills, by_skill[columns[0][0]],
                                                                         by_skill[last_n], last_label) + '</div>')
        return (f'<h3>Bot population ({esc(base["seeds"])} seeds per skill, 95% intervals)</h3>'
                + table(["figure"] + [label for _, label in columns], rows) + chart)

    def checks_section(self) -> str:
        if not self.final_eval:
            return '<p class="muted">No candidate was evaluated.</p>'
        out = []

        def rows(checks: list[dict[str, Any]]) -> list[list[str]]:
            return [[f"<code>{esc(check_label(c))}</code>", f'<code class="small">{esc(c["field"])}</code>',
                     f'<td class="num mono">{esc(c["op"])} {esc(fmt(c["expected"]))}</td>',
                     f'<td class="num">{esc(fmt(c["actual"]))}</td>', badge(c["passed"]),
                     esc(c.get("phase_id") or ""), f'<span class="small">{esc(c.get("detail", ""))}</span>']
                    for c in checks]

        hdr = ["check", "field", "expected", "actual", "result", "phase", "detail"]
        out.append(f"<h3>Hard checks — candidate {self.final_no}</h3>" + table(hdr, rows(self.final_eval["checks"])))
        if self.final_eval.get("intent_checks"):
            out.append(f"<h3>Intent checks — does candidate {self.final_no} still do what the designer asked?</h3>"
                       + table(hdr, rows(self.final_eval["intent_checks"])))
        history = []
        for n in self.run_rounds:
            e = self.ev.evaluation(n)
            if not e:
                continue
            failed = [c for c in e["checks"] + e.get("intent_checks", []) if not c["passed"]]
            history.append([f"candidate {n}", badge(e["passed"]), f'<td class="num">{e["miss_score"]:.4f}</td>',
                            esc(", ".join(f"{check_label(c)} {fmt(c['actual'])} vs {c['op']} {fmt(c['expected'])}"
                                          for c in failed) or "all checks pass")])
        out.append("<h3>Every iteration</h3>" + table(["run", "result", "miss score", "failed checks"], history))
        return "".join(out)

    def plots_section(self) -> str:
        if not self.base_tel or not self.run_rounds:
            return '<p class="muted">No runs to chart.</p>'
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
        alts = ["Alive bullets per second, baseline and candidates, with the limit",
                "Cumulative player hits over time, with the hit limit",
                "Bullets spawned and peak alive bullets per phase, baseline and final candidate"]
        wide = ["", "", " wide"]
        return '<div class="charts">' + "".join(
            f'<div class="chart{w}"><img alt="{esc(a)}" src="{data_uri("image/svg+xml", c.encode("utf-8"))}"></div>'
            for a, c, w in zip(alts, charts, wide)) + "</div>"

    def frames_section(self) -> str:
        base = self.ev.run_entry(None)
        final_no = self.final_no or (self.run_rounds[-1] if self.run_rounds else None)
        cand = self.ev.run_entry(final_no) if final_no else None
        if not base:
            return '<p class="muted">No frames: no run took place.</p>'

        def frames_of(entry: dict[str, Any] | None) -> dict[int, str]:
            out = {}
            for name in (entry or {}).get("frames", []):
                stem = Path(name).stem
                if stem.startswith("tick_"):
                    out[int(stem[5:])] = name
            return out

        bf, cf = frames_of(base), frames_of(cand)
        ticks = sorted(set(bf) | set(cf) | set(CAPTURE_TICKS))
        cand_tel = self.ev.telemetry(final_no) if final_no else None
        cells = ['<div class="hd"></div>', '<div class="hd">baseline</div>',
                 f'<div class="hd">{esc(self.column(final_no) if final_no else "candidate")}</div>']

        def cell(frames: dict[int, str], tick: int, tel: dict[str, Any] | None) -> str:
            if tick in frames and self.ev.has(frames[tick]):
                return (f'<img alt="frame at tick {tick}" src="{data_uri("image/png", self.ev.files[frames[tick]])}">')
            why = "no frame"
            if tel and tel.get("ticks", 0) <= tick:
                why = f"no frame: the run ended at tick {tel.get('ticks')} ({tel.get('status')})"
            return f'<div class="missing">{esc(why)}</div>'

        for tick in ticks:
            secs = fmt_seconds(tick)
            cells.append(f'<div class="hd">{esc(secs)} s<div class="small muted">tick {tick}</div></div>')
            cells.append(cell(bf, tick, self.base_tel))
            cells.append(cell(cf, tick, cand_tel))
        player = fmt(self.state["settings"]["player"])
        return (f'<p class="sub">Same seed ({esc(self.state["settings"]["seed"])}) and same player '
                f'(<code>{esc(player)}</code>) in both columns; rendered from the simulation state at each tick.</p>'
                f'<div class="frames">{"".join(cells)}</div>' + self.moments())

    def moments(self) -> str:
        """Frames where it matters, not only at fixed seconds: the first hit and the peak of every
        evaluated candidate, and the moment a failing one failed (its death)."""
        cards = []
        for e in self.ev.rounds():
            n = e["round"]
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
                cards.append(f'<h3>{esc(self.column(n))}</h3><div class="moments">{"".join(frames)}</div>')
        if not cards:
            return ""
        return ('<p class="sub">The moments that decide a review, drawn by the reference simulator from the run\'s '
                'own request (same seed and player; for an engine run, its gameplay is the same bit for bit).</p>'
                + "".join(cards))

    def _frames_at(self, n: int | None, wanted: list[tuple[int, str]], player: dict[str, Any] | None = None,
                   seed: int | None = None) -> list[str]:
        """The arena at each (tick, caption) of round ``n`` (None: the baseline), drawn by the
        reference simulator from one run up to the last tick wanted."""
        entry = self.ev.run_entry(n) or {}
        request = self.ev.json(entry.get("request")) or {}
        config = self.ev.baseline_config() if n is None else self.ev.json(
            next(e for e in self.ev.rounds() if e["round"] == n)["config"])
        program = compile_program(BulletHellConfig.model_validate(config))
        player = player or request.get("player") or self.state["settings"]["player"]
        seed = request.get("seed", self.state["settings"]["seed"]) if seed is None else seed
        snapshots = Simulation(program, player).snapshots_at(seed=seed, ticks=[tick for tick, _ in wanted])
        figures = []
        for tick, caption in wanted:
            if tick not in snapshots:
                continue
            buf = io.BytesIO()
            render_frame(program, snapshots[tick]).save(buf, format="PNG", optimize=False)
            figures.append(f'<figure class="chart"><img alt="{esc(caption)}" src="{data_uri("image/png", buf.getvalue())}">'
                           f'<figcaption class="small muted">{esc(caption)}</figcaption></figure>')
        return figures

    def fairness_section(self) -> str | None:
        """The fair-fight analysis: verdict, the safe-area curve, and the tightest moment's frame."""
        reports = [(None, self.ev.fairness(None))] + [(e["round"], self.ev.fairness(e["round"]))
                                                      for e in self.ev.rounds()]
        reports = [(n, FairnessReport.model_validate(r)) for n, r in reports if r is not None]
        if not reports:
            return None
        cards = []
        for n, rep in reports:
            area = rep.safe_area
            if rep.verdict == "fair" and rep.witness is not None:
                claim = (f"<b>fair</b>: a witness path takes no hit over {rep.witness.ticks} ticks (replayed: "
                         f"{rep.witness.replay.player_hits} hits)")
            elif rep.verdict == "unfair" and rep.unfair is not None:
                u = rep.unfair
                claim = (f"<b>unfair</b>: at tick {u.tick} ({u.seconds:.2f} s) every reachable position is hit; "
                         f"{esc(u.responsible_phase_id)} wave {u.responsible_wave.wave_index} is responsible")
            else:
                claim = f"<b>undetermined</b>: {esc(rep.reason)}"
            tight = (f"tightest: {area.tightest_milli / 10:g}% of the arena safe at tick {area.tightest_tick} "
                     f"({esc(area.tightest_phase_id)})" if area.tightest_milli is not None else "")
            frame = self._tick_frame(n, rep, area.tightest_tick if rep.verdict != "unfair" else rep.unfair.tick)
            chart = data_uri("image/svg+xml", safe_area_svg(rep).encode("utf-8"))
            cards.append(f'<div class="card"><h3>{esc(self.column(n) if n else "baseline")} '
                         f'{badge(rep.verdict != "unfair", rep.verdict)}</h3><p>{claim}</p>'
                         f'<p class="sub">{tight}</p><div class="grid2"><div class="chart">'
                         f'<img alt="safe area per tick" src="{chart}"></div>{frame}</div></div>')
        return ('<p class="sub">Can the fight be survived without a hit? A replayed witness proves it; where no '
                'bullet depends on the player, an empty reachable set proves the opposite (docs/analysis.md). '
                'The curve is the share of the arena reachable and not hit, per tick.</p>' + "".join(cards))

    def _tick_frame(self, n: int | None, rep: FairnessReport, tick: int | None) -> str:
        """The arena at ``tick`` with the witness's path as the player (or the scripted one)."""
        if tick is None:
            return ""
        player = ({"kind": "inputs", "trace": rep.witness.trace} if rep.witness is not None
                  else {"kind": "scripted"})
        return "".join(self._frames_at(n, [(tick, f"tick {tick} ({fmt_seconds(tick)} s)")], player=player,
                                        seed=rep.seed))

    def review_section(self) -> str:
        if not self.rounds:
            return '<p class="muted">No review took place.</p>'
        out = []
        for r in self.rounds:
            n = r["round"]
            gate = r.get("gate")
            verdict = r.get("verdict")
            allowed = r.get("allowed")
            title = f"Round {n}: candidate {n}"
            pill = ""
            if gate:
                t = GATE_TONE.get(gate["outcome"], "neutral")
                pill = f'<span class="pill {t}">{esc(gate["outcome"].replace("_", " "))}</span>'
            body = [f'<div class="kv"><div>origin</div><div>{esc(r.get("origin"))}</div>',
                    f'<div>engine</div><div>{self.engine_line(r)}</div>']
            if r.get("passed") is not None:
                body.append(f'<div>evaluation</div><div>{badge(r["passed"])} miss score {r["miss_score"]:.4f}</div>')
            if verdict:
                body.append(f'<div>agent verdict</div><div><b>{esc(verdict["verdict"])}</b>'
                            + (f' · intent <code>{esc(verdict.get("intent"))}</code>' if verdict.get("intent") else "")
                            + (f' on {esc(verdict.get("target_phase_id"))}' if verdict.get("target_phase_id") else "")
                            + f'<div class="small muted">{esc(verdict.get("reason"))}</div></div>')
            if gate:
                body.append(f'<div>policy gate</div><div>{esc(gate["outcome"])}'
                            + (" (as proposed)" if gate.get("accepted_as_proposed") else " (<b>overruled</b>)")
                            + f'<div class="small muted">{esc(gate.get("reason"))}</div></div>')
            body.append("</div>")
            if allowed:
                arows = [[f"<code>{esc(i)}</code>", badge(True, "allowed"),
                          esc(", ".join((allowed.get("phases") or {}).get(i, []))),
                          f'<span class="small">{esc((allowed.get("reasons") or {}).get(i, ""))}</span>']
                         for i in allowed.get("intents", [])]
                refused = (allowed.get("refused") or {}).items()
                arows += [[f"<code>{esc(i)}</code>", badge(False, "refused"), "",
                           f'<span class="small">{esc(why)}</span>'] for i, why in refused]
                body.append("<details><summary>What the evidence allowed "
                            f"({len(allowed.get('intents', []))} intents; accept "
                            f"{'allowed' if allowed.get('can_accept') else 'not allowed'})</summary>"
                            + table(["intent", "", "phases", "why"], arows) + "</details>")
            rep = r.get("repair")
            if rep:
                crow = [[f"<code>{esc(c.get('path'))}</code>", f'<td class="num">{esc(fmt(c.get("before")))}</td>',
                         f'<td class="num"><b>{esc(fmt(c.get("after")))}</b></td>'] for c in rep.get("changes", [])]
                body.append(f'<h3>Repair {badge(rep.get("ok"), "applied" if rep.get("ok") else "refused")}</h3>'
                            f'<p class="small">{esc(rep.get("explanation") or rep.get("error") or "")}</p>'
                            + (table(["field", "before", "after"], crow) if crow else ""))
                if rep.get("search"):
                    srow = [[f"<code>{esc(s['ratio'])}</code>", f'<td class="num">{esc(fmt(s.get("value")))}</td>',
                             badge(s["outcome"] == "passes", s["outcome"].replace("_", " ")),
                             f'<span class="small">{esc(", ".join(s.get("failed_checks") or []))}</span>']
                            for s in rep["search"]]
                    body.append("<details><summary>Repair search in the reference simulator "
                                f"({len(rep['search'])} rung(s) of the ladder)</summary>"
                                + table(["r", "value", "reference", "failed checks"], srow) + "</details>")
            out.append(f'<div class="card"><h3>{esc(title)} {pill}</h3>{"".join(body)}</div>')
        return ('<p class="sub">The reviewer agent names an intent, never a number; the policy gate checks it '
                'against what the evidence allows, and a deterministic calculator applies it.</p>' + "".join(out))

    def agents_section(self) -> str:
        entries = []
        req = (self.ev.index.get("requirement") or {}).get("agent")
        if req:
            entries.append(("requirement", self.ev.json(req)))
        for e in self.ev.rounds():
            if e.get("agent"):
                entries.append((f"review, round {e['round']}", self.ev.json(e["agent"])))
        if not entries:
            return '<p class="muted">No agent was called.</p>'
        rows = []
        raws = []
        for label, rec in entries:
            for i, call in enumerate((rec or {}).get("calls", [])):
                u = call.get("usage") or {}
                cached = u.get("cache_read_input_tokens", 0)
                tokens = (f"{u.get('input_tokens', 0)} in / {u.get('output_tokens', 0)} out"
                          + (f" / {cached} cached" if cached else ""))
                rows.append([esc(label), f"<code>{esc(call.get('provider'))}</code>", esc(call.get("model")),
                             f'<code class="small">{esc(call.get("prompt_id"))}</code>',
                             num(f'{esc(call.get("latency_ms"))} ms'), num(esc(tokens)),
                             num(esc(call.get("retries", 0))), esc(call.get("stop_reason") or ""),
                             badge(False, call["error_type"]) if call.get("error_type") else badge(True, "ok")])
                raws.append(f"<details><summary>{esc(label)} — call {i + 1}: raw output "
                            f"({len(call.get('raw_output', ''))} chars, prompt sha256 "
                            f"<code>{esc((call.get('prompt_sha256') or '')[:12])}</code>)</summary>"
                            f"<pre>{esc(call.get('raw_output', ''))}</pre>"
                            + (f'<p class="small">error: {esc(call.get("error"))}</p>' if call.get("error") else "")
                            + "</details>")
        headers = ["agent", "provider", "model", "prompt id", "latency", "tokens", "retries", "stop", "result"]
        return (table(headers, rows)
                + "<h3>Raw model output</h3>" + "".join(raws))

    def timeline_section(self) -> str:
        events = self.ev.events()
        # the event log holds every trace line (the state can miss the last one of a step)
        trace = [e["data"]["line"] for e in events if e.get("type") == "trace"] or self.state.get("trace", [])
        out = []
        if trace:
            out.append('<h3>Trace</h3><div class="trace">' + "".join(f"<div>{esc(line)}</div>" for line in trace)
                       + "</div>")
        rows = []
        t0 = events[0]["at"] if events else 0
        for e in events:
            kind = e.get("type")
            data = e.get("data") or {}
            if kind == "transition" or kind == "created":
                what = f"<b>{esc(e.get('to'))}</b>"
                if e.get("from"):
                    what = f"{esc(e['from'])} → {what}"
                detail = {k: v for k, v in data.items() if k not in ("settings", "request")}
                if "authorization" in detail:
                    a = detail.pop("authorization")
                    detail["authorized_by"] = f"{a.get('actor')} via {a.get('via')}"
                dtext = ", ".join(f"{k}={v[:12] if isinstance(v, str) and len(v) == 64 else fmt(v)}"
                                  for k, v in detail.items())
            elif kind == "trace":
                what = "trace"
                dtext = data.get("line", "")
            else:
                what = esc(kind)
                dtext = fmt(data)
            rows.append([num(e["seq"]), f'<span class="mono small nowrap">{esc(utc(e.get("at")))}</span>',
                         num(f'+{(e.get("at", t0) - t0):.2f} s'), what,
                         f'<span class="small">{esc(dtext)}</span>',
                         f'<code class="small">{esc(e["hash"][:12])}</code>'])
        # folded: a reviewer decides from the sections above; the log is there to be checked
        out.append(f'<details class="eventlog"><summary>Event log: {len(events)} hash-chained events (each '
                   "event's hash covers its content and the previous event's hash)</summary>"
                   + table(["#", "time (UTC)", "elapsed", "event", "detail", "hash"], rows) + "</details>")
        return "".join(out)

    def budget_section(self) -> str:
        s = self.state
        b = s["settings"]["budgets"]
        u = s["usage"]
        rows = [["candidate engine runs", num(u["candidate_runs"]), num(b["max_candidate_runs"])],
                ["baseline runs", num(u["baseline_runs"]), num(1)],
                ["model calls", num(u["model_calls"]), num(b["max_model_calls"])],
                ["tokens", num(u["tokens"]), num(b["max_tokens"])],
                ["deadline (s after authorization)", num("—"), num(fmt(b["deadline_seconds"]))],
                ["stagnation rounds", num("—"), num(b["stagnation_rounds"])]]
        if u.get("population_runs"):
            rows.insert(2, ["bot population runs", num(u["population_runs"]), num("—")])
        auth = s.get("authorization")
        a = '<p class="muted">Not authorized.</p>'
        if auth:
            a = (f'<p>Authorized by <b>{esc(auth["actor"])}</b> via {esc(auth.get("via"))} at '
                 f'{esc(utc(auth.get("at")))} for engine <code>{esc(auth.get("engine"))}</code>'
                 + (f'; fair-fight policy <code>{esc(policy)}</code> ({esc(POLICY_WORDS.get(policy, ""))})'
                    if (policy := (auth.get("scope") or {}).get("fairness_policy")) else "") + '.</p>')
        return a + table(["budget", "used", "limit"], rows)

    def verify_section(self) -> str:
        red = self.ev.index.get("redactions") or {}
        notes = []
        for f in red.get("files", []):
            notes.append(f"<li><code>{esc(f['file'])}</code>: {esc(f['reason'])}</li>")
        if red.get("events"):
            notes.append(f"<li>events {esc(', '.join(map(str, red['events'])))} had to be scrubbed; their chain links "
                         "are checked, their own content hashes cannot be</li>")
        return (f'<p>Everything in this report comes from the evidence bundle. To check the bundle yourself — '
                f'integrity, consistency, and a re-run of every simulation, evaluation, gate decision and repair '
                f'from the recorded inputs:</p><pre>gcv verify {esc(self.bundle_name)} --replay</pre>'
                f'<ul><li><b>integrity</b>: every file against the sha256 in <code>manifest.json</code> (an in-toto '
                f'Statement), no extra or missing files, the RFC 6962 Merkle root, the event hash chain, and the '
                f'DSSE signature in <code>manifest.dsse.json</code> when present.</li>'
                f'<li><b>consistency</b>: configs re-validate to the recorded reports; diffs, run requests and '
                f'hashes agree with the workflow state and its event log.</li>'
                f'<li><b>replay</b>: python-sim runs are re-simulated and must match bit for bit; engine runs '
                f'(Unity, UE5) are re-checked on their gameplay figures (frame times are not replayable); '
                f'evaluations, policy-gate decisions and repairs are recomputed from the recorded agent outputs.</li>'
                f'</ul>' + (f'<p class="sub">Scrubbed for sharing:</p><ul class="small">{"".join(notes)}</ul>'
                            if notes else ""))

    def render(self) -> str:
        s = self.state
        sections = [
            ("request", "Request and goal", self.request_section()),
            ("changes", "What changed", self.changes_section()),
            *([("second-reading", "Second reading of the request", sr)] if (sr := second_reading_section(s)) else []),
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
        nav = "".join(f'<a href="#{sid}">{esc(title)}</a>' for sid, title, _ in sections)
        body = "".join(f'<section id="{sid}"><h2>{esc(title)}</h2>{content}</section>'
                       for sid, title, content in sections)
        created = utc(s.get("created_at"))
        return (
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; "
            "style-src 'unsafe-inline'\">"
            f"<title>GCV evidence — {esc(s['id'])} — {esc(s['status'])}</title>"
            f"<style>{CSS}</style></head><body><main>"
            f'<div class="brand">GCV · game-change verification · evidence report</div>'
            f"<h1>{esc(s['id'])}</h1>"
            f'<div class="sub">created {esc(created)} · engine {esc(self.engine_text())} · provider '
            f'{esc(s["settings"]["provider"])} · seed {esc(s["settings"]["seed"])}</div>'
            f'<div id="verdict">{self.verdict()}</div><nav>{nav}</nav>{body}'
            f"<footer>generated by gcv {esc(gcv.__version__)} from workflow {esc(s['id'])} · self-contained: "
            f"no network access needed</footer></main></body></html>\n")


def render_report(ev: Evidence, *, bundle_name: str | None = None) -> str:
    """The HTML report of ``ev`` as one string."""
    return _Report(ev, bundle_name or f"{ev.wf_id}.evidence.zip").render()


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
