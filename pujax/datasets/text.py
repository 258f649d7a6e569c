"""20 Newsgroups ("bydate" split) as 300-dimensional dense document vectors.

The papers (nnPU, PU ET, 2-HNC) average pre-trained GloVe word vectors over each document. GloVe is not available
offline, so pujax uses a documented stand-in: TF-IDF (scikit-learn ``TfidfVectorizer``, sublinear tf, English stop
words, at most 50,000 terms) followed by ``TruncatedSVD`` to 300 dimensions (latent semantic analysis), both fitted
on the 11,314 training documents only and applied to the 7,532 test documents. Results on this set are therefore not
directly comparable with the papers' numbers.

:func:`load_news20_texts` returns the raw documents and their group names instead, for text pipelines that build
their own (sparse) features, e.g. ``TfidfVectorizer`` fitted on the training documents.
"""
from __future__ import annotations

import pathlib
import re

import numpy as np

from ._common import cache_file, finish, load_cache, save_cache, split_rows, tar_files

NEWS20_POSITIVE_PREFIXES = ("alt", "comp", "misc", "rec")  # negative: sci, soc, talk
N_COMPONENTS = 300
MAX_FEATURES = 50_000
SVD_RANDOM_STATE = 0
_NEWS_MEMBER = re.compile(r"(?:^|/)20news-bydate-(train|test)/([a-z0-9.\-]+)/([^/]+)$")


def read_news20_tar(path: pathlib.Path):
    """Documents of ``20news-bydate.tar.gz`` (read directly, no extraction).

    Returns ``(texts, groups, is_test)`` ordered train first, then test; inside a split by group name and then by the
    numeric file name. Texts are decoded as latin-1 (as scikit-learn's ``fetch_20newsgroups``), headers kept.
    Hidden files (such as ``.DS_Store``) are skipped; any leading folder in the archive (e.g. ``data/``) is allowed.
    """
    docs = []
    for m, _, content in tar_files(path, _NEWS_MEMBER):
        split, group, fname = m.groups()
        if not fname.startswith("."):
            key = (0, int(fname)) if fname.isdigit() else (1, fname)
            docs.append((split == "test", group, key, content.decode("latin-1")))
    if not docs:
        raise ValueError(f"{path}: no 20news-bydate-train/<group>/<file> documents found in the archive.")
    docs.sort(key=lambda d: d[:3])
    texts = [d[3] for d in docs]
    groups = np.asarray([d[1] for d in docs])
    is_test = np.asarray([d[0] for d in docs], dtype=bool)
    return texts, groups, is_test


def news20_positive(groups) -> np.ndarray:
    """1 for the groups alt.*, comp.*, misc.*, rec.*; 0 for sci.*, soc.*, talk.*."""
    prefixes = np.asarray([g.split(".", 1)[0] for g in np.asarray(groups).tolist()])
    return np.isin(prefixes, NEWS20_POSITIVE_PREFIXES)


def tfidf_svd_features(train_texts, test_texts, n_components=None, max_features=None, random_state=None):
    """TF-IDF + truncated SVD fitted on ``train_texts``; returns float32 ``(train_features, test_features)``.

    ``None`` arguments take the module settings ``N_COMPONENTS`` (300), ``MAX_FEATURES`` (50,000) and
    ``SVD_RANDOM_STATE`` (0).
    """
    n_components = N_COMPONENTS if n_components is None else n_components
    max_features = MAX_FEATURES if max_features is None else max_features
    random_state = SVD_RANDOM_STATE if random_state is None else random_state
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer

    vec = TfidfVectorizer(sublinear_tf=True, stop_words="english", max_features=max_features, dtype=np.float32)
    A_train = vec.fit_transform(train_texts)
    svd = TruncatedSVD(n_components=n_components, algorithm="randomized", random_state=random_state)
    Z_train = svd.fit_transform(A_train)
    Z_test = svd.transform(vec.transform(test_texts)) if len(test_texts) else np.zeros((0, Z_train.shape[1]))
    return Z_train.astype(np.float32), np.asarray(Z_test, dtype=np.float32)


def news20_arrays(path: pathlib.Path):
    """``(features, groups, is_test)`` for all 18,846 documents, from the cache when present."""
    version = f"news20-tfidf{MAX_FEATURES}-svd{N_COMPONENTS}-rs{SVD_RANDOM_STATE}-v1"
    cpath = cache_file("news20", path, version)
    cached = load_cache(cpath)
    if cached is not None and {"features", "groups", "is_test"} <= set(cached):
        return cached["features"], cached["groups"], cached["is_test"]
    texts, groups, is_test = read_news20_tar(path)
    train = [t for t, te in zip(texts, is_test) if not te]
    test = [t for t, te in zip(texts, is_test) if te]
    Z_train, Z_test = tfidf_svd_features(train, test)
    features = np.concatenate([Z_train, Z_test])  # rows already ordered train first, then test
    save_cache(cpath, features=features, groups=groups.astype(str), is_test=is_test)
    return features, groups, is_test


def load_news20(path: pathlib.Path, split: str = "all"):
    """20 Newsgroups bydate: 300 TF-IDF+SVD features (see the module docstring), positive = alt.*, comp.*, misc.*,
    rec.* (11 groups), negative = sci.*, soc.*, talk.* (9 groups), as in nnPU, PU ET and 2-HNC."""
    features, groups, is_test = news20_arrays(path)
    keep = split_rows(is_test, split)
    return finish(features[keep], news20_positive(groups[keep]))


def load_news20_texts(data_dir=None, split: str = "all") -> tuple[list, np.ndarray]:
    """The raw 20 Newsgroups (bydate) documents and their group names.

    Parameters
    ----------
    data_dir : str or os.PathLike, optional
        Folder holding ``20newsgroups/20news-bydate.tar.gz`` (default: the ``PUJAX_DATA`` environment variable).
    split : {"all", "train", "test"}
        The 11,314 training documents, the 7,532 test documents, or both (training first).

    Returns
    -------
    texts : list of str
        Documents decoded as latin-1, headers kept (the bydate version has no ``Newsgroups:`` line).
    groups : ndarray of str
        The newsgroup of every document (e.g. ``"sci.med"``).

    Raises
    ------
    FileNotFoundError
        The archive is missing (the message says where to get it).
    """
    from ._common import locate
    from .registry import _SPECS

    if split not in ("all", "train", "test"):
        raise ValueError(f"split must be one of ('all', 'train', 'test'), got {split!r}.")
    spec = _SPECS["news20"]
    texts, groups, is_test = read_news20_tar(locate("news20", spec.files, data_dir, spec.how_to_get))
    keep = split_rows(is_test, split)
    return [t for t, k in zip(texts, keep) if k], groups[keep]
