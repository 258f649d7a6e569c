"""Real PU-learning benchmark data sets with the papers' positive-class definitions.

>>> from pujax.datasets import load, available
>>> X, y = load("mushroom")          # bundled with pujax: works offline, no data_dir needed
>>> X, y = load("mnist", data_dir="/path/to/data", split="train")  # doctest: +SKIP

``load(name, data_dir=None, split="all")`` returns ``X`` (float32, 2-D) and ``y`` (int32 in {0, 1}, 1 = the paper's
positive class). Files are looked up under ``data_dir`` or the ``PUJAX_DATA`` environment variable, in the layout
listed by ``available()[name]["file"]``; a missing file raises ``FileNotFoundError`` saying where to get it.
``breast_cancer`` comes from scikit-learn; ``mushroom`` and ``spambase`` are bundled. Slow derived arrays (decoded
CIFAR-10 images, 20 Newsgroups document vectors) are cached as ``.npz`` in ``PUJAX_CACHE`` or ``~/.cache/pujax``.

Importing this package is cheap: scikit-learn and Pillow are imported only by the loaders that need them.
"""
from .registry import available, load, names

__all__ = ["load", "available", "names"]
