"""Every pydantic model of GCV derives from GcvModel, so every one is built on first use."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel

import engine_runners
import gcv
from gcv.contract.base import GcvModel


def _models() -> list[type[BaseModel]]:
    found: dict[str, type[BaseModel]] = {}
    for package in (gcv, engine_runners):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            module = importlib.import_module(info.name)
            for _, obj in inspect.getmembers(module, inspect.isclass):
                if issubclass(obj, BaseModel) and obj.__module__ == module.__name__:
                    found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return [found[k] for k in sorted(found)]


MODELS = _models()


def test_the_walk_finds_the_models() -> None:
    names = {m.__name__ for m in MODELS}
    assert {"BulletHellConfig", "Telemetry", "WorkflowState", "RunRequest", "ValidationReport"} <= names
    assert len(MODELS) > 60


@pytest.mark.parametrize("model", [m for m in MODELS if m is not GcvModel], ids=lambda m: f"{m.__module__}.{m.__name__}")
def test_model_derives_from_the_deferred_base(model: type[BaseModel]) -> None:
    assert issubclass(model, GcvModel)
    # only the console's request bodies are built at once (FastAPI builds them at start-up)
    assert model.model_config.get("defer_build") is not model.__module__.startswith("gcv.console")


def test_a_model_is_built_at_its_first_use_and_then_validates() -> None:
    # a fresh interpreter: in this one other tests may already have used the model
    code = (
        "import json, pathlib\n"
        "from gcv.contract.models import BulletHellConfig\n"
        "print(BulletHellConfig.__pydantic_complete__)\n"
        "doc = json.loads(pathlib.Path('artifacts/baselines/shrine_trial.json').read_text())\n"
        "print(BulletHellConfig.model_validate(doc).phases[0].phase_id)\n"
        "print(BulletHellConfig.__pydantic_complete__)\n")
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "phase_1", "True"]
