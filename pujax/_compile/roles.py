"""The role table: what each kind of jit program of pujax is, and how XLA compiles it on each backend.

Every jit function declares its role (``@jit("kernel")``, :func:`pujax._compile.jit`); this table alone turns a
role, the backend and (for the roles with a size switch) the row count of the argument the function names as its
rows into XLA compiler options:

============ ====================================================== ===================================== =========
role         what the program is                                    XLA:CPU options                       switch
============ ====================================================== ===================================== =========
``kernel``   small, run many times in a fit: a tree level's node    classic emitters                      --
             blocks, a boosting round, a push-relabel sweep, a
             bootstrap batch, a prediction pass
``pass``     a pass over every row or (row, node) entry that        classic emitters up to ``limit``      262,144
             scatter-adds into histograms                           rows, XLA's defaults above
``loop``     runs long once per fit: an SVM solve, the neural       XLA's defaults                        --
             epochs, EM, the feature-selection search
``metric``   runs once on its input with little work per row:       classic emitters and no LLVM          16,384
             the metrics, random draws                              optimisation up to ``limit`` rows;
                                                                    classic emitters above
``setup``    runs once per fit with little work: a network's        no LLVM optimisation                  --
             initial weights
============ ====================================================== ===================================== =========

Why (measured in ``benchmarks/results/latency.md``): XLA:CPU's classic emitters compile a small program faster
than its fusion emitters and run most programs as fast, but run scatter-adds slower (hence ``pass``'s switch to the
defaults on large inputs); without LLVM optimisation a program that does little work compiles faster and runs
slower on large inputs (hence ``metric``'s switch).

An option set that the installed XLA does not know is left out of every role (XLA:CPU of jaxlib 0.11 and later has
no classic emitters): :func:`supported` compiles a one-line program with it once per process to find out. On GPU
and TPU every role compiles with XLA's defaults.
"""
from __future__ import annotations

import dataclasses
import functools

__all__ = ["OPTION_SETS", "ROLES", "Role", "compiler_options", "supported"]

#: Named sets of XLA compiler options the roles use.
OPTION_SETS: dict[str, dict] = {
    "classic_emitters": {"xla_cpu_use_fusion_emitters": False},
    "no_llvm_optimisation": {"xla_backend_optimization_level": 0},
}


@dataclasses.dataclass(frozen=True)
class Role:
    """A kind of jit program: its option sets on XLA:CPU, and above ``limit`` rows (if set) ``cpu_large``."""

    purpose: str
    cpu: tuple[str, ...]
    cpu_large: tuple[str, ...] = ()
    limit: int | None = None


ROLES: dict[str, Role] = {
    "kernel": Role("a small program run many times in a fit", ("classic_emitters",)),
    "pass": Role("a pass over every row or entry with scatter-adds", ("classic_emitters",), (), 1 << 18),
    "heavy": Role("does most of a fit's arithmetic", ()),
    "metric": Role("runs once on its input with little work per row", ("classic_emitters", "no_llvm_optimisation"),
                   ("classic_emitters",), 16_384),
    "setup": Role("runs once per fit with little work", ("no_llvm_optimisation",)),
}


@functools.cache
def supported(name: str) -> bool:
    """Whether the installed XLA:CPU compiles with the option set ``name`` (one uncounted compilation of a
    one-line program per process)."""
    import jax
    import numpy as np

    from pujax._compile.counter import uncounted

    try:
        cpu = jax.devices("cpu")[0]
    except RuntimeError:  # no CPU backend: nothing runs there
        return False
    x = jax.device_put(np.float32(1.0), cpu)
    try:
        with uncounted():
            jax.jit(lambda v: v + 1.0, compiler_options=OPTION_SETS[name]).lower(x).compile()
    except Exception:  # XLA raises its own (private) error type for an unknown option
        return False
    return True


@functools.cache
def _merged(names: tuple[str, ...]) -> tuple:
    merged: dict = {}
    for name in names:
        if supported(name):
            merged.update(OPTION_SETS[name])
    return tuple(sorted(merged.items()))


def compiler_options(role: Role, platform: str, rows: int | None = None) -> tuple:
    """XLA options (sorted ``(name, value)`` pairs) of a program of ``role`` on ``platform`` called with ``rows``
    rows in the argument it names (None: no such argument)."""
    if platform != "cpu":
        return ()
    large = role.limit is not None and rows is not None and rows > role.limit
    return _merged(role.cpu_large if large else role.cpu)
