"""MNIST and CIFAR-10 loaders (raw pixel values as float32 features, official train/test splits)."""
from __future__ import annotations

import io
import pathlib
import re

import numpy as np

from ._common import cache_file, finish, load_cache, save_cache, split_rows, tar_files

MNIST_KEYS = ("x_train", "y_train", "x_test", "y_test")


def _mnist_digits(path: pathlib.Path, split: str):
    with np.load(path, allow_pickle=False) as z:
        missing = [k for k in MNIST_KEYS if k not in z.files]
        if missing:
            raise ValueError(f"{path}: missing arrays {missing}; expected the keys {list(MNIST_KEYS)}.")
        parts = []
        if split in ("train", "all"):
            parts.append((z["x_train"], z["y_train"]))
        if split in ("test", "all"):
            parts.append((z["x_test"], z["y_test"]))
    X = np.concatenate([p[0].reshape(p[0].shape[0], -1) for p in parts])
    digits = np.concatenate([p[1].reshape(-1) for p in parts]).astype(np.int64)
    if X.shape[1] != 784:
        raise ValueError(f"{path}: images have {X.shape[1]} pixels, expected 28 x 28 = 784.")
    return X, digits


def load_mnist(path: pathlib.Path, split: str = "all"):
    """MNIST, 784 raw pixel values (float32 in 0..255, not divided by 255), positive = even digits 0, 2, 4, 6, 8 (as
    in nnPU, PU ET and Ada-PU). ``all`` = the 60,000 training images followed by the 10,000 test images."""
    X, digits = _mnist_digits(path, split)
    return finish(X, digits % 2 == 0)


def load_mnist_odd(path: pathlib.Path, split: str = "all"):
    """MNIST with positive = odd digits 1, 3, 5, 7, 9 (the 2-HNC convention); features as in :func:`load_mnist`."""
    X, digits = _mnist_digits(path, split)
    return finish(X, digits % 2 == 1)


CIFAR10_CLASSES = ("airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck")
CIFAR10_VEHICLES = ("airplane", "automobile", "ship", "truck")
_CIFAR_MEMBER = re.compile(r"(?:^|/)(train|test)/([a-z]+)/(\d+)\.(?:jpe?g|png)$", re.IGNORECASE)
CIFAR10_CACHE_VERSION = "cifar10-jpeg-v1"


def _import_pil():
    try:
        from PIL import Image
    except ImportError as exc:
        raise ImportError(
            "Loading 'cifar10' decodes JPEG images and needs Pillow: pip install pillow "
            "(it is part of the 'bench' extra: pip install 'pujax[bench]')."
        ) from exc
    return Image


def decode_cifar10_tar(path: pathlib.Path):
    """Decode every ``train|test/<class>/<n>.jpg`` of the archive into uint8 ``(N, 32, 32, 3)`` images.

    Returns ``(images, labels, is_test)`` ordered train first, then test; inside a split by class (CIFAR-10 order)
    and then by the file number. ``labels`` are the CIFAR-10 class indices.
    """
    Image = _import_pil()
    class_index = {c: i for i, c in enumerate(CIFAR10_CLASSES)}
    found = []
    for m, name, data in tar_files(path, _CIFAR_MEMBER):
        split, cls, num = m.group(1).lower(), m.group(2).lower(), int(m.group(3))
        if cls not in class_index:
            raise ValueError(f"{path}: unknown CIFAR-10 class folder {cls!r} in {name!r}.")
        with Image.open(io.BytesIO(data)) as im:
            arr = np.asarray(im.convert("RGB"), dtype=np.uint8)
        if arr.shape != (32, 32, 3):
            raise ValueError(f"{path}: {name} decodes to shape {arr.shape}, expected (32, 32, 3).")
        found.append((split == "test", class_index[cls], num, arr))
    if not found:
        raise ValueError(f"{path}: no train/<class>/<n>.jpg or test/<class>/<n>.jpg images found in the archive.")
    found.sort(key=lambda t: t[:3])
    images = np.stack([t[3] for t in found])
    labels = np.asarray([t[1] for t in found], dtype=np.int8)
    is_test = np.asarray([t[0] for t in found], dtype=bool)
    return images, labels, is_test


def cifar10_arrays(path: pathlib.Path):
    """Decoded CIFAR-10 arrays, from the cache (``$PUJAX_CACHE`` or ``~/.cache/pujax``) when present."""
    cpath = cache_file("cifar10", path, CIFAR10_CACHE_VERSION)
    cached = load_cache(cpath)
    if cached is not None and {"images", "labels", "is_test"} <= set(cached):
        return cached["images"], cached["labels"], cached["is_test"]
    images, labels, is_test = decode_cifar10_tar(path)
    save_cache(cpath, images=images, labels=labels, is_test=is_test)
    return images, labels, is_test


def load_cifar10(path: pathlib.Path, split: str = "all"):
    """CIFAR-10 from a tar.gz of JPEG files (``train/<class>/<n>.jpg``, ``test/<class>/<n>.jpg``).

    Features: the 3072 raw RGB values (float32 in 0..255), flattened in height x width x channel order
    (``X.reshape(-1, 32, 32, 3)`` restores NHWC images). Positive = vehicles (airplane, automobile, ship, truck), as in
    nnPU, PU ET and Ada-PU. Rows are ordered by class inside each split: shuffle before taking subsets. The decoded
    images are cached as ``.npz``; the JPEG copy is lossy (~q75), so pixels differ slightly from the binary release.
    """
    images, labels, is_test = cifar10_arrays(path)
    keep = split_rows(is_test, split)
    vehicles = np.asarray([CIFAR10_CLASSES.index(c) for c in CIFAR10_VEHICLES])
    X = images[keep].reshape(int(keep.sum()), -1)
    return finish(X, np.isin(labels[keep], vehicles))
