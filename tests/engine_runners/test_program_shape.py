"""The shape of a program, beyond its ranges: the Python model, the C# core and the C++ core
refuse the same programs. Every member of every object is required and no other is allowed;
a phase id uses only its characters; the literal, the hash and the pattern name are checked;
and every section is read whichever player runs (the C++ core used to read the scripted
section only for a scripted player, the bot's only for a bot and scatter_span only in scatter
phases, and neither core refused unknown members or a phase id such as "Phase 1")."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any, Callable

import pytest
from pydantic import ValidationError

from engine_runners.protocol import RunRequest
from gcv.sim.program_model import (PATTERN_NAMES, PHASE_ID_CHARS, PHASE_ID_PATTERN, duplicate_phase_id_message,
                                   pattern_code_message, program_keys)
from tests.support.parity import HarnessKind, make_request
from tests.support.simutil import VECTORS, load_vector

Program = dict[str, Any]
SCRIPTED = {"kind": "scripted"}
BOT = {"kind": "bot", "skill": "expert"}


def _base() -> Program:
    return copy.deepcopy(load_vector(VECTORS[0])["request"]["program"])


def _node(program: Program, section: str) -> dict[str, Any]:
    """The object of ``section`` (as program_keys names it) in ``program``: the first phase for
    ``phases[]``, the novice skill for ``bot.skills[]``."""
    node: Any = program
    for part in section.split(".") if section else []:
        node = (node["phases"][0] if part == "phases[]" else node["skills"]["novice"] if part == "skills[]"
                else node[part])
    return node


def _extra(section: str) -> Callable[[Program], None]:
    return lambda p: _node(p, section).__setitem__("zz_extra", 1)


def _missing(section: str, key: str) -> Callable[[Program], None]:
    return lambda p: _node(p, section).pop(key)


def _set(section: str, key: str, value: Any) -> Callable[[Program], None]:
    return lambda p: _node(p, section).__setitem__(key, value)


# (id, mutation, player, a word every refusal must contain)
CASES: list[tuple[str, Callable[[Program], None], dict[str, Any], str]] = [
    *[(f"extra-in-{section or 'program'}", _extra(section), SCRIPTED, "zz_extra") for section, _ in program_keys()],
    ("unknown-skill-name", _set("bot.skills", "pro", {"reaction_ticks": 5, "lookahead_ticks": 10,
                                                      "mistake_threshold": 1}), SCRIPTED, "pro"),
    ("missing-scripted-on-a-bot-run", _missing("", "scripted"), BOT, "scripted"),
    ("missing-bot-on-a-scripted-run", _missing("", "bot"), SCRIPTED, "bot"),
    ("missing-unused-skill", _missing("bot.skills", "average"), BOT, "average"),
    ("missing-scatter-span-in-a-spiral", _missing("phases[]", "scatter_span"), SCRIPTED, "scatter_span"),
    ("phase-id-uppercase", _set("phases[]", "phase_id", "Phase_1"), SCRIPTED, "phase_id"),
    ("phase-id-space", _set("phases[]", "phase_id", "p 1"), SCRIPTED, "phase_id"),
    ("phase-id-dot", _set("phases[]", "phase_id", "p.1"), SCRIPTED, "phase_id"),
    ("phase-id-non-ascii", _set("phases[]", "phase_id", "phase\u00e9"), SCRIPTED, "phase_id"),
    ("phase-id-newline", _set("phases[]", "phase_id", "p1\n"), SCRIPTED, "phase_id"),
    ("program-literal", _set("", "program", "gcv.sim_program/2"), SCRIPTED, "gcv.sim_program/1"),
    ("config-hash-uppercase", _set("", "config_hash", "A" * 64), SCRIPTED, "config_hash"),
    ("config-hash-short", _set("", "config_hash", "a" * 63), SCRIPTED, "config_hash"),
    ("pattern-unknown", _set("phases[]", "pattern", "zigzag"), SCRIPTED, "pattern"),
    # programs every reader used to accept though they contradict themselves (issue 25.13): the
    # needle is the whole refusal, field path included, the same words in every reader
    ("phase-id-repeated", lambda p: p["phases"][2].update(phase_id=p["phases"][0]["phase_id"]), SCRIPTED,
     "field program.phases.2.phase_id: " + duplicate_phase_id_message("phase_1", 0, 2)),
    ("phase-id-repeated-next-door", lambda p: p["phases"][1].update(phase_id=p["phases"][0]["phase_id"]), BOT,
     "field program.phases.1.phase_id: " + duplicate_phase_id_message("phase_1", 0, 1)),
    ("pattern-code-of-another-pattern", _set("phases[]", "pattern_code", 3), SCRIPTED,
     "field program.phases.0.pattern_code: " + pattern_code_message(3, "ring")),
    ("pattern-code-of-another-pattern-in-phase-2", lambda p: p["phases"][1].update(pattern_code=0), BOT,
     "field program.phases.1.pattern_code: " + pattern_code_message(0, "spiral")),
]
IDS = [c[0] for c in CASES]


def _mutated(mutate: Callable[[Program], None]) -> Program:
    program = _base()
    mutate(program)
    return program


def test_the_phase_id_characters_are_the_pattern() -> None:
    for code in [*range(0x80), 0xE9, 0x3B1, 0x4E00, 0xFF41]:
        c = chr(code)
        assert (re.fullmatch(PHASE_ID_PATTERN, c) is not None) == (c in PHASE_ID_CHARS), repr(c)


def test_the_baseline_program_is_what_the_repeated_id_cases_assume() -> None:
    phases = _base()["phases"]
    assert [p["phase_id"] for p in phases][:3] == ["phase_1", "phase_2", "phase_3"]
    assert [p["pattern"] for p in phases][:2] == ["ring", "spiral"]
    assert all(p["pattern_code"] == PATTERN_NAMES.index(p["pattern"]) for p in phases)


def test_a_repeated_phase_id_is_refused_in_the_words_of_the_config_rule() -> None:
    """The program readers and the config's rules.unique_phase_ids say the same sentence."""
    import json

    from gcv.validation.validate import validate
    from tests.support.simutil import BASELINE_PATH

    config = json.loads(BASELINE_PATH.read_text(encoding="utf-8"))
    config["phases"][2]["phase_id"] = config["phases"][0]["phase_id"]
    report = validate(json.loads(BASELINE_PATH.read_text(encoding="utf-8")), config)
    messages = [e.message for layer in report.layers for e in layer.errors if e.rule_id == "rules.unique_phase_ids"]
    assert messages == [duplicate_phase_id_message("phase_1", 0, 2)]


def test_every_program_member_is_required() -> None:
    """program_keys() lists members the cores require: no member of the model has a default."""
    from gcv.sim import program_model

    for section, model in program_model._SECTIONS:
        assert all(info.is_required() for info in model.model_fields.values()), section


@pytest.mark.parametrize("case_id, mutate, player, needle", CASES, ids=IDS)
def test_python_refuses_the_program(case_id: str, mutate: Callable[[Program], None], player: dict[str, Any],
                                    needle: str, tmp_path: Path) -> None:
    with pytest.raises(ValidationError) as err:
        RunRequest.model_validate(make_request(_mutated(mutate), 1, player, tmp_path))
    # as python-sim reports it: "field <loc>: <msg>" (str() of the error shortens long messages)
    reported = "\n".join(f"field {'.'.join(map(str, e['loc']))}: {e['msg']}" for e in err.value.errors())
    assert needle in reported or needle in str(err.value)


@pytest.mark.toolchain
@pytest.mark.parametrize("case_id, mutate, player, needle", CASES, ids=IDS)
def test_the_engine_cores_refuse_the_same_program(engine_core: tuple[HarnessKind, Path], case_id: str,
                                                  mutate: Callable[[Program], None], player: dict[str, Any],
                                                  needle: str, tmp_path: Path) -> None:
    kind, exe = engine_core
    run = kind.run(exe, make_request(_mutated(mutate), 1, player, tmp_path), tmp_path)
    assert run.code == 2, f"{kind.label} accepted {case_id}: exit {run.code}, {run.proc.stderr}"
    assert needle in run.proc.stderr, run.proc.stderr


@pytest.mark.toolchain
@pytest.mark.parametrize("player", [SCRIPTED, BOT], ids=["scripted", "bot"])
def test_the_engine_cores_accept_the_unchanged_program_and_any_phase_id_of_its_characters(
        engine_core: tuple[HarnessKind, Path], player: dict[str, Any], tmp_path: Path) -> None:
    kind, exe = engine_core
    program = _base()
    program["phases"][0]["phase_id"] = "z-9_" + PHASE_ID_CHARS[:28]  # 32 characters, the longest allowed
    request = make_request(program, 1, player, tmp_path)
    RunRequest.model_validate(request)
    kind.assert_protocol_ok(kind.run(exe, request, tmp_path), "parity")
