"""Every change to a bundle is caught, and the check that catches it is named.

One real workflow, one real bundle; each test changes something and verifies again. The
"forger" tests re-hash the manifest (and the state where needed) the way someone
rewriting a bundle would, to show which layer still catches it: consistency, or only
replay.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gcv.contract.canonical import content_hash
from gcv.evidence.bundle import export_bundle
from gcv.evidence.verify import VerifyReport, verify_bundle
from gcv.workflow.state import Settings
from tests.support.evidenceutil import (dump, forge_evidence_ready, load, read_zip, rehash_manifest, rerender_report,
                                        run_workflow, write_plain_zip)


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    mp = pytest.MonkeyPatch()
    for name in ("GCV_SIGNING_KEY_HMAC", "GCV_SIGNING_KEY_ED25519", "GCV_VERIFY_KEY_ED25519"):
        mp.delenv(name, raising=False)
    try:
        ws, wf_id = run_workflow(tmp_path_factory.mktemp("ws"))
        path = export_bundle(ws, wf_id, tmp_path_factory.mktemp("out") / "evidence.zip")
    finally:
        mp.undo()
    return read_zip(path)


@pytest.fixture
def files(original: dict[str, bytes]) -> dict[str, bytes]:
    return dict(original)


def check(files: dict[str, bytes], tmp_path: Path, *, replay: bool = False) -> VerifyReport:
    return verify_bundle(write_plain_zip(files, tmp_path / "mutated.zip"), replay=replay)


def caught_by(report: VerifyReport) -> str:
    assert not report.ok and report.exit_code == 1
    return report.first_failure.name


@pytest.mark.slow  # re-runs the loop (replay)
def test_the_untouched_bundle_verifies_with_replay(files: dict[str, bytes], tmp_path: Path) -> None:
    report = check(files, tmp_path, replay=True)
    assert report.ok, (report.first_failure, report.failed())
    assert report.exit_code == 0


ALL_FILES = [
    "agents/requirement.json", "agents/review_round_1.json", "agents/review_round_2.json", "configs/baseline.json",
    "configs/candidate_1.json", "configs/candidate_2.json", "diffs/candidate_1.json", "diffs/candidate_2.json",
    "evaluations/candidate_1.json", "evaluations/candidate_2.json", "goal.json", "index.json", "manifest.json",
    "repairs/round_1.json", "report.html", "request.txt", "reviews/round_1.json", "reviews/round_2.json",
    "runs/baseline/frames/tick_000600.png", "runs/baseline/frames/tick_001200.png",
    "runs/baseline/frames/tick_001800.png", "runs/baseline/request.json", "runs/baseline/telemetry.json",
    "runs/candidate_1/frames/tick_000600.png", "runs/candidate_1/frames/tick_001200.png",
    "runs/candidate_1/request.json", "runs/candidate_1/telemetry.json", "runs/candidate_2/frames/tick_000600.png",
    "runs/candidate_2/frames/tick_001200.png", "runs/candidate_2/frames/tick_001800.png",
    "runs/candidate_2/request.json", "runs/candidate_2/telemetry.json", "validation/candidate_1.json",
    "validation/candidate_2.json", "workflow/events.jsonl", "workflow/state.json",
]


def test_the_file_list_above_is_the_whole_bundle(original: dict[str, bytes]) -> None:
    assert sorted(original) == sorted(ALL_FILES)


@pytest.mark.parametrize("name", ALL_FILES)
def test_a_changed_byte_in_any_file_is_caught_by_integrity(files: dict[str, bytes], tmp_path: Path, name: str) -> None:
    data = bytearray(files[name])
    i = len(data) // 2
    data[i] = (data[i] + 1) % 256 if chr(data[i]) not in '{}[]"' else data[i] ^ 0x20
    files[name] = bytes(data)
    report = check(files, tmp_path)
    expected = {"integrity.digests"} if name != "manifest.json" else {
        "integrity.manifest", "integrity.digests", "integrity.merkle_root", "integrity.event_chain",
        "integrity.files"}
    assert caught_by(report) in expected, (name, report.failed())


def test_a_telemetry_number_with_a_rehashed_manifest_is_caught_by_consistency(files: dict[str, bytes],
                                                                              tmp_path: Path) -> None:
    tel = load(files, "runs/candidate_2/telemetry.json")
    tel["grazes"] += 1
    files["runs/candidate_2/telemetry.json"] = dump(tel)
    report = check(rehash_manifest(files), tmp_path)
    assert caught_by(report) == "consistency.runs"
    assert "telemetry_hash" in report.first_failure.message


@pytest.mark.slow  # re-runs the loop (replay)
def test_a_forged_telemetry_number_is_caught_only_by_replay(files: dict[str, bytes], tmp_path: Path) -> None:
    # the forger also points the state at the new telemetry: every hash is consistent again
    tel = load(files, "runs/candidate_2/telemetry.json")
    tel["grazes"] += 1
    files["runs/candidate_2/telemetry.json"] = dump(tel)
    state = load(files, "workflow/state.json")
    state["rounds"][1]["run"]["telemetry_hash"] = content_hash(tel)
    files["workflow/state.json"] = dump(state)
    rehash_manifest(rerender_report(files))
    assert check(files, tmp_path).ok  # integrity and consistency cannot tell
    report = check(files, tmp_path, replay=True)
    assert caught_by(report) == "replay.runs"
    assert "candidate_2" in report.first_failure.message and "grazes" in report.first_failure.message


@pytest.mark.slow  # re-runs the loop (replay)
def test_a_forged_gameplay_figure_that_the_evaluation_reads_is_caught_by_replay(files: dict[str, bytes],
                                                                              tmp_path: Path) -> None:
    tel = load(files, "runs/candidate_1/telemetry.json")
    tel["peak_alive_bullets"] -= 1
    files["runs/candidate_1/telemetry.json"] = dump(tel)
    state = load(files, "workflow/state.json")
    state["rounds"][0]["run"]["telemetry_hash"] = content_hash(tel)
    files["workflow/state.json"] = dump(state)
    report = check(rehash_manifest(files), tmp_path, replay=True)
    assert caught_by(report) == "replay.runs"
    # the loop, re-run on the forged figure, evaluates it differently from the recorded evaluation
    assert {"replay.runs", "replay.loop"} <= set(report.failed())
    assert "evaluation_hash" in report.check("replay.loop").message


def test_a_reordered_event_is_caught_by_the_event_chain(files: dict[str, bytes], tmp_path: Path) -> None:
    lines = files["workflow/events.jsonl"].decode().splitlines(keepends=True)
    lines[3], lines[4] = lines[4], lines[3]
    files["workflow/events.jsonl"] = "".join(lines).encode()
    report = check(rehash_manifest(files), tmp_path)
    assert caught_by(report) == "integrity.event_chain"
    assert "event 3" in report.first_failure.message


def test_an_edited_event_is_caught_by_the_event_chain(files: dict[str, bytes], tmp_path: Path) -> None:
    lines = files["workflow/events.jsonl"].decode().splitlines()
    event = json.loads(lines[-1])
    event["at"] += 1
    lines[-1] = json.dumps(event, sort_keys=True, separators=(",", ":"))
    files["workflow/events.jsonl"] = ("\n".join(lines) + "\n").encode()
    assert caught_by(check(rehash_manifest(files), tmp_path)) == "integrity.event_chain"


def test_a_removed_file_is_caught(files: dict[str, bytes], tmp_path: Path) -> None:
    del files["runs/baseline/frames/tick_001200.png"]
    report = check(files, tmp_path)
    assert caught_by(report) == "integrity.files" and "missing" in report.first_failure.message
    # with the manifest rewritten, the index still names the file
    assert caught_by(check(rehash_manifest(files), tmp_path)) == "consistency.index"


def test_an_extra_file_is_caught(files: dict[str, bytes], tmp_path: Path) -> None:
    files["configs/candidate_3.json"] = files["configs/candidate_2.json"]
    report = check(files, tmp_path)
    assert caught_by(report) == "integrity.files" and "not listed" in report.first_failure.message
    report = check(rehash_manifest(files), tmp_path)
    assert caught_by(report) == "consistency.index" and "not referenced" in report.first_failure.message


def test_swapped_candidate_configs_are_caught(files: dict[str, bytes], tmp_path: Path) -> None:
    files["configs/candidate_1.json"], files["configs/candidate_2.json"] = (files["configs/candidate_2.json"],
                                                                           files["configs/candidate_1.json"])
    report = check(rehash_manifest(files), tmp_path)
    assert caught_by(report) == "consistency.configs"
    assert "swapped or edited" in report.first_failure.message


def test_a_swapped_final_candidate_in_the_state_is_caught_by_the_event_log(files: dict[str, bytes],
                                                                            tmp_path: Path) -> None:
    # the forger swaps the configs *and* the state's hashes: the hash-chained log still names the originals
    files["configs/candidate_1.json"], files["configs/candidate_2.json"] = (files["configs/candidate_2.json"],
                                                                           files["configs/candidate_1.json"])
    state = load(files, "workflow/state.json")
    a, b = state["rounds"][0]["candidate_hash"], state["rounds"][1]["candidate_hash"]
    state["rounds"][0]["candidate_hash"], state["rounds"][1]["candidate_hash"] = b, a
    state["final_candidate_hash"] = a
    files["workflow/state.json"] = dump(state)
    assert caught_by(check(rehash_manifest(files), tmp_path)) == "consistency.events"


def test_an_edited_validation_report_is_caught_by_revalidation(files: dict[str, bytes], tmp_path: Path) -> None:
    report_data = load(files, "validation/candidate_2.json")
    report_data["layers"][3]["notes"] = ["safety checked by hand"]
    files["validation/candidate_2.json"] = dump(report_data)
    state = load(files, "workflow/state.json")
    state["rounds"][1]["validation_hash"] = content_hash(report_data)
    files["workflow/state.json"] = dump(state)
    report = check(rehash_manifest(files), tmp_path)
    assert caught_by(report) == "consistency.validation"
    assert "re-validates differently" in report.first_failure.message


def test_an_edited_diff_is_caught(files: dict[str, bytes], tmp_path: Path) -> None:
    diff = load(files, "diffs/candidate_2.json")
    diff.pop()
    files["diffs/candidate_2.json"] = dump(diff)
    state = load(files, "workflow/state.json")
    state["rounds"][1]["diff_hash"] = content_hash(diff)
    files["workflow/state.json"] = dump(state)
    assert caught_by(check(rehash_manifest(files), tmp_path)) == "consistency.diffs"


def test_an_edited_evaluation_is_caught_by_the_event_log(files: dict[str, bytes], tmp_path: Path) -> None:
    ev = load(files, "evaluations/candidate_1.json")
    ev["checks"][0]["detail"] = "looks fine"
    files["evaluations/candidate_1.json"] = dump(ev)
    state = load(files, "workflow/state.json")
    state["rounds"][0]["evaluation_hash"] = content_hash(ev)
    files["workflow/state.json"] = dump(state)
    assert caught_by(check(rehash_manifest(files), tmp_path)) == "consistency.events"


@pytest.mark.slow  # re-runs the loop (replay)
def test_a_forged_gate_decision_is_caught_by_replay(files: dict[str, bytes], tmp_path: Path) -> None:
    # the gate's reason is recorded in the state and the review file, nowhere in the event log
    for name in ("workflow/state.json",):
        state = load(files, name)
        state["rounds"][0]["gate"]["reason"] = "approved by the agent"
        files[name] = dump(state)
    review = load(files, "reviews/round_1.json")
    review["gate"]["reason"] = "approved by the agent"
    files["reviews/round_1.json"] = dump(review)
    rehash_manifest(files)
    assert check(files, tmp_path).ok
    report = check(files, tmp_path, replay=True)
    assert caught_by(report) == "replay.loop" and "$.rounds[0].gate.reason" in report.first_failure.message


@pytest.mark.slow  # re-runs the loop (replay)
def test_a_forged_agent_verdict_is_caught_by_replay_of_the_raw_output(files: dict[str, bytes], tmp_path: Path) -> None:
    state = load(files, "workflow/state.json")
    state["rounds"][0]["verdict"]["reason"] = "the model said so"
    files["workflow/state.json"] = dump(state)
    for name in ("reviews/round_1.json", "agents/review_round_1.json"):
        data = load(files, name)
        data["verdict"]["reason"] = "the model said so"
        files[name] = dump(data)
    rehash_manifest(files)
    assert check(files, tmp_path).ok
    report = check(files, tmp_path, replay=True)
    # the replay provider parses the recorded raw output again: the verdict it gives is the real one
    assert caught_by(report) == "replay.loop" and "$.rounds[0].verdict.reason" in report.first_failure.message


@pytest.mark.slow  # re-runs the loop (replay)
def test_a_forged_repair_is_caught_by_its_calculator(files: dict[str, bytes], tmp_path: Path) -> None:
    state = load(files, "workflow/state.json")
    state["rounds"][0]["repair"]["explanation"] = "halved the speed"
    files["workflow/state.json"] = dump(state)
    repair = load(files, "repairs/round_1.json")
    repair["explanation"] = "halved the speed"
    files["repairs/round_1.json"] = dump(repair)
    rehash_manifest(files)
    assert check(files, tmp_path).ok
    report = check(files, tmp_path, replay=True)
    assert caught_by(report) == "replay.loop" and "$.rounds[0].repair.explanation" in report.first_failure.message


def test_a_changed_request_is_caught(files: dict[str, bytes], tmp_path: Path) -> None:
    files["request.txt"] = b"make phase 2 easier\n"
    assert caught_by(check(rehash_manifest(files), tmp_path)) == "consistency.configs"


def test_an_edited_manifest_predicate_is_caught(files: dict[str, bytes], tmp_path: Path) -> None:
    manifest = load(files, "manifest.json")
    manifest["predicate"]["workflow"]["status"] = "accepted"
    files["manifest.json"] = dump(manifest)
    assert caught_by(check(files, tmp_path)) == "consistency.manifest"


def test_a_run_request_with_another_seed_is_caught(files: dict[str, bytes], tmp_path: Path) -> None:
    req = load(files, "runs/candidate_2/request.json")
    req["seed"] = 2
    files["runs/candidate_2/request.json"] = dump(req)
    state = load(files, "workflow/state.json")
    state["rounds"][1]["run"]["request_hash"] = content_hash(req)
    files["workflow/state.json"] = dump(state)
    report = check(rehash_manifest(files), tmp_path)
    assert caught_by(report) == "consistency.runs" and "seed 2" in report.first_failure.message


@pytest.mark.slow  # re-runs the loop (replay)
def test_a_forged_unity_run_replays_its_gameplay_and_reports_frame_times_not_replayable(
        files: dict[str, bytes], tmp_path: Path) -> None:
    """An engine run (telemetry from Unity): gameplay is re-simulated, frame times are not."""
    tel = load(files, "runs/candidate_2/telemetry.json")
    tel["engine"] = {"name": "unity", "implementation": "csharp", "version": "6000.0.30f1"}
    # (fps_source and low_fps stay: the recorded evaluation quotes them, and the event log names it)
    tel["average_fps"], tel["worst_frame_ms"], tel["wall_time_ms"] = 143.2, 9.9, 40123
    files["runs/candidate_2/telemetry.json"] = dump(tel)
    state = load(files, "workflow/state.json")
    state["rounds"][1]["run"]["telemetry_hash"] = content_hash(tel)
    files["workflow/state.json"] = dump(state)
    report = check(rehash_manifest(rerender_report(files)), tmp_path, replay=True)
    assert report.ok, (report.first_failure, report.failed())
    engine = report.check("replay.runs")
    assert engine.status == "passed" and "unity" in engine.message and "not replayable" in engine.message
    assert "low_fps" in engine.message and "average_fps" in engine.message
    # and a gameplay figure changed in the engine's telemetry is caught by its Python re-simulation
    tel["player_hits"] += 1
    files["runs/candidate_2/telemetry.json"] = dump(tel)
    state["rounds"][1]["run"]["telemetry_hash"] = content_hash(tel)
    files["workflow/state.json"] = dump(state)
    report = check(rehash_manifest(files), tmp_path, replay=True)
    assert caught_by(report) == "replay.runs" and "player_hits" in report.first_failure.message


@pytest.mark.slow  # re-runs the loop (replay)
def test_an_edited_report_is_caught_by_re_rendering_it(files: dict[str, bytes], tmp_path: Path) -> None:
    page = files["report.html"].decode()
    files["report.html"] = page.replace("6 of 6 hard checks pass", "6 of 6 hard checks pass (signed off)").encode()
    rehash_manifest(files)
    assert check(files, tmp_path).ok  # the report is a view: integrity and consistency cover its bytes only
    report = check(files, tmp_path, replay=True)
    assert caught_by(report) == "replay.report" and "signed off" in report.first_failure.message


# ---------------------------------------------------------------------- forged verdicts

@pytest.fixture(scope="module")
def failing(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """A signed bundle of a workflow that ran out of engine runs (its final evaluation fails)."""
    mp = pytest.MonkeyPatch()
    mp.setenv("GCV_SIGNING_KEY_HMAC", "a-shared-secret-of-the-studio")
    try:
        from gcv.workflow.state import Budgets, Settings

        ws, wf_id = run_workflow(tmp_path_factory.mktemp("ws"), "make phase 2 harder",
                                 settings=Settings(budgets=Budgets(max_candidate_runs=2)))
        path = export_bundle(ws, wf_id, tmp_path_factory.mktemp("out") / "evidence.zip")
    finally:
        mp.undo()
    files = read_zip(path)
    assert load(files, "workflow/state.json")["status"] == "budget_exhausted"
    return files


def test_an_edited_verdict_without_its_signature_fails_where_a_key_is_configured(
        failing: dict[str, bytes], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    forged = forge_evidence_ready(failing)
    assert "manifest.dsse.json" not in forged
    monkeypatch.setenv("GCV_SIGNING_KEY_HMAC", "a-shared-secret-of-the-studio")  # the verifier holds the key
    report = check(forged, tmp_path)
    assert caught_by(report) == "integrity.signature" and report.trust == "unsigned"
    assert "verification key is configured" in report.first_failure.message


def test_an_edited_verdict_fails_plain_verify_without_any_key(failing: dict[str, bytes], tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GCV_SIGNING_KEY_HMAC", raising=False)
    report = check(forge_evidence_ready(failing), tmp_path)
    assert caught_by(report) == "consistency.verdict"
    assert "did not pass" in report.first_failure.message
    assert check(forge_evidence_ready(failing), tmp_path, replay=False).trust == "unsigned"


def test_the_untouched_failing_bundle_is_trusted_with_the_shared_secret(failing: dict[str, bytes], tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GCV_SIGNING_KEY_HMAC", "a-shared-secret-of-the-studio")
    report = check(dict(failing), tmp_path)
    assert report.ok and report.trust == "trusted", report.failed()
    monkeypatch.delenv("GCV_SIGNING_KEY_HMAC")
    report = check(dict(failing), tmp_path)  # an HMAC signature cannot be checked without the secret
    assert report.trust == "none" and caught_by(report) == "integrity.signature"


# --- the request's intent (issue 26 item 1) -----------------------------------------------

@pytest.fixture(scope="module")
def with_intent(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    ws, wf_id = run_workflow(tmp_path_factory.mktemp("ws"), settings=Settings(record_intent=True))
    return read_zip(export_bundle(ws, wf_id, tmp_path_factory.mktemp("out") / "evidence.zip"))


def test_a_bundle_carries_the_intent_the_goal_asks_for(with_intent: dict[str, bytes], tmp_path: Path) -> None:
    intent = load(with_intent, "intent.json")
    assert load(with_intent, "index.json")["intent"] == "intent.json"
    assert load(with_intent, "workflow/state.json")["requirement"]["intent_hash"] == content_hash(intent)
    assert [(e["kind"], e["field"]) for e in intent["edits"]] == [
        ("pressure", "spawn_rate"), ("pattern", "type"), ("pattern", "bidirectional"),
        ("target", "peak_alive_bullets"), ("target", "low_fps")]
    assert check(dict(with_intent), tmp_path).ok


def test_an_intent_that_is_not_what_the_goal_asks_is_caught_by_consistency(with_intent: dict[str, bytes],
                                                                           tmp_path: Path) -> None:
    files = dict(with_intent)
    intent = load(files, "intent.json")
    intent["edits"][0]["size"] = "any amount"  # a forger who also points the state at it
    files["intent.json"] = dump(intent)
    state = load(files, "workflow/state.json")
    state["requirement"]["intent_hash"] = content_hash(intent)
    files["workflow/state.json"] = dump(state)
    report = check(rehash_manifest(rerender_report(files)), tmp_path)
    assert caught_by(report) == "consistency.configs"
    assert "intent.json is not what goal.json asks for" in report.first_failure.message
    assert "any amount" in report.first_failure.message


def test_an_intent_file_the_state_does_not_name_is_caught(with_intent: dict[str, bytes], tmp_path: Path) -> None:
    files = dict(with_intent)
    state = load(files, "workflow/state.json")
    del state["requirement"]["intent_hash"]
    files["workflow/state.json"] = dump(state)
    report = check(rehash_manifest(rerender_report(files)), tmp_path)
    assert caught_by(report) == "consistency.configs"
    assert "intent.json is in the bundle but the state names no intent" in report.first_failure.message
