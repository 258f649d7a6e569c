"""The curated public API resolves, and every estimator follows the scikit-learn conventions of DESIGN §1."""
import numpy as np
import pytest
from sklearn.base import clone

import pujax


@pytest.mark.parametrize("name", pujax.__all__)
def test_public_names_resolve(name):
    assert getattr(pujax, name) is not None


CLASSIFIERS = ["PUExtraTreesClassifier", "PURandomForestClassifier", "PUDecisionTreeClassifier", "AdaPUClassifier",
               "RESVMClassifier", "BaggingSVMClassifier", "CWSVMClassifier", "NNPUClassifier", "TwoHNC"]


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_estimator_conventions(name):
    cls = getattr(pujax, name)
    est = cls()
    assert clone(est).get_params() == est.get_params()  # nothing computed in __init__
    for method in ("fit", "predict"):
        assert hasattr(est, method), (name, method)
    with pytest.raises(Exception) as err:
        est.predict(np.zeros((2, 3)))
    assert "fit" in str(err.value).lower()
