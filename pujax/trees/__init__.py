"""PU decision trees and PU Extra Trees on a jit-compiled histogram engine (Wilton et al. 2022; DESIGN §3.2)."""
from pujax.trees.baselines import NaivePUET, PUBaggingClassifier, PUBaggingET, SupervisedET
from pujax.trees.forest import PUDecisionTreeClassifier, PUExtraTreesClassifier, PURandomForestClassifier

__all__ = [
    "PUDecisionTreeClassifier",
    "PUExtraTreesClassifier",
    "PURandomForestClassifier",
    "NaivePUET",
    "SupervisedET",
    "PUBaggingClassifier",
    "PUBaggingET",
]
