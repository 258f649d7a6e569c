"""The shape of the code base: no import cycle inside ``pujax``, small modules and functions."""
import ast
import pathlib

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
