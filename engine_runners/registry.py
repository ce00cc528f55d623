"""Which engines exist and how they are configured (by the operator, never by a caller)."""

from __future__ import annotations

from engine_runners.base import EngineRunner
from engine_runners.python_sim import PythonSimRunner
from engine_runners.ue5 import UE5Runner
from engine_runners.unity import UnityRunner


class UnknownEngineError(ValueError):
    pass


def runner_names() -> list[str]:
    return list(_factories())


def _factories() -> dict[str, type]:
    return {"python-sim": PythonSimRunner, "unity": UnityRunner, "ue5": UE5Runner}


def get_runner(name: str) -> EngineRunner:
    factories = _factories()
    if name not in factories:
        raise UnknownEngineError(f"unknown engine {name!r}; available: {', '.join(factories)}")
    return factories[name]()


def all_runners() -> list[EngineRunner]:
    return [factory() for factory in _factories().values()]


def unavailable_reason(name: str) -> str | None:
    """Why engine ``name`` cannot run on this machine (``None`` when it can). One message for
    every command that checks before spending anything (``gcv run``, ``gcv batch``)."""
    status = get_runner(name).check()
    if status.status == "available":
        return None
    return f"engine {name} is {status.status}: {status.reason}"
