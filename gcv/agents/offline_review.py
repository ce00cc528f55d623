"""The offline Quality Review provider: deterministic rules, the embedded default.

Rules, in order:

1. The evaluation passed -> ``accept``.
2. Otherwise, for each failed hard check, load failures first (peak_alive_bullets, low_fps),
   then danger failures (run_status, player_hits, survival), try the intents of its failure
   kind in preference order, on the check's culprit phase:
   * load (peak_alive_bullets, low_fps): REDUCE_BULLETS_PER_WAVE, INCREASE_WAVE_INTERVAL,
     REDUCE_BULLET_LIFETIME, REDUCE_PATTERN_LAYERS;
   * danger (player_hits, survival, run_status): REDUCE_BULLET_SPEED, INCREASE_WAVE_INTERVAL,
     REDUCE_BULLETS_PER_WAVE, REDUCE_PATTERN_LAYERS.
   An intent is skipped when it is not allowed (or not on that phase), or when the repair
   history shows it already failed to lower the miss score on the same phase.
   The first one left -> ``repair`` with that intent and ``target_phase_id`` = the phase.
3. Nothing left -> ``human_review``, naming what failed.

It never outputs a number: the verdict names an intent; a calculator does the arithmetic.
"""

from __future__ import annotations

from typing import Any

from gcv.agents.base import AgentCall, CallLimits, ReviewVerdict
from gcv.agents.review_evidence import RepairHistoryEntry, ReviewEvidence
from gcv.contract.canonical import canonical_bytes, sha256_hex
from gcv.contract.intents import (
    INCREASE_WAVE_INTERVAL, REDUCE_BULLET_LIFETIME, REDUCE_BULLET_SPEED, REDUCE_BULLETS_PER_WAVE,
    REDUCE_PATTERN_LAYERS,
)
from gcv.repair.intents import Family, family_of

MODEL = "rules-v1"
PROMPT_ID = "review/offline-v1"

# Load failures first: a screen over its bullet budget also hurts the player, and emitting
# less (the load family's first choice) addresses both.
FAMILY_ORDER: tuple[Family, ...] = ("load", "danger")
PREFERENCE: dict[Family, tuple[str, ...]] = {
    "load": (REDUCE_BULLETS_PER_WAVE, INCREASE_WAVE_INTERVAL, REDUCE_BULLET_LIFETIME,
             REDUCE_PATTERN_LAYERS),
    "danger": (REDUCE_BULLET_SPEED, INCREASE_WAVE_INTERVAL, REDUCE_BULLETS_PER_WAVE,
               REDUCE_PATTERN_LAYERS),
}


def unhelpful_repairs(history: list[RepairHistoryEntry], current_miss: float) -> set[tuple[str, str | None]]:
    """(intent, phase) pairs whose repair did not lower the miss score of the next round."""
    rounds = sorted(history, key=lambda r: r.round)
    after = [r.miss_score for r in rounds[1:]] + [current_miss]
    return {(r.intent, r.phase_id) for r, nxt in zip(rounds, after)
            if r.intent is not None and nxt >= r.miss_score}


def decide(evidence: ReviewEvidence, allowed_intents: list[str] | None = None) -> ReviewVerdict:
    ev = evidence.evaluation
    if ev.passed:
        return ReviewVerdict(verdict="accept", reason="every hard and intent check passes",
                             evidence_refs=["evaluation.passed"])
    allowed = set(evidence.allowed_intents if allowed_intents is None else allowed_intents)
    skip = unhelpful_repairs(evidence.repair_history, ev.miss_score)
    skipped: list[str] = []
    failed = [c for c in ev.checks if not c.passed and family_of(c.name) and c.phase_id]
    failed.sort(key=lambda c: FAMILY_ORDER.index(family_of(c.name)))  # stable: check order within
    for check in failed:
        family = family_of(check.name)
        assert family is not None
        for intent in PREFERENCE[family]:
            if intent not in allowed:
                continue
            phases = evidence.allowed_phases.get(intent)
            if phases is not None and check.phase_id not in phases:
                continue
            if (intent, check.phase_id) in skip:
                skipped.append(f"{intent} on {check.phase_id}")
                continue
            return ReviewVerdict(
                verdict="repair", intent=intent, target_phase_id=check.phase_id,  # type: ignore[arg-type]
                reason=(f"{check.short()}; {intent} is the first allowed {family} repair"
                        + (f" (skipped, did not lower the miss score: {', '.join(skipped)})"
                           if skipped else "")),
                evidence_refs=[f"evaluation.checks.{check.name}"])
    tail = f"; tried without improvement: {', '.join(skipped)}" if skipped else ""
    return ReviewVerdict(verdict="human_review", intent="REQUEST_HUMAN",
                         reason=f"no allowed repair is left for: {ev.summary()}{tail}",
                         evidence_refs=[f"evaluation.checks.{c.name}" for c in ev.failed])


def prompt_sha256(evidence: dict[str, Any], allowed_intents: list[str] | None) -> str:
    """What the rules were asked: the evidence and the allowed intents (recorded on each call)."""
    return sha256_hex(canonical_bytes({"evidence": evidence, "allowed_intents": allowed_intents}))


class OfflineReviewProvider:
    name = "offline"

    def review(self, evidence: dict[str, Any] | ReviewEvidence, allowed_intents: list[str] | None = None, *,
               limits: CallLimits | None = None) -> tuple[ReviewVerdict, list[AgentCall]]:
        ev = evidence if isinstance(evidence, ReviewEvidence) else ReviewEvidence.model_validate(evidence)
        verdict = decide(ev, allowed_intents)
        request = canonical_bytes({"evidence": ev.model_dump(mode="json"), "allowed_intents": allowed_intents})
        call = AgentCall(agent="review", provider=self.name, model=MODEL, prompt_id=PROMPT_ID,
                         prompt_sha256=prompt_sha256(ev.model_dump(mode="json"), allowed_intents),
                         request_bytes=len(request),
                         raw_output=verdict.model_dump_json())
        return verdict, [call]
