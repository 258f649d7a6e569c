"""The public estimators of pujax and the constructor arguments that make them fast enough for the test suite."""
from sklearn.base import BaseEstimator

import pujax

# the rule-based deep methods (pujax.neural.DeepPUBase): a small network, minibatches of 64, a larger step size
_DEEP = dict(batch_size=64, learning_rate=0.01, model_kwargs={"hidden_sizes": (16,)})

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
    "PUSBClassifier": dict(epochs=30, **_DEEP),
    "PUbNClassifier": dict(pretrain_epochs=10, epochs=30, **_DEEP),
    "DistPUClassifier": dict(warmup_epochs=10, epochs=30, mixup_learning_rate=0.002, **_DEEP),
    "PULDAClassifier": dict(warmup_epochs=10, epochs=30, warmup_learning_rate=0.01, **_DEEP),
    "CountLossClassifier": dict(epochs=30, **_DEEP),
    "PUeClassifier": dict(warmup_epochs=10, epochs=30, **_DEEP),
    "CVIRClassifier": dict(warmup_epochs=5, epochs=30, **_DEEP),
    "P3MixClassifier": dict(epochs=30, top_k=8, **_DEEP),
    "RobustPUClassifier": dict(pretrain_epochs=10, pretrain_learning_rate=0.01, epochs=30, **_DEEP),
    "HolisticPUClassifier": dict(warmup_epochs=10, epochs=30, **_DEEP),
    "LBEClassifier": dict(warmup_epochs=10, epochs=30, **_DEEP),
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
