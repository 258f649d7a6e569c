"""Size buckets: a row count ``n`` is padded (with zero-weight or masked rows) to :func:`bucket_size` ``(n)``, the
smallest size ``ceil8(2^(k / per_octave)) >= n``, so that data of a similar size runs the same compiled program
(505 and 450 rows both go to 512; at most 25 % padding with ``per_octave=4``, under 20 % above 1,000 rows)."""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["bucket_size", "pad_rows", "rows_in_bucket"]


def bucket_size(n: int, minimum: int = 8, per_octave: int = 4) -> int:
    """Smallest bucket ``>= n``: ``2^(k / per_octave)`` rounded up to a multiple of 8 (and at least ``minimum``)."""
    n = max(int(n), int(minimum), 1)
    k = math.ceil(per_octave * math.log2(n) - 1e-9)
    while True:
        size = -(-int(math.ceil(2 ** (k / per_octave) - 1e-9)) // 8) * 8
        if size >= n:
            return size
        k += 1


def pad_rows(size: int, *arrays: ArrayLike, fill: object = 0) -> np.ndarray | tuple[np.ndarray, ...]:
    """Pad every array along axis 0 to ``size`` rows.

    Parameters
    ----------
    size : int
        Rows after padding (at least the rows of every array).
    *arrays : array-like
        Arrays with the same meaning of axis 0 (rows).
    fill : scalar, "first_row" or sequence of those, default=0
        Value of the padding rows: a scalar, or ``"first_row"`` for copies of the array's row 0 (padding that
        stays inside the data's range); one value for every array, or one per array.

    Returns
    -------
    ndarray or tuple of ndarray
        The padded array (one array given) or a tuple of them, with the input dtypes.

    Examples
    --------
    >>> from pujax.compilation import pad_rows
    >>> X, w = pad_rows(4, [[1.0, 2.0], [3.0, 4.0]], [1.0, 1.0], fill=["first_row", 0.0])
    >>> X.tolist(), w.tolist()
    ([[1.0, 2.0], [3.0, 4.0], [1.0, 2.0], [1.0, 2.0]], [1.0, 1.0, 0.0, 0.0])
    """
    fills = fill if isinstance(fill, (list, tuple)) else [fill] * len(arrays)
    out = []
    for a, v in zip(arrays, fills):
        a = np.asarray(a)
        extra = size - a.shape[0]
        if extra < 0:
            raise ValueError(f"cannot pad {a.shape[0]} rows down to {size}.")
        if extra and isinstance(v, str) and v == "first_row":
            if a.shape[0] == 0:
                raise ValueError('fill="first_row" needs at least one row to copy.')
            a = np.concatenate([a, np.repeat(a[:1], extra, axis=0)], axis=0)
        elif extra:
            a = np.concatenate([a, np.full((extra,) + a.shape[1:], v, dtype=a.dtype)], axis=0)
        out.append(a)
    return out[0] if len(out) == 1 else tuple(out)


def rows_in_bucket(X: ArrayLike) -> tuple[np.ndarray, int]:
    """``(X padded with zero rows to bucket_size(n), n)``: predict on any batch size with one program per bucket;
    slice the result back to the first ``n`` rows."""
    n = int(np.shape(X)[0])
    return pad_rows(bucket_size(n), X), n
