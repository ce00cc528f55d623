"""Evidence a reviewer can trust, through the real CLI: a forged verdict whose signature was
deleted fails where a key is configured, and fails plain verify by its own inconsistency."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.hostile.conftest import run_gcv
from tests.support.evidenceutil import dump, load, read_zip, rechain_events, rehash_manifest, write_plain_zip

KEY = {"GCV_SIGNING_KEY_HMAC": "a-shared-secret-of-the-studio"}


@pytest.fixture(scope="module")
def signed_failing_bundle(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    root = tmp_path_factory.mktemp("evidence")
    ran = run_gcv(["run", "make phase 2 harder", "--yes", "--max-runs", "2", "--json"], home=root / "ws", cwd=root,
                  extra_env=KEY, timeout=120).clean()
    assert ran.json()["status"] == "budget_exhausted", ran.json()["status"]
    bundle = Path(ran.json()["evidence"]["bundle"])
    files = read_zip(bundle)
    assert "manifest.dsse.json" in files
    return files


def _forge_evidence_ready(files: dict[str, bytes]) -> dict[str, bytes]:
    """Edit the verdict to evidence_ready, re-chain the events, re-hash the manifest; the
    signature cannot be redone without the key, so the forger deletes it."""
    files = dict(files)
    state = load(files, "workflow/state.json")
    state.update(status="evidence_ready", terminal_reason="accepted_by_review", terminal_message="all checks pass")
    files["workflow/state.json"] = dump(state)

    def edit(events: list[dict[str, Any]]) -> None:
        events[-1]["to"] = "evidence_ready"
        events[-1]["data"] = {**events[-1]["data"], "terminal_reason": "accepted_by_review",
                              "message": "all checks pass"}

    rechain_events(files, edit)
    manifest = load(files, "manifest.json")
    manifest["predicate"]["workflow"].update(status="evidence_ready", terminal_reason="accepted_by_review",
                                             terminal_message="all checks pass")
    manifest["predicate"]["final_decision"]["status"] = "evidence_ready"
    files["manifest.json"] = dump(manifest)
    return rehash_manifest(files)


@pytest.mark.slow
def test_a_forged_verdict_without_its_signature_fails_verify(signed_failing_bundle: dict[str, bytes],
                                                            tmp_path: Path) -> None:
    forged = write_plain_zip(_forge_evidence_ready(signed_failing_bundle), tmp_path / "forged.zip")
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
