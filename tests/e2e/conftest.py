"""Shared setup: the sample corpus indexed once per test session."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.harness import build_sample_index, seed_data_dir


@pytest.fixture(scope="session")
def sample_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample_index(tmp_path_factory.mktemp("sample-index"))


@pytest.fixture
def data_dir(tmp_path: Path, sample_index: Path) -> Path:
    return seed_data_dir(tmp_path / "data", sample_index)
