"""The words a person reads for the loop's review, a person's decision and the model budget.

The review agent's "accept" is not a person's acceptance: wherever the loop's review result is
shown (the CLI's ``run`` / ``status``, the report's verdict and review sections, the console's
status lines) it reads "review passed (agent)", and "accepted by NAME" is kept for the human
decision. The offline provider answers with deterministic rules and spends no tokens, so its
usage reads "model calls 3 (offline rules, no tokens)" rather than "tokens 0". JSON keeps the
recorded values (``accept``, ``accepted_by_review``, ``tokens_used: 0``); these are display words.
Each function takes ``tr``, a translator of these words for a caller that speaks another language
(the console's catalog has them); the default keeps them English.
"""

from __future__ import annotations

from typing import Any, Final

from gcv.contract.names import Words, names_in


def _same(text: str) -> str:
    return text


REVIEW_PASSED: Final = "review passed (agent)"
OFFLINE_PROVIDER: Final = "offline"
DECIDED: Final = {"accept": "accepted", "revise": "revision asked", "rollback": "rolled back"}


def decision_words(decision: Any, tr: Words = _same) -> str:
    """A person's decision (a ``HumanDecision`` or its JSON): ``accepted by ana``."""
    data = decision.model_dump(mode="json") if hasattr(decision, "model_dump") else dict(decision)
    words = DECIDED.get(str(data.get("decision")), str(data.get("decision")))
    return tr("%(decision)s by %(actor)s") % {"decision": tr(words), "actor": data.get("actor")}


def verdict_words(verdict: str) -> str:
    """The review agent's verdict as a person reads it: ``accept`` -> ``review passed (agent)``."""
    return REVIEW_PASSED if verdict == "accept" else f"review: {verdict.replace('_', ' ')} (agent)"


def trace_text(line: str, tr: Words = _same) -> str:
    """A recorded trace line as a person reads it: the review's `` | accept`` step says
    ``review passed (agent)`` and contract paths read as names (``gcv.contract.names.names_in``);
    the recorded line, in events and JSON, is unchanged."""
    parts = line.split(" | ")
    if len(parts) > 1 and line.startswith("[round "):
        parts = [tr(REVIEW_PASSED) if i and p == "accept" else p for i, p in enumerate(parts)]
    return names_in(" | ".join(parts), tr)


def usage_words(provider: str, model_calls: int, tokens: int, tr: Words = _same) -> str:
    """``model calls 3 (offline rules, no tokens)`` for the offline provider, else
    ``model calls 3, tokens 1234``."""
    if provider == OFFLINE_PROVIDER and not tokens:
        return tr("model calls %(calls)s (offline rules, no tokens)") % {"calls": model_calls}
    return tr("model calls %(calls)s, tokens %(tokens)s") % {"calls": model_calls, "tokens": tokens}


def offline(provider: str, tokens: int = 0) -> bool:
    """Whether the usage is the offline provider's (rules, no model, no tokens)."""
    return provider == OFFLINE_PROVIDER and not tokens


__all__ = ["REVIEW_PASSED", "decision_words", "offline", "trace_text", "usage_words", "verdict_words"]
