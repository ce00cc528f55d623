"""The agents doctor: which providers exist and whether each can be used now.

For ``anthropic``: the model, whether ``ANTHROPIC_API_KEY`` is set (yes/no: the key itself is
never reported), the base URL's host only (a base URL may carry a path or credentials), the
per-call timeout, the SDK's retries, the retries of an invalid answer, max tokens, the tool
choice, the installed SDK version and the prompt versions. Nothing is sent anywhere.

``gcv agents`` prints it, and the console's provider picker offers only the providers it
reports usable; one function, so the two can never disagree.
"""

from __future__ import annotations

import os
from typing import Any

from gcv.agents import prompts
from gcv.agents.anthropic_provider import ENV_KEY, AnthropicSettings, ProviderConfigError
from gcv.agents.offline_requirement import MODEL_NAME as OFFLINE_REQUIREMENT_MODEL
from gcv.agents.offline_review import MODEL as OFFLINE_REVIEW_MODEL
from gcv.agents.requirement import requirement_provider_names
from gcv.agents.review import review_provider_names


def sdk_version() -> str | None:
    try:
        import anthropic  # an optional extra: only its presence is reported
    except ImportError:
        return None
    return str(anthropic.__version__)


def prompt_versions() -> dict[str, dict[str, str]]:
    out = {}
    for name in ("requirement", "review"):
        try:
            p = prompts.load(name)
        except prompts.PromptError as exc:
            out[name] = {"error": str(exc)}
            continue
        out[name] = {"prompt_id": p.prompt_id, "template_sha256": p.sha256}
    return out


def agents_report() -> dict[str, Any]:
    """The doctor's findings as plain data (what ``gcv agents --json`` prints)."""
    sdk = sdk_version()
    anthropic: dict[str, Any] = {"name": "anthropic", "kind": "Claude through the official anthropic SDK",
                                 "sdk_version": sdk, "prompts": prompt_versions()}
    problems: list[str] = []
    try:
        settings = AnthropicSettings.from_env()
    except ProviderConfigError as exc:
        problems.append(str(exc))
        settings = None
    if settings is not None:
        anthropic.update(settings.describe())
        if not settings.key_present:
            problems.append(f"{ENV_KEY} is not set")
    else:
        anthropic["key_present"] = bool(os.environ.get(ENV_KEY, "").strip())
    if sdk is None:
        problems.append("the anthropic package is not installed (install GCV's 'anthropic' extra)")
    anthropic["usable"] = not problems
    anthropic["problems"] = problems
    return {
        "requirement_providers": requirement_provider_names(),
        "review_providers": review_provider_names(),
        "providers": [
            {"name": "offline", "kind": "deterministic rules (the default), no network", "usable": True,
             "model": OFFLINE_REQUIREMENT_MODEL, "review_model": OFFLINE_REVIEW_MODEL},
            anthropic,
            {"name": "replay", "usage": "replay:PATH", "usable": True,
             "kind": "answers from a recorded workflow folder (workflows/<wf>/) or evidence bundle"},
        ],
    }


__all__ = ["agents_report", "sdk_version", "prompt_versions"]
