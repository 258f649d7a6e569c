"""Property-based fuzzing (hypothesis, fixed seed, bounded examples): every estimator, given drawn shapes, dtypes,
label encodings, priors and scales, either raises a clear ``ValueError`` / ``TypeError`` or returns finite, valid
predictions; a saved model file with a randomly damaged entry either loads to the same kind of valid model or is
refused with a ``ValueError``."""
import json
import warnings

import numpy as np
import pytest
from _estimators import fast_instance, public_estimator_classes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FUZZ = settings(max_examples=3, deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck))


@st.composite
def pu_problems(draw):
    n = draw(st.integers(2, 48))
    d = draw(st.integers(1, 4))
    dtype = draw(st.sampled_from(["float64", "float32", "int64", "bool"]))
    scale = draw(st.sampled_from([1e-6, 1.0, 1e4]))
    seed = draw(st.integers(0, 2**16))
    r = np.random.default_rng(seed)
    X = r.normal(size=(n, d)) * scale
    X = X.astype(dtype) if dtype != "bool" else X > 0
    s = (r.random(n) < draw(st.sampled_from([0.0, 0.2, 0.5, 1.0]))).astype(int)
    encoding = draw(st.sampled_from(["01", "bool", "pm1", "12"]))
    s = {"01": s, "bool": s.astype(bool), "pm1": 2 * s - 1, "12": s + 1}[encoding]
    prior = draw(st.sampled_from(["auto", 0.05, 0.5, 0.95]))
    return X, s, prior


def _check_valid(est, X):
    if hasattr(est, "predict_proba"):
        pred = est.predict(X)
        assert set(np.unique(pred)) <= set(est.classes_.tolist())
        proba = est.predict_proba(X)
        assert proba.shape == (X.shape[0], 2) and np.all(np.isfinite(proba))
        assert np.all((proba >= 0) & (proba <= 1)) and np.allclose(proba.sum(axis=1), 1.0)
    if hasattr(est, "decision_function"):
        assert np.all(np.isfinite(est.decision_function(X)))
    if hasattr(est, "transform"):
        assert np.all(np.isfinite(np.asarray(est.transform(X), dtype=float)))


def _fuzzed_classes():
    """Every public estimator; of the deep methods, which share DeepPUBase's validation and prediction, two run by
    default and the others with ``-m slow`` (each costs its compilations: about 25 s of a 2-core CI machine)."""
    from pujax.neural import DeepPUBase

    default_deep = ("PUSBClassifier", "LBEClassifier")
    return [pytest.param(c, id=c.__name__, marks=[pytest.mark.slow]
                         if issubclass(c, DeepPUBase) and c.__name__ not in default_deep else [])
            for c in public_estimator_classes()]


@pytest.mark.parametrize("cls", _fuzzed_classes())
def test_clear_error_or_valid_prediction(cls):
    @FUZZ
    @given(pu_problems())
    def run(problem):
        X, s, prior = problem
        est = fast_instance(cls)
        if "prior" in est.get_params():
            est.set_params(prior=prior)
        if "random_state" in est.get_params():
            est.set_params(random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                est.fit(X, s)
            except (ValueError, TypeError) as exc:
                assert len(str(exc)) > 20, f"unclear error: {exc!r}"
                return
            _check_valid(est, X)

    run()


@FUZZ
@given(st.data())
def test_damaged_model_file_loads_validly_or_is_refused(tmp_path_factory, data):
    from pujax.boosting import AdaPUClassifier

    r = np.random.default_rng(0)
    y = (r.random(80) < 0.4).astype(int)
    X = (r.normal(size=(80, 3)) + y[:, None]).astype(np.float32)
    s = ((y == 1) & (r.random(80) < 0.6)).astype(int)
    path = tmp_path_factory.mktemp("m") / "m"
    AdaPUClassifier(n_estimators=5, prior=0.4, random_state=0).fit(X, s).save(path)
    doc = json.loads(path.with_suffix(".json").read_text())
    leaves = []

    def walk(node, trail):
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, trail + [k])
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, trail + [i])
        else:
            leaves.append(trail)

    walk(doc, [])
    trail = data.draw(st.sampled_from(leaves))
    value = data.draw(st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats(allow_nan=True),
                                st.text(max_size=8), st.just({"__array__": "a0"}), st.just([1, 2])))
    node = doc
    for k in trail[:-1]:
        node = node[k]
    node[trail[-1]] = value
    path.with_suffix(".json").write_text(json.dumps(doc))
    try:
        est = AdaPUClassifier.load(path)
    except ValueError:
        return
    _check_valid(est, X)
