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


_MAPS_LIMIT = 30_000
"""Memory mappings of a test process above which JAX's caches are cleared after a test. Each XLA:CPU executable
maps its code in a few regions (3-4 for a small program, more for large ones) until it is freed, and Linux refuses
mappings beyond ``vm.max_map_count`` (65,530 by default): a worker that compiles the suite's thousands of programs
would then die in XLA (SIGABRT / SIGSEGV or "Failed to materialize symbols" while compiling)."""


@pytest.fixture(autouse=True)
def _bounded_executables():
    yield
    try:
        with open("/proc/self/maps") as f:
            n = sum(1 for _ in f)
    except OSError:  # pragma: no cover - not Linux
        return
    if n > _MAPS_LIMIT:
        import gc

        import jax

        jax.clear_caches()
        gc.collect()


# The longest tests (each a minute or more on 2 cores) start first, so that with pytest-xdist's two workers none of
# them is left running alone at the end of the suite.
LONG_FIRST = (
    "test_devices.py::test_methods_on_several_devices_and_two_processes",
    "test_fuzz.py::test_clear_error_or_valid_prediction",
    "test_neural.py::test_cnn_runs_through_same_api",
)


def _conformance_beyond_core(item):
    if "test_scikit_learn_estimator_checks[" not in item.nodeid:
        return False
    from test_sklearn_conformance import CORE_ONLY, core_checks

    owner = next((name for name in CORE_ONLY if f"[{name}(" in item.nodeid), None)
    if owner is None:
        return False
    return not any(f"-{name}" in item.nodeid or f"{name}(" in item.nodeid for name in core_checks(owner))


@pytest.hookimpl(tryfirst=True)  # before pytest's own -m selection
def pytest_collection_modifyitems(config, items):
    for item in items:
        if _conformance_beyond_core(item):
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: not any(name in item.nodeid for name in LONG_FIRST))  # stable: the rest keep order
    try:
        import jax

        has_gpu = any(d.platform == "gpu" for d in jax.devices())
    except Exception:  # pragma: no cover
        has_gpu = False
    skip_gpu = pytest.mark.skip(reason="needs a GPU")
    for item in items:
        if "gpu" in item.keywords and not has_gpu:
            item.add_marker(skip_gpu)
