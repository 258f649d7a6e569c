"""How pujax compiles (private; users call :mod:`pujax.compilation`).

* **Declared roles.** Every jit function of pujax is made by :func:`jit` and says what it is: ``@jit("kernel")``
  for a small program run many times in a fit, ``"pass"`` for a pass over every row with scatter-adds, ``"loop"``
  for a program that runs long once per fit, ``"metric"`` for a metric or random draw, ``"setup"`` for a one-off
  initialisation. Where a role's options switch with size, the function names the argument that holds its rows
  (``rows="X"``). One table (:mod:`pujax._compile.roles`) maps role x backend (x rows) to XLA compiler options;
  nothing else in pujax chooses compile options.
* **Buckets** (:mod:`pujax._compile.buckets`): row counts are padded to a few sizes so that new data of a similar
  size runs programs already compiled.
* **Counter** (:mod:`pujax._compile.counter`): :func:`count_compilations`, for tests and benchmarks.
* **Cache** (:mod:`pujax._compile.store`): :func:`enable_compilation_cache` switches on JAX's persistent cache and
  pujax's executable store, which lets a later process run pujax's programs without tracing them again.
* **JAX internals** (:mod:`pujax._compile.jax_internals`): the only two reads of private JAX in pujax, each failing
  loudly when JAX changes it.
"""
from pujax._compile.buckets import bucket_size, pad_rows, rows_in_bucket
from pujax._compile.counter import CompilationCount, count_compilations
from pujax._compile.program import Program, jit
from pujax._compile.store import enable_compilation_cache

__all__ = ["jit", "Program", "bucket_size", "pad_rows", "rows_in_bucket", "count_compilations",
           "CompilationCount", "enable_compilation_cache"]
