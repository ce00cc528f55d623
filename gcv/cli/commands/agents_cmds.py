"""``gcv agents``: which agent providers exist and whether Claude is configured (a doctor).

Prints, for each provider, what it is and whether it can be used now. For ``anthropic``:
the model, whether ``ANTHROPIC_API_KEY`` is set (yes/no: the key itself is never printed),
the base URL's host only (a base URL may carry a path or credentials), the per-call timeout,
the SDK's retries, the retries of an invalid answer, max tokens, the tool choice, the
installed SDK version and the prompt versions. Nothing is sent anywhere.

Exit code 0; with ``--json`` exactly one JSON object.
"""

from __future__ import annotations

from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from gcv.cli.output import console, emit_json


def _sdk_version() -> str | None:
    try:
        import anthropic
    except ImportError:
        return None
    return str(anthropic.__version__)


def _prompts() -> dict[str, dict[str, str]]:
    from gcv.agents import prompts

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
    """The doctor's findings as plain data (what ``--json`` prints)."""
    from gcv.agents.anthropic_provider import ENV_KEY, AnthropicSettings, ProviderConfigError
    from gcv.agents.requirement import requirement_provider_names
    from gcv.agents.review import review_provider_names
    from gcv.agents.offline_requirement import MODEL_NAME as OFFLINE_REQUIREMENT_MODEL
    from gcv.agents.offline_review import MODEL as OFFLINE_REVIEW_MODEL

    sdk = _sdk_version()
    anthropic: dict[str, Any] = {"name": "anthropic", "kind": "Claude through the official anthropic SDK",
                                 "sdk_version": sdk, "prompts": _prompts()}
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
        import os

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


def _yes(value: Any) -> str:
    return "yes" if value else "no"


app = typer.Typer()


@app.command("agents")
def agents(json_mode: bool = typer.Option(False, "--json", help="print one JSON object")) -> None:
    """List the agent providers and check the Claude configuration (the key is never shown)."""
    report = agents_report()
    if json_mode:
        emit_json({**report, "exit_code": 0})
        return
    out = console()
    table = Table("provider", "usable", "what", title="Agent providers", title_justify="left")
    for p in report["providers"]:
        table.add_row(escape(p.get("usage", p["name"])), _yes(p["usable"]), escape(p["kind"]))
    out.print(table)
    a = next(p for p in report["providers"] if p["name"] == "anthropic")
    details = Table(show_header=False, title="anthropic", title_justify="left")
    details.add_column("setting", style="bold")
    details.add_column("value", overflow="fold")
    rows = [("API key (ANTHROPIC_API_KEY)", "present" if a.get("key_present") else "missing"),
            ("model (GCV_ANTHROPIC_MODEL)", a.get("model", "-")),
            ("base URL host (ANTHROPIC_BASE_URL)", a.get("base_url_host", "-")),
            ("timeout per call (GCV_ANTHROPIC_TIMEOUT)", f"{a['timeout']:g} s" if "timeout" in a else "-"),
            ("SDK retries (GCV_ANTHROPIC_MAX_RETRIES)", str(a.get("sdk_max_retries", "-"))),
            ("invalid-answer retries (GCV_AGENT_MAX_RETRIES)", str(a.get("agent_retries", "-"))),
            ("max tokens (GCV_ANTHROPIC_MAX_TOKENS)", str(a.get("max_tokens", "-"))),
            ("tool choice (GCV_ANTHROPIC_TOOL_CHOICE)", str(a.get("tool_choice", "-"))),
            ("SDK version", a["sdk_version"] or "not installed")]
    for name, info in a["prompts"].items():
        rows.append((f"{name} prompt", info.get("prompt_id") or info.get("error", "")))
    for key, value in rows:
        details.add_row(escape(key), escape(str(value)))
    out.print(details)
    for problem in a["problems"]:
        out.print(f"[yellow]anthropic:[/] {escape(problem)}")


__all__ = ["app", "agents_report"]
