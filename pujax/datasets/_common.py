"""File location, error messages, small readers and the on-disk cache shared by the dataset loaders.

Only the standard library and numpy are imported here, so that ``import pujax.datasets`` stays light.
"""
from __future__ import annotations

import contextlib
import csv
import gzip
import hashlib
import os
import pathlib
import re
import tarfile
import tempfile
from collections.abc import Iterator

import numpy as np

ENV_DATA = "PUJAX_DATA"
ENV_CACHE = "PUJAX_CACHE"
BUNDLED_DIR = pathlib.Path(__file__).resolve().parent / "data"


def resolve_data_dir(data_dir) -> pathlib.Path | None:
    """``data_dir`` if given, else the ``PUJAX_DATA`` environment variable, else ``None``."""
    if data_dir is not None:
        if not isinstance(data_dir, (str, os.PathLike)):
            raise TypeError(
                f"data_dir must be a path (str or os.PathLike) or None, got {type(data_dir).__name__}."
            )
        return pathlib.Path(data_dir).expanduser()
    env = os.environ.get(ENV_DATA)
    if env:
        return pathlib.Path(env).expanduser()
    return None


def locate(name: str, relpaths, data_dir, how_to_get: str, bundled: str | None = None) -> pathlib.Path:
    """Return the first existing file among ``relpaths`` under the data directory.

    ``relpaths`` are alternatives, relative to the data directory (the first one is the documented layout). For a
    set shipped inside the package (``bundled`` = file name under ``pujax/datasets/data``) the bundled copy is used
    when no data directory is configured or when the file is not in it. Otherwise a ``FileNotFoundError`` names the
    file, the path that was expected and where to get it.
    """
    root = resolve_data_dir(data_dir)
    if root is not None:
        for rel in relpaths:
            candidate = root / rel
            if candidate.is_file():
                return candidate
    if bundled is not None:
        candidate = BUNDLED_DIR / bundled
        if candidate.is_file():
            return candidate
    main = relpaths[0]
    fname = pathlib.PurePosixPath(main).name
    alternatives = ""
    if len(relpaths) > 1:
        alternatives = " (or " + ", ".join(str(r) for r in relpaths[1:]) + ")"
    if root is None:
        where = (
            f"no data directory is configured: pass data_dir=... to pujax.datasets.load or set the {ENV_DATA} "
            f"environment variable; the file is expected at <data_dir>/{main}{alternatives}"
        )
    else:
        where = f"expected at {root / main}{alternatives}"
    raise FileNotFoundError(
        f"Dataset {name!r} needs the file {fname!r}, which was not found: {where}. "
        f"How to get it: {how_to_get} Lay it out as <data_dir>/{main}."
    )


# ----------------------------------------------------------------------------------------------------------- readers
def read_delimited(path: pathlib.Path, delimiter: str, encoding: str = "utf-8-sig"):
    """Read a (optionally gzipped) delimited text file into ``(header, rows)`` with string cells."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding=encoding, newline="") as fh:
        reader = csv.reader(fh, delimiter=delimiter)
        header = next(reader)
        rows = [row for row in reader if row]
    return header, rows


def read_numeric_table(path: pathlib.Path, delimiter: str, encoding: str = "utf-8-sig"):
    """Read a (optionally gzipped) all-numeric delimited file with one header line: ``(header, float64 array)``."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding=encoding, newline="") as fh:
        header = next(csv.reader([fh.readline()], delimiter=delimiter))
        data = np.loadtxt(fh, delimiter=delimiter, dtype=np.float64, ndmin=2)
    if data.shape[1] != len(header):
        raise ValueError(f"{path}: header has {len(header)} columns but the rows have {data.shape[1]}.")
    return header, data


def read_pmlb(path: pathlib.Path):
    """Read a PMLB ``.tsv.gz`` file: returns ``(feature_names, X float64, target int64)``.

    PMLB files are tab separated with a header row and a ``target`` column; every cell is numeric.
    """
    header, data = read_numeric_table(path, "\t")
    if "target" not in header:
        raise ValueError(f"{path} has no 'target' column; is it a PMLB .tsv.gz file?")
    t = header.index("target")
    features = [h for i, h in enumerate(header) if i != t]
    X = np.delete(data, t, axis=1)
    target = data[:, t]
    if not np.all(target == np.round(target)):
        raise ValueError(f"{path}: the 'target' column is not integer-valued.")
    return features, X, target.astype(np.int64)


def one_hot(values) -> tuple[np.ndarray, list]:
    """Indicator columns of a 1-D array of category values, one per distinct value in sorted order."""
    values = np.asarray(values)
    cats, inverse = np.unique(values, return_inverse=True)
    out = np.zeros((values.shape[0], cats.shape[0]), dtype=np.float32)
    out[np.arange(values.shape[0]), inverse.reshape(-1)] = 1.0
    return out, cats.tolist()


def tar_files(path: pathlib.Path, pattern: re.Pattern) -> Iterator[tuple[re.Match, str, bytes]]:
    """``(match, name, content)`` of every regular file of a tar archive whose name ``pattern`` matches, read
    directly from the archive (no extraction)."""
    with tarfile.open(path, mode="r:*") as tar:
        for member in tar:
            m = pattern.search(member.name) if member.isfile() else None
            if m is not None:
                yield m, member.name, tar.extractfile(member).read()


def split_rows(is_test: np.ndarray, split: str) -> np.ndarray:
    """Boolean row mask of ``split``: ``"train"`` (not ``is_test``), ``"test"`` (``is_test``) or ``"all"``."""
    if split == "train":
        return ~is_test
    if split == "test":
        return is_test
    return np.ones(is_test.shape[0], dtype=bool)


def finish(X, y):
    """Return ``(X, y)`` as C-contiguous float32 2-D and int32 1-D arrays, checking they are clean."""
    X = np.ascontiguousarray(X, dtype=np.float32)
    y = np.ascontiguousarray(y, dtype=np.int32)
    if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:  # pragma: no cover - internal invariant
        raise AssertionError(f"loader produced X{X.shape}, y{y.shape}")
    if not np.isfinite(X).all():  # pragma: no cover - internal invariant
        raise AssertionError("loader produced non-finite features")
    return X, y


# ------------------------------------------------------------------------------------------------------------- cache
def cache_dir() -> pathlib.Path:
    """Cache folder: ``$PUJAX_CACHE`` if set, else ``~/.cache/pujax``."""
    env = os.environ.get(ENV_CACHE)
    if env:
        return pathlib.Path(env).expanduser()
    return pathlib.Path.home() / ".cache" / "pujax"


def cache_file(tag: str, source: pathlib.Path, version: str) -> pathlib.Path:
    """Cache path for data derived from ``source``; the name changes when the source file or the recipe changes."""
    st = source.stat()
    key = f"{source.resolve()}|{st.st_size}|{st.st_mtime_ns}|{version}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return cache_dir() / f"{tag}-{digest}.npz"


def load_cache(path: pathlib.Path):
    """Arrays of a cache file as a dict, or ``None`` if it is absent or unreadable."""
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except Exception:  # a truncated or foreign file: recompute
        return None


def save_cache(path: pathlib.Path, **arrays) -> None:
    """Write arrays atomically; a read-only or full cache folder is not an error (the data is just recomputed)."""
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.stem, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, **arrays)
        os.replace(tmp, path)
    except OSError:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
