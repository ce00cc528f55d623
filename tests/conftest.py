"""Shared fixtures. Keep this small: fixtures that only one test file needs live there."""

from __future__ import annotations

from pathlib import Path

import pytest

from gcv.contract.loading import load_config
from gcv.contract.models import BulletHellConfig

REPO_ROOT = Path(__file__).resolve().parents[1]
BASELINE_PATH = REPO_ROOT / "artifacts" / "baselines" / "shrine_trial.json"


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture
def baseline() -> BulletHellConfig:
    """The committed baseline, freshly loaded (tests may mutate it)."""
    return load_config(BASELINE_PATH)
