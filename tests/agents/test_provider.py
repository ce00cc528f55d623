"""The offline provider (gcv.agents.offline_requirement.provider): the rules behind the provider
interface, one recorded call whose prompt hash covers the request, the baseline and the answers."""

from __future__ import annotations

import json

from gcv.agents.offline_requirement.decision import decide
from gcv.agents.offline_requirement.provider import (MODEL_NAME, PROMPT_ID, PROVIDER_NAME, OfflineRequirementProvider,
                                                     prompt_sha256)
from gcv.contract.canonical import canonical_json, config_hash, sha256_hex
from tests.support.evalutil import base, variant

REQUEST = "make phase 2 bullets 20% slower"


def test_one_call_recording_the_decision() -> None:
    decision, calls = OfflineRequirementProvider().propose(REQUEST, base())
    assert decision == decide(REQUEST, base())
    (call,) = calls
    assert (call.agent, call.provider, call.model, call.prompt_id) == ("requirement", PROVIDER_NAME, MODEL_NAME,
                                                                      PROMPT_ID)
    assert json.loads(call.raw_output or "") == decision.model_dump(mode="json")
    assert call.request_bytes == len(REQUEST.encode()) and call.prompt_sha256 == prompt_sha256(REQUEST, base())


def test_the_prompt_hash() -> None:
    plain = {"prompt_id": PROMPT_ID, "request": REQUEST, "baseline_hash": config_hash(base())}
    assert prompt_sha256(REQUEST, base()) == sha256_hex(canonical_json(plain).encode())
    assert prompt_sha256(REQUEST, base(), ["20"]) == sha256_hex(canonical_json({**plain, "follow_ups": ["20"]}).encode())
    assert prompt_sha256(REQUEST, variant(base(), "phase_1", bullet_speed=2.5)) != prompt_sha256(REQUEST, base())


def test_answers_count_in_the_call() -> None:
    _, (call,) = OfflineRequirementProvider().propose("phase 2 15 to 20 bullets", base(), follow_ups=["20"])
    assert call.request_bytes == len("phase 2 15 to 20 bullets".encode()) + 2
