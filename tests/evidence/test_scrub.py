"""What must never leave the machine (gcv.evidence.scrub): secret-looking variables and the
machine's own paths replaced, and leaks found in any bytes."""

from __future__ import annotations

from pathlib import Path

from gcv.evidence.scrub import Scrubber

ENV = {"ANTHROPIC_API_KEY": "sk-ant-0123456789", "GCV_SIGNING_KEY_HMAC": "shared-secret-123",
       "SHORT_TOKEN": "abc", "PATH": "/usr/bin:/bin", "HOME": "/home/designer"}


def test_secrets_are_redacted_by_name(tmp_path: Path) -> None:
    s = Scrubber(environ=ENV)
    assert s.text("key=sk-ant-0123456789 and shared-secret-123") == (
        "key=[redacted:ANTHROPIC_API_KEY] and [redacted:GCV_SIGNING_KEY_HMAC]")
    assert s.text("abc /usr/bin") == "abc /usr/bin"  # too short to be a secret; PATH is not secret
    assert s.replaced["[redacted:ANTHROPIC_API_KEY]"] == 1


def test_paths_become_relative_or_placeholders_longest_first(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workflow = workspace / "workflows" / "wf-1"
    s = Scrubber(workflow_root=workflow, workspace_root=workspace, environ=ENV)
    assert s.text(f"{workflow}/runs/a/telemetry.json") == "runs/a/telemetry.json"
    assert s.text(str(workflow)) == "."
    assert s.text(f"{workspace}/catalog.sqlite") == "$GCV_HOME/catalog.sqlite"
    assert s.text("/home/designer/notes") == "~/notes"
    assert s.value({f"{workspace}/k": [f"{workspace}/v", 3]}) == {"$GCV_HOME/k": ["$GCV_HOME/v", 3]}


def test_leaks_names_what_is_left_never_the_value(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    s = Scrubber(workspace_root=workspace, environ=ENV)
    found = s.leaks(b"... sk-ant-0123456789 ... " + str(workspace).encode() + b"/x")
    assert "[redacted:ANTHROPIC_API_KEY]" in found and "absolute path ($GCV_HOME)" in found
    assert all("sk-ant" not in f for f in found)
    assert s.leaks(s.text(f"sk-ant-0123456789 {workspace}/x").encode()) == []
