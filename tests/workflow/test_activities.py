"""The loop's injected activities (gcv.workflow.activities): the product's defaults, the recorded
run request, and the reference run that pre-screens a candidate."""

from __future__ import annotations

from engine_runners.python_sim import PythonSimRunner
from gcv.sim.engine import Simulation
from gcv.sim.program import compile_program
from gcv.workflow.activities import default_activities, reference_run, run_request
from gcv.workflow.state import Settings
from tests.support.evalutil import base


def test_the_recorded_request_is_relative_to_the_workflow_folder() -> None:
    config = base()
    request = run_request(config, settings=Settings(seed=5), run_id="wf-1-baseline", capture_ticks=(30, 10, 30))
    assert request.output_dir == "runs/wf-1-baseline" and request.run_id == "wf-1-baseline"
    assert request.seed == 5 and request.player.kind == "scripted" and request.capture_ticks == [10, 30]
    assert request.program == compile_program(config)


def test_the_reference_run_is_the_simulators_telemetry_without_the_wall_clock() -> None:
    config = base()
    request = run_request(config, settings=Settings(seed=3), run_id="r1", capture_ticks=())
    telemetry = reference_run(request)
    assert "wall_time_ms" not in telemetry
    assert telemetry["state_hash"] == Simulation(compile_program(config), {"kind": "scripted"}).run(
        seed=3).telemetry["state_hash"]
    assert reference_run(request) == telemetry  # deterministic: verify --replay recomputes it


def test_the_defaults_are_the_products_registries() -> None:
    activities = default_activities()
    assert isinstance(activities.runner("python-sim"), PythonSimRunner)
    assert activities.requirement_provider("offline").name.startswith("offline")
    assert activities.review_provider("offline").name.startswith("offline")
