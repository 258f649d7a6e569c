"""Neural PU learners in flax + optax: nnPU / uPU (Kiryo et al. 2017; DESIGN §3.3) and VPU (Chen et al. 2020).

* :mod:`pujax.neural.models` -- ``Linear``, ``MLP`` (d-300-300-300-300-1, BatchNorm, ReLU / Softsign) and
  ``AllConvNet`` (the 13-layer CIFAR-10 net), as ``flax.linen`` modules;
* :mod:`pujax.neural.train` -- the functional core: :func:`train` (two jit-compiled programs per run) and
  :func:`fit_many` (``vmap`` over seeds);
* :class:`NNPUClassifier` -- the scikit-learn estimator;
* :mod:`pujax.neural.vpu` and :class:`VPUClassifier` -- variational PU learning with MixUp (Chen et al. 2020), which
  needs no class prior;
* the deep PU methods of the PU-Bench and Wang et al. benchmarks (ICLR 2026), each a training rule
  (:mod:`pujax.neural.rules`) run by the same engine (:mod:`pujax.neural.engine`) with its loss in
  :mod:`pujax.neural.losses` and a scikit-learn estimator on :class:`DeepPUBase`: :class:`PUSBClassifier`,
  :class:`PUbNClassifier`, :class:`DistPUClassifier`, :class:`PULDAClassifier`, :class:`CountLossClassifier`,
  :class:`PUeClassifier` (:mod:`pujax.neural.rules_risk`), :class:`CVIRClassifier`, :class:`P3MixClassifier`,
  :class:`RobustPUClassifier`, :class:`HolisticPUClassifier`, :class:`LBEClassifier`
  (:mod:`pujax.neural.rules_label`); nnPU with gradient ascent (nnPU-GA) is :class:`NNPUClassifier`'s rule;
* model selection on held-out PU rows for every estimator here (:mod:`pujax.neural.selection`: the held-out risk,
  proxy accuracy, proxy AUC); scipy sparse input for all but :class:`VPUClassifier` (:mod:`pujax.neural.rows`).

Using the nnPU objective in your own optax loop: see :func:`pujax.risk.nnpu_objective` and the notebook
``notebooks/grad_through_nnpu.ipynb``.
"""
from pujax.neural.deep_base import DeepPUBase
from pujax.neural.deep_label import (
    CVIRClassifier,
    HolisticPUClassifier,
    LBEClassifier,
    P3MixClassifier,
    RobustPUClassifier,
)
from pujax.neural.deep_risk import (
    CountLossClassifier,
    DistPUClassifier,
    PUbNClassifier,
    PUeClassifier,
    PULDAClassifier,
    PUSBClassifier,
)
from pujax.neural.estimator import NNPUClassifier, VPUClassifier
from pujax.neural.models import MLP, AllConvNet, Linear, make_model
from pujax.neural.train import (
    TrainConfig,
    batch_layout,
    fit_many,
    init_state,
    loss_and_grad,
    make_config,
    make_optimizer,
    pad_for_training,
    predict_scores,
    run_epochs,
    train,
    train_step,
)
from pujax.neural.vpu import VPUModel, vpu_decision, vpu_fit, vpu_fit_many, vpu_loss

__all__ = [
    "NNPUClassifier",
    "VPUClassifier",
    "DeepPUBase",
    "PUSBClassifier",
    "PUbNClassifier",
    "DistPUClassifier",
    "PULDAClassifier",
    "CountLossClassifier",
    "PUeClassifier",
    "CVIRClassifier",
    "P3MixClassifier",
    "RobustPUClassifier",
    "HolisticPUClassifier",
    "LBEClassifier",
    "VPUModel",
    "vpu_fit",
    "vpu_fit_many",
    "vpu_decision",
    "vpu_loss",
    "train",
    "fit_many",
    "Linear",
    "MLP",
    "AllConvNet",
    "make_model",
    "TrainConfig",
    "make_config",
    "make_optimizer",
    "batch_layout",
    "pad_for_training",
    "init_state",
    "loss_and_grad",
    "train_step",
    "run_epochs",
    "predict_scores",
]
