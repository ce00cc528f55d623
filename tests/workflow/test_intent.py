"""Issue 26: evidence ready means the change the designer asked for. A repair never moves what
the request did not name; when nothing inside the request passes, the designer chooses among
trade-offs whose figures the reference simulator computed, and the engine then measures the
same figures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gcv.cli.app import app
from gcv.contract.status import Status
from gcv.evidence.bundle import export_bundle
from gcv.evidence.verify import verify_bundle
from gcv.repair.policy import allowed_intents
from gcv.repair.scope import requested_pairs
from gcv.evaluation.models import Evaluation
from gcv.store.catalog import Workspace
from gcv.workflow.baselines import active_baseline
from gcv.workflow.loop import WorkflowLoop
from gcv.workflow.state import Settings
from gcv.workflow.summary import summary_object
from tests.support.simutil import Clock

README = ("make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive and keep the low "
          "FPS at 55 or above")
FIGURES = ("player_hits", "peak_alive_bullets", "survival_ticks", "low_fps", "phases_reached", "status")


def _to_choice(root: Path, request: str = README, *, lenient: bool = False,
               settings: Settings | None = None) -> tuple[WorkflowLoop, str]:
    """A workflow of ``request`` up to its first choice; ``lenient``: on the committed baseline
    with its hard limit on hits raised to 6 (its targets are then stricter than its limits)."""
    loop = WorkflowLoop(Workspace(root), clock=Clock())
    baseline, source = active_baseline(loop.ws, 0.0)
    if lenient:
        baseline = baseline.model_copy(update={"limits": baseline.limits.model_copy(update={"max_player_hits": 6})})
    wf = loop.create(request, baseline, settings or Settings(), baseline_source=source)
    loop.advance(wf)
    loop.authorize(wf, actor="omar")
    loop.advance(wf)
    return loop, wf


@pytest.mark.slow
def test_the_readme_request_ends_with_a_choice_and_no_silent_repair(tmp_path: Path) -> None:
    """main: evidence_ready with phase 2's bullets 35% slower, flagged "not requested" in one row
    under the headline "every hard and intent check passes"."""
    loop, wf = _to_choice(tmp_path)
    d, state = loop.load(wf)
    assert state.status == Status.AWAITING_CHOICE
    assert state.final_candidate_hash is None and len(state.rounds) == 1  # nothing was repaired silently
    scope = state.authorization.repair_scope
    assert scope is not None and scope.phases == ["phase_2"]
    assert set(scope.fields) == {"bidirectional", "bullets_per_wave", "wave_interval_ms"}
    options = state.rounds[0].tradeoffs
    assert options is not None and len(options) >= 2 and all(t.passes for t in options)
    assert [t.number for t in options] == list(range(1, len(options) + 1))
    kinds = {t.kind for t in options}
    assert kinds == {"repair", "smaller_change"}
    summary = summary_object(d, state)
    assert summary["headline"].startswith("no repair inside the authorized scope passes")
    assert [t["command"] for t in summary["tradeoffs"]] == [f"gcv answer {wf} --choose {t.number}" for t in options]


@pytest.mark.slow
@pytest.mark.parametrize("number", [1, 2])
def test_a_chosen_trade_off_measures_what_was_predicted_and_ends_evidence_ready(tmp_path: Path, number: int) -> None:
    loop, wf = _to_choice(tmp_path)
    _, before = loop.load(wf)
    option = next(t for t in before.rounds[0].tradeoffs if t.number == number)
    loop.choose(wf, number=number, actor="dana")
    loop.advance(wf)
    d, state = loop.load(wf)
    assert state.status == Status.EVIDENCE_READY
    final = state.rounds[-1]
    assert final.candidate_hash == option.candidate_hash and final.origin.startswith(f"choice:{number}:")
    measured = d.get(final.run.telemetry_hash)
    assert {k: measured.get(k) for k in FIGURES} == {k: option.predicted.get(k) for k in FIGURES}
    summary = summary_object(d, state)
    assert summary["headline"].startswith("evidence ready: the requested change")
    assert summary["unrequested"] and all(u["authorized_by"] == "dana" for u in summary["unrequested"])
    assert state.rounds[0].choice is not None and state.rounds[0].choice.widened is bool(option.widens)
    report = verify_bundle(export_bundle(loop.ws, wf, tmp_path / "e.zip", signer=False), replay=True)
    assert report.ok, (report.first_failure, report.failed())  # the options recomputed, the choice re-applied


@pytest.mark.slow
def test_the_gate_refuses_a_repair_that_would_undo_a_requested_edit(tmp_path: Path) -> None:
    loop, wf = _to_choice(tmp_path)
    d, state = loop.load(wf)
    baseline = loop._config(d, state.baseline_hash)
    requested = loop._config(d, state.rounds[0].candidate_hash)
    evaluation = Evaluation.model_validate(d.get(state.rounds[0].evaluation_hash))
    protected = requested_pairs(baseline, requested)
    assert ("phase_2", "wave_interval_ms") in protected and ("phase_2", "bullets_per_wave") in protected
    allowed = allowed_intents(evaluation=evaluation, goal=loop._goal(d, state), candidate=requested,
                              baseline=baseline, protected=protected)
    for intent, field in (("INCREASE_WAVE_INTERVAL", "wave_interval_ms"), ("REDUCE_BULLETS_PER_WAVE", "bullets_per_wave")):
        assert intent not in allowed.intents
        assert f"undo the requested edit of {field} on phase_2" in allowed.refused[intent]
    unprotected = allowed_intents(evaluation=evaluation, goal=loop._goal(d, state), candidate=requested,
                                  baseline=baseline)
    assert "INCREASE_WAVE_INTERVAL" in unprotected.intents  # main: this repair put the interval back to 700 ms


@pytest.mark.slow
def test_the_choice_is_scriptable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCV_HOME", str(tmp_path / "ws"))

    def gcv(*args: str) -> tuple[int, dict]:
        result = CliRunner().invoke(app, [*args, "--json"])
        return result.exit_code, json.loads(result.stdout)

    code, out = gcv("run", README, "--yes")
    assert code == 7 and out["status"] == "awaiting_choice" and len(out["tradeoffs"]) >= 2
    wf = out["workflow_id"]
    code, status = gcv("status", wf)
    assert [t["number"] for t in status["tradeoffs"]] == [t["number"] for t in out["tradeoffs"]]
    code, bad = gcv("answer", wf, "--choose", "9")
    assert code == 2 and "trade-off 9 is not offered" in bad["error"]
    code, done = gcv("answer", wf, "--choose", "1", "--actor", "dana")
    assert code == 0 and done["status"] == "evidence_ready" and done["headline"].startswith("evidence ready")


@pytest.mark.slow
def test_the_human_output_prints_one_ready_command_per_trade_off(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """gcv run's human output at awaiting_choice names `gcv answer WF --choose N` for each option
    (before, it printed only `gcv decide ... revise|rollback`)."""
    monkeypatch.setenv("GCV_HOME", str(tmp_path / "ws"))
    result = CliRunner().invoke(app, ["run", README, "--yes"], env={"COLUMNS": "80"})
    assert result.exit_code == 7
    wf = next(line.split()[1] for line in result.stdout.splitlines() if line.startswith("workflow wf-"))
    chooses = [line for line in result.stdout.splitlines() if line.startswith("choose ")]
    assert len(chooses) >= 2
    for n, line in enumerate(chooses, start=1):
        assert line.startswith(f"choose {n}: gcv answer {wf} --choose {n}") and "predicted" in line and "player_hits" in line


# --- keep the change, raise the target (a baseline whose targets are stricter than its limits) --

@pytest.mark.slow
def test_keeping_the_change_and_raising_the_target_is_offered_and_ends_evidence_ready(tmp_path: Path) -> None:
    loop, wf = _to_choice(tmp_path, "phase 2 bullets 40% faster", lenient=True, settings=Settings(record_intent=True))
    d, state = loop.load(wf)
    assert state.status == Status.AWAITING_CHOICE
    first = Evaluation.model_validate(d.get(state.rounds[0].evaluation_hash))
    assert [c.name for c in first.failed] == ["player_hits"] and first.targets.max_player_hits == 3
    option = next(t for t in state.rounds[0].tradeoffs if t.kind == "raise_target")
    hits = first.check("player_hits").actual
    assert option.targets == {"max_player_hits": hits} and 3 < hits <= 6
    assert [c.path for c in option.changes] == ["$.targets.max_player_hits"]  # nothing of the fight moves
    assert option.widens == [{"target": "max_player_hits", "to": str(hits)}]
    loop.choose(wf, number=option.number, actor="dana")
    loop.advance(wf)
    d, state = loop.load(wf)
    assert state.status == Status.EVIDENCE_READY, state.terminal_message
    final = state.rounds[-1]
    measured = d.get(final.run.telemetry_hash)
    assert {k: measured.get(k) for k in FIGURES} == {k: option.predicted.get(k) for k in FIGURES}
    judged = Evaluation.model_validate(d.get(final.evaluation_hash))
    assert judged.targets.max_player_hits == hits and judged.targets.sources["max_player_hits"] == "designer"
    summary = summary_object(d, state)
    assert summary["headline"].startswith("evidence ready: the requested change, judged against a target")
    assert "player hits at most 3 -> " + str(hits) in summary["headline"] and "dana" in summary["headline"]
    assert [u["path"] for u in summary["unrequested"]] == ["$.targets.max_player_hits"]
    assert summary["unrequested"][0]["authorized_by"] == "dana"
    report = verify_bundle(export_bundle(loop.ws, wf, tmp_path / "e.zip", signer=False), replay=True)
    assert report.ok, (report.first_failure, report.failed())


@pytest.mark.slow
def test_a_target_the_request_states_is_never_offered_raised(tmp_path: Path) -> None:
    loop, wf = _to_choice(tmp_path, "phase 2 bullets 40% faster, at most 3 hits", lenient=True)
    _, state = loop.load(wf)
    assert state.status == Status.AWAITING_CHOICE
    assert all(t.kind != "raise_target" for t in state.rounds[0].tradeoffs)


@pytest.mark.slow
def test_no_target_is_offered_raised_past_the_baselines_hard_limit(tmp_path: Path) -> None:
    loop, wf = _to_choice(tmp_path, "phase 2 bullets 40% faster")  # the committed baseline: targets = limits
    _, state = loop.load(wf)
    assert state.status == Status.AWAITING_CHOICE
    assert all(t.kind != "raise_target" for t in state.rounds[0].tradeoffs)
