"""Shared pytest fixtures: the real-data folder and deterministic small problems."""
import os
import pathlib

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]


def _data_dir():
    env = os.environ.get("PUJAX_DATA")
    if env:
        return pathlib.Path(env)
    return REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def data_dir():
    """Path of the real benchmark data (PUJAX_DATA or ../shared/data); skips the test when it is missing."""
    path = _data_dir()
    if not path.is_dir():
        pytest.skip(f"real data folder not found at {path} (set PUJAX_DATA)")
    return path


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def pytest_collection_modifyitems(config, items):
    try:
        import jax

        has_gpu = any(d.platform == "gpu" for d in jax.devices())
    except Exception:  # pragma: no cover
        has_gpu = False
    skip_gpu = pytest.mark.skip(reason="needs a GPU")
    for item in items:
        if "gpu" in item.keywords and not has_gpu:
            item.add_marker(skip_gpu)
