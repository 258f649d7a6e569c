"""scikit-learn's own estimator checks on every public pujax estimator (``parametrize_with_checks``).

Every class listed in ``pujax``'s public table is checked, so an estimator added later is checked too. Checks that
cannot hold for PU learning are declared by the class itself in ``_expected_failed_checks`` (check name -> reason,
at most 3, listed in docs/sklearn.md). Slow defaults are shrunk here (fewer trees, epochs or search steps) so the
suite stays fast; ``benchmarks/conformance.py`` runs the same checks on the true defaults.
"""
import warnings

import pytest
from _estimators import fast_instance, public_estimator_classes
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from pujax.base import LABEL_RULE_CHECKS, PUClassifierMixin


def _instances():
    return [fast_instance(cls) for cls in public_estimator_classes()]


# scikit-learn checks that fit on y in {1, 2}: pujax refuses that encoding unless pos_label names the labeled value,
# so they run on the estimator with pos_label=2 (as a user with such labels would); without the parameter they fail.
Y12_CHECKS = ("check_estimators_dtypes", "check_fit2d_1feature", "check_classifier_data_not_an_array",
              "check_sample_weights_shape", "check_sample_weights_pandas_series",
              "check_sample_weights_not_overwritten", "check_sample_weights_not_an_array")


def _check_name(check):
    return getattr(check, "func", check).__name__


def _expected_failed_checks(estimator):
    shared = dict(LABEL_RULE_CHECKS) if isinstance(estimator, PUClassifierMixin) else {}
    if isinstance(estimator, PUClassifierMixin) and "pos_label" not in estimator.get_params():
        shared.update(dict.fromkeys(Y12_CHECKS, "fits on y in {1, 2}, refused without a pos_label parameter"))
    return {**shared, **getattr(type(estimator), "_expected_failed_checks", {})}


def test_expected_failures_are_few_and_explained():
    for cls in public_estimator_classes():
        expected = getattr(cls, "_expected_failed_checks", {})
        assert len(expected) <= 3, cls.__name__
        assert all(isinstance(r, str) and len(r) > 10 for r in expected.values()), cls.__name__


# The neural estimators compile a training program per row count or size bucket (several seconds each on 2 cores):
# the default suite runs these core checks of them, `pytest -m slow` all of them (conftest.py marks the others slow).
# The rule-based deep methods share every line of their estimator (pujax.neural.DeepPUBase) but the training rule:
# PUbNClassifier runs the core checks, the others DEEP_CORE_CHECKS.
DEEP = ("PUSBClassifier", "PUbNClassifier", "DistPUClassifier", "PULDAClassifier", "CountLossClassifier",
        "PUeClassifier", "CVIRClassifier", "P3MixClassifier", "RobustPUClassifier", "HolisticPUClassifier",
        "LBEClassifier")
CORE_ONLY = ("VPUClassifier", "NNPUClassifier", "TwoHNC") + DEEP  # every check of these: -m slow (10-18 s each)
DEEP_CORE_CHECKS = ("check_fit_score_takes_y", "check_classifiers_train", "check_estimators_pickle")
CORE_CHECKS = (
    "check_estimators_dtypes", "check_fit_score_takes_y", "check_estimators_fit_returns_self", "check_fit2d_1sample",
    "check_estimators_nan_inf", "check_estimators_pickle", "check_classifiers_train", "check_classifiers_classes",
    "check_supervised_y_2d", "check_fit_check_is_fitted", "check_n_features_in", "check_get_params_invariance",
    "check_set_params", "check_dont_overwrite_parameters", "check_fit_idempotent",
    "check_parameters_default_constructible",
)


def core_checks(name: str) -> tuple:
    """The checks of estimator ``name`` that the default suite runs (CORE_ONLY estimators; the rest are slow)."""
    return DEEP_CORE_CHECKS if name in DEEP and name != "PUbNClassifier" else CORE_CHECKS


@parametrize_with_checks(_instances(), expected_failed_checks=_expected_failed_checks)
def test_scikit_learn_estimator_checks(estimator, check):
    if _check_name(check) in Y12_CHECKS and "pos_label" in estimator.get_params():
        estimator = clone(estimator).set_params(pos_label=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(estimator)


@pytest.mark.parametrize("cls", public_estimator_classes(), ids=lambda c: c.__name__)
def test_default_construction_and_keyword_only_parameters(cls):
    import inspect

    est = cls()  # every estimator is constructible (and fittable) with its defaults
    params = inspect.signature(cls.__init__).parameters
    positional = [p for p in list(params)[1:] if params[p].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    assert len(positional) <= 1, f"{cls.__name__}: only the first hyper-parameter may be positional: {positional}"
    assert est.get_params() is not None
