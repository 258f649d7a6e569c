"""PU decision trees and PU Extra Trees on a jit-compiled histogram engine (Wilton et al. 2022; DESIGN §3.2)."""
from pujax.trees.baselines import NaivePUET, PUBaggingClassifier, PUBaggingET, SupervisedET
from pujax.trees.core import forest_apply, forest_decision, forest_fit, forest_fit_bags, forest_proba
from pujax.trees.forest import PUDecisionTreeClassifier, PUExtraTreesClassifier, PURandomForestClassifier
from pujax.trees.model import Forest

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
