"""PU decision trees and PU Extra Trees on a jit-compiled histogram engine (Wilton et al. 2022; DESIGN §3.2).

The baselines (:class:`NaivePUET`, :class:`SupervisedET`, :class:`PUBaggingET`, :class:`PUBaggingClassifier`) are
imported on first use: they need ``pujax.meta`` and scikit-learn's trees, which the PU forests do not.
"""
from __future__ import annotations

import importlib

from pujax.trees.core import forest_apply, forest_decision, forest_fit, forest_fit_bags, forest_proba
from pujax.trees.forest import PUDecisionTreeClassifier, PUExtraTreesClassifier, PURandomForestClassifier
from pujax.trees.model import Forest

_BASELINES = ("NaivePUET", "SupervisedET", "PUBaggingClassifier", "PUBaggingET")

__all__ = [
    "PUDecisionTreeClassifier",
    "PUExtraTreesClassifier",
    "PURandomForestClassifier",
    "NaivePUET",
    "SupervisedET",
    "PUBaggingClassifier",
    "PUBaggingET",
    "Forest",
    "forest_fit",
    "forest_fit_bags",
    "forest_proba",
    "forest_decision",
    "forest_apply",
]


def __getattr__(name):
    if name in _BASELINES:
        value = getattr(importlib.import_module("pujax.trees.baselines"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'pujax.trees' has no attribute {name!r}")


def __dir__():
    return __all__
