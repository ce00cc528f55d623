"""The batch spec (TOML), its committed JSON Schema, and the matrix expansion."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from gcv.batch.matrix import expand_batch
from gcv.batch.spec import (SPEC_SCHEMA_FILE, BatchSpecError, batch_spec_schema, load_batch, load_spec,
                            player_seeds)
from gcv.contract.jsonschema_check import SCHEMA_BASE_URL, SCHEMA_DIALECT
from gcv.contract.loading import load_config
from tests.support.batchutil import BASELINE_PATH, write_configs, write_spec

EXAMPLE = """
batch = "gcv.batch/1"
name = "nightly"
configs = ["configs/shrine.json", "configs/dense.json"]
seeds = { start = 10, count = 3 }
players = ["scripted", { bot = "average", seeds = 5 }, { player = "bot:expert", seeds = [7, 7, 2] }]
engines = ["python-sim"]
timeout_seconds = 30
retries = 2
output = "out"

[[gate]]
fail_if = "survival_rate < 0.9"
players = ["bot:average"]

[[gate]]
fail_if = "hits_p90 > 3"
configs = ["configs/dense.json"]
"""


@pytest.fixture
def example(tmp_path: Path) -> Path:
    write_configs(tmp_path / "configs")
    return write_spec(tmp_path, EXAMPLE)


def test_example_spec_loads_and_resolves(example: Path) -> None:
    resolved = load_batch(example)
    spec = resolved.spec
    assert spec.retries == 2 and spec.timeout_seconds == 30 and spec.engines == ["python-sim"]
    assert [c.label for c in resolved.configs] == ["shrine", "dense"]
    assert resolved.configs[0].config_hash == resolved.configs[0].program["config_hash"]
    assert [(p.label, p.seeds) for p in resolved.players] == [
        ("scripted", [10, 11, 12]), ("bot:average", [0, 1, 2, 3, 4]), ("bot:expert", [7, 2])]
    assert resolved.output_dir == (example.parent / "out").resolve()
    rules = resolved.gate_rules
    assert rules[0].players == ("bot:average",) and rules[0].configs is None
    assert rules[1].configs == (resolved.configs[1].config_hash,)


def test_seeds_as_a_count(tmp_path: Path) -> None:
    path = write_spec(tmp_path, f'configs = ["{BASELINE_PATH}"]\nseeds = 3\n')
    assert player_seeds(load_spec(path), 0) == [0, 1, 2]


def test_defaults(tmp_path: Path) -> None:
    path = write_spec(tmp_path, f'configs = ["{BASELINE_PATH}"]\n', name="tiny.toml")
    resolved = load_batch(path, output_root=tmp_path / "ws")
    assert resolved.spec.retries == 1 and resolved.spec.timeout_seconds == 600
    assert [(p.label, p.seeds) for p in resolved.players] == [("scripted", [0])]
    assert resolved.output_dir == (tmp_path / "ws" / "batches" / "tiny").resolve()


@pytest.mark.parametrize("text,expected", [
    ('configs = ["a.json"]\nseeds = {start = 0, count = 0}', ["seeds.count", "0", "allowed: 1..100000"]),
    ('configs = ["a.json"]\nseeds = [-1]', ["seeds[0]", "allowed"]),
    ('configs = ["a.json"]\nseeds = "many"', ["field seeds", "a count N (seeds 0..N-1), a list of seeds"]),
    ('configs = ["a.json"]\nseeds = 0', ["field seeds", "allowed: a count 1..100000"]),
    ('configs = ["a.json"]\nseeds = {count = 3, stop = 9}', ["seeds.stop", "unknown field", "start, count"]),
    ('configs = ["a.json"]\nretries = 11', ["field retries", "allowed: 0..10"]),
    ('configs = ["a.json"]\ntimeout_seconds = 0', ["timeout_seconds", "at most 86400"]),
    ('configs = ["a.json"]\ncapture_ticks = [40000]', ["capture_ticks[0]", "0..36000"]),
    ('configs = ["a.json"]\nplayers = [{bot = "pro"}]', ["players[0].bot", "novice | average | expert"]),
    ('configs = ["a.json"]\nplayers = ["bot:pro"]', ["players[0]", "unknown bot skill 'pro'"]),
    ('configs = ["a.json"]\nplayers = [3]', ["players[0]", "a player is a string"]),
    ('configs = ["a.json"]\nplayers = [{bot = "average", seeds = 0}]', ["players[0].seeds", "allowed"]),
    ('configs = ["a.json"]\nengines = ["unity-2"]', ["field engines", "unknown engine 'unity-2'"]),
    ('configs = ["a.json"]\ncolour = "red"', ["unknown field 'colour'", "allowed fields: batch, name, configs"]),
    ('configs = []', ["field configs", "1..256"]),
    ('seeds = [1]', ["field configs", "Field required"]),
    ('configs = ["baseline:v0"]', ["baseline:vN"]),
    ('configs = ["a.json", "a.json"]', ["listed more than once"]),
    ('configs = ["a.json"]\n[[gate]]\nfail_if = "survival < 1"', ["gate[0].fail_if", "unknown metric"]),
    ('configs = ["a.json"]\nbatch = "gcv.batch/2"', ["field batch", "gcv.batch/1"]),
    ('configs = ["a.json"]\nseeds = = 3\n', ["not valid TOML", "line 2"]),
    ('configs = ["a.json"]\nseeds = {count = 100000}\nplayers = ["scripted", "bot:novice", "bot:average", '
     '"bot:expert"]\nengines = ["python-sim"]\n' + "\n", None),
])
def test_spec_errors_name_the_file_the_field_and_the_range(tmp_path: Path, text: str,
                                                           expected: list[str] | None) -> None:
    path = write_spec(tmp_path, text)
    if expected is None:  # 400,000 cells: allowed (under the 1,000,000 limit)
        load_spec(path)
        return
    with pytest.raises(BatchSpecError) as info:
        load_spec(path)
    message = str(info.value)
    assert message.startswith(str(path) + ":")
    for part in expected:
        assert part in message, message


def test_too_many_cells(tmp_path: Path) -> None:
    path = write_spec(tmp_path, 'configs = ["a.json", "b.json", "c.json"]\nseeds = {count = 100000}\n'
                                'players = ["scripted", "bot:novice", "bot:average", "bot:expert"]')
    with pytest.raises(BatchSpecError, match="1200000 cells; at most 1000000"):
        load_spec(path)


def test_missing_file_and_not_a_file(tmp_path: Path) -> None:
    with pytest.raises(BatchSpecError, match="file not found"):
        load_spec(tmp_path / "nope.toml")
    with pytest.raises(BatchSpecError, match="is a directory"):
        load_spec(tmp_path)


def test_resolution_errors(tmp_path: Path, example: Path) -> None:
    missing = write_spec(tmp_path, 'configs = ["configs/missing.json"]', "missing.toml")
    with pytest.raises(BatchSpecError, match=r"field configs\[0\]: config .*missing.json: file not found"):
        load_batch(missing)
    bad = json.loads(BASELINE_PATH.read_text())
    bad["phases"][1]["trigger_boss_hp_below"] = 0.2  # below phase 3's trigger: a rules error
    (tmp_path / "configs" / "bad.json").write_text(json.dumps(bad))
    invalid = write_spec(tmp_path, 'configs = ["configs/bad.json"]', "invalid.toml")
    with pytest.raises(BatchSpecError, match=r"configs\[0\]: config .*bad.json does not validate"):
        load_batch(invalid)
    registry = write_spec(tmp_path, 'configs = ["baseline:v1"]', "registry.toml")
    with pytest.raises(BatchSpecError, match="needs the baseline registry"):
        load_batch(registry)
    trace = write_spec(tmp_path, 'configs = ["configs/shrine.json"]\nplayers = ["inputs:nope.json"]', "trace.toml")
    with pytest.raises(BatchSpecError, match=r"players\[0\]: cannot read inputs trace"):
        load_batch(trace)
    twice = write_spec(tmp_path, 'configs = ["configs/shrine.json"]\nplayers = ["bot:average", {bot = "average"}]',
                       "twice.toml")
    with pytest.raises(BatchSpecError, match=r"players\[1\]: .* is the same player"):
        load_batch(twice)
    gate = write_spec(tmp_path, 'configs = ["configs/shrine.json"]\n[[gate]]\nfail_if = "runs < 1"\n'
                                'players = ["bot:expert"]', "gate.toml")
    with pytest.raises(BatchSpecError, match=r"gate\[0\].players\[0\]: 'bot:expert' is not a player"):
        load_batch(gate)


def test_registry_versions_through_a_resolver(tmp_path: Path) -> None:
    write_configs(tmp_path / "configs")
    path = write_spec(tmp_path, 'configs = ["baseline:v1", "configs/shrine.json"]')
    calls = []

    def resolver(ref: str):
        calls.append(ref)
        return load_config(BASELINE_PATH), "registry v1"

    resolved = load_batch(path, baseline_resolver=resolver)
    assert calls == ["baseline:v1"]
    # the file is the same config as v1: it runs once, and the spec says so
    assert [c.label for c in resolved.configs] == ["baseline:v1"]
    assert "same config" in resolved.notes[0]


# --- the committed schema -----------------------------------------------------------------


def test_committed_schema_matches_the_model(repo_root: Path) -> None:
    from gcv.schema_export import render

    committed = (repo_root / "schemas" / SPEC_SCHEMA_FILE).read_text(encoding="utf-8")
    assert committed == render(batch_spec_schema()), "regenerate schemas/batch_spec.schema.json"
    schema = batch_spec_schema()
    assert schema["$schema"] == SCHEMA_DIALECT and schema["$id"] == SCHEMA_BASE_URL + SPEC_SCHEMA_FILE
    Draft202012Validator.check_schema(schema)


def test_schema_and_model_agree_on_examples(example: Path) -> None:
    validator = Draft202012Validator(batch_spec_schema())
    good = tomllib.loads(example.read_text())
    assert not list(validator.iter_errors(good))
    for bad in ({**good, "retries": 11}, {**good, "seeds": {"count": 0}}, {**good, "colour": 1},
                {**good, "players": [{"bot": "pro"}]}, {k: v for k, v in good.items() if k != "configs"}):
        assert list(validator.iter_errors(bad)), bad


# --- the matrix ---------------------------------------------------------------------------


def test_matrix_expansion_order_and_stable_ids(example: Path, tmp_path: Path) -> None:
    resolved = load_batch(example)
    matrix = expand_batch(resolved)
    per_config = sum(len(p.seeds) for p in resolved.players)
    assert len(matrix) == 2 * per_config == 20
    first = matrix.cells[0]
    assert first.cell_id == f"{resolved.configs[0].config_hash[:12]}.python-sim.scripted.10"
    assert [c.index for c in matrix.cells] == list(range(20))
    assert len({c.cell_id for c in matrix.cells}) == 20
    # order: config, player, engine, seed
    assert [(c.config_label, c.player, c.seed) for c in matrix.cells[:5]] == [
        ("shrine", "scripted", 10), ("shrine", "scripted", 11), ("shrine", "scripted", 12),
        ("shrine", "bot:average", 0), ("shrine", "bot:average", 1)]
    assert matrix.cells[8].cell_id.endswith(".python-sim.bot-expert.7")
    # adding seeds keeps every existing id
    more = example.read_text().replace("count = 3", "count = 5")
    bigger = expand_batch(load_batch(write_spec(example.parent, more, "more.toml")))
    assert {c.cell_id for c in matrix.cells} < {c.cell_id for c in bigger.cells}
    assert player_seeds(resolved.spec, 0) == [10, 11, 12]
