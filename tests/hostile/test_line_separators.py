"""Every Unicode line and paragraph separator, through the real CLI: a request, an answer, an
actor, a decision note or a config string holding one must give evidence that is written,
verifies, replays and renders (JSON Lines are split on "\\n" only: ``gcv.store.logs.jsonl_lines``).

``str.splitlines()`` splits on all of these; JSON keeps U+2028, U+2029 and U+0085 raw inside a
string (GCV writes ``ensure_ascii=False``), so a reader that used it cut an event in two: the
workflow reached ``evidence_ready`` and then ``gcv run`` exited 70 and ``gcv bundle`` /
``gcv report`` exited 70 for ever.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any, Callable

import pytest

from tests.hostile.conftest import Ran, baseline_data

SEPARATORS = {"U+2028": "\u2028", "U+2029": "\u2029", "NEL": "\u0085", "VT": "\v", "FF": "\f",
              "FS": "\x1c", "GS": "\x1d", "RS": "\x1e"}
EVERY = "".join(SEPARATORS.values())
REQUEST = "make phase 2 a denser spiral, but never more than 350 bullets alive"


def baseline_with(tmp_path: Path, sep: str) -> Path:
    """The shipped baseline with the separator in its free-text strings (name, phase titles)."""
    data: dict[str, Any] = baseline_data()
    data["name"] = f"Shrine{sep}Trial"
    for phase in data["phases"]:
        phase["title"] = f"{phase['title']}{sep}(edited)"
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def events_of(bundle: Path) -> list[dict[str, Any]]:
    with zipfile.ZipFile(bundle) as zf:
        data = zf.read("workflow/events.jsonl").decode("utf-8")
    return [json.loads(line) for line in data.split("\n") if line]


@pytest.mark.parametrize("name", sorted(SEPARATORS))
def test_a_separator_in_the_request_and_the_config_gives_evidence_that_verifies(
        name: str, gcv: Callable[..., Ran], tmp_path: Path) -> None:
    sep = SEPARATORS[name]
    ran = gcv("run", f"{REQUEST}{sep} please", "--baseline", str(baseline_with(tmp_path, sep)), "--yes", "--repair-scope", "fight", "--json",
              timeout=120).clean(0)
    out = ran.json()
    assert out["status"] == "evidence_ready" and out["evidence_written"], out
    bundle = Path(out["evidence"]["bundle"])
    assert events_of(bundle)[0]["data"]["request"] == f"{REQUEST}{sep} please"
    verified = gcv("verify", str(bundle), "--json").clean(0).json()
    assert verified["ok"] and verified["status"] == "evidence_ready"
    wf = out["workflow_id"]
    gcv("bundle", wf, "-o", str(tmp_path / "again.zip"), "--json").clean(0)
    report = gcv("report", wf, "-o", str(tmp_path / "report.html"), "--json").clean(0)
    assert report.json()["bytes"] > 0


def test_every_separator_in_every_human_input_through_every_command(gcv: Callable[..., Ran], tmp_path: Path) -> None:
    """Answers, actor names and decision notes too, and the bundle replays (the loop re-run on
    the recorded inputs reads the same events back)."""
    asked = gcv("run", f"slow down the bullets by 20%{EVERY}", "--baseline", str(baseline_with(tmp_path, EVERY)),
                "--json", timeout=120).clean(3).json()
    assert asked["status"] == "needs_clarification", asked
    wf = asked["workflow_id"]
    answered = gcv("answer", wf, f"phase 2{EVERY}", "--actor", f"dana{EVERY}", "--json", timeout=120).clean(7).json()
    assert answered["status"] == "awaiting_authorization"
    gcv("authorize", wf, "--actor", f"ana{EVERY}", "--repair-scope", "fight", "--json").clean(0)
    done = gcv("resume", wf, "--json", timeout=120).clean(0).json()
    assert done["status"] == "evidence_ready" and done["evidence_written"]
    decided = gcv("decide", wf, "accept", "--actor", f"rev{EVERY}iewer", "--note", f"ship{EVERY}it", "--json",
                  timeout=120).clean(0).json()
    assert decided["human_decision"]["note"] == f"ship{EVERY}it"
    out = tmp_path / "decided.zip"
    gcv("bundle", wf, "-o", str(out), "--json", timeout=120).clean(0)
    decision = [e for e in events_of(out) if (e.get("data") or {}).get("decision")][-1]["data"]["decision"]
    assert decision["actor"] == f"rev{EVERY}iewer" and decision["note"] == f"ship{EVERY}it"
    replayed = gcv("verify", str(out), "--replay", "--json", timeout=180).clean(0).json()
    assert replayed["ok"] and replayed["status"] == "accepted", replayed["first_failure"]
    gcv("status", wf, "--json").clean(0)
    html = gcv("report", wf, "-o", str(tmp_path / "r.html"), "--json").clean(0)
    assert "accept" in (tmp_path / "r.html").read_text(encoding="utf-8") and html.json()["bytes"] > 0
