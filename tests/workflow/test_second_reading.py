"""Issue 26, item 6: before a round is shown as ready, the designer's words alone are read again
from scratch and each thing asked for is checked against the final candidate's change; a miss
never ends evidence_ready, and ``verify --replay`` recomputes the list."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gcv.agents.offline_requirement import decide
from gcv.agents.second_reading import second_reading
from gcv.contract.models import BulletHellConfig
from gcv.contract.status import Status
from gcv.evaluation.evaluate import evaluate
from gcv.evaluation.targets import effective_targets
from gcv.evidence.bundle import export_bundle
from gcv.evidence.verify import verify_bundle
from gcv.store.catalog import Workspace
from gcv.workflow import loop as loop_module
from gcv.workflow.baselines import active_baseline
from gcv.workflow.loop import WorkflowLoop
from gcv.workflow.state import Settings
from gcv.workflow.summary import summary_object
from tests.support.evidenceutil import dump, load, read_zip, rehash_manifest, rerender_report, write_plain_zip
from tests.support.simutil import Clock

README = ("make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive and keep the low "
          "FPS at 55 or above")
EXACT = "set phase 1 wave interval to 500 ms"


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> BulletHellConfig:
    return active_baseline(Workspace(tmp_path_factory.mktemp("ws")), 0.0)[0]


def _with(config: BulletHellConfig, phase: int, **fields: Any) -> BulletHellConfig:
    data = config.model_dump(mode="json")
    data["phases"][phase]["pattern"].update(fields)
    return BulletHellConfig.model_validate(data)


def _requested(text: str, baseline: BulletHellConfig) -> BulletHellConfig:
    decision = decide(text, baseline)
    assert decision.decision == "accepted" and decision.candidate is not None
    return decision.candidate


def test_the_readme_request_lists_what_it_asks_and_its_own_candidate_does_it(baseline: BulletHellConfig) -> None:
    result = second_reading(README, [], baseline, _requested(README, baseline))
    assert result.verdict == "holds" and all(i.holds for i in result.items)
    asked = {i.asked: (i.rule, i.expected, i.found) for i in result.items}
    assert asked == {
        "Phase 2 · pattern: spiral": ("equals", "spiral", "spiral"),
        "Phase 2 · both directions: yes": ("equals", "yes", "yes"),
        "Phase 2 · bullets per wave: more": ("direction", "above the baseline's 12", "15"),
        "Phase 2 · wave interval: shorter": ("direction", "below the baseline's 700 ms", "595 ms"),
        "Targets · max alive bullets: at most 350": ("at_most", "at most 350", "350"),
        "Targets · min 1% low FPS: at least 55 FPS": ("at_least", "at least 55 FPS", "55 FPS"),
    }


def test_a_word_without_a_number_holds_when_its_direction_holds(baseline: BulletHellConfig) -> None:
    """"denser" is the reader's default step: a smaller step the same way still does it."""
    smaller = _with(_requested(README, baseline), 1, bullets_per_wave=13, wave_interval_ms=690)
    assert second_reading(README, [], baseline, smaller).verdict == "holds"


def test_a_candidate_that_undoes_a_requested_edit_is_a_miss(baseline: BulletHellConfig) -> None:
    undone = _with(_requested(README, baseline), 1, bullets_per_wave=baseline.phases[1].pattern.bullets_per_wave)
    result = second_reading(README, [], baseline, undone)
    assert result.verdict == "misses"
    [miss] = result.misses
    assert (miss.asked, miss.expected, miss.found) == ("Phase 2 · bullets per wave: more", "above the baseline's 12",
                                                       "12")
    assert "1 of 6 thing(s) asked for do not hold" in result.headline()


def test_a_stated_number_holds_only_when_the_value_equals_it(baseline: BulletHellConfig) -> None:
    requested = _requested(EXACT, baseline)
    assert requested.phases[0].pattern.wave_interval_ms == 500
    assert second_reading(EXACT, [], baseline, requested).verdict == "holds"
    result = second_reading(EXACT, [], baseline, _with(requested, 0, wave_interval_ms=510))
    assert result.verdict == "misses"
    [miss] = result.misses
    assert (miss.asked, miss.rule, miss.expected, miss.found) == ("Phase 1 · wave interval: 500 ms", "equals",
                                                                  "500 ms", "510 ms")


def test_a_percentage_is_a_stated_number_and_reverse_means_the_other_way(baseline: BulletHellConfig) -> None:
    text = "make phase 3 bullets 20% faster and reverse the rotation"
    requested = _requested(text, baseline)
    assert second_reading(text, [], baseline, requested).verdict == "holds"
    half = _with(requested, 2, bullet_speed=4.4)  # 10% faster: the right way, not what was asked
    assert [i.asked for i in second_reading(text, [], baseline, half).misses] == ["Phase 3 · bullet speed: 4.8 units/s"]
    same_way = _with(requested, 2, rotation_per_wave_deg=baseline.phases[2].pattern.rotation_per_wave_deg)
    [miss] = second_reading(text, [], baseline, same_way).misses
    assert miss.rule == "reversed" and miss.found == "11°"


def test_a_target_looser_than_the_words_is_a_miss(baseline: BulletHellConfig) -> None:
    text = "phase 1: more bullets, at most 2 hits"
    requested = _requested(text, baseline)
    data = requested.model_dump(mode="json")
    data["targets"]["max_player_hits"] = 3
    [miss] = second_reading(text, [], baseline, BulletHellConfig.model_validate(data)).misses
    assert (miss.asked, miss.found) == ("Targets · max player hits: at most 2", "3")


def test_a_stated_target_is_judged_on_what_the_evaluation_held_the_candidate_to(baseline: BulletHellConfig) -> None:
    text = "make phase 2 a much denser ring but keep it dodgeable"
    decision = decide(text, baseline)
    assert decision.candidate is not None and decision.goal is not None
    held = effective_targets(baseline, decision.goal)  # what the loop's evaluation holds it to
    assert second_reading(text, [], baseline, decision.candidate, held).verdict == "holds"
    [miss] = second_reading(text, [], baseline, decision.candidate, effective_targets(baseline)).misses
    assert (miss.asked, miss.found) == ("Targets · proven dodgeable: yes", "no")


def test_the_designer_s_answers_are_read_too(baseline: BulletHellConfig) -> None:
    text = "set the wave interval to 500 ms"  # which phase? the answer says
    assert decide(text, baseline).decision == "needs_clarification"
    assert second_reading(text, [], baseline, baseline).verdict == "unread"
    decision = decide(text, baseline, follow_ups=["phase 3"])
    assert decision.decision == "accepted" and decision.candidate is not None
    result = second_reading(text, ["phase 3"], baseline, decision.candidate)
    assert [(i.asked, i.holds) for i in result.items] == [("Phase 3 · wave interval: 500 ms", True)]


# ---------------------------------------------------------------------- the loop


def _to_choice(root: Path, **authorize: Any) -> tuple[WorkflowLoop, str]:
    loop = WorkflowLoop(Workspace(root), clock=Clock())
    base, source = active_baseline(loop.ws, 0.0)
    wf = loop.create(README, base, Settings(), baseline_source=source)
    loop.advance(wf)
    loop.authorize(wf, actor="omar", **authorize)
    loop.advance(wf)
    return loop, wf


def _undo_bullets(**kw: Any) -> list[dict[str, Any]]:
    """One trade-off that passes every check but puts phase 2's bullets per wave back to the
    baseline's (with slower bullets): the "denser" intent check still holds (the interval is shorter)."""
    baseline = kw["baseline"]
    config = _with(kw["requested"], 1, bullets_per_wave=baseline.phases[1].pattern.bullets_per_wave, bullet_speed=2.34)
    telemetry = kw["simulate"](config)
    judged = evaluate(baseline=baseline, goal=kw["goal"], baseline_telemetry=kw["baseline_telemetry"],
                      candidate=config, candidate_telemetry=telemetry)
    return [{"kind": "smaller_change", "intent": None, "phase_id": None, "widens": [], "changes": [],
             "title": "fewer bullets than asked", "candidate": config, "telemetry": telemetry, "evaluation": judged}]


def test_a_final_candidate_that_undoes_a_requested_edit_never_ends_evidence_ready(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loop_module, "offer_tradeoffs", _undo_bullets)
    loop, wf = _to_choice(tmp_path)
    _, offered = loop.load(wf)
    assert offered.status == Status.AWAITING_CHOICE and offered.rounds[-1].tradeoffs[0].passes
    loop.choose(wf, number=1, actor="dana")
    loop.advance(wf)
    d, state = loop.load(wf)
    assert state.status == Status.BLOCKED and state.terminal_reason == "second_reading_miss"
    assert state.final_candidate_hash is None
    assert state.rounds[-1].passed  # every check passed, and the review accepted: the second reading did not
    assert state.terminal_message == ("the result does not do what was asked: Phase 2 · bullets per wave: more "
                                      "(expected above the baseline's 12, found 12)")
    summary = summary_object(d, state)
    assert summary["headline"].startswith("not ready: the result does not do what was asked")
    sr = summary["second_reading"]
    assert sr["round"] == 2 and sr["verdict"] == "misses"
    assert [i["asked"] for i in sr["items"] if not i["holds"]] == ["Phase 2 · bullets per wave: more"]


def test_a_chosen_trade_off_that_misses_goes_back_to_the_choice_among_those_that_do(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = loop_module.offer_tradeoffs
    monkeypatch.setattr(loop_module, "offer_tradeoffs", lambda **kw: _undo_bullets(**kw) + real(**kw))
    loop, wf = _to_choice(tmp_path)
    _, offered = loop.load(wf)
    first = offered.rounds[-1].tradeoffs
    assert first[0].title == "fewer bullets than asked" and len(first) >= 3
    loop.choose(wf, number=1, actor="dana")
    loop.advance(wf)
    d, state = loop.load(wf)
    assert state.status == Status.AWAITING_CHOICE and state.rounds[-1].round == 2
    again = state.rounds[-1].tradeoffs
    assert [t.candidate_hash for t in again] == [t.candidate_hash for t in first[1:]]  # all of them do it
    assert [t.number for t in again] == list(range(1, len(again) + 1))
    summary = summary_object(d, state)
    assert summary["headline"].startswith("the chosen trade-off does not do what was asked")
    assert summary["second_reading"]["verdict"] == "misses" and len(summary["tradeoffs"]) == len(again)
    loop.choose(wf, number=1, actor="dana")
    loop.advance(wf)
    d, state = loop.load(wf)
    assert state.status == Status.EVIDENCE_READY and state.rounds[-1].second_reading.verdict == "holds"
    assert state.rounds[-1].candidate_hash == first[1].candidate_hash
    assert summary_object(d, state)["headline"].startswith("evidence ready: the requested change")
    monkeypatch.setattr(loop_module, "offer_tradeoffs", real)  # the replay recomputes the real options only
    report = verify_bundle(export_bundle(loop.ws, wf, tmp_path / "e.zip", signer=False), replay=True)
    assert not report.ok and report.failed() == ["replay.loop"]
    monkeypatch.setattr(loop_module, "offer_tradeoffs", lambda **kw: _undo_bullets(**kw) + real(**kw))
    report = verify_bundle(export_bundle(loop.ws, wf, tmp_path / "e2.zip", signer=False), replay=True)
    assert report.ok, (report.first_failure, report.failed())  # both choices re-applied, the list recomputed


def test_the_readme_request_s_final_candidate_passes_and_replay_recomputes_the_list(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GCV_SIGNING_KEY_HMAC", "GCV_SIGNING_KEY_ED25519", "GCV_VERIFY_KEY_ED25519"):
        monkeypatch.delenv(name, raising=False)
    loop, wf = _to_choice(tmp_path / "ws")
    loop.choose(wf, number=1, actor="dana")
    loop.advance(wf)
    d, state = loop.load(wf)
    assert state.status == Status.EVIDENCE_READY and state.authorization.second_reading
    final = state.rounds[-1]
    assert final.second_reading is not None and final.second_reading.verdict == "holds"
    assert len(final.second_reading.items) == 6
    summary = summary_object(d, state)
    assert summary["second_reading"]["headline"] == "second reading: all 6 thing(s) asked for hold"
    path = export_bundle(loop.ws, wf, tmp_path / "e.zip", signer=False)
    files = read_zip(path)
    assert "Second reading of the request" in files["report.html"].decode("utf-8")
    report = verify_bundle(path, replay=True)
    assert report.ok, (report.first_failure, report.failed())

    # a forger flips one item to "does not hold" and re-hashes everything: only the replay sees it
    forged = load(files, "workflow/state.json")
    item = forged["rounds"][-1]["second_reading"]["items"][2]
    item["holds"], item["found"] = False, "12"
    files["workflow/state.json"] = dump(forged)
    rerender_report(files)
    rehash_manifest(files)
    mutated = write_plain_zip(files, tmp_path / "forged.zip")
    assert verify_bundle(mutated).ok
    replayed = verify_bundle(mutated, replay=True)
    assert not replayed.ok and replayed.failed() == ["replay.loop"], replayed.failed()
    assert "second_reading" in replayed.check("replay.loop").message


def test_an_authorization_recorded_before_the_second_reading_replays_without_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GCV_SIGNING_KEY_HMAC", "GCV_SIGNING_KEY_ED25519", "GCV_VERIFY_KEY_ED25519"):
        monkeypatch.delenv(name, raising=False)
    loop, wf = _to_choice(tmp_path / "ws", second_reading_check=False)
    loop.choose(wf, number=1, actor="dana")
    loop.advance(wf)
    d, state = loop.load(wf)
    assert state.status == Status.EVIDENCE_READY and state.rounds[-1].second_reading is None
    raw = d.read_state()
    assert "second_reading" not in raw["authorization"] and all("second_reading" not in r for r in raw["rounds"])
    assert summary_object(d, state)["second_reading"] is None
    report = verify_bundle(export_bundle(loop.ws, wf, tmp_path / "e.zip", signer=False), replay=True)
    assert report.ok, (report.first_failure, report.failed())
