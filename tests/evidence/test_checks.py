"""Named checks (gcv.evidence.checks): pass, fail with the first problem, skip, and any exception
on an untrusted bundle a failure that names it; where two JSON values first differ."""

from __future__ import annotations

from gcv.evidence.checks import Skip, first_difference, run_check, short


def test_run_check_outcomes() -> None:
    assert run_check("files.hashes", lambda: ("all 9 match", [])).status == "passed"
    failed = run_check("files.hashes", lambda: ("", ["a.json differs", "b.json differs"]))
    assert (failed.status, failed.message, failed.details) == ("failed", "a.json differs (and 1 more)",
                                                               ["a.json differs", "b.json differs"])
    assert failed.group == "files"

    def skipped() -> tuple[str, list[str]]:
        raise Skip("no signature")

    assert (run_check("sig", skipped).status, run_check("sig", skipped).message) == ("skipped", "no signature")

    def broken() -> tuple[str, list[str]]:
        return {}["x"]  # type: ignore[no-any-return]

    crashed = run_check("x.y", broken)
    assert crashed.status == "failed" and crashed.message == "could not be checked: KeyError: 'x'"


def test_first_difference() -> None:
    assert first_difference({"a": [1, 2.0]}, {"a": [1, 2]}) is None  # canonical: 2.0 is 2
    assert first_difference({"a": [1, 2]}, {"a": [1, 3]}) == "$.a[1]: recorded 2, got 3"
    assert first_difference({"a": 1}, {"a": 1, "b": "x"}) == "$.b: not recorded, got 'x'"
    assert first_difference({"a": 1, "b": 2}, {"a": 1}) == "$.b: recorded 2, missing"
    assert first_difference([1, 2], [1]) == "$: recorded 2 items, got 1"


def test_short_cuts_long_values() -> None:
    assert short("x") == "'x'" and short({"b": 1, "a": 2}) == '{"a":2,"b":1}'
    long = short(list(range(100)))
    assert len(long) == 80 and long.endswith("...")
