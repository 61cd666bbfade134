"""Shared setup: each test's data folder starts with the sample corpus already indexed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.sample_index import seed_sample_index


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return seed_sample_index(tmp_path / "data")
