"""PU data generation: case-control / censoring splits, contamination (:mod:`pujax.data.splits`) and the RESVM
paper's synthetic 2-D data with its three label-noise settings (:mod:`pujax.data.synthetic`), labels selected at
random with a feature-dependent propensity (:mod:`pujax.data.sar`)."""
from pujax.data.sar import SARSplit, logistic_propensity, make_sar
from pujax.data.splits import PUSplit, contaminate, make_case_control, make_censoring
from pujax.data.synthetic import LABEL_NOISE_SETTINGS, make_circle_data, make_label_noise_setting

__all__ = ["PUSplit", "make_case_control", "make_censoring", "contaminate", "make_circle_data",
           "make_label_noise_setting", "LABEL_NOISE_SETTINGS", "SARSplit", "make_sar", "logistic_propensity"]
