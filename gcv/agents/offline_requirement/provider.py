"""The offline provider: the rules behind the ``RequirementProvider`` interface, one recorded call."""

from __future__ import annotations

from collections.abc import Sequence

from gcv.agents.base import AgentCall, CallLimits, RequirementDecision
from gcv.agents.offline_requirement.decision import decide
from gcv.contract.canonical import canonical_json, config_hash, sha256_hex
from gcv.contract.models import BulletHellConfig

PROVIDER_NAME = "offline"
# rules-v2: the reader of issue 15 (a package, answers in place); the recorded-call format and the
# prompt id are unchanged, so workflows recorded with rules-v1 still replay
MODEL_NAME = "rules-v2"
PROMPT_ID = "requirement/offline-v1"


def prompt_sha256(request_text: str, baseline: BulletHellConfig, follow_ups: Sequence[str] = ()) -> str:
    """What the call answered: the request, the baseline and (only when there are any) the answers."""
    prompt: dict[str, object] = {"prompt_id": PROMPT_ID, "request": request_text, "baseline_hash": config_hash(baseline)}
    if follow_ups:
        prompt["follow_ups"] = list(follow_ups)
    return sha256_hex(canonical_json(prompt).encode("utf-8"))


class OfflineRequirementProvider:
    """The embedded default Requirement Agent provider: rules, no network, deterministic."""

    name = PROVIDER_NAME
    model = MODEL_NAME
    prompt_id = PROMPT_ID

    def propose(self, request_text: str, baseline: BulletHellConfig, *, follow_ups: Sequence[str] = (),
                limits: CallLimits | None = None) -> tuple[RequirementDecision, list[AgentCall]]:
        """One call, made before any limit could stop it (the loop checks the budgets first)."""
        decision = decide(request_text, baseline, follow_ups=follow_ups)
        raw = canonical_json(decision.model_dump(mode="json"))
        size = len(request_text.encode("utf-8")) + sum(len(a.encode("utf-8")) for a in follow_ups)
        call = AgentCall(agent="requirement", provider=PROVIDER_NAME, model=MODEL_NAME, prompt_id=PROMPT_ID,
                         prompt_sha256=prompt_sha256(request_text, baseline, follow_ups),
                         request_bytes=size, latency_ms=0, raw_output=raw)
        return decision, [call]


__all__ = ["OfflineRequirementProvider", "prompt_sha256", "PROVIDER_NAME", "MODEL_NAME", "PROMPT_ID"]
