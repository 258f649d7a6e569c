"""Tests of pujax.datasets: every loader on the real data folder, the bundled sets, errors, and the cached decoders.

The expected class counts below are written independently of pujax (from the data README and the papers' tables),
and several loaders are cross-checked against a second copy of the same data set (R mlbench, pandas recipes).
"""
import csv
import gzip
import io
import pathlib
import sys
import tarfile

import numpy as np
import pytest

from pujax import datasets
from pujax.datasets import available, load
from pujax.datasets import text as news_mod
from pujax.datasets import vision as vision_mod

ALL_NAMES = {
    "breast_cancer", "breast_cancer_original", "mushroom", "spambase", "ionosphere", "vote", "german", "letter",
    "covtype_sample", "unsw_nb15", "mnist", "mnist_odd", "cifar10", "news20",
}

# name -> (n_samples, n_features, n_positive); counts from /work/shared/data/README.md and the papers.
EXPECTED = {
    "breast_cancer": (569, 30, 357),  # benign (sklearn target 1)
    "breast_cancer_original": (699, 9, 241),  # malignant
    "mushroom": (8124, 117, 4208),  # edible
    "spambase": (4601, 57, 1813),  # spam
    "ionosphere": (351, 34, 126),  # bad
    "vote": (435, 16, 267),  # democrat
    "german": (1000, 20, 700),  # good credit
    "letter": (20000, 16, 9940),  # A-M
    "covtype_sample": (10000, 54, 4870),  # cover type 2
    "unsw_nb15": (82332, 190, 45332),  # attacks
    "mnist": (70000, 784, 34418),  # even digits
    "mnist_odd": (70000, 784, 35582),  # odd digits
    "cifar10": (60000, 3072, 24000),  # vehicles
    "news20": (18846, 300, 10644),  # alt, comp, misc, rec
}
FAST = [n for n in EXPECTED if n not in ("cifar10", "news20")]


def _check_xy(X, y, n, d, n_pos):
    assert X.dtype == np.float32 and X.ndim == 2 and X.flags["C_CONTIGUOUS"]
    assert y.dtype == np.int32 and y.ndim == 1
    assert X.shape == (n, d) and y.shape == (n,)
    assert set(np.unique(y).tolist()) == {0, 1}
    assert int(y.sum()) == n_pos
    assert np.isfinite(X).all()


@pytest.fixture
def no_env(monkeypatch, tmp_path):
    """No PUJAX_DATA, and a private cache folder."""
    monkeypatch.delenv("PUJAX_DATA", raising=False)
    monkeypatch.setenv("PUJAX_CACHE", str(tmp_path / "cache"))


# --------------------------------------------------------------------------------------------------------- catalogue
def test_available_describes_every_set():
    info = available()
    assert set(info) == ALL_NAMES == set(datasets.names())
    for name, d in info.items():
        for key in ("description", "positive", "negative", "source", "licence", "papers"):
            assert isinstance(d[key], str) and d[key], (name, key)
        n, p, n_pos = EXPECTED[name]
        assert (d["n_samples"], d["n_features"], d["n_positive"]) == (n, p, n_pos)
        assert d["prior"] == pytest.approx(n_pos / n, abs=1e-4)
        if d["splits"] is not None:
            assert sum(v[0] for v in d["splits"].values()) == n
            assert sum(v[1] for v in d["splits"].values()) == n_pos
    assert {n for n, d in info.items() if d["splits"]} == {"breast_cancer", "mnist", "mnist_odd", "cifar10", "news20"}
    assert {n for n, d in info.items() if d["bundled"]} == {"mushroom", "spambase"}
    # available() returns copies: mutating it does not change the catalogue
    info["mnist"]["splits"]["train"] = (0, 0)
    assert available()["mnist"]["splits"]["train"] == (60000, 29492)


def test_unknown_name_lists_valid_names():
    with pytest.raises(ValueError, match="Unknown dataset 'mnist_even'.*mushroom.*news20"):
        load("mnist_even")
    with pytest.raises(ValueError, match="Valid names"):
        load(None)


def test_split_errors(no_env):
    with pytest.raises(ValueError, match="'mushroom' has no official train/test split.*mnist"):
        load("mushroom", split="train")
    with pytest.raises(ValueError, match="split must be one of"):
        load("mnist", split="validation")
    with pytest.raises(ValueError, match="split must be one of"):
        load("breast_cancer", split="TRAIN")


def test_data_dir_type_error():
    with pytest.raises(TypeError, match="data_dir must be a path"):
        load("letter", data_dir=3)


# ------------------------------------------------------------------------------------------------- offline / bundled
def test_bundled_sets_load_without_data_dir(no_env):
    for name in ("mushroom", "spambase"):
        n, d, n_pos = EXPECTED[name]
        _check_xy(*load(name), n, d, n_pos)


def test_bundled_fallback_when_data_dir_lacks_the_file(no_env, tmp_path):
    X, y = load("spambase", data_dir=tmp_path)
    _check_xy(X, y, *EXPECTED["spambase"])


def test_mushroom_one_hot_matches_sklearn(no_env):
    from sklearn.preprocessing import OneHotEncoder

    X, y = load("mushroom")
    raw = np.loadtxt(datasets.registry.__file__.replace("registry.py", "data/mushroom.tsv.gz"), delimiter="\t",
                     skiprows=1)
    ref = OneHotEncoder(sparse_output=False).fit_transform(raw[:, :-1])
    np.testing.assert_array_equal(X, ref.astype(np.float32))
    np.testing.assert_array_equal(y, (raw[:, -1] == 0).astype(np.int32))  # edible = PMLB 0
    assert np.all(X.sum(axis=1) == 22)  # one indicator per attribute


def test_breast_cancer_from_sklearn_with_ada_pu_split(no_env):
    from sklearn.datasets import load_breast_cancer

    ref = load_breast_cancer()
    X, y = load("breast_cancer")
    _check_xy(X, y, *EXPECTED["breast_cancer"])
    np.testing.assert_array_equal(y, ref.target)
    np.testing.assert_allclose(X, ref.data.astype(np.float32))
    Xtr, ytr = load("breast_cancer", split="train")
    Xte, yte = load("breast_cancer", split="test")
    assert Xtr.shape == (455, 30) and Xte.shape == (114, 30)
    assert round(float(ytr.mean()), 2) == 0.59  # Ada-PU, Section 5.1: "The class prior is 0.59."
    np.testing.assert_array_equal(np.concatenate([Xtr, Xte]), X)


# ---------------------------------------------------------------------------------------------------- missing files
def test_missing_file_error_names_file_path_and_source(no_env, tmp_path):
    with pytest.raises(FileNotFoundError) as exc:
        load("letter", data_dir=tmp_path)
    msg = str(exc.value)
    assert "letter.tsv.gz" in msg
    assert str(tmp_path / "pmlb" / "letter" / "letter.tsv.gz") in msg
    assert "github.com/EpistasisLab/pmlb" in msg


def test_missing_file_without_data_dir_mentions_env(no_env):
    with pytest.raises(FileNotFoundError, match="mnist.npz.*PUJAX_DATA.*mnist/mnist.npz"):
        load("mnist")


def test_env_var_is_used(monkeypatch, tmp_path):
    monkeypatch.setenv("PUJAX_DATA", str(tmp_path))
    with pytest.raises(FileNotFoundError, match=str(tmp_path / "covtype")):
        load("covtype_sample")


# ------------------------------------------------------------------------------------------- real data: every loader
@pytest.mark.data
@pytest.mark.parametrize("name", [n for n in FAST if n != "unsw_nb15"])  # unsw_nb15: see its own test
def test_loader_on_real_data(name, data_dir):
    X, y = load(name, data_dir=data_dir)
    _check_xy(X, y, *EXPECTED[name])
    spec = available()[name]
    if spec["splits"]:
        # "all" = train rows then test rows: the test split is the tail of "all"
        n_te, pos_te = spec["splits"]["test"]
        n_tr, pos_tr = spec["splits"]["train"]
        Xte, yte = load(name, data_dir=data_dir, split="test")
        _check_xy(Xte, yte, n_te, X.shape[1], pos_te)
        np.testing.assert_array_equal(Xte, X[n_tr:])
        np.testing.assert_array_equal(yte, y[n_tr:])
        assert int(y[:n_tr].sum()) == pos_tr


def _read_csv(path):
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    return rows[0], rows[1:]


@pytest.mark.data
def test_ionosphere_positive_is_bad(data_dir):
    _, y = load("ionosphere", data_dir=data_dir)
    header, rows = _read_csv(data_dir / "debian/mlbench/Ionosphere.csv")
    np.testing.assert_array_equal(y, [r[-1] == "bad" for r in rows])


@pytest.mark.data
def test_vote_matches_mlbench(data_dir):
    X, y = load("vote", data_dir=data_dir)
    header, rows = _read_csv(data_dir / "debian/mlbench/HouseVotes84.csv")
    np.testing.assert_array_equal(y, [r[0] == "democrat" for r in rows])
    code = {"y": 1.0, "n": -1.0, "NA": 0.0, "": 0.0}
    np.testing.assert_array_equal(X, np.array([[code[c] for c in r[1:]] for r in rows], dtype=np.float32))


@pytest.mark.data
def test_letter_positive_rows_are_a_to_m(data_dir):
    X, y = load("letter", data_dir=data_dir)
    header, rows = _read_csv(data_dir / "debian/mlbench/LetterRecognition.csv")
    ref = np.array([r[1:] for r in rows], dtype=np.float32)
    is_am = np.array([r[0] <= "M" for r in rows])

    def sorted_rows(a):
        return a[np.lexsort(a.T[::-1])]

    # PMLB rows are in another order: compare the multisets of rows of each class
    np.testing.assert_array_equal(sorted_rows(X[y == 1]), sorted_rows(ref[is_am]))
    np.testing.assert_array_equal(sorted_rows(X[y == 0]), sorted_rows(ref[~is_am]))


@pytest.mark.data
def test_breast_cancer_original_imputes_median(data_dir):
    X, y = load("breast_cancer_original", data_dir=data_dir)
    header, rows = _read_csv(data_dir / "debian/mlbench/BreastCancer.csv")
    assert header[0] == "Id"
    missing = np.array([r[6] in ("", "NA") for r in rows])
    assert missing.sum() == 16
    observed = np.array([float(r[6]) for r in rows if r[6] not in ("", "NA")])
    assert np.all(X[missing, 5] == np.median(observed))
    np.testing.assert_array_equal(X[~missing, 5], observed.astype(np.float32))
    np.testing.assert_array_equal(y, [r[-1] == "malignant" for r in rows])


@pytest.mark.data
def test_german_and_spambase_follow_pmlb_target(data_dir):
    for name, rel in (("german", "pmlb/credit_g/credit_g.tsv.gz"), ("spambase", "pmlb/spambase/spambase.tsv.gz")):
        with gzip.open(data_dir / rel, "rt") as fh:
            header = fh.readline().rstrip("\n").split("\t")
            raw = np.loadtxt(fh, delimiter="\t")
        X, y = load(name, data_dir=data_dir)
        t = header.index("target")
        np.testing.assert_array_equal(y, raw[:, t] == 1)
        np.testing.assert_array_equal(X, np.delete(raw, t, axis=1).astype(np.float32))


@pytest.mark.data
def test_covtype_positive_is_most_frequent_class(data_dir):
    X, y = load("covtype_sample", data_dir=data_dir)
    raw = np.loadtxt(data_dir / "covtype/covtype_sample_10k.csv", delimiter=",", skiprows=1)
    counts = np.bincount(raw[:, 54].astype(int))
    assert counts.argmax() == 2
    np.testing.assert_array_equal(y, raw[:, 54] == 2)
    np.testing.assert_array_equal(X, raw[:, :54].astype(np.float32))


@pytest.mark.data
def test_unsw_matches_pandas_get_dummies(data_dir):
    pd = pytest.importorskip("pandas")
    X, y = load("unsw_nb15", data_dir=data_dir)
    _check_xy(X, y, *EXPECTED["unsw_nb15"])
    d = pd.read_csv(data_dir / "unsw_nb15/UNSW_NB15_training-set.zip", encoding="utf-8-sig")
    ref = pd.get_dummies(d.drop(columns=["id", "attack_cat", "label"]), dtype=float)
    np.testing.assert_array_equal(X, ref.to_numpy(dtype=np.float32))
    np.testing.assert_array_equal(y, d["label"].to_numpy() == 1)
    assert (d.loc[y == 0, "attack_cat"] == "Normal").all()


@pytest.mark.data
def test_mnist_even_and_odd(data_dir):
    X, y = load("mnist", data_dir=data_dir, split="test")
    Xo, yo = load("mnist_odd", data_dir=data_dir, split="test")
    with np.load(data_dir / "mnist/mnist.npz") as z:
        ref_x, ref_y = z["x_test"], z["y_test"]
    np.testing.assert_array_equal(X, ref_x.reshape(10000, 784).astype(np.float32))
    np.testing.assert_array_equal(y, ref_y % 2 == 0)
    np.testing.assert_array_equal(yo, 1 - y)
    np.testing.assert_array_equal(Xo, X)
    assert X.min() == 0 and X.max() == 255


@pytest.mark.data
@pytest.mark.slow
@pytest.mark.parametrize("name", ["cifar10", "news20"])
def test_slow_loaders_on_real_data(name, data_dir):
    """Full decode (cifar10, ~20-30 s) / TF-IDF + SVD (news20, ~60-80 s) on 2 shared cores; cached afterwards."""
    X, y = load(name, data_dir=data_dir)
    _check_xy(X, y, *EXPECTED[name])
    for split in ("train", "test"):
        n, n_pos = available()[name]["splits"][split]
        Xs, ys = load(name, data_dir=data_dir, split=split)
        _check_xy(Xs, ys, n, X.shape[1], n_pos)


# ------------------------------------------------------------------------- cifar10 / news20 on tiny synthetic archives
def _add(tar, name, data: bytes):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def _tiny_cifar(tmp_path, rng):
    """A tar.gz in the JPEG-export layout, with lossless PNG members so pixels can be compared exactly."""
    Image = pytest.importorskip("PIL.Image")
    images = {}
    target = tmp_path / "data" / "cifar10" / "cifar10_jpeg_images.tar.gz"
    target.parent.mkdir(parents=True)
    members = [("test", "truck", 1), ("train", "cat", 0), ("train", "airplane", 10), ("train", "airplane", 2),
               ("test", "bird", 0)]
    with tarfile.open(target, "w:gz") as tar:
        _add(tar, "README.md", b"tiny")
        for split, cls, num in members:
            img = rng.integers(0, 256, size=(32, 32, 3), dtype=np.uint8)
            buf = io.BytesIO()
            Image.fromarray(img).save(buf, format="PNG")
            _add(tar, f"{split}/{cls}/{num:04d}.png", buf.getvalue())
            images[(split, cls, num)] = img
    return tmp_path / "data", images


def test_cifar10_decoding_order_labels_and_cache(no_env, tmp_path, rng, monkeypatch):
    root, images = _tiny_cifar(tmp_path, rng)
    X, y = load("cifar10", data_dir=root)
    order = [("train", "airplane", 2), ("train", "airplane", 10), ("train", "cat", 0), ("test", "bird", 0),
             ("test", "truck", 1)]
    expected = np.stack([images[k].reshape(-1) for k in order]).astype(np.float32)  # HWC flattening
    np.testing.assert_array_equal(X, expected)
    np.testing.assert_array_equal(y, [1, 1, 0, 0, 1])
    Xte, yte = load("cifar10", data_dir=root, split="test")
    np.testing.assert_array_equal(Xte, expected[3:])
    np.testing.assert_array_equal(yte, [0, 1])
    assert len(list((tmp_path / "cache").glob("cifar10-*.npz"))) == 1

    def boom(path):
        raise AssertionError("the cache should have been used")

    monkeypatch.setattr(vision_mod, "decode_cifar10_tar", boom)
    X2, y2 = load("cifar10", data_dir=root, split="train")
    np.testing.assert_array_equal(X2, expected[:3])


def test_cifar10_without_pillow_says_pip_install(no_env, tmp_path, rng, monkeypatch):
    root, _ = _tiny_cifar(tmp_path, rng)
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(ImportError, match="pip install pillow"):
        load("cifar10", data_dir=root)


def _tiny_news(tmp_path):
    words = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau "
             "upsilon phi chi psi omega apple banana cherry grape lemon mango peach plum").split()
    groups = ["alt.atheism", "comp.graphics", "misc.forsale", "rec.autos", "sci.med", "soc.religion.christian",
              "talk.politics.misc"]
    rng = np.random.default_rng(1)
    docs = {}
    target = tmp_path / "data" / "20newsgroups" / "20news-bydate.tar.gz"
    target.parent.mkdir(parents=True)
    with tarfile.open(target, "w:gz") as tar:
        _add(tar, "data/20news-bydate-test/.DS_Store", b"\x00\x01junk")
        for split, n_docs in (("train", 3), ("test", 2)):
            for g in groups:
                for k in range(n_docs):
                    num = 100 - 7 * k  # numeric, not lexicographic, order
                    text = " ".join(rng.choice(words, size=40)) + " caf\xe9"
                    docs[(split, g, num)] = text
                    _add(tar, f"data/20news-bydate-{split}/{g}/{num}", text.encode("latin-1"))
    return tmp_path / "data", docs, groups


def test_news20_reader_labels_order_and_cache(no_env, tmp_path, monkeypatch):
    root, docs, groups = _tiny_news(tmp_path)
    texts, grp, is_test = news_mod.read_news20_tar(root / "20newsgroups" / "20news-bydate.tar.gz")
    assert len(texts) == 35 and is_test.sum() == 14  # .DS_Store skipped
    assert list(grp[:3]) == ["alt.atheism"] * 3 and not is_test[:21].any()
    assert texts[0] == docs[("train", "alt.atheism", 86)] and texts[2] == docs[("train", "alt.atheism", 100)]
    assert texts[0].endswith("caf\xe9")  # latin-1 decoding
    positive = {"alt.atheism", "comp.graphics", "misc.forsale", "rec.autos"}
    np.testing.assert_array_equal(news_mod.news20_positive(grp), [g in positive for g in grp])

    monkeypatch.setattr(news_mod, "N_COMPONENTS", 5)
    X, y = load("news20", data_dir=root)
    _check_xy(X, y, 35, 5, 4 * 5)
    Xtr, ytr = load("news20", data_dir=root, split="train")
    _check_xy(Xtr, ytr, 21, 5, 12)
    np.testing.assert_array_equal(Xtr, X[:21])
    assert len(list((tmp_path / "cache").glob("news20-*.npz"))) == 1

    # the features are TF-IDF + SVD fitted on the training documents only
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer

    train = [t for t, te in zip(texts, is_test) if not te]
    test = [t for t, te in zip(texts, is_test) if te]
    vec = TfidfVectorizer(sublinear_tf=True, stop_words="english", max_features=50_000)
    svd = TruncatedSVD(5, random_state=0).fit(vec.fit_transform(train))
    np.testing.assert_allclose(np.abs(X[21:]), np.abs(svd.transform(vec.transform(test))), rtol=1e-3, atol=1e-4)

    monkeypatch.setattr(news_mod, "read_news20_tar", lambda p: (_ for _ in ()).throw(AssertionError("no cache")))
    X2, _ = load("news20", data_dir=root)
    np.testing.assert_array_equal(X2, X)


def test_corrupt_cache_is_recomputed(no_env, tmp_path, rng):
    root, _ = _tiny_cifar(tmp_path, rng)
    X, _ = load("cifar10", data_dir=root)
    (cache,) = (tmp_path / "cache").glob("cifar10-*.npz")
    cache.write_bytes(b"not an npz")
    X2, _ = load("cifar10", data_dir=root)
    np.testing.assert_array_equal(X2, X)


def test_import_is_light():
    import subprocess

    code = ("import sys, pujax.datasets; "
            "print(','.join(m for m in ('sklearn', 'PIL', 'pandas') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=pathlib.Path(__file__).resolve().parents[1])
    assert "PIL" not in out.stdout and "pandas" not in out.stdout
