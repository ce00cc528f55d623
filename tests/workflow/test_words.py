"""The words a person reads for the agent's review, a person's decision and the offline provider's usage."""

from __future__ import annotations

from gcv.workflow.words import decision_words, trace_text, usage_words, verdict_words


def test_the_agents_review_is_not_a_persons_acceptance() -> None:
    assert verdict_words("accept") == "review passed (agent)"
    assert verdict_words("human_review") == "review: human review (agent)"
    assert decision_words({"decision": "accept", "actor": "ana"}) == "accepted by ana"
    assert decision_words({"decision": "revise", "actor": "bo"}) == "revision asked by bo"
    line = "[round 1] running_candidate -> reviewing | all checks PASS | accept"
    assert trace_text(line) == "[round 1] running_candidate -> reviewing | all checks PASS | review passed (agent)"
    assert trace_text("[round 2] x | accept | the second reading holds").endswith(
        "| review passed (agent) | the second reading holds")
    assert trace_text("accept") == "accept"  # not a round's line: left as recorded


def test_the_offline_provider_spends_no_tokens() -> None:
    assert usage_words("offline", 3, 0) == "model calls 3 (offline rules, no tokens)"
    assert usage_words("anthropic", 3, 1200) == "model calls 3, tokens 1200"
