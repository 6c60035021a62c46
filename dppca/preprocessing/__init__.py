"""Input to a named matrix, and the column scales (public, sample or private).

* :mod:`~dppca.preprocessing.matrix`: :func:`as_matrix` (arrays and DataFrames, names kept),
  random disjoint pairs, public/sample scales and :func:`column_scales`.
* :mod:`~dppca.preprocessing.scales`: :func:`private_column_scales` (private standardization).
"""
from .matrix import (ColumnScales, Matrix, as_matrix, column_scales, public_scale, random_pairs,
                     sample_scale)
from .scales import private_column_scales

__all__ = ["ColumnScales", "Matrix", "as_matrix", "column_scales", "private_column_scales",
           "public_scale", "random_pairs", "sample_scale"]
