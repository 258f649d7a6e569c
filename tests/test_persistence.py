"""Model files trust nothing: a corpus of tampered, truncated, empty, mis-shaped and foreign files is refused with a
``ValueError`` naming the file, nothing in a file can set a method or call a function, and every estimator fitted
with its defaults saves and loads with identical predictions."""
import json
import os
import shutil

import numpy as np
import pytest
from _estimators import fast_instance, public_estimator_classes
from sklearn.base import BaseEstimator

from pujax.base import PUClassifierMixin
from pujax.persistence import FORMAT, fitted_schema, load_estimator, register_estimator, save_estimator


@register_estimator
class _Probe(PUClassifierMixin, BaseEstimator):
    """A tiny estimator with a declared schema, for the tamper corpus."""

    _fitted_schema = {"coef_": "f[n_features_in_]", "counts_": "i[2]", "note_": "str|none"}

    def __init__(self, prior=0.4, scale=1.0):
        self.prior = prior
        self.scale = scale

    def _check_params(self):
        if not (isinstance(self.scale, (int, float)) and self.scale > 0):
            raise ValueError(f"scale={self.scale!r} must be > 0.")

    def fit(self, X, y):
        self._check_params()
        X, s, _, _ = self._validate_fit(X, y)
        self.coef_ = (X[s == 1].mean(0) - X[s == 0].mean(0)) * self.scale
        self.counts_ = np.bincount(s, minlength=2)
        self.note_ = None
        return self

    def decision_function(self, X):
        return self._validate_predict(X) @ self.coef_


@pytest.fixture
def saved(tmp_path):
    r = np.random.default_rng(0)
    X = r.normal(size=(50, 3)).astype(np.float32)
    s = np.r_[np.ones(10, int), np.zeros(40, int)]
    est = _Probe().fit(X, s)
    npz, js = save_estimator(est, tmp_path / "m")
    return est, X, tmp_path / "m", npz, js


def _edit(js, fn):
    with open(js) as f:
        doc = json.load(f)
    fn(doc)
    with open(js, "w") as f:
        json.dump(doc, f)


def test_round_trip(saved):
    est, X, base, _, _ = saved
    back = _Probe.load(base)
    np.testing.assert_array_equal(back.predict(X), est.predict(X))
    assert back.get_params() == est.get_params()


TAMPERS = {
    "sets a method": (lambda d: d["fitted"]["__dict__"].update(predict="hijacked"), "predict"),
    "unknown attribute": (lambda d: d["fitted"]["__dict__"].update(evil_=1), "evil_"),
    "missing attribute": (lambda d: d["fitted"]["__dict__"].pop("coef_"), "missing"),
    "foreign class": (lambda d: d.update({"class": "os.system"}), "not a loadable"),
    "callable pujax name": (lambda d: d.update({"class": "make_case_control"}), "not a loadable"),
    "bad parameter value": (lambda d: d["params"]["__dict__"].update(scale=-5), "scale"),
    "unknown parameter": (lambda d: d["params"]["__dict__"].update(shell="rm"), "not parameters"),
    "wrong type": (lambda d: d["fitted"]["__dict__"].update(n_features_in_="3"), "expected int"),
    "bad array key": (lambda d: d["fitted"]["__dict__"].update(coef_={"__array__": "a9999"}), "a9999"),
    "array where scalar": (lambda d: d["fitted"]["__dict__"].update(note_={"__array__": "a0"}), "note_"),
    "wrong format": (lambda d: d.update(format="pujax-estimator/1"), "format"),
    "not an object": (lambda d: d.clear(), "format"),
}


@pytest.mark.parametrize("name", sorted(TAMPERS))
def test_tampered_json_is_refused(saved, name):
    _, _, base, _, js = saved
    fn, match = TAMPERS[name]
    _edit(js, fn)
    with pytest.raises(ValueError, match=match) as info:
        load_estimator(base)
    assert str(js) in str(info.value) or "m.json" in str(info.value)


def test_mis_shaped_arrays_are_refused(saved):
    _, _, base, npz, js = saved
    with np.load(npz) as z:
        arrays = {k: z[k] for k in z.files}
    with open(js) as f:
        key = json.load(f)["fitted"]["__dict__"]["coef_"]["__array__"]
    for bad, match in [(np.zeros(4, np.float32), "shape"), (np.zeros((3, 1), np.float32), "dimension"),
                       (np.zeros(3, np.int64), "kind"), (np.array(["a", "b", "c"]), "kind")]:
        np.savez(npz, **{**arrays, key: bad})
        with pytest.raises(ValueError, match=match):
            load_estimator(base)


@pytest.mark.parametrize("damage", ["truncate_npz", "empty_npz", "empty_json", "garbage_json", "missing_npz"])
def test_corrupted_files_name_the_file(saved, damage):
    _, _, base, npz, js = saved
    if damage == "truncate_npz":
        data = open(npz, "rb").read()
        open(npz, "wb").write(data[: len(data) // 2])
    elif damage == "empty_npz":
        open(npz, "wb").close()
    elif damage == "empty_json":
        open(js, "w").close()
    elif damage == "garbage_json":
        open(js, "w").write("{not json")
    else:
        os.remove(npz)
        with pytest.raises(FileNotFoundError, match="m.npz"):
            load_estimator(base)
        return
    with pytest.raises(ValueError) as info:
        load_estimator(base)
    assert "m.npz" in str(info.value) or "m.json" in str(info.value)


def test_pickled_npz_is_not_unpickled(saved):
    _, _, base, npz, js = saved
    with open(js) as f:
        key = json.load(f)["fitted"]["__dict__"]["coef_"]["__array__"]
    with np.load(npz) as z:
        arrays = {k: z[k] for k in z.files}
    arrays[key] = np.array([object(), 1], dtype=object)
    np.savez(npz, **arrays)  # numpy pickles object arrays; loading must refuse them
    with pytest.raises(ValueError, match="m.npz"):
        load_estimator(base)


def test_wrong_class_for_load(saved, tmp_path):
    _, _, base, _, _ = saved
    from pujax.boosting import AdaPUClassifier

    with pytest.raises(ValueError, match="not a AdaPUClassifier"):
        AdaPUClassifier.load(base)


def test_format_constant():
    assert FORMAT.startswith("pujax-estimator/")


@pytest.mark.parametrize("cls", public_estimator_classes(), ids=lambda c: c.__name__)
def test_every_estimator_saves_and_loads(cls, tmp_path):
    """Fitted with its defaults (made faster where FAST says so), every estimator round-trips exactly."""
    r = np.random.default_rng(0)
    y = (r.random(160) < 0.4).astype(int)
    X = (r.normal(size=(160, 4)) + 1.5 * y[:, None]).astype(np.float32)
    s = ((y == 1) & (r.random(160) < 0.6)).astype(int)
    est = fast_instance(cls)
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    est.fit(X, s)
    assert set(k for k in vars(est) if k.endswith("_") and not k.startswith("_")) <= set(fitted_schema(cls))
    est.save(tmp_path / "e")
    back = cls.load(tmp_path / "e")
    method = "predict" if hasattr(est, "predict") else "transform"
    np.testing.assert_array_equal(getattr(back, method)(X), getattr(est, method)(X))
    shutil.rmtree(tmp_path)
