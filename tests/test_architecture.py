"""The shape of the code base: no import cycle inside ``pujax``, small modules and functions, an annotated public
API."""
import ast
import importlib
import inspect
import pathlib

from sklearn.base import BaseEstimator

PKG = pathlib.Path(__file__).resolve().parents[1] / "pujax"


def _modules():
    out = {}
    for path in PKG.rglob("*.py"):
        parts = path.relative_to(PKG.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(name, path, modules):
    """Every ``pujax`` module imported anywhere in the file (module level or inside functions)."""
    tree = ast.parse(path.read_text())
    is_pkg = path.name == "__init__.py"
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = name.split(".")
                parts = parts[: len(parts) - node.level + (1 if is_pkg else 0)]
                base = ".".join(parts + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        else:
            continue
        found.update(t for t in targets if t in modules and t != name)
    return found


def test_no_import_cycle():
    modules = _modules()
    graph = {m: _imports(m, p, modules) for m, p in modules.items()}
    state, stack = {}, []

    def visit(m):
        state[m] = "open"
        stack.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == "open":
                cycle = stack[stack.index(n):] + [n]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if n not in state:
                visit(n)
        stack.pop()
        state[m] = "done"

    for m in sorted(graph):
        if m not in state:
            visit(m)


def test_modules_and_functions_are_small():
    """No module of pujax over 600 lines, no function over 80 (issue 20's limits)."""
    long_modules, long_functions = [], []
    for path in PKG.rglob("*.py"):
        text = path.read_text()
        if text.count("\n") > 600:
            long_modules.append(str(path.relative_to(PKG.parent)))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno >= 80:
                long_functions.append(f"{path.relative_to(PKG.parent)}:{node.name}")
    assert not long_modules, long_modules
    assert not long_functions, long_functions


ESTIMATOR_METHODS = ("fit", "predict", "predict_proba", "decision_function", "score", "transform", "fit_transform")


def _public_callables():
    """Every function in the ``__all__`` of ``pujax`` and its submodules, the public methods of the exported
    classes, and the fit / predict / ... methods of the exported estimators (only code defined in pujax)."""
    import pujax

    found = {}

    def add(qual, fn, method):
        fn = inspect.unwrap(fn)
        if inspect.isfunction(fn) and (fn.__module__ or "").startswith("pujax"):
            found.setdefault(id(fn), (qual, fn, method))

    for sub in pujax._SUBMODULES:
        module = importlib.import_module(f"pujax.{sub}")
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            qual = f"pujax.{sub}.{name}"
            if inspect.ismodule(obj):
                continue
            if not inspect.isclass(obj):
                if callable(obj):
                    add(qual, obj, False)
                continue
            if issubclass(obj, BaseEstimator):
                names = [m for m in ESTIMATOR_METHODS if hasattr(obj, m)]
            else:
                names = [m for m in dir(obj) if not m.startswith("_") or m == "__call__"]
            for m in names:
                attr = inspect.getattr_static(obj, m, None)
                if isinstance(attr, (staticmethod, classmethod)):
                    attr = attr.__func__
                if callable(attr) and not isinstance(attr, (property, type)):
                    add(f"{qual}.{m}", attr, True)
    return list(found.values())


def test_public_api_is_annotated():
    """Every parameter (``*args`` / ``**kwargs`` included; ``self`` / ``cls`` of methods excepted) and the return
    value of every public function and estimator method carry a type annotation."""
    callables = _public_callables()
    assert len(callables) > 200  # the walk reaches the whole public API
    missing = []
    for qual, fn, method in callables:
        sig = inspect.signature(fn)
        params = list(sig.parameters.values())
        bare = [p.name for i, p in enumerate(params) if p.annotation is inspect.Parameter.empty
                and not (method and i == 0 and p.name in ("self", "cls"))]
        if sig.return_annotation is inspect.Signature.empty:
            bare.append("return")
        if bare:
            missing.append(f"{qual} ({fn.__module__}): {', '.join(bare)}")
    assert not missing, "annotate these public parameters / returns:\n" + "\n".join(sorted(missing))


def test_jit_functions_declare_their_role_and_compile_options_live_in_one_place():
    """Every jit function of pujax is made by pujax._compile.jit with a declared role, never by jax.jit directly;
    compiler options appear only in the role table, and private JAX (jax._src) only in pujax._compile.jax_internals."""
    import re

    jit = re.compile(r"@jax\.jit\b|jax\.jit\(|partial\(jax\.jit\b")
    options = re.compile(r"compiler_options|xla_[a-z_]+")
    private = re.compile(r"jax\._src|from jax import _src")
    compile_pkg = PKG / "_compile"
    found = []
    for path in PKG.rglob("*.py"):
        for i, line in enumerate(path.read_text().splitlines(), 1):
            where = f"{path.relative_to(PKG.parent)}:{i}"
            if jit.search(line) and path.parent != compile_pkg:
                found.append(f"{where} jax.jit")
            if options.search(line) and path.parent != compile_pkg:
                found.append(f"{where} compiler options")
            if private.search(line) and path != compile_pkg / "jax_internals.py":
                found.append(f"{where} private JAX")
    assert not found, found
