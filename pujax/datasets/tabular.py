"""Loaders of the tabular data sets. Each returns ``(X float32, y int32)`` with ``y = 1`` the paper's positive class.

Every function takes the path of its source file (already located by :func:`pujax.datasets.load`) and, for sets with
a fixed train/test split, the split name. No preprocessing beyond what is documented here: features are not scaled.
"""
from __future__ import annotations

import csv
import io
import pathlib
import zipfile

import numpy as np

from ._common import finish, one_hot, read_delimited, read_numeric_table, read_pmlb

# Ada-PU reference code (Zhao et al.): the first 455 rows of sklearn's copy are the training set, the last 114 the
# test set; the class prior of those 455 rows, 0.59, is the one the paper reports.
BREAST_CANCER_N_TRAIN = 455


def load_breast_cancer(path=None, split: str = "all"):
    """UCI Breast Cancer Wisconsin (Diagnostic), scikit-learn's copy: 569 x 30, positive = benign (sklearn target 1).

    Ada-PU (Zhao et al.) takes sklearn's ``target`` as is (benign = +1) and reports prior 0.59 = the benign fraction
    of rows 0..454, which its code uses for training (rows 455..568 are its test set); ``split`` reproduces that cut.
    """
    from sklearn.datasets import load_breast_cancer as _sk_load

    X, y = _sk_load(return_X_y=True)
    if split == "train":
        X, y = X[:BREAST_CANCER_N_TRAIN], y[:BREAST_CANCER_N_TRAIN]
    elif split == "test":
        X, y = X[BREAST_CANCER_N_TRAIN:], y[BREAST_CANCER_N_TRAIN:]
    return finish(X, y == 1)


def load_breast_cancer_original(path: pathlib.Path):
    """UCI Breast Cancer Wisconsin (Original) from R mlbench's ``BreastCancer`` written as CSV: 699 x 9.

    The ``Id`` column is dropped; positive = malignant (241 rows). ``Bare.nuclei`` has 16 missing values, imputed
    with the median of the observed values of that column (1.0) so that all 699 rows are kept (RESVM's 'cancer' set
    instead drops those rows, leaving 683).
    """
    header, rows = read_delimited(path, ",")
    if header[0] != "Id" or header[-1] != "Class":
        raise ValueError(f"{path}: expected the mlbench BreastCancer columns Id, ..., Class; got {header}.")
    cells = [[(c if c not in ("", "NA", "?") else "nan") for c in row[1:-1]] for row in rows]
    X = np.asarray(cells, dtype=np.float64)
    labels = np.asarray([row[-1] for row in rows])
    bad = set(np.unique(labels)) - {"benign", "malignant"}
    if bad:
        raise ValueError(f"{path}: unexpected Class values {sorted(bad)}.")
    missing = np.isnan(X)
    if missing.any():
        medians = np.nanmedian(X, axis=0)
        X = np.where(missing, medians[None, :], X)
    return finish(X, labels == "malignant")


def load_mushroom(path: pathlib.Path):
    """UCI Mushroom via PMLB: 8124 rows; the 22 label-encoded categoricals one-hot encoded (one indicator per
    observed value, values in sorted order, 117 columns). Positive = edible (PMLB target 0; 4208 rows), the most
    frequent class, as in PU ET and 2-HNC."""
    _, X, target = read_pmlb(path)
    blocks = [one_hot(X[:, j])[0] for j in range(X.shape[1])]
    return finish(np.concatenate(blocks, axis=1), target == 0)


def load_spambase(path: pathlib.Path):
    """UCI Spambase via PMLB: 4601 x 57, positive = spam (target 1; 1813 rows)."""
    _, X, target = read_pmlb(path)
    return finish(X, target == 1)


def load_ionosphere(path: pathlib.Path):
    """UCI Ionosphere via PMLB: 351 x 34, positive = 'bad' radar returns (126 rows), as in FSCPU (Uchikoshi 2025).

    PMLB codes bad = 0 and good = 1 (checked against mlbench's ``Ionosphere`` Class column), so ``y = 1 - target``.
    """
    _, X, target = read_pmlb(path)
    return finish(X, target == 0)


def load_vote(path: pathlib.Path):
    """UCI Congressional Voting Records 1984 via PMLB ``house_votes_84``: 435 x 16, positive = democrat (267 rows),
    as in 2-HNC.

    PMLB codes each vote as 2 = yea, 1 = nay, 0 = unknown/abstained and the class as 1 = republican (checked row by
    row against mlbench's ``HouseVotes84``). Votes are re-coded yea = +1, nay = -1, unknown = 0.
    """
    _, X, target = read_pmlb(path)
    recoded = np.select([X == 2, X == 1], [1.0, -1.0], default=0.0)
    return finish(recoded, target == 0)


def load_german(path: pathlib.Path):
    """UCI Statlog German Credit via PMLB ``credit_g`` (UCI row order): 1000 x 20 (the 13 categoricals as PMLB's
    integer codes, 7 numeric columns as is). Positive = good credit risk (target 1; 700 rows), as in 2-HNC (which
    used UCI's 24-column numeric version)."""
    _, X, target = read_pmlb(path)
    return finish(X, target == 1)


def load_letter(path: pathlib.Path):
    """UCI Letter Recognition via PMLB: 20000 x 16, positive = letters A-M (PMLB codes 1..13; 9940 rows), as in
    2-HNC. PMLB's codes 1..26 are A..Z (per-letter counts and class means match mlbench's ``LetterRecognition``)."""
    _, X, target = read_pmlb(path)
    return finish(X, target <= 13)


# Label of the 7 cover types in UCI covtype; 2 (Lodgepole Pine) is the most frequent class of the full data set
# (283,301 of 581,012 rows) and of the 10k sample.
COVTYPE_POSITIVE = 2


def load_covtype_sample(path: pathlib.Path):
    """A 10,000-row random sample of UCI Covertype: 54 features in UCI order (10 numeric, 4 wilderness and 40 soil
    indicators), positive = cover type 2 (Lodgepole Pine), the most frequent class (PU ET: 'the most prominent
    class'). The file's header line is wrong, so columns are read by position: 0..53 features, 54 the cover type."""
    _, data = read_numeric_table(path, ",")
    if data.shape[1] != 55:
        raise ValueError(f"{path}: expected 55 columns (54 features + cover type), found {data.shape[1]}.")
    return finish(data[:, :54], data[:, 54] == COVTYPE_POSITIVE)


UNSW_CATEGORICAL = ("proto", "service", "state")
UNSW_DROP = ("id", "attack_cat", "label")


def load_unsw_nb15(path: pathlib.Path):
    """UNSW-NB15, the 82,332-row partition file ``UNSW_NB15_training-set.csv`` (read from the zip, or the bare csv).

    Drops ``id``, ``attack_cat`` and ``label``; keeps the 39 numeric columns in file order, then one-hot encodes
    ``proto``, ``service`` and ``state`` (one indicator per observed value, sorted; the same columns as
    ``pandas.get_dummies``). Positive = attack (``label`` 1; 45,332 rows), as in PU ET and Ada-PU.
    """
    if str(path).endswith(".zip"):
        with zipfile.ZipFile(path) as zf:
            names = [n for n in zf.namelist() if n.lower().endswith(".csv")]
            if len(names) != 1:
                raise ValueError(f"{path}: expected exactly one .csv inside the zip, found {names}.")
            text = zf.read(names[0]).decode("utf-8-sig")
    else:
        text = pathlib.Path(path).read_text(encoding="utf-8-sig")
    reader = csv.reader(io.StringIO(text, newline=""))
    header = [h.strip() for h in next(reader)]
    missing = [c for c in UNSW_CATEGORICAL + ("label",) if c not in header]
    if missing:
        raise ValueError(f"{path}: missing UNSW-NB15 columns {missing}; is this UNSW_NB15_training-set.csv?")
    keep = [header.index(c) for c in UNSW_CATEGORICAL + ("label",)]
    cat_rows = [[row[i] for i in keep] for row in reader if row]
    skip = set(UNSW_CATEGORICAL) | set(UNSW_DROP)
    numeric = [i for i, h in enumerate(header) if h not in skip]
    X_num = np.loadtxt(io.StringIO(text, newline=""), delimiter=",", skiprows=1, usecols=numeric, ndmin=2)
    cats = np.asarray(cat_rows, dtype=str)
    blocks = [X_num] + [one_hot(cats[:, j])[0] for j in range(len(UNSW_CATEGORICAL))]
    y = cats[:, -1].astype(np.int64)
    return finish(np.concatenate(blocks, axis=1), y == 1)
