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
    ran = run_gcv(["run", "make phase 2 harder", "--yes", "--max-runs", "2", "--json"], home=root / "ws", cwd=root,
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
