"""Fixtures for the sources tests: sample paths and the sample definitions."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"


def _load_sample_definitions() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_samples", SAMPLES / "make_samples.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def samples_def() -> ModuleType:
    return _load_sample_definitions()


@pytest.fixture(scope="session")
def samples_dir() -> Path:
    return SAMPLES
