"""Compilation for users: size buckets, JAX's persistent compilation cache with pujax's executable store, and a
counter of XLA compilations.

Every jit program of pujax sees array shapes from a small geometric set: a row count ``n`` is padded (with
zero-weight or masked rows) to :func:`bucket_size` ``(n)``, so data of a similar size (505 and 450 rows both go to
512) runs the same program, and a refit on data in the same bucket compiles nothing. Compiled programs can outlive
the process: :func:`enable_compilation_cache`. How pujax chooses XLA's options for each of its programs is described
in ``docs/architecture.md`` (the role table of the private package ``pujax._compile``).
"""
from __future__ import annotations

from pujax._compile import (
    CompilationCount,
    bucket_size,
    count_compilations,
    enable_compilation_cache,
    pad_rows,
    rows_in_bucket,
)

__all__ = ["bucket_size", "pad_rows", "rows_in_bucket", "enable_compilation_cache", "count_compilations",
           "CompilationCount"]
