"""R interoperability (``dppca.interop``): results as the R objects the R package ``dppca`` returns.

Two routes lead to R and both build their objects from one description, so they
cannot drift apart:

* :func:`r_payload` (pure Python, no R needed) turns a result's ``to_dict()`` payload
  into a small tree of *R nodes* (plain dicts: vectors, matrices, data frames, lists,
  with names, classes and attributes). The R package ``dppcapy`` (``r-wrapper/``, via
  reticulate) walks that tree in R (``.as_r()`` in ``R/convert.R``).
* The rpy2 route (extra ``[r]``): :func:`converter` is an rpy2 ``Converter`` whose
  ``py2rpy`` rules walk the same tree into rpy2 objects; :func:`to_r` and
  :func:`from_r` are the conveniences. rpy2 is imported lazily, inside the functions.

R structures (reference/r-dppca-scree.md §5.7, r-dppca-score.md §6, §7):

* ``dp_pc_dir``: numeric p x k matrix, dimnames (variables, PC1..PCk); class
  ``c("dppca_directions", "matrix", "array")``; attributes ``ledger``, ``eigenvalues``,
  ``summary``.
* ``dp_scree``: named list ``nonprivate`` (when computed) then one entry per method,
  each ``list(scree=, pve=)`` with numeric vectors named PC1..PCk; class ``dppca_scree``;
  attributes ``ledger`` (every release of the call), ``private``, ``summary``; each entry
  carries ``pve_among_k``, ``cumulative_pve``, ``total_variance`` (and for methods ``raw``,
  ``std_err``, ``conf_int``, its own ``ledger``) as attributes.
* ``dp_score``: ``list(score=, frame=list(xlim, ylim), nonprivate=, add=, sparse=)``, each
  histogram a data.frame (xmin, xmax, ymin, ymax, prob); ``dp_score_group``:
  ``list(score=, frame=, groups=list(<g>=list(n=, nonprivate=, add=, sparse=)))``;
  class ``dppca_score``; attributes ``ledger``, ``summary``.

A ledger is a data.frame of class ``c("dppca_ledger", "data.frame")`` with one row per
release (step, mechanism, sensitivity, norm, noise_scale, eps, delta) and attributes
``budget`` (eps, delta), ``spent`` and ``neighbouring``, plus ``missing`` (the call's public
``missing=`` policy, e.g. "pairwise present (auto)") when the result records one.
"""
from .r_call import call_for_r
from .r_schema import (LEDGER_COLUMNS, MODES, directions_payload, ledger_payload,
                       r_data_frame, r_list, r_matrix, r_payload, r_vector, samples_payload,
                       score_payload, scree_payload)
from .rpy2_converter import converter, from_r, materialize, to_r

__all__ = ["LEDGER_COLUMNS", "MODES", "call_for_r", "converter", "directions_payload", "from_r",
           "ledger_payload", "materialize", "r_data_frame", "r_list", "r_matrix", "r_payload",
           "r_vector", "samples_payload", "score_payload", "scree_payload", "to_r"]
