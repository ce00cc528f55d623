"""What the review page says about each candidate: pre-screened and not run, or run with parity."""

from __future__ import annotations

from pathlib import Path

import pytest

from gcv.console.views import candidates
from tests.workflow.test_prescreen import run_authorized


@pytest.mark.slow
def test_each_candidate_says_whether_it_cost_an_engine_run(tmp_path: Path) -> None:
    state = run_authorized(tmp_path, "ok")[2]
    first, second = candidates(state)
    assert first["text"].startswith("pre-screened: failed run_status") and "not run in the engine" in first["text"]
    assert second["text"] == "engine run on fake (ok); parity ok (gameplay equals the reference pre-screen)"


@pytest.mark.parametrize("level, words, tone", [("unsigned", "unsigned", "warn"), ("integrity", "integrity only", "warn"),
                                                ("trusted", "trusted", "ok"), ("none", "none", "bad"),
                                                (None, "none", "bad")])
def test_the_page_takes_its_trust_words_from_the_cli_s_function(level, words: str, tone: str) -> None:
    from gcv.console.views import trust
    from gcv.evidence.signing import trust_statement

    shown = trust({"trust": level, "signature": {"keyid": "ab" * 32}})
    assert shown is not None and shown["words"] == words and shown["tone"] == tone
    assert shown["explanation"] == trust_statement(level, "ab" * 32).explanation
    assert trust(None) is None


def test_a_cached_verification_is_for_the_verification_keys_it_was_made_with(monkeypatch: pytest.MonkeyPatch,
                                                                            tmp_path: Path) -> None:
    from gcv.console.views import verifier_keys_digest

    monkeypatch.delenv("GCV_VERIFY_KEY_ED25519", raising=False)
    monkeypatch.delenv("GCV_SIGNING_KEY_HMAC", raising=False)
    none = verifier_keys_digest()
    monkeypatch.setenv("GCV_SIGNING_KEY_HMAC", "secret-secret")
    hmac = verifier_keys_digest()
    assert "secret" not in hmac and hmac != none
    monkeypatch.delenv("GCV_SIGNING_KEY_HMAC")
    key = tmp_path / "k.pem"
    key.write_text("one")
    monkeypatch.setenv("GCV_VERIFY_KEY_ED25519", str(key))
    pinned = verifier_keys_digest()
    key.write_text("another key")
    assert len({none, hmac, pinned, verifier_keys_digest()}) == 4


def test_an_engine_the_build_agents_run_is_offered_though_this_host_has_none(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from gcv.console.views import usable_engines

    for var in ("GCV_UE_HARNESS", "GCV_UE_EDITOR_CMD", "GCV_UE_GAME", "GCV_UE_MODE"):
        monkeypatch.delenv(var, raising=False)
    assert {r["engine"]: r["usable"] for r in usable_engines(tmp_path)}["ue5"] is False
    (tmp_path / "build_agents.toml").write_text('scheduler = "tcp://10.0.0.9:8786"\nengines = ["ue5"]\n')
    rows = {r["engine"]: r for r in usable_engines(tmp_path)}
    assert rows["ue5"]["usable"] is True and rows["ue5"]["build_agents"] == "tcp://10.0.0.9:8786"
    assert rows["ue5"]["reason"].startswith("runs on build agents through tcp://10.0.0.9:8786 (here: no Unreal")
    (tmp_path / "build_agents.toml").write_text('engines = "ue5"\n')  # refused at submission, naming the field
    assert {r["engine"]: r["usable"] for r in usable_engines(tmp_path)}["ue5"] is False
