"""Population evidence in the loop: seeded bots judged with intervals, used by the gate."""

from __future__ import annotations

from pathlib import Path

import pytest

from gcv.evaluation.population import DEFAULT_POPULATION, parse_population
from gcv.simio.pool import run_batch
from gcv.sim.program import compile_program
from gcv.workflow.state import Settings
from tests.workflow.test_paths import run_workflow

REQUEST = "make the last phase a bidirectional petal with 3 layers"


def test_parse_population() -> None:
    assert parse_population("default") == DEFAULT_POPULATION
    spec = parse_population("novice+expert:24")
    assert spec["skills"] == ["novice", "expert"] and spec["seeds"] == 24
    assert {t["skill"] for t in spec["targets"]} == {"novice", "expert"}
    for bad in ("pro:10", "average:x", "average:1", ":5"):
        with pytest.raises(ValueError):
            parse_population(bad)


@pytest.mark.parametrize("bad", ["average+:32", "+average", "average++expert", " average:32", "average: 32",
                                 "average:32 ", "average:3_2", "average:+32", "average:", "average:32:1",
                                 "average:\u0663\u0662", "Average", "average+average", "average,expert:8",
                                 "average:32\n"])
def test_a_malformed_population_is_refused_with_the_form(bad: str) -> None:
    """int() and a loose split took all of these (an empty skill, spaces, underscores, a sign,
    other scripts' digits, a repeated skill, a trailing part)."""
    with pytest.raises(ValueError, match="population") as caught:
        parse_population(bad)
    assert repr(bad) in str(caught.value)


def test_well_formed_populations_still_parse() -> None:
    assert parse_population("average")["seeds"] == 32
    assert parse_population("expert+novice:1000")["skills"] == ["expert", "novice"]


@pytest.mark.slow
def test_population_checks_join_the_evaluation(tmp_path: Path) -> None:
    engine, state = run_workflow(tmp_path, REQUEST, settings=Settings(population=parse_population("average:8")))
    d = engine.ws.workflow_dir(state.id)
    final = d.get(state.rounds[-1].evaluation_hash)
    names = [c["name"] for c in final["checks"]]
    assert "population_survival_rate" in names and "population_hits_p90" in names
    assert state.usage.population_runs == 8 * (1 + len(state.rounds))
    summary = d.get(state.rounds[-1].population.summary_hash)
    assert summary["seeds"] == 8 and summary["skills"][0]["skill"] == "average"
    # the population is the same as eight single runs of the final candidate
    program = compile_program(engine._config(d, state.rounds[-1].candidate_hash))
    singles = run_batch(program, [(s, {"kind": "bot", "skill": "average"}) for s in range(8)])
    survival = sum(t["status"] == "completed" for t in singles) / 8
    assert summary["skills"][0]["survival_rate"] == survival


@pytest.mark.slow
def test_a_failing_population_drives_a_repair(tmp_path: Path) -> None:
    strict = {"skills": ["novice"], "seeds": 8, "basis": "point",
              "targets": [{"name": "novice never hit", "skill": "novice", "field": "hits_mean",
                           "op": "<=", "value": 0.0}]}
    engine, state = run_workflow(tmp_path, "make phase 3 much denser", settings=Settings(population=strict),
                                 whole_fight_scope=True)  # the repair it drives
    d = engine.ws.workflow_dir(state.id)
    first = d.get(state.rounds[0].evaluation_hash)
    (pop,) = [c for c in first["checks"] if c["name"].startswith("population")]
    assert (pop["name"], pop["field"], pop["passed"], pop["phase_id"]) == (
        "population_hits_mean", "population.novice.hits_mean", False, "phase_3")
    assert "95% interval" in pop["detail"]
    # The scripted player passes; only the population fails, and the gate treats it as danger.
    assert state.trace[1] == ("[round 1] running_candidate -> reviewing | population_hits_mean 0.125>0 FAIL "
                                 "| intent REDUCE_BULLET_SPEED")
    assert "REDUCE_BULLET_SPEED" in state.rounds[0].allowed.intents
    # the repair was made for the population (round 2); the four-horizon novice (docs/simulation.md)
    # still takes a hit in one seed of eight, so the loop asks a person instead of accepting
    assert len(state.rounds) == 2 and state.rounds[1].origin == "repair:REDUCE_BULLET_SPEED"
    assert state.status == "blocked" and state.terminal_reason == "human_review"
    assert "population_hits_mean@phase_3" in (state.terminal_message or "")
