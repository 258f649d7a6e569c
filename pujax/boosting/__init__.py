"""Ada-PU: boosting decision stumps from positive and unlabeled data (Zhao et al.; DESIGN §3.4); a supervised
decision stump fitted in JAX (a batched base model of bagging)."""
from pujax.boosting.adapu import (
    AdaPUModel,
    adapu_candidates,
    adapu_decision_function,
    adapu_fit,
    adapu_fit_many,
    adapu_init,
    adapu_rounds,
    adapu_staged_decision_function,
    deduplicate,
)
from pujax.boosting.decision_stump import StumpModel, stump_fit, stump_proba
from pujax.boosting.estimator import AdaPUClassifier, DecisionStumpClassifier
from pujax.boosting.stumps import (
    CodedFeatures,
    coded_weight_sums,
    draw_thresholds,
    encode_features,
    feature_ranges,
    masked_weight_sums,
    sorted_candidates,
    sorted_prefix_sums,
    stump_errors,
    stump_predict,
    threshold_bounds,
)

__all__ = [
    "AdaPUClassifier",
    "DecisionStumpClassifier",
    "StumpModel",
    "stump_fit",
    "stump_proba",
    "AdaPUModel",
    "adapu_fit",
    "adapu_fit_many",
    "adapu_candidates",
    "adapu_init",
    "adapu_rounds",
    "adapu_decision_function",
    "adapu_staged_decision_function",
    "deduplicate",
    "CodedFeatures",
    "coded_weight_sums",
    "encode_features",
    "draw_thresholds",
    "feature_ranges",
    "masked_weight_sums",
    "sorted_candidates",
    "sorted_prefix_sums",
    "stump_errors",
    "stump_predict",
    "threshold_bounds",
]
