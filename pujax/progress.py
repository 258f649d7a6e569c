"""Progress reporting for long fits (epochs, boosting rounds, forests, lambda sweeps).

``progress(total, desc, verbose)`` is a context manager with ``update(n=1)``: a tqdm bar when tqdm is installed,
otherwise a plain line rewritten on stderr; it prints nothing when ``verbose`` is false.
"""
from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

__all__ = ["progress"]


class _Silent:
    def update(self, n: int = 1) -> None:
        pass

    def set_postfix(self, **kwargs) -> None:
        pass


class _PlainBar:
    def __init__(self, total: int, desc: str, stream):
        self.total, self.desc, self.n, self.stream = total, desc, 0, stream
        self.start = time.perf_counter()
        self.postfix = ""
        self._draw()

    def _draw(self) -> None:
        elapsed = time.perf_counter() - self.start
        self.stream.write(f"\r{self.desc}: {self.n}/{self.total} [{elapsed:.1f}s] {self.postfix}")
        self.stream.flush()

    def update(self, n: int = 1) -> None:
        self.n += n
        self._draw()

    def set_postfix(self, **kwargs) -> None:
        self.postfix = " ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in kwargs.items())
        self._draw()

    def close(self) -> None:
        self.stream.write("\n")
        self.stream.flush()


@contextmanager
def progress(total: int, desc: str = "", verbose: bool = False) -> Iterator[Any]:
    """Yield a progress bar object with ``update(n=1)`` and ``set_postfix(**values)``."""
    if not verbose:
        yield _Silent()
        return
    try:
        from tqdm.auto import tqdm
    except ImportError:
        bar = _PlainBar(total, desc, sys.stderr)
        try:
            yield bar
        finally:
            bar.close()
        return
    bar = tqdm(total=total, desc=desc)
    try:
        yield bar
    finally:
        bar.close()
