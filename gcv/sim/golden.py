"""Golden vectors: self-contained cases that the Python, C# and C++ simulations must match.

Each vector file holds a complete run request (the integer program, seed, player, no
output directory) and the expected gameplay telemetry, state hashes included. Some cases
deliberately break the validation rules (say 512 bullets a wave): the simulator must be
exact for any program, not only for the ones GCV would let through.

Regenerate with ``python -m gcv.sim.golden --write artifacts/vectors`` after a change to
simulation semantics (and update docs/simulation.md and both ports in the same commit).
"""

from __future__ import annotations

import argparse
import copy
import json
from pathlib import Path
from typing import Any

from gcv.contract.models import BulletHellConfig
from gcv.sim.engine import Simulation
from gcv.sim.players import player_label
from gcv.sim.program import compile_program, program_hash
from gcv.sim.telemetry import gameplay_view

VECTOR_ID = "gcv.golden_vector/1"
REPO = Path(__file__).resolve().parents[2]
BASELINE = REPO / "artifacts" / "baselines" / "shrine_trial.json"

ZIGZAG_TRACE = {
    "format": "gcv.inputs/1",
    "tick_hz": 60,
    "source": "synthetic zigzag with focus bursts (golden vector)",
    "runs": [[45, 1, 0, 0], [30, -1, 1, 0], [60, -1, 0, 1], [20, 0, -1, 0], [90, 1, -1, 0],
             [15, 0, 0, 0], [120, 1, 1, 1], [75, -1, -1, 0], [200, -1, 0, 0], [300, 1, 0, 1],
             [40, 0, 1, 0], [500, 0, -1, 1], [100, 1, 1, 0]],
}


def _base() -> dict[str, Any]:
    return json.loads(BASELINE.read_text(encoding="utf-8"))


def _pattern(cfg: dict[str, Any], phase: int, **changes: Any) -> dict[str, Any]:
    cfg["phases"][phase]["pattern"].update(changes)
    return cfg


def _cases() -> list[tuple[str, str, dict[str, Any], int, dict[str, Any]]]:
    """(name, description, config, seed, player)."""
    cases = []
    scripted = {"kind": "scripted"}

    def add(name: str, desc: str, cfg: dict[str, Any], seed: int, player: dict[str, Any]) -> None:
        cases.append((name, desc, cfg, seed, player))

    add("baseline_scripted", "committed baseline, scripted player", _base(), 1, scripted)
    for seed, skill in ((7, "novice"), (11, "average"), (13, "expert")):
        add(f"baseline_bot_{skill}", f"baseline, bot {skill}", _base(), seed,
            {"kind": "bot", "skill": skill})
    add("ring_three_layers", "ring with 3 layers and a partial spread",
        _pattern(_base(), 0, bullets_per_wave=20, layer_count=3, spread_angle_deg=300), 3, scripted)
    add("spiral_bidirectional", "dense bidirectional spiral in phase 2",
        _pattern(_base(), 1, bullets_per_wave=18, wave_interval_ms=500, rotation_per_wave_deg=23,
                 bidirectional=True), 5, {"kind": "bot", "skill": "average"})
    add("spiral_negative_rotation", "spiral turning clockwise, novice bot",
        _pattern(_base(), 1, rotation_per_wave_deg=-37.5, bullet_speed=5.25), 17,
        {"kind": "bot", "skill": "novice"})
    add("aimed_fan_layers", "aimed fan, 2 layers, aimed at a moving player",
        _pattern(_base(), 0, type="aimed_fan", bullets_per_wave=5, spread_angle_deg=60,
                 layer_count=2, wave_interval_ms=400), 2, scripted)
    add("aimed_fan_single", "aimed fan of one bullet (n = 1)",
        _pattern(_base(), 0, type="aimed_fan", bullets_per_wave=1, spread_angle_deg=10,
                 wave_interval_ms=100, bullet_speed=9), 4, {"kind": "bot", "skill": "expert"})
    add("petal_four_layers_bidirectional", "petal, 4 layers, both directions",
        _pattern(_base(), 2, layer_count=4, bidirectional=True, rotation_per_wave_deg=-13), 9,
        scripted)
    add("scatter_average", "seeded scatter centred on the player, average bot",
        _pattern(_base(), 1, type="scatter", bullets_per_wave=10, spread_angle_deg=120,
                 wave_interval_ms=300), 21, {"kind": "bot", "skill": "average"})
    add("scatter_expert", "wide scatter, expert bot",
        _pattern(_base(), 0, type="scatter", bullets_per_wave=24, spread_angle_deg=360,
                 wave_interval_ms=250, bullet_speed=2.5), 22, {"kind": "bot", "skill": "expert"})
    death = _pattern(_base(), 0, type="aimed_fan", bullets_per_wave=9, spread_angle_deg=40,
                     wave_interval_ms=100, bullet_speed=7)
    death["player"]["max_health"] = 2
    death["player"]["invulnerability_seconds"] = 0
    add("scripted_death", "a fight the scripted player cannot survive", death, 1, scripted)
    fast = _pattern(_base(), 1, bullets_per_wave=16, wave_interval_ms=100, rotation_per_wave_deg=7)
    add("minimum_interval", "100 ms waves (the shortest interval)", fast, 8, scripted)
    big = _pattern(_base(), 0, type="petal", bullets_per_wave=64, layer_count=4, bidirectional=True,
                   wave_interval_ms=100, rotation_per_wave_deg=180, bullet_speed=12,
                   bullet_lifetime_seconds=12)
    big["scenario"]["duration_seconds"] = 6
    add("maximum_bullets", "64 bullets x 4 layers x 2 directions every 100 ms", big, 99,
        {"kind": "bot", "skill": "novice"})
    add("inputs_trace", "a recorded inputs trace (zigzag, focus bursts)", _base(), 3,
        {"kind": "inputs", "trace": ZIGZAG_TRACE})
    carry = _base()
    carry["boss"]["max_health"] = 1800
    for ph in carry["phases"]:
        ph["pattern"].update(bullet_speed=0.5, bullet_lifetime_seconds=12)
    add("phase_carryover", "slow long-lived bullets carried across phase changes", carry, 6,
        {"kind": "bot", "skill": "average"})
    six = _base()
    six["phases"] = []
    kinds = ["ring", "spiral", "aimed_fan", "petal", "scatter", "spiral"]
    for i, kind in enumerate(kinds):
        six["phases"].append({
            "phase_id": f"p{i + 1}", "title": f"Phase {i + 1}",
            "trigger_boss_hp_below": [1.0, 0.9, 0.75, 0.5, 0.3, 0.1][i],
            "pattern": {"type": kind, "bullets_per_wave": 6 + 3 * i, "wave_interval_ms": 300 + 70 * i,
                        "bullet_speed": 2.5 + 0.75 * i, "bullet_lifetime_seconds": 4 + 0.5 * i,
                        "rotation_per_wave_deg": -30 + 11 * i, "spread_angle_deg": 360 if kind != "aimed_fan" else 90,
                        "layer_count": 2 if kind == "petal" else 1 + i % 3,
                        "bidirectional": kind in ("spiral", "petal")},
        })
    add("six_phases", "every pattern type across six phases, expert bot", six, 12345,
        {"kind": "bot", "skill": "expert"})
    small = _base()
    small["scenario"].update(arena_width=6, arena_height=8, duration_seconds=20)
    small["player"].update(start_position={"x": 0, "y": -3}, move_speed=8.25, hit_radius=0.5,
                           graze_radius=1.25, auto_fire_interval_seconds=0.05)
    small["boss"]["position"] = {"x": 0.5, "y": 3}
    add("small_arena", "cramped arena, off-centre boss, fast auto-fire", small, 77,
        {"kind": "bot", "skill": "novice"})
    add("large_seed", "the largest seed", _base(), (1 << 63) - 1, {"kind": "bot", "skill": "expert"})
    return cases


def build_vector(name: str, description: str, cfg: dict[str, Any], seed: int,
                 player: dict[str, Any]) -> dict[str, Any]:
    config = BulletHellConfig.model_validate(cfg)
    program = compile_program(config)
    result = Simulation(program, player).run(seed=seed)
    request = {
        "run_request": "gcv.run_request/1",
        "run_id": name,
        "program": program,
        "program_hash": program_hash(program),
        "config_hash": program["config_hash"],
        "seed": seed,
        "player": copy.deepcopy(player),
        "player_label": player_label(player),
        "capture_ticks": [],
        "output_dir": ".",
    }
    return {"vector": VECTOR_ID, "name": name, "description": description, "request": request,
            "expected": gameplay_view(result.telemetry)}


def build_vectors() -> list[dict[str, Any]]:
    return [build_vector(*case) for case in _cases()]


def vector_filename(index: int, vector: dict[str, Any]) -> str:
    return f"{index:02d}_{vector['name']}.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", type=Path, required=True, help="output folder")
    args = parser.parse_args()
    args.write.mkdir(parents=True, exist_ok=True)
    for old in args.write.glob("*.json"):
        old.unlink()
    for i, vector in enumerate(build_vectors(), start=1):
        path = args.write / vector_filename(i, vector)
        path.write_text(json.dumps(vector, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        exp = vector["expected"]
        print(f"{path.name}: {exp['status']} ticks={exp['ticks']} peak={exp['peak_alive_bullets']} "
              f"hits={exp['player_hits']} grazes={exp['grazes']} spawned={exp['total_bullets_spawned']}")


if __name__ == "__main__":
    main()
