"""Every core module has a test named after it (issue 30 item 7).

The convention: a module is tested by a file named ``test_<module>.py`` in the tests directory
of its floor, however deep the module sits in that floor:

    gcv/<floor>/<module>.py                       -> tests/<floor>/test_<module>.py
    gcv/<floor>/<sub>/.../<module>.py             -> tests/<floor>/test_<module>.py
        (gcv/agents/offline_requirement/handlers/keep.py -> tests/agents/test_keep.py)
    engine_runners/<module>.py                    -> tests/engine_runners/test_<module>.py
    gcv/<module>.py                               -> tests/test_<module>.py

so two modules of one floor never share a stem (checked below). ``__init__.py`` files are not
counted. A module with nothing of its own to test (constants only, a pure re-export) is listed
in ``EXEMPT`` with the reason. A new core module comes with its test (or an exemption): the
check below fails naming it and the test file it expects.

``python -m tests.test_test_names`` prints the figures per floor (with PYTHONPATH at the tree).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"

# the floors this check holds to the convention (the interfaces, gcv/cli, gcv/console and
# gcv/service, are counted in the figures but not enforced)
CORE = ("contract", "sim", "store", "workflow", "repair", "evaluation", "validation", "analysis", "simio",
        "batch", "evidence", "agents", "engine_runners")

EXEMPT: dict[str, str] = {
    "gcv/contract/environment.py": "one constant, the name of an environment variable",
    "gcv/contract/intents.py": "the intent names as constants (its one invariant is an assert at import)",
    "gcv/contract/policies.py": "the fairness-policy names and their words, constants only",
}


def floor_of(module: Path) -> str:
    """The floor of a module path relative to the repository ('(top)' for gcv/<module>.py)."""
    parts = module.parts
    if parts[0] == "engine_runners":
        return "engine_runners"
    return "(top)" if len(parts) == 2 else parts[1]


def expected_test(module: Path) -> Path:
    """tests/<floor>/test_<module>.py (tests/test_<module>.py for the top-level gcv modules)."""
    floor = floor_of(module)
    folder = TESTS if floor == "(top)" else TESTS / floor
    return folder / f"test_{module.stem}.py"



def modules() -> list[Path]:
    """Every module of gcv/ and engine_runners/ but the packages' __init__.py, relative to the repo."""
    found = [p.relative_to(REPO) for top in ("gcv", "engine_runners") for p in (REPO / top).rglob("*.py")]
    return sorted(p for p in found if p.name != "__init__.py" and "__pycache__" not in p.parts)


def figures() -> dict[str, tuple[int, int]]:
    """Per floor: (modules with a test by name, modules)."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for module in modules():
        c = counts[floor_of(module)]
        c[1] += 1
        c[0] += expected_test(module).is_file()
    return {floor: (c[0], c[1]) for floor, c in sorted(counts.items())}


def test_the_convention_maps_modules_as_documented() -> None:
    assert expected_test(Path("gcv/sim/engine.py")) == TESTS / "sim" / "test_engine.py"
    assert expected_test(Path("gcv/agents/offline_requirement/handlers/keep.py")) == TESTS / "agents" / "test_keep.py"
    assert expected_test(Path("engine_runners/base.py")) == TESTS / "engine_runners" / "test_base.py"
    assert expected_test(Path("gcv/svg_chart.py")) == TESTS / "test_svg_chart.py"
    assert len(modules()) > 150 and Path("gcv/workflow/loop.py") in modules()


def test_no_two_modules_of_a_floor_share_a_test_name() -> None:
    by_test: dict[Path, list[str]] = defaultdict(list)
    for module in modules():
        by_test[expected_test(module)].append(str(module))
    shared = {str(t.relative_to(REPO)): ms for t, ms in by_test.items() if len(ms) > 1}
    assert not shared, f"modules whose tests would share one file: {shared}"


def test_every_core_module_has_a_test_named_after_it() -> None:
    core = [m for m in modules() if floor_of(m) in CORE]
    missing = [str(m) for m in core
               if not expected_test(m).is_file() and str(m) not in EXEMPT]
    assert not missing, ("core modules with neither a test named after them nor an EXEMPT entry "
                         "(tests/test_test_names.py documents the convention):\n  "
                         + "\n  ".join(f"{m} -> {expected_test(Path(m)).relative_to(REPO)}" for m in missing))


def test_the_exemptions_are_current() -> None:
    names = {str(m) for m in modules()}
    assert all(reason.strip() for reason in EXEMPT.values()), "every exemption gives its reason"
    stale = sorted(m for m in EXEMPT if m not in names)
    assert not stale, f"exempt modules that no longer exist: {stale}"
    tested = sorted(m for m in EXEMPT if expected_test(Path(m)).is_file())
    assert not tested, f"exempt modules that now have their test (take them off the list): {tested}"
    assert all(floor_of(Path(m)) in CORE for m in EXEMPT)


if __name__ == "__main__":
    total = [0, 0]
    for floor, (named, count) in figures().items():
        mark = "core" if floor in CORE else ""
        print(f"{floor:15} {named:3} / {count:3}  {mark}")
        total[0] += named
        total[1] += count
    print(f"{'total':15} {total[0]:3} / {total[1]:3}")
