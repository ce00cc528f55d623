"""``--junit FILE``: JUnit XML that a CI system's test tab reads, checked the way one would read
it (junitparser) and against the JUnit report schema (tests/support/junit.xsd, xmlschema)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import xmlschema
from junitparser import Error, Failure, JUnitXml, Skipped
from typer.testing import CliRunner

from gcv.cli.app import app
from gcv.evidence.junit import workflow_junit
from tests.support.batchutil import batch_app, register_fake, write_configs, write_spec

SCHEMA = xmlschema.XMLSchema(str(Path(__file__).resolve().parents[1] / "support" / "junit.xsd"))
REQUEST = "make phase 2 a denser bidirectional spiral, but never more than 350 bullets alive and keep the low FPS at 55 or above"


@pytest.fixture(autouse=True)
def _plain(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "160")
    monkeypatch.setenv("GCV_HOME", str(tmp_path / "ws"))


def _read(path: Path) -> JUnitXml:
    SCHEMA.validate(str(path))  # raises with the place on any departure from the schema
    return JUnitXml.fromfile(str(path))


def _cases(xml: JUnitXml) -> dict[tuple[str, str], Any]:
    return {(suite.name, case.name): case for suite in xml for case in suite}


def test_a_batch_is_a_suite_per_group_a_case_per_cell_and_per_gate(tmp_path: Path) -> None:
    write_configs(tmp_path / "configs")
    spec = write_spec(tmp_path, 'configs = ["configs/shrine.json"]\nseeds = 3\nplayers = ["scripted", "bot:average"]\n'
                                'output = "out"\n[[gate]]\nfail_if = "survival_rate < 0.9"\n')
    junit = tmp_path / "reports" / "batch.xml"
    junit.parent.mkdir()
    result = CliRunner().invoke(batch_app(), ["batch", str(spec), "--junit", str(junit), "--fail-if", "hits_p90 > 1",
                                              "--json"])
    out = json.loads(result.stdout)
    xml = _read(junit)
    assert out["paths"]["junit"] == str(junit)
    suites = {s.name: s for s in xml}
    assert set(suites) == {"shrine / scripted / python-sim", "shrine / bot:average / python-sim"}
    scripted = suites["shrine / scripted / python-sim"]
    # 3 seeds + 2 gate rules per group; the scripted player takes 2 hits, so hits_p90 > 1 fails there
    assert scripted.tests == 5 and scripted.failures == 1 and scripted.errors == 0
    failing = [c for c in scripted if not c.is_passed]
    assert [c.name for c in failing] == ["gate: hits_p90 > 1"]
    (failure,) = failing[0].result
    assert isinstance(failure, Failure) and "hits_p90 = 2" in failure.message
    seeds = sorted(c.name for c in scripted if c.name.startswith("seed"))
    assert seeds == ["seed 0", "seed 1", "seed 2"]
    assert "player_hits = 2" in next(c for c in scripted if c.name == "seed 0").system_out
    assert result.exit_code == 8  # the gate failed: the exit code does not change with --junit
    average = suites["shrine / bot:average / python-sim"]
    hits_p90 = next(g for g in out["summary"] if g["player"] == "bot:average")["metrics"]["hits_p90"]
    assert average.failures == (1 if hits_p90 > 1 else 0)
    assert xml.tests == 10 and xml.failures == scripted.failures + average.failures


def test_an_error_cell_is_an_error_with_the_engine_s_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    register_fake(monkeypatch, "crash")
    write_configs(tmp_path / "configs")
    spec = write_spec(tmp_path, 'configs = ["configs/shrine.json"]\nseeds = 1\nengines = ["fake"]\nretries = 0\n'
                                'output = "out"\n')
    junit = tmp_path / "batch.xml"
    result = CliRunner().invoke(batch_app(), ["batch", str(spec), "--junit", str(junit)])
    assert result.exit_code == 9, result.output
    xml = _read(junit)
    (suite,) = list(xml)
    (case,) = list(suite)
    (error,) = case.result
    assert isinstance(error, Error) and suite.errors == 1 and error.type and error.message


@pytest.mark.slow
def test_a_workflow_is_a_case_per_check_and_one_for_its_outcome(tmp_path: Path) -> None:
    junit = tmp_path / "run.xml"
    result = CliRunner().invoke(app, ["run", REQUEST, "--yes", "--repair-scope", "fight", "--junit", str(junit),
                                      "--json"])
    out = json.loads(result.stdout)
    assert out["status"] == "evidence_ready" and out["evidence"]["junit"] == str(junit)
    cases = _cases(_read(junit))
    suite = f"gcv workflow {out['workflow_id']}"
    checks = [*out["evaluation"]["checks"], *out["evaluation"]["intent_checks"]]
    assert {name for s, name in cases if s == suite} == {c["label"] for c in checks} | {"workflow outcome"}
    assert all(case.is_passed for case in cases.values())
    outcome = cases[(suite, "workflow outcome")]
    assert "evidence_ready" in outcome.system_out
    unrequested = [c["path"] for c in out["change"] if not c["requested"]]
    assert all(path in outcome.system_out for path in unrequested)


def _summary(status: str, *, checks: list[dict[str, Any]], message: str = "m") -> dict[str, Any]:
    return {"workflow_id": "wf-1", "status": status, "terminal_reason": "r", "terminal_message": message,
            "evaluation": {"checks": checks, "intent_checks": []}, "change": []}


def test_a_failed_check_and_a_failed_workflow_are_failures(tmp_path: Path) -> None:
    path = tmp_path / "f.xml"
    path.write_bytes(workflow_junit(_summary("blocked", checks=[
        {"name": "player_hits", "label": "player_hits", "field": "player_hits", "actual": 5, "op": "<=",
         "expected": 3, "passed": False, "hard": True, "phase_id": "phase_2", "detail": "5 hits"}])))
    cases = _cases(_read(path))
    (hits,) = cases[("gcv workflow wf-1", "player_hits")].result
    assert isinstance(hits, Failure) and "5 <= 3" in hits.message and "phase_2" in hits.message
    (end,) = cases[("gcv workflow wf-1", "workflow outcome")].result
    assert isinstance(end, Failure) and end.message.startswith("blocked")


@pytest.mark.parametrize("status", ["needs_clarification", "awaiting_authorization", "awaiting_choice"])
def test_a_workflow_waiting_for_a_person_is_skipped_not_failed(status: str, tmp_path: Path) -> None:
    path = tmp_path / "w.xml"
    path.write_bytes(workflow_junit(_summary(status, checks=[])))
    (end,) = _cases(_read(path))[("gcv workflow wf-1", "workflow outcome")].result
    assert isinstance(end, Skipped) and "waiting for a person" in end.message


def test_characters_xml_cannot_hold_do_not_break_the_file(tmp_path: Path) -> None:
    """A request may hold control characters (the console and the CLI take them); ElementTree
    would write them raw and no XML parser could read the file."""
    path = tmp_path / "c.xml"
    path.write_bytes(workflow_junit(_summary("failed", checks=[], message="bad \x00\x1b[31m\x0b end \ud800 <&>")))
    (end,) = _cases(_read(path))[("gcv workflow wf-1", "workflow outcome")].result
    assert "\ufffd" in end.message and "<&>" in end.message
