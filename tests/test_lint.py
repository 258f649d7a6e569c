"""Lint: ``ruff check`` (configured in pyproject.toml) is clean on the library, tests, benchmarks and notebooks."""
import importlib.util
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]
PATHS = ["pujax", "tests", "benchmarks", "notebooks"]


@pytest.mark.skipif(importlib.util.find_spec("ruff") is None, reason="ruff is not installed (pip install -e '.[test]')")
def test_ruff_check_clean():
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", *PATHS], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, (
        f"ruff check found problems (fix them, or run `ruff check --fix`):\n{proc.stdout}{proc.stderr}")
