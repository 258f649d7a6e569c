"""Documentation: the API reference builds without a warning, docs/sklearn.md is current, docstrings state facts."""
import ast
import importlib.util
import pathlib
import re
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]


def _sklearn_table_script():
    """docs/_gen_sklearn_table.py as a module (it lists the public estimator classes)."""
    spec = importlib.util.spec_from_file_location("_gen_sklearn_table", REPO / "docs" / "_gen_sklearn_table.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    return gen


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


def test_sklearn_page_lists_the_declared_expected_failures():
    gen = _sklearn_table_script()
    page = (REPO / "docs" / "sklearn.md").read_text()
    assert gen.render(page) == page, "docs/sklearn.md is out of date: run python docs/_gen_sklearn_table.py"
    for cls in gen.public_estimator_classes():
        assert f"`{cls.__name__}`" in page
        for check in getattr(cls, "_expected_failed_checks", {}):
            assert f"`{check}`" in page


_HISTORY_OR_TIMING = re.compile(
    r"\b(previously|session|we fixed|used to be)\b"
    r"|\b\d+(\.\d+)?\s?(s|ms|seconds|minutes|min|hours)\b\s(on|for|per|wall|CPU)\b"
    r"|\b\d+(\.\d+)?\s?[x×]\s(faster|slower)\b",
    re.IGNORECASE,
)


def test_docstrings_state_facts():
    """No run times or history in pujax's docstrings (measurements live in benchmarks/results/)."""
    found = []
    for path in sorted((REPO / "pujax").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node) or ""
                found += [f"{path.relative_to(REPO)}:{getattr(node, 'name', '<module>')}: {m.group(0)!r}"
                          for m in _HISTORY_OR_TIMING.finditer(doc)]
    assert not found, "docstrings with run times or history:\n" + "\n".join(found)


def test_every_estimator_docstring_has_the_numpydoc_sections():
    import inspect

    gen = _sklearn_table_script()
    missing = []
    for cls in gen.public_estimator_classes():
        doc = inspect.getdoc(cls) or ""
        takes = len(inspect.signature(cls.__init__).parameters) > 1  # an estimator without parameters lists none
        sections = ("Parameters",) * takes + ("Attributes", "References", "Examples")
        missing += [f"{cls.__name__}: {section}" for section in sections
                    if f"{section}\n{'-' * len(section)}" not in doc]
    assert not missing, "estimator docstrings without a numpydoc section:\n" + "\n".join(missing)


def test_readme_and_docs_state_facts():
    """README and docs/ carry no run times or history (history: CHANGELOG.md; figures: benchmarks/results/)."""
    found = []
    for path in [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]:
        found += [f"{path.relative_to(REPO)}: {m.group(0)!r}" for m in _HISTORY_OR_TIMING.finditer(path.read_text())]
    assert not found, "run times or history in the docs:\n" + "\n".join(found)
