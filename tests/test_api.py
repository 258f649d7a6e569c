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


def test_demo_runs_and_tuned_resvm_beats_chance():
    """``python -m pujax`` on breast cancer (bundled with scikit-learn), RESVM only: a row per method with sane
    metrics; the pu_score-tuned RESVM, thresholded at the known prior, is well above its majority vote (78.9 %)."""
    from pujax.__main__ import run

    lines = []
    rows = run(["breast_cancer"], seed=0, only=["RESVM"], stream=lines.append)
    assert [r[1] for r in rows] == ["RESVM (Claesen+15)"]
    _, _, acc, f1, auc, fit_s = rows[0]
    assert acc > 0.85 and f1 > 0.85 and auc > 0.95 and fit_s > 0
    assert any("RESVM" in line for line in lines)
