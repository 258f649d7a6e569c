"""PU learning around any model (DESIGN §2): Elkan-Noto, bagging PU, two-step reliable negatives, a linear
uPU/nnPU learner and SAR propensity weighting."""
from pujax.meta.bagging import PUBaggingClassifier
from pujax.meta.elkan_noto import ElkanNotoClassifier, elkan_noto_weights, estimate_label_frequency
from pujax.meta.nnpu_linear import LinearPUModel, NNPULinearClassifier, linear_pu_fit, linear_pu_objective
from pujax.meta.sar import (
    SAREMClassifier,
    SCARCheck,
    SCARWarning,
    inverse_propensity_weights,
    sar_em,
    scar_check,
)
from pujax.meta.two_step import TwoStepClassifier, rocchio_negatives, spy_negatives, threshold_negatives

__all__ = [
    "ElkanNotoClassifier", "PUBaggingClassifier", "TwoStepClassifier", "NNPULinearClassifier", "SAREMClassifier",
    "estimate_label_frequency", "elkan_noto_weights", "spy_negatives", "rocchio_negatives", "threshold_negatives",
    "LinearPUModel", "linear_pu_fit", "linear_pu_objective",
    "sar_em", "scar_check", "SCARCheck", "SCARWarning", "inverse_propensity_weights",
]
