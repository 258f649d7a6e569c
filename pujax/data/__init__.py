"""PU data generation: case-control / censoring splits, contamination (:mod:`pujax.data.splits`)."""
from pujax.data.splits import PUSplit, contaminate, make_case_control, make_censoring

__all__ = ["PUSplit", "make_case_control", "make_censoring", "contaminate"]
