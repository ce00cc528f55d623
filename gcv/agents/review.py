"""The Quality Review Agent: evidence in, one verdict out (accept / repair with one intent / human).

The agent sees a ``ReviewEvidence`` and answers with a ``ReviewVerdict`` that names an intent,
never a number; the policy gate (``gcv.repair.policy.gate``) then decides what actually
happens. Providers sit behind the narrow ``ReviewProvider`` interface of ``gcv.agents.base``
and receive the evidence as plain JSON data, exactly what a model would be shown.
"""

from __future__ import annotations

from collections.abc import Callable

from gcv.agents.anthropic_provider import AnthropicReviewProvider
from gcv.agents.base import AgentCall, CallLimits, ReviewProvider, ReviewVerdict
from gcv.agents.offline_review import OfflineReviewProvider
from gcv.agents.replay_provider import ReplayReviewProvider
from gcv.agents.review_evidence import RepairHistoryEntry, ReviewEvidence


class ReviewAgent:
    """A thin wrapper: hand the evidence to the provider as JSON data, return its verdict."""

    def __init__(self, provider: ReviewProvider) -> None:
        self.provider = provider

    def review(self, evidence: ReviewEvidence, *,
               limits: CallLimits | None = None) -> tuple[ReviewVerdict, list[AgentCall]]:
        return self.provider.review(evidence.model_dump(mode="json"), list(evidence.allowed_intents), limits=limits)


def _offline() -> ReviewProvider:
    return OfflineReviewProvider()


def _anthropic() -> ReviewProvider:
    return AnthropicReviewProvider()


def _replay(arg: str) -> ReviewProvider:
    return ReplayReviewProvider(arg)


_PROVIDERS: dict[str, Callable[[], ReviewProvider]] = {"offline": _offline, "anthropic": _anthropic}
# Providers that take an argument after a colon ("replay:PATH"); the factory gets the text after it.
_PREFIX_PROVIDERS: dict[str, Callable[[str], ReviewProvider]] = {"replay": _replay}


def register_review_provider(name: str, factory: Callable[[], ReviewProvider]) -> None:
    _PROVIDERS[name] = factory


def review_provider_names() -> list[str]:
    return sorted([*_PROVIDERS, *_PREFIX_PROVIDERS])


def get_review_provider(name: str) -> ReviewProvider:
    kind, sep, arg = name.partition(":")
    if sep and kind in _PREFIX_PROVIDERS:
        return _PREFIX_PROVIDERS[kind](arg)
    try:
        factory = _PROVIDERS[name]
    except KeyError:
        names = sorted(review_provider_names(), key=lambda n: (n != "offline", n))  # the default first
        raise ValueError(f"unknown review provider {name!r}; available: {', '.join(names)}") from None
    return factory()


__all__ = ["ReviewAgent", "ReviewEvidence", "RepairHistoryEntry", "get_review_provider", "register_review_provider",
           "review_provider_names"]
