"""Input to a named matrix, and the column scales (public, sample or private).

* :mod:`~dppca.preprocessing.matrix`: :func:`as_matrix` (arrays and DataFrames, names kept),
  public/sample scales and :func:`column_scales`; the row-cleaning
  rule :func:`clamp_values` (every value clamped to the public range +-VALUE_BOUND).
* :mod:`~dppca.preprocessing.scales`: :func:`private_column_scales` (private standardization);
  :mod:`~dppca.preprocessing.scale_pooling` pools its columns' readings (empirical Bayes).
"""
from ..stats.paired_differences import random_pairs  # the one pairing rule, re-exported here
from .matrix import (VALUE_BOUND, ColumnScales, Matrix, as_matrix, clamp_values, column_scales, public_scale,
                     sample_scale)
from .scales import private_column_scales

__all__ = ["VALUE_BOUND", "ColumnScales", "Matrix", "as_matrix", "clamp_values", "column_scales", "private_column_scales",
           "public_scale", "random_pairs", "sample_scale"]
