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
from rich.text import Text

from gcv.cli.output import console, emit_json
from gcv.cli.tables import Col, print_table


def agents_report() -> dict[str, Any]:
    """The doctor's findings as plain data (what ``--json`` prints); it lives in
    ``gcv.agents.doctor`` so that the console reports exactly the same."""
    from gcv.agents.doctor import agents_report as report  # lazy: the agents layer only for this command

    return report()


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
    print_table(out, [Col("provider", "id"), Col("usable", "id"), Col("what")],
                [[p.get("usage", p["name"]), Text.from_markup(_yes(p["usable"])), p["kind"]]
                 for p in report["providers"]], title="Agent providers")
    a = next(p for p in report["providers"] if p["name"] == "anthropic")
    rows = [("API key (ANTHROPIC_API_KEY)", "present" if a.get("key_present") else "missing"),
            ("model (GCV_ANTHROPIC_MODEL)", a.get("model", "-")),
            ("base URL host (ANTHROPIC_BASE_URL)", a.get("base_url_host", "-")),
            ("timeout per call (GCV_ANTHROPIC_TIMEOUT)", f"{a['timeout']:g} s" if "timeout" in a else "-"),
            ("transport retries (GCV_ANTHROPIC_MAX_RETRIES)", str(a.get("sdk_max_retries", "-"))),
            ("longest retry wait (GCV_ANTHROPIC_RETRY_WAIT_CAP)",
             f"{a['retry_wait_cap']:g} s" if "retry_wait_cap" in a else "-"),
            ("deadline per exchange (GCV_AGENT_CALL_DEADLINE)",
             f"{a['call_deadline']:g} s" if "call_deadline" in a else "-"),
            ("invalid-answer retries (GCV_AGENT_MAX_RETRIES)", str(a.get("agent_retries", "-"))),
            ("max tokens (GCV_ANTHROPIC_MAX_TOKENS)", str(a.get("max_tokens", "-"))),
            ("tool choice (GCV_ANTHROPIC_TOOL_CHOICE)", str(a.get("tool_choice", "-"))),
            ("SDK version", a["sdk_version"] or "not installed")]
    for name, info in a["prompts"].items():
        rows.append((f"{name} prompt", info.get("prompt_id") or info.get("error", "")))
    print_table(out, [Col("setting", style="bold"), Col("value", "id")], rows, title="anthropic", show_header=False)
    for problem in a["problems"]:
        out.print(f"[yellow]anthropic:[/] {escape(problem)}")


__all__ = ["app", "agents_report"]
