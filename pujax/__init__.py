"""pujax: positive-unlabeled (PU) learning in JAX.

Estimators (scikit-learn API, ``fit(X, s)`` with ``s`` = 1 for labeled positives, 0 for unlabeled):

* trees (Wilton et al. 2022): :class:`PUExtraTreesClassifier`, :class:`PURandomForestClassifier`,
  :class:`PUDecisionTreeClassifier` and the baselines :class:`NaivePUET`, :class:`PUBaggingET`,
  :class:`SupervisedET` -- ``pujax.trees``;
* boosting (Zhao et al.): :class:`AdaPUClassifier` -- ``pujax.boosting``;
* SVM ensembles (Claesen et al. 2015): :class:`RESVMClassifier`, :class:`BaggingSVMClassifier`,
  :class:`CWSVMClassifier` -- ``pujax.svm``;
* graph cuts (Hochbaum & Nitayanont): :class:`TwoHNC` -- ``pujax.graph``;
* neural uPU / nnPU (Kiryo et al. 2017): :class:`NNPUClassifier`, and prior-free variational PU learning (Chen et
  al. 2020): :class:`VPUClassifier` -- ``pujax.neural``;
* feature selection (Uchikoshi & Akimoto 2025): :class:`FSCPU` -- ``pujax.feature_selection``;
* around any model (``pujax.meta``): :class:`ElkanNotoClassifier` (Elkan & Noto 2008),
  :class:`PUBaggingClassifier` (Mordelet & Vert 2014), :class:`TwoStepClassifier` (Liu et al. 2002, 2003),
  :class:`NNPULinearClassifier` (linear uPU / nnPU risk, Kiryo et al. 2017), :class:`SAREMClassifier` and
  :func:`scar_check` (labels selected at random, Bekker et al. 2019);
* class-prior estimation: :func:`estimate_prior` -- ``pujax.prior``.

Building blocks: ``pujax.risk`` (losses, uPU/nnPU risks, closed-form node risks), ``pujax.metrics``,
``pujax.model_selection``, ``pujax.data`` (PU splits), ``pujax.datasets`` (real-data loaders), ``pujax.validation``.
Submodules and estimators are imported lazily, so ``import pujax`` stays fast.
"""
from __future__ import annotations

import importlib

__version__ = "0.1.0"

_SUBMODULES = (
    "risk", "metrics", "data", "datasets", "validation", "base", "persistence", "progress", "prior", "devices",
    "compilation", "model_selection",
    "trees", "boosting", "svm", "graph", "neural", "feature_selection", "meta",
)

_ESTIMATORS = {
    "PUDecisionTreeClassifier": "trees",
    "PUExtraTreesClassifier": "trees",
    "PURandomForestClassifier": "trees",
    "NaivePUET": "trees",
    "PUBaggingET": "trees",
    "SupervisedET": "trees",
    "AdaPUClassifier": "boosting",
    "DecisionStumpClassifier": "boosting",
    "CWSVMClassifier": "svm",
    "BaggingSVMClassifier": "svm",
    "RESVMClassifier": "svm",
    "TwoHNC": "graph",
    "NNPUClassifier": "neural",
    "VPUClassifier": "neural",
    "PUSBClassifier": "neural",
    "PUbNClassifier": "neural",
    "DistPUClassifier": "neural",
    "PULDAClassifier": "neural",
    "CountLossClassifier": "neural",
    "PUeClassifier": "neural",
    "CVIRClassifier": "neural",
    "P3MixClassifier": "neural",
    "RobustPUClassifier": "neural",
    "HolisticPUClassifier": "neural",
    "LBEClassifier": "neural",
    "FSCPU": "feature_selection",
    "ElkanNotoClassifier": "meta",
    "PUBaggingClassifier": "meta",
    "TwoStepClassifier": "meta",
    "NNPULinearClassifier": "meta",
    "SAREMClassifier": "meta",
    "scar_check": "meta",
    "make_sar": "data",
    "estimate_prior": "prior",
    "PriorEstimate": "prior",
    "enable_compilation_cache": "compilation",
    "make_case_control": "data",
    "make_censoring": "data",
    "contaminate": "data",
    "load": "datasets",
    "PUStratifiedKFold": "model_selection",
    "pu_train_test_split": "model_selection",
    "make_pu_scorer": "model_selection",
}

__all__ = sorted(_SUBMODULES + tuple(_ESTIMATORS))


def __getattr__(name):
    if name in _SUBMODULES:
        module = importlib.import_module(f"pujax.{name}")
        globals()[name] = module
        return module
    if name in _ESTIMATORS:
        value = getattr(importlib.import_module(f"pujax.{_ESTIMATORS[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'pujax' has no attribute {name!r}")


def __dir__():
    return __all__
