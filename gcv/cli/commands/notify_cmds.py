"""``gcv notify status|test|flush``: the workspace's webhooks and their delivery log
(docs/notifications.md)."""

from __future__ import annotations

import time

import typer

from gcv.cli.output import console, emit_json, fail_usage
from gcv.cli.tables import Col, print_table


def workspace_root():  # -> Path
    from gcv.store.paths import workspace_root as root  # lazy: the store only for these commands

    return root()

notify_app = typer.Typer(help="Webhooks that tell people when a workflow needs them (notify.toml).",
                         no_args_is_help=True)
app = typer.Typer()


def _config(json_mode: bool):  # -> NotifyConfig | None
    from gcv.evidence.notify import NotifyConfigError, load_config  # lazy: the evidence layer only here

    try:
        return load_config(workspace_root())
    except NotifyConfigError as exc:
        fail_usage(str(exc), json_mode=json_mode, hint="see docs/notifications.md for the file's form")


@notify_app.command("status")
def status(limit: int = typer.Option(20, "--limit", min=1, max=1000, help="deliveries to list, newest first"),
           json_mode: bool = typer.Option(False, "--json")) -> None:
    """The configured webhooks (host only) and the latest deliveries with their attempts."""
    from gcv.evidence.notify import deliveries

    config = _config(json_mode)
    hooks = [{"webhook": h.key(i), "format": h.format, "events": list(h.events), "timeout_seconds": h.timeout_seconds,
              "headers": sorted(h.headers)} for i, h in enumerate(config.webhook if config else ())]
    log = deliveries(workspace_root(), limit)
    if json_mode:
        emit_json({"webhooks": hooks, "deliveries": log})
        return
    out = console()
    if not hooks:
        out.print(f"no webhooks: {workspace_root() / 'notify.toml'} does not name any (docs/notifications.md)",
                  markup=False)
    else:
        print_table(out, [Col("webhook", "id"), Col("format", "id"), Col("events", "text")],
                    [[h["webhook"], h["format"], ", ".join(h["events"])] for h in hooks], title="webhooks")
    if log:
        rows = []
        for d in log:
            last = d["attempts"][-1] if d["attempts"] else None
            said = "-" if last is None else (str(last["http_status"]) if last["error"] is None else last["error"])
            rows.append([time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(d["queued_at"])), d["workflow_id"],
                         d["kind"], d["webhook"], d["state"], len(d["attempts"]), said])
        print_table(out, [Col("queued", "id"), Col("workflow", "id"), Col("kind", "id"), Col("webhook", "id"),
                          Col("state", "id"), Col("tries", "num"), Col("last answer", "text")], rows,
                    title="deliveries (newest first)")


@notify_app.command("test")
def test(json_mode: bool = typer.Option(False, "--json")) -> None:
    """Send one test payload to every webhook now (nothing is queued); exit 1 if one fails."""
    from gcv.evidence.notify import NotifyConfigError, send_test

    try:
        results = send_test(workspace_root())
    except NotifyConfigError as exc:
        fail_usage(str(exc), json_mode=json_mode, hint="see docs/notifications.md for the file's form")
    code = 0 if all(r["ok"] for r in results) else 1
    if json_mode:
        emit_json({"results": results, "exit_code": code})
    else:
        out = console()
        for r in results:
            said = f"HTTP {r['http_status']}" if r["error"] is None else r["error"]
            out.print(f"{r['webhook']}: {'delivered' if r['ok'] else 'FAILED'} ({said}, {r['ms']} ms)", markup=False)
    raise typer.Exit(code)


@notify_app.command("flush")
def flush(seconds: float = typer.Option(30.0, "--seconds", min=0.5, max=3600, help="time to spend at most"),
          json_mode: bool = typer.Option(False, "--json")) -> None:
    """Deliver what is still pending (for example from cron, or after a receiver came back)."""
    from gcv.evidence.notify import notify

    _config(json_mode)  # a bad notify.toml is refused here, not only noted
    outcome = notify(workspace_root(), None, budget_seconds=seconds)
    if json_mode:
        emit_json({"delivered": outcome.delivered, "failed_attempts": outcome.failed_attempts,
                   "pending": outcome.pending})
    else:
        console().print(f"delivered {outcome.delivered}, failed attempts {outcome.failed_attempts}, "
                        f"still pending {outcome.pending}", markup=False)


app.add_typer(notify_app, name="notify")
