"""The fair-fight analysis in the loop: "keep it dodgeable" (or ``targets.require_dodgeable``)
makes it a hard check; a proven wall fails in the phase responsible and a repair acts there;
the reports go into the bundle and ``verify --replay`` replays the witness."""

from __future__ import annotations

from pathlib import Path

import pytest

from gcv.analysis import FairnessReport, analyze
from gcv.analysis.report import UnfairInfo, WaveBlame
from gcv.contract.models import BulletHellConfig
from gcv.contract.status import Status
from gcv.evidence.bundle import export_bundle
from gcv.evidence.verify import verify_bundle
from gcv.store.catalog import Workspace
from gcv.repair.scope import whole_fight
from gcv.workflow.activities import default_activities
from gcv.workflow.baselines import active_baseline
from gcv.workflow.loop import WorkflowLoop
from gcv.workflow.state import Settings
from tests.support.simutil import Clock

DODGEABLE = "make phase 2 a much denser ring but keep it dodgeable"


@pytest.fixture
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GCV_SIGNING_KEY_HMAC", "GCV_SIGNING_KEY_ED25519", "GCV_VERIFY_KEY_ED25519"):
        monkeypatch.delenv(name, raising=False)


def _run(root: Path, request: str, activities=None) -> tuple[WorkflowLoop, str]:
    loop = WorkflowLoop(Workspace(root), clock=Clock(), activities=activities)
    baseline, source = active_baseline(loop.ws, 0.0)
    wf = loop.create(request, baseline, Settings(), baseline_source=source)
    loop.advance(wf)
    loop.authorize(wf, actor="tester", repair_scope=whole_fight(baseline))  # the repairs it tests
    loop.advance(wf)
    return loop, wf


@pytest.mark.slow
def test_keep_it_dodgeable_is_a_hard_check_with_a_replayed_witness(tmp_path: Path, no_keys) -> None:
    loop, wf = _run(tmp_path, DODGEABLE)
    d, state = loop.load(wf)
    assert state.status == Status.EVIDENCE_READY
    assert state.baseline_fairness is not None and state.baseline_fairness.verdict == "fair"
    final = state.final_round()
    assert final is not None and final.fairness is not None and final.fairness.verdict == "fair"
    evaluation = d.get(final.evaluation_hash)
    assert evaluation["targets"]["require_dodgeable"] is True and evaluation["targets"]["sources"][
        "require_dodgeable"] == "designer"
    check = next(c for c in evaluation["checks"] if c["name"] == "fair_fight")
    assert check["passed"] and "replays with 0 hits" in check["detail"]
    report = verify_bundle(export_bundle(loop.ws, wf, tmp_path / "e.zip"), replay=True)
    assert report.ok, (report.first_failure, report.failed())
    fairness = report.check("replay.fairness")
    assert fairness.status == "passed" and "witness replayed hit-free" in fairness.message


@pytest.mark.slow
def test_a_proven_wall_fails_in_its_phase_and_a_danger_repair_acts_there(tmp_path: Path) -> None:
    """The first candidate's analysis (scripted here) proves a wall in phase_2: the check fails
    there, the gate allows danger intents on phase_2, and the next candidate is analysed again."""
    calls: list[str] = []

    def fairness(config: BulletHellConfig, *, seed: int, budget_seconds: float) -> FairnessReport:
        real = analyze(config, seed=seed, budget_seconds=budget_seconds)
        calls.append(config.name)
        if len(calls) != 2:  # the baseline (1st) and the repaired candidate (3rd) are analysed for real
            return real
        blame = WaveBlame(phase_id="phase_2", phase_index=1, wave_index=7, spawn_tick=900, covered=40,
                          share_milli=800)
        unfair = UnfairInfo(tick=960, seconds=16.0, active_phase_id="phase_2", responsible_phase_id="phase_2",
                            responsible_wave=blame, contributors=[blame], reachable=40, reachable_kind="cells",
                            bullets_alive=120)
        return real.model_copy(update={"verdict": "unfair", "witness": None, "unfair": unfair,
                                       "reason": "every reachable position is hit at tick 960"})

    activities = default_activities()
    activities.fairness = fairness
    loop, wf = _run(tmp_path, DODGEABLE, activities)
    d, state = loop.load(wf)
    first = state.rounds[0]
    assert first.fairness is not None and first.fairness.verdict == "unfair"
    failed = next(c for c in d.get(first.evaluation_hash)["checks"] if c["name"] == "fair_fight")
    assert not failed["passed"] and failed["phase_id"] == "phase_2" and "tick 960" in failed["detail"]
    # the policy gate treats it as danger: slower or fewer bullets on the phase that closed the gap
    assert first.allowed is not None and "phase_2" in first.allowed.phases.get("REDUCE_BULLET_SPEED", [])
    assert "fair_fight" in first.allowed.reasons.get("REDUCE_BULLET_SPEED", "")
    assert first.gate.outcome == "repair"
    assert len(state.rounds) >= 2 and state.rounds[1].fairness is not None and len(calls) >= 3


def _undetermined_candidates() -> object:
    """The baseline (the first call) analysed for real; every candidate comes back undetermined
    (as a budget-limited analysis would), which is where the policy decides."""
    calls: list[str] = []

    def fairness(config: BulletHellConfig, *, seed: int, budget_seconds: float) -> FairnessReport:
        real = analyze(config, seed=seed, budget_seconds=budget_seconds)
        calls.append(config.name)
        if len(calls) == 1:
            return real
        return real.model_copy(update={"verdict": "undetermined", "witness": None, "unfair": None,
                                       "reason": "the work budget ran out (scripted here)"})

    return fairness


@pytest.mark.slow
@pytest.mark.parametrize("policy,passes", [("undetermined_allowed", True), ("fair_required", False)])
def test_the_fairness_policy_is_authorized_recorded_and_decides_an_undetermined_fight(
        tmp_path: Path, policy: str, passes: bool) -> None:
    """main: the loop always used undetermined_allowed, silently; now the person authorizing
    chooses it, the authorization records it, and the check's detail names it."""
    import dataclasses

    activities = dataclasses.replace(default_activities(), fairness=_undetermined_candidates())
    loop = WorkflowLoop(Workspace(tmp_path), clock=Clock(), activities=activities)
    baseline, source = active_baseline(loop.ws, 0.0)
    wf = loop.create(DODGEABLE, baseline, Settings(), baseline_source=source)
    loop.advance(wf)
    loop.authorize(wf, actor="tester", fairness_policy=policy)
    loop.advance(wf)
    d, state = loop.load(wf)
    assert state.authorization is not None and state.authorization.scope.fairness_policy == policy
    assert state.settings.fairness_policy == policy
    rnd = state.rounds[0]
    assert rnd.fairness is not None and rnd.fairness.verdict == "undetermined"
    check = next(c for c in d.get(rnd.evaluation_hash)["checks"] if c["name"] == "fair_fight")
    assert check["passed"] is passes and f"[policy {policy}:" in check["detail"]
