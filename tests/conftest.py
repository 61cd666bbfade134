"""Setup shared by every test folder."""

from __future__ import annotations

import os

import pytest

from tests.helpers.sample_index import build_in


@pytest.fixture(scope="session", autouse=True)
def _sample_index_folder(tmp_path_factory: pytest.TempPathFactory) -> None:
    build_in(tmp_path_factory.mktemp("sample-index"))


@pytest.fixture(scope="session", autouse=True)
def _support_judge_off() -> None:
    # The recorded transcripts and scripted servers hold no support-judge calls; the tests of
    # the judge switch it on themselves.
    os.environ.setdefault("GROUNDING_JUDGE", "off")
