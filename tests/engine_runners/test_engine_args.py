"""Command lines that survive Unreal's parser (engine_runners.engine_args): a value with a space
unquoted (UE quotes it), a value without one quoted, and what no quoting carries refused."""

from __future__ import annotations

import pytest

from engine_runners.engine_args import EngineArgumentError, ue_command, ue_value_arg


@pytest.mark.parametrize("value,arg", [
    (r"C:\ci\run(2)\r.json", r'-GcvRequest="C:\ci\run(2)\r.json"'),
    ("/tmp/a,b/r.json", '-GcvRequest="/tmp/a,b/r.json"'),
    (r"C:\a b\r.json", r"-GcvRequest=C:\a b\r.json"),
])
def test_value_arguments(value: str, arg: str) -> None:
    assert ue_value_arg("GcvRequest", value) == arg
    assert ue_value_arg("GcvRequest", value, "windows") == arg  # one rule on every platform


@pytest.mark.parametrize("bad", ['a"b', "a\nb", "a\rb", "a\0b"])
def test_what_no_quoting_carries_is_refused(bad: str) -> None:
    with pytest.raises(EngineArgumentError, match="-GcvRequest .* cannot carry"):
        ue_value_arg("GcvRequest", bad)


def test_ue_command_keeps_the_order() -> None:
    assert ue_command(["UE", "proj.uproject", "-run=GcvRun"], [("GcvRequest", "/r.json"), ("Out", "/o d")],
                      ["-unattended"]) == ["UE", "proj.uproject", "-run=GcvRun", '-GcvRequest="/r.json"',
                                           "-Out=/o d", "-unattended"]
