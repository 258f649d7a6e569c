"""The API reference (mkdocs + mkdocstrings, numpy docstrings) builds without a warning."""
import importlib.util
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("mkdocstrings") is None,
                    reason="mkdocs / mkdocstrings are not installed (pip install -e '.[docs]')")
def test_mkdocs_build_strict(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(REPO / "mkdocs.yml"),
         "--site-dir", str(tmp_path / "site")],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}"
    api = (tmp_path / "site" / "api" / "trees" / "index.html").read_text()
    assert 'id="pujax.trees.PUExtraTreesClassifier"' in api  # the reference is generated from the docstrings
