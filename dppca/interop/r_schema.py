"""The R-object schema: dppca results as trees of R nodes (pure Python, no R needed).

Structures: :mod:`dppca.interop`; walked in R by ``dppcapy`` and into rpy2 by ``rpy2_converter``.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..results import PCDirections

#: R vector modes a node may carry.
MODES = ("double", "integer", "character", "logical")

LEDGER_COLUMNS = ("step", "mechanism", "sensitivity", "norm", "noise_scale", "eps", "delta")
LEDGER_MODES = {c: "character" if c in ("step", "mechanism", "norm") else "double" for c in LEDGER_COLUMNS}


# --------------------------------------------------------------------------- R nodes
def r_vector(values, mode: str = "double", names=None) -> dict:
    """Build an R atomic vector node.

    Parameters
    ----------
    values : sequence or numpy array, shape (m,)
        The elements (flattened), converted to ``mode``.
    mode : {"double", "integer", "character", "logical"}
        R storage mode.
    names : sequence of str, optional
        R ``names`` attribute (length m).

    Returns
    -------
    dict
        Node ``{"r": "vector", "mode", "values", "names"}``.

    Raises
    ------
    ValueError
        ``mode`` is not one of :data:`MODES`.

    Examples
    --------
    >>> from dppca.interop import r_vector
    >>> r_vector([1, 2], "integer", names=["a", "b"])["names"]
    ['a', 'b']
    """
    if mode not in MODES:
        raise ValueError(f"`mode` must be one of {MODES}; got {mode!r}")
    if mode == "character":
        values = [str(v) for v in values]
    else:
        values = np.asarray(values, dtype={"double": float, "integer": np.int32, "logical": bool}[mode])
        values = values.reshape(-1)
    return {"r": "vector", "mode": mode, "values": values,
            "names": None if names is None else [str(n) for n in names]}


def r_matrix(values, rownames=None, colnames=None) -> dict:
    """Build a numeric R matrix node with optional dimnames.

    Parameters
    ----------
    values : array_like, shape (n, p)
        The entries, converted to float.
    rownames, colnames : sequence of str, optional
        Row names (length n) and column names (length p); None: none.

    Returns
    -------
    dict
        Node ``{"r": "matrix", "values", "rownames", "colnames"}``.

    Raises
    ------
    ValueError
        ``values`` is not 2-D.

    Examples
    --------
    >>> from dppca.interop import r_matrix
    >>> r_matrix([[1, 0], [0, 1]], colnames=["PC1", "PC2"])["colnames"]
    ['PC1', 'PC2']
    """
    values = np.asarray(values, dtype=float)
    if values.ndim != 2:
        raise ValueError(f"a matrix node needs 2-D values; got shape {values.shape}")
    return {"r": "matrix", "values": values,
            "rownames": None if rownames is None else [str(n) for n in rownames],
            "colnames": None if colnames is None else [str(n) for n in colnames]}


def r_data_frame(frame: pd.DataFrame, row_names: bool = False) -> dict:
    """Build an R data.frame node from a pandas DataFrame, column names kept.

    Parameters
    ----------
    frame : pandas.DataFrame
        Columns become logical, integer, double or (any other dtype) character vectors.
    row_names : bool
        True: the index (as strings) becomes R's row names; False: R's automatic row names.

    Returns
    -------
    dict
        Node ``{"r": "data.frame", "names", "values", "row_names"}``, one vector per column.

    Examples
    --------
    >>> import pandas as pd
    >>> from dppca.interop import r_data_frame
    >>> [column["mode"] for column in r_data_frame(pd.DataFrame({"x": [1.5], "g": ["a"]}))["values"]]
    ['double', 'character']
    """
    columns = [_column_node(frame[name]) for name in frame.columns]
    return {"r": "data.frame", "names": [str(c) for c in frame.columns], "values": columns,
            "row_names": [str(i) for i in frame.index] if row_names else None}


def r_list(items: Mapping, cls=None, attributes: Mapping | None = None) -> dict:
    """Build a named R list node, with an optional S3 class and attributes.

    Parameters
    ----------
    items : Mapping of str to node
        Element name -> R node (or None for R's NULL), in order.
    cls : str or sequence of str, optional
        S3 class of the list (R's ``class`` attribute).
    attributes : Mapping of str to node, optional
        Extra R attributes; entries whose value is None are left out.

    Returns
    -------
    dict
        Node ``{"r": "list", "names", "values"}`` (and ``"class"``, ``"attributes"``).

    Examples
    --------
    >>> from dppca.interop import r_list, r_vector
    >>> r_list({"eps": r_vector([1.0])}, cls="budget")["class"]
    ['budget']
    """
    return _decorate({"r": "list", "names": [str(k) for k in items], "values": list(items.values())},
                     cls, attributes)


def _decorate(node: dict, cls=None, attributes: Mapping | None = None) -> dict:
    if cls is not None:
        node["class"] = [cls] if isinstance(cls, str) else list(cls)
    if attributes:
        node["attributes"] = {name: value for name, value in attributes.items() if value is not None}
    return node


def _column_node(column: pd.Series) -> dict:
    if pd.api.types.is_bool_dtype(column):
        return r_vector(column.to_numpy(), "logical")
    if pd.api.types.is_integer_dtype(column):
        return r_vector(column.to_numpy(), "integer")
    if pd.api.types.is_numeric_dtype(column):
        return r_vector(column.to_numpy(dtype=float), "double")
    return r_vector(column.astype(str).tolist(), "character")


def _named(series: pd.Series) -> dict:
    return r_vector(series.to_numpy(dtype=float), "double", names=series.index)


def _text(value: str) -> dict:
    return r_vector([value], "character")


# --------------------------------------------------------------------------- payloads
def r_payload(result) -> dict:
    """Build the R node tree of a dppca result (what ``dppcapy`` and :func:`to_r` build in R).

    Parameters
    ----------
    result : PCDirections, ScreeResult, ScoreResult or Ledger
        The result of :func:`dppca.dp_pc_dir`, :func:`dppca.dp_scree`, :func:`dppca.dp_score`
        (or its grouped and plotting variants), or a :class:`dppca.privacy.Ledger`.

    Returns
    -------
    dict
        Root R node (see the module docstring for each structure). When the result records
        its call's ``missing=`` policy (``result.missing``, a public label chosen from the
        arguments), every ledger node in the tree carries it as the attribute ``missing``.

    Raises
    ------
    TypeError
        For an object that has no R form.

    Examples
    --------
    >>> from dppca import dp_pc_dir, interop, load_gau
    >>> node = interop.r_payload(dp_pc_dir(load_gau()[:1000], k=2, eps=1, delta=1e-5, rng=1))
    >>> node["class"], node["attributes"]["ledger"]["attributes"]["missing"]["values"]
    (['dppca_directions', 'matrix', 'array'], ['pairwise present (auto)'])
    """
    for cls, build in payload_builders():
        if isinstance(result, cls):
            return _label_missing(build(result), getattr(result, "missing", None))
    raise TypeError(f"no R form for {type(result).__name__}; expected a dppca result")


def _label_missing(node, label):
    """``node`` with the attribute ``missing`` = ``label`` on each ledger node inside it."""
    if not isinstance(label, str) or not isinstance(node, dict):
        return node
    if "dppca_ledger" in node.get("class", ()):
        node.setdefault("attributes", {})["missing"] = _text(label)
    children = list(node.get("attributes", {}).values())
    if node.get("r") == "list":
        children += node["values"]
    for child in children:
        _label_missing(child, label)
    return node


def payload_builders():
    from ..privacy import Ledger
    from ..results.score import ScoreResult
    from ..results.scree import ScreeResult

    return [(PCDirections, directions_payload), (ScreeResult, scree_payload),
            (ScoreResult, score_payload), (Ledger, lambda led: ledger_payload(led.to_dict()))]


def directions_payload(result: PCDirections) -> dict:
    """Build ``dp_pc_dir``'s R matrix node with the result's attributes.

    Parameters
    ----------
    result : PCDirections
        A result of :func:`dppca.dp_pc_dir`.

    Returns
    -------
    dict
        Matrix node (p x k), class ``c("dppca_directions", "matrix", "array")``, attributes.

    Examples
    --------
    >>> from dppca import dp_pc_dir, interop, load_gau
    >>> result = dp_pc_dir(load_gau()[:1000], k=2, eps=1, delta=1e-5, rng=1)
    >>> interop.directions_payload(result)["values"].shape
    (20, 2)
    """
    data = result.to_dict()
    node = r_matrix(data["directions"], data["variables"], data["components"])
    eigenvalues = pd.Series(data["eigenvalues"], index=data["components"])
    return _decorate(node, ["dppca_directions", "matrix", "array"],
                     {"ledger": ledger_payload(data["ledger"]), "eigenvalues": _named(eigenvalues),
                      "method": _text(data["method"]), "summary": _text(str(result.summary()))})


def scree_payload(result) -> dict:
    """Build ``dp_scree``'s R list node (r-dppca-scree.md §5.7) with our extras as attributes.

    Entries ``nonprivate`` (when computed) then one per method, each ``list(scree=, pve=)`` of
    vectors named PC1..PCk; ``pve`` is the share of the private total variance (R's share among
    the k values is attribute ``pve_among_k``). Entry attributes: ``pve_among_k``,
    ``cumulative_pve``, ``total_variance``, for private methods ``raw``, ``std_err``, ``conf_int``
    (k x 2, lower/upper) and ``ledger`` (the releases the method's numbers depend on). The
    list's ``ledger`` is the combined ledger: what publishing every entry together costs.

    Parameters
    ----------
    result : ScreeResult
        A result of :func:`dppca.dp_scree`.

    Returns
    -------
    dict
        List node of class ``dppca_scree``, attributes ``ledger``, ``private``, ``summary``.

    Examples
    --------
    >>> from dppca import dp_scree, interop, load_gau
    >>> interop.scree_payload(dp_scree(load_gau()[:1000], k=2, eps=1, delta=1e-5, rng=1))["names"]
    ['clipped']
    """
    items = {}
    for key, entry in result.to_dict().items():
        name = "nonprivate" if key.replace("-", "") == "nonprivate" else key
        attributes = {"pve_among_k": _named_dict(entry["pve_among_k"]),
                      "cumulative_pve": _named_dict(entry["cumulative_pve"]),
                      "total_variance": r_vector([entry["total_variance"]])}
        if "raw" in entry:
            lower, upper = _named_dict(entry["conf_int_lower"]), _named_dict(entry["conf_int_upper"])
            attributes.update(raw=_named_dict(entry["raw"]), std_err=_named_dict(entry["std_err"]),
                              conf_int=r_matrix(np.column_stack([lower["values"], upper["values"]]),
                                                lower["names"], ["lower", "upper"]),
                              ledger=ledger_payload(entry["ledger"]))
        items[name] = r_list({"scree": _named_dict(entry["scree"]), "pve": _named_dict(entry["pve"])},
                             attributes=attributes)
    return r_list(items, "dppca_scree", {
        "ledger": ledger_payload(result.combined_ledger.to_dict()),
        "private": r_vector([result.private_directions], "logical"),
        "summary": _text(str(result.summary()))})


def _named_dict(values: Mapping) -> dict:
    return r_vector(list(values.values()), "double", names=list(values))


#: R's order of the histogram entries of dp_score (r-dppca-score.md §6).
HISTOGRAM_TARGETS = ("nonprivate", "add", "sparse")


def score_payload(result) -> dict:
    """Build ``dp_score`` / ``dp_score_group``'s R list node (r-dppca-score.md §6, §7).

    ``score`` (n x 2 matrix, NON-PRIVATE) and ``nonprivate`` appear only when computed
    (``nonprivate=True``). A group's ``n`` is its private size estimate, rounded (R: the exact size).

    Parameters
    ----------
    result : ScoreResult
        A result of :func:`dppca.dp_score` or :func:`dppca.dp_score_group`.

    Returns
    -------
    dict
        List node of class ``dppca_score`` (``frame``, then the histograms or ``groups``);
        attributes ``ledger``, ``bins``, ``centre``, ``private``, ``summary``.

    Examples
    --------
    >>> from dppca import dp_score, interop, load_gau
    >>> interop.score_payload(dp_score(load_gau()[:1000], eps=1, delta=1e-5, method="add", rng=1))["names"]
    ['frame', 'add']
    """
    data = result.to_dict()
    items = {}
    if "score" in data:  # no row names, as in R
        items["score"] = _score_matrix(data["score"], None)
    items["frame"] = r_list({"xlim": r_vector(data["frame"]["xlim"]),
                             "ylim": r_vector(data["frame"]["ylim"])})
    if "groups" in data:
        items["groups"] = r_list({g: r_list({"n": r_vector([max(0, round(entry["n"]))], "integer"),
                                             **_histograms(entry)}, WITHHOLDING)
                                  for g, entry in data["groups"].items()})
    else:
        items.update(_histograms(data))
    attributes = {"ledger": ledger_payload(data["ledger"]), "bins": r_vector(data["bins"], "integer"),
                  "centre": _named(result.centre), "private": r_vector([data["private"]], "logical"),
                  "summary": _text(str(result.summary()))}
    if getattr(result, "axis_labels", None) is not None:  # says "standardized units" when scaled
        attributes["axis_labels"] = r_vector(list(result.axis_labels), "character")
    if getattr(result, "group_sizes", None) is not None:
        attributes["group_sizes"] = r_data_frame(result.group_sizes, row_names=True)
    return r_list(items, "dppca_score", attributes)


#: S3 class of nested R lists that may withhold a NON-PRIVATE element (a group's entry, the
#: samples): asking for it is an R error naming ``nonprivate = TRUE`` (dppcapy's access.R).
WITHHOLDING = ("dppca_withholding", "list")


def samples_payload(result) -> dict:
    """Build R's ``sample`` element of ``dp_score_plot``: target -> {sampling method -> data.frame}.

    Each data.frame has columns pc_x, pc_y (and group for grouped results), as in
    r-dppca-score.md §11-12; targets in R's order (nonprivate, add, sparse).

    Parameters
    ----------
    result : ScoreResult
        A score result with ``samples`` attached (:func:`dppca.dp_score_plot`, ``draw_samples``).

    Returns
    -------
    dict
        List node of class ``c("dppca_withholding", "list")``.

    Examples
    --------
    >>> from dppca import dp_score, interop, load_gau, sampling_control
    >>> result = dp_score(load_gau().iloc[:1000], eps=1, delta=1e-5, method="add", rng=1)
    >>> _ = result.draw_samples(sampling_control(sample_size=50))
    >>> interop.samples_payload(result)["values"][0]["names"]
    ['uniform']
    """
    samples = result.samples
    return r_list({t: r_list({sm: r_data_frame(frame) for sm, frame in samples[t].items()})
                   for t in HISTOGRAM_TARGETS if t in samples}, WITHHOLDING)


def _histograms(entry: Mapping) -> dict:
    return {t: r_data_frame(pd.DataFrame(entry[t])[["xmin", "xmax", "ymin", "ymax", "prob"]])
            for t in HISTOGRAM_TARGETS if t in entry}


def _score_matrix(columns: Mapping, rownames) -> dict:
    names = [c for c in columns if c != "group"]
    return r_matrix(np.column_stack([np.asarray(columns[c], dtype=float) for c in names]), rownames, names)


def ledger_payload(ledger: Mapping | None) -> dict | None:
    """Build the R data.frame node of a ledger, class ``c("dppca_ledger", "data.frame")``.

    Parameters
    ----------
    ledger : Mapping or None
        A :class:`dppca.privacy.Ledger`'s ``to_dict()``; None (no ledger) stays None (NULL).

    Returns
    -------
    dict or None
        Data.frame node, one row per release, columns :data:`LEDGER_COLUMNS`; attributes
        ``budget`` and ``spent`` (named eps, delta) and ``neighbouring``.

    Examples
    --------
    >>> from dppca import interop, privacy
    >>> interop.ledger_payload(privacy.Ledger(1.0, 1e-5).to_dict())["class"]
    ['dppca_ledger', 'data.frame']
    """
    if ledger is None:
        return None
    releases = ledger["releases"]
    node = {"r": "data.frame", "names": list(LEDGER_COLUMNS), "row_names": None,
            "values": [r_vector([r[c] for r in releases], LEDGER_MODES[c]) for c in LEDGER_COLUMNS]}
    return _decorate(node, ["dppca_ledger", "data.frame"], {
        "budget": r_vector([ledger["eps"], ledger["delta"]], names=["eps", "delta"]),
        "spent": r_vector([ledger["spent_eps"], ledger["spent_delta"]], names=["eps", "delta"]),
        "neighbouring": _text(ledger["neighbouring"])})


__all__ = ["LEDGER_COLUMNS", "MODES", "directions_payload", "ledger_payload", "r_data_frame",
           "r_list", "r_matrix", "r_payload", "r_vector", "samples_payload", "score_payload", "scree_payload"]
