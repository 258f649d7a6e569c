"""The public estimators of pujax and the constructor arguments that make them fast enough for the test suite."""
from sklearn.base import BaseEstimator

import pujax

# constructor arguments that only make tests faster (the method and its validation are unchanged)
FAST = {
    "PUExtraTreesClassifier": dict(n_estimators=10),
    "PURandomForestClassifier": dict(n_estimators=10),
    "NaivePUET": dict(n_estimators=10),
    "SupervisedET": dict(n_estimators=10),
    "PUBaggingET": dict(n_estimators=3, n_trees=10),
    "AdaPUClassifier": dict(n_estimators=20),
    "BaggingSVMClassifier": dict(n_estimators=5),
    "RESVMClassifier": dict(n_estimators=5),
    "NNPUClassifier": dict(epochs=5),
    "VPUClassifier": dict(epochs=30, learning_rate=0.01, model_kwargs={"hidden_sizes": (32,)}),
    "FSCPU": dict(n_iter=100),
    "PUBaggingClassifier": dict(n_estimators=10),
}


def public_estimator_classes():
    """Every estimator class of pujax's public API, in name order."""
    out = []
    for name in sorted(pujax._ESTIMATORS):
        obj = getattr(pujax, name)
        if isinstance(obj, type) and issubclass(obj, BaseEstimator):
            out.append(obj)
    return out


def fast_instance(cls, **kwargs):
    """``cls`` with its defaults, made faster by ``FAST``, plus ``kwargs``."""
    return cls(**{**FAST.get(cls.__name__, {}), **kwargs})
