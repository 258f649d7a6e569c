"""Notebooks: ``notebooks/*.py`` (jupytext percent scripts) are the source, ``notebooks/*.ipynb`` are built from them.

Rebuild a notebook after editing its script with ``jupytext --update --to ipynb notebooks/<name>.py`` (``--update``
keeps the cell ids). Nothing is executed here: the test checks that every notebook has its script, that both hold
the same cells (a jupytext round trip in each direction) and that the committed notebooks carry no large outputs.
"""
import pathlib

import pytest

jupytext = pytest.importorskip("jupytext")

NOTEBOOKS = pathlib.Path(__file__).resolve().parents[1] / "notebooks"
SCRIPTS = sorted(NOTEBOOKS.glob("*.py"))
IPYNBS = sorted(NOTEBOOKS.glob("*.ipynb"))
MAX_NOTEBOOK_BYTES = 60_000


def _cells(nb):
    return [(c.cell_type, c.source.strip("\n")) for c in nb.cells]


def test_every_notebook_has_a_script_and_back():
    assert SCRIPTS, "no notebook scripts found in notebooks/"
    assert {p.stem for p in SCRIPTS} == {p.stem for p in IPYNBS}, (
        "each notebooks/<name>.py needs notebooks/<name>.ipynb and vice versa; "
        "run: jupytext --to ipynb notebooks/<name>.py"
    )


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_notebook_in_sync_with_script(script):
    ipynb = script.with_suffix(".ipynb")
    from_script = jupytext.read(script)
    from_ipynb = jupytext.read(ipynb)
    assert _cells(from_script) == _cells(from_ipynb), (
        f"{ipynb.name} is out of date with {script.name}; "
        f"run: jupytext --update --to ipynb notebooks/{script.name}"
    )
    # the round trip through the percent format reproduces the cells (no cell lost or merged)
    again = jupytext.reads(jupytext.writes(from_ipynb, fmt="py:percent"), fmt="py:percent")
    assert _cells(again) == _cells(from_ipynb)
    assert from_ipynb.metadata.get("kernelspec", {}).get("name") == "python3"


@pytest.mark.parametrize("ipynb", IPYNBS, ids=lambda p: p.stem)
def test_notebook_outputs_small(ipynb):
    size = ipynb.stat().st_size
    assert size < MAX_NOTEBOOK_BYTES, (
        f"{ipynb.name} is {size} bytes: commit notebooks without large outputs "
        f"(jupytext --to ipynb notebooks/{ipynb.stem}.py writes none)"
    )
