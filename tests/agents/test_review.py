"""The Quality Review Agent (gcv.agents.review): evidence handed to the provider as JSON data,
and the review provider registry."""

from __future__ import annotations

from typing import Any

import pytest

from gcv.agents import review as review_module
from gcv.agents.base import AgentCall, ReviewVerdict
from gcv.agents.offline_review import OfflineReviewProvider
from gcv.agents.replay_provider import ReplayReviewProvider
from gcv.agents.review import ReviewAgent, ReviewEvidence, get_review_provider, register_review_provider, \
    review_provider_names
from gcv.evaluation.models import Evaluation
from tests.support.evalutil import base_telemetry, evaluation


class _Seen:
    name = "seen"

    def __init__(self) -> None:
        self.got: list[tuple[dict[str, Any], list[str]]] = []

    def review(self, evidence: dict[str, Any], allowed: list[str], *,
               limits: Any = None) -> tuple[ReviewVerdict, list[AgentCall]]:
        self.got.append((evidence, allowed))
        return ReviewVerdict(verdict="accept"), []


def test_the_agent_shows_the_provider_plain_json() -> None:
    provider = _Seen()
    ev = ReviewEvidence(request_text="x", evaluation=evaluation(base_telemetry()), allowed_intents=["STOP"], round=2)
    verdict, calls = ReviewAgent(provider).review(ev)
    assert verdict.verdict == "accept" and calls == []
    ((shown, allowed),) = provider.got
    assert allowed == ["STOP"] and shown["round"] == 2 and isinstance(shown["evaluation"], dict)
    Evaluation.model_validate(shown["evaluation"])


def test_the_registry(tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert review_provider_names() == ["anthropic", "offline", "replay"]
    assert isinstance(get_review_provider("offline"), OfflineReviewProvider)
    with pytest.raises(ValueError, match="unknown review provider 'nope'; available: offline, anthropic, replay"):
        get_review_provider("nope")
    register_review_provider("test-seen", _Seen)
    try:
        assert isinstance(get_review_provider("test-seen"), _Seen) and "test-seen" in review_provider_names()
    finally:
        review_module._PROVIDERS.pop("test-seen", None)
    with pytest.raises(ValueError):  # replay needs a recording that exists
        get_review_provider(f"replay:{tmp_path / 'missing'}")
    assert ReplayReviewProvider.name == "replay"
