"""Evidence a reviewer can trust, through the real CLI: a forged verdict whose signature was
deleted fails where a key is configured, and fails plain verify by its own inconsistency."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hostile.conftest import run_gcv
from tests.support.evidenceutil import forge_evidence_ready, read_zip, write_plain_zip

KEY = {"GCV_SIGNING_KEY_HMAC": "a-shared-secret-of-the-studio"}


@pytest.fixture(scope="module")
def signed_failing_bundle(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    root = tmp_path_factory.mktemp("evidence")
    ran = run_gcv(["run", "make phase 2 harder", "--yes", "--repair-scope", "fight", "--max-runs", "2", "--json"], home=root / "ws", cwd=root,
                  extra_env=KEY, timeout=120).clean()
    assert ran.json()["status"] == "budget_exhausted", ran.json()["status"]
    bundle = Path(ran.json()["evidence"]["bundle"])
    files = read_zip(bundle)
    assert "manifest.dsse.json" in files
    return files


@pytest.mark.slow
def test_a_forged_verdict_without_its_signature_fails_verify(signed_failing_bundle: dict[str, bytes],
                                                            tmp_path: Path) -> None:
    forged = write_plain_zip(forge_evidence_ready(signed_failing_bundle), tmp_path / "forged.zip")
    home = tmp_path / "home"
    with_key = run_gcv(["verify", str(forged), "--json"], home=home, cwd=tmp_path, extra_env=KEY).clean(1)
    report = with_key.json()
    assert report["trust"] == "unsigned"
    failed = [c["name"] for c in report["checks"] if c["status"] == "failed"]
    assert "integrity.signature" in failed and "consistency.verdict" in failed, failed
    no_key = run_gcv(["verify", str(forged), "--json"], home=home, cwd=tmp_path).clean(1)
    assert "consistency.verdict" in [c["name"] for c in no_key.json()["checks"] if c["status"] == "failed"]
    human = run_gcv(["verify", str(forged)], home=home, cwd=tmp_path, extra_env=KEY).clean(1)
    assert "trusted" not in human.stdout.replace("trust: unsigned", "")
    # the untouched bundle is trusted with the key, and only then
    genuine = write_plain_zip(dict(signed_failing_bundle), tmp_path / "genuine.zip")
    ok = run_gcv(["verify", str(genuine), "--json"], home=home, cwd=tmp_path, extra_env=KEY).clean(0)
    assert ok.json()["trust"] == "trusted"


def _manifest(bundle: Path) -> dict:
    import json

    return json.loads(read_zip(bundle)["manifest.json"])


@pytest.mark.slow
def test_a_decision_writes_a_new_signed_evidence_version_and_the_old_one_stays_verifiable(tmp_path: Path) -> None:
    """Issue 25.11: after accept (and promote) the downloadable bundle and report.html said
    "Human decision: pending". The decision now writes version 2 (signed with the configured key)
    that records it; version 1 is kept and still verifies; bundle and report name their version."""
    home = tmp_path / "home"
    ran = run_gcv(["run", "make phase 2 a denser spiral, but never more than 350 bullets alive", "--yes", "--repair-scope", "fight", "--json"],
                  home=home, cwd=tmp_path, extra_env=KEY, timeout=120).clean(0).json()
    wf = ran["workflow_id"]
    assert ran["evidence"]["version"] == 1 and ran["evidence"]["bundle"].endswith(f"{wf}.evidence.v1.zip")
    v1 = Path(ran["evidence"]["bundle"])
    decided = run_gcv(["decide", wf, "accept", "--actor", "rita", "--note", "ship it", "--promote", "--json"],
                      home=home, cwd=tmp_path, extra_env=KEY, timeout=120).clean(0).json()
    assert decided["evidence_written"] and decided["evidence"]["version"] == 2
    v2 = Path(decided["evidence"]["bundle"])
    assert v2.name == f"{wf}.evidence.v2.zip" and v1.is_file()
    folder = v2.parent
    latest = folder / f"{wf}.evidence.zip"
    assert latest.read_bytes() == v2.read_bytes()
    files = read_zip(v2)
    assert "manifest.dsse.json" in files  # signed, as the loop's end was
    assert _manifest(v2)["predicate"]["evidence_version"] == {"number": 2, "interim": False}
    assert _manifest(v2)["predicate"]["final_decision"]["human_decision"]["note"] == "ship it"
    page = (folder / "report.html").read_text(encoding="utf-8")
    assert page == files["report.html"].decode("utf-8") == (folder / "report.v2.html").read_text(encoding="utf-8")
    assert "pending" not in page and "ship it" in page and "promoted to baseline v2" in page and "version 2" in page
    assert "Human decision</dt><dd>pending" in (folder / "report.v1.html").read_text(encoding="utf-8")
    for bundle, status in ((v1, "evidence_ready"), (v2, "accepted")):
        ok = run_gcv(["verify", str(bundle), "--replay", "--json"], home=home, cwd=tmp_path, extra_env=KEY,
                     timeout=180).clean(0).json()
        assert ok["ok"] and ok["trust"] == "trusted" and ok["status"] == status, ok["first_failure"]
    # `gcv bundle` and `gcv report` serve the latest and say which version it is
    bundled = run_gcv(["bundle", wf, "--json"], home=home, cwd=tmp_path, extra_env=KEY, timeout=120).clean(0).json()
    assert bundled["evidence_version"] == 2 and bundled["bundle"] == str(v2) and bundled["signed"]
    reported = run_gcv(["report", wf, "--json"], home=home, cwd=tmp_path, extra_env=KEY, timeout=120).clean(0).json()
    assert reported["evidence_version"] == 2 and reported["report"] == str(folder / "report.v2.html")
    human = run_gcv(["bundle", wf], home=home, cwd=tmp_path, extra_env=KEY, timeout=120).clean(0)
    assert "evidence version 2" in human.stdout


@pytest.mark.slow
@pytest.mark.parametrize("decision", ["revise", "rollback"])
def test_revise_and_rollback_are_in_the_evidence_too(decision: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    ran = run_gcv(["run", "make phase 2 harder", "--yes", "--repair-scope", "fight", "--max-runs", "2", "--json"], home=home, cwd=tmp_path,
                  timeout=120).clean().json()
    assert ran["status"] == "budget_exhausted" and ran["evidence"]["version"] == 1
    wf = ran["workflow_id"]
    decided = run_gcv(["decide", wf, decision, "--actor", "rita", "--note", f"{decision} it", "--json"], home=home,
                      cwd=tmp_path, timeout=120).clean(0).json()
    v2 = Path(decided["evidence"]["bundle"])
    assert v2.name == f"{wf}.evidence.v2.zip"
    state = _manifest(v2)["predicate"]["final_decision"]
    assert state["human_decision"]["decision"] == decision and state["status"] == decided["status"]
    assert f"{decision} it" in (v2.parent / "report.html").read_text(encoding="utf-8")
    for bundle in (Path(ran["evidence"]["bundle"]), v2):
        run_gcv(["verify", str(bundle), "--json"], home=home, cwd=tmp_path, timeout=120).clean(0)
