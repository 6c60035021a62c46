"""The rpy2 route: dppca results as rpy2 R objects (extra ``[r]``; rpy2 is imported lazily).

The converter walks the R-node trees of :mod:`dppca.interop.r_schema`, so both routes to R build
the same objects.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .r_schema import payload_builders, r_payload, r_vector

_CONVERTER = None


def converter():
    """Return the rpy2 ``Converter`` of dppca (built once).

    ``default_converter + numpy2ri + pandas2ri`` (pandas DataFrames <-> R data.frames,
    column names and index/row names kept) plus ``py2rpy`` rules turning every dppca
    result into the R object of :func:`r_payload`.

    Returns
    -------
    rpy2.robjects.conversion.Converter
        The same object on every call; use it locally (``with converter().context(): ...``).

    Raises
    ------
    ImportError
        If rpy2 (extra ``[r]``) or R is missing.

    Examples
    --------
    The example needs R and rpy2 (extra ``[r]``), so it is not run here:

    >>> from rpy2 import robjects  # doctest: +SKIP
    >>> from dppca import dp_pc_dir, load_gau
    >>> from dppca.interop import converter
    >>> result = dp_pc_dir(load_gau().iloc[:1000], k=2, eps=1, delta=1e-5, rng=1)
    >>> with converter().context():  # doctest: +SKIP
    ...     robjects.globalenv["res"] = result
    """
    global _CONVERTER
    if _CONVERTER is None:
        _CONVERTER = _build_converter()
    return _CONVERTER


def _build_converter():
    from rpy2.robjects import default_converter, numpy2ri, pandas2ri
    from rpy2.robjects.conversion import Converter

    rules = Converter("dppca results")
    for cls, _ in payload_builders():
        rules.py2rpy.register(cls, lambda obj: materialize(r_payload(obj)))
    return default_converter + numpy2ri.converter + pandas2ri.converter + rules


def to_r(obj):
    """Convert a dppca result, a pandas DataFrame/Series or a numpy array to an R object (rpy2).

    Results become the R package's structures (:func:`r_payload`); a DataFrame becomes a
    data.frame with its column names and index as row names; a Series a named vector.

    Parameters
    ----------
    obj : dppca result, pandas.DataFrame, pandas.Series or numpy.ndarray
        The object to convert.

    Returns
    -------
    rpy2 R object
        For a result, the R object of :func:`r_payload`; otherwise rpy2's conversion.

    Raises
    ------
    ImportError
        As :func:`converter` (no rpy2 or no R).

    Examples
    --------

    >>> import pandas as pd
    >>> from dppca.interop import to_r
    >>> to_r(pd.Series([1.0, 2.0], index=["a", "b"])).names[0]  # doctest: +SKIP
    'a'
    """
    if isinstance(obj, pd.Series):
        from rpy2.robjects import default_converter
        from rpy2.robjects.conversion import localconverter

        with localconverter(default_converter):
            return materialize(r_vector(obj.to_numpy(dtype=float), names=obj.index))
    conv = converter()
    from rpy2.robjects.conversion import localconverter

    with localconverter(conv):
        return conv.py2rpy(obj)


def materialize(node):
    """Build the rpy2 object of an R node tree (see :func:`r_payload`).

    Parameters
    ----------
    node : dict or None
        An R node from :func:`r_vector`, :func:`r_matrix`, :func:`r_data_frame`,
        :func:`r_list` or a payload builder; None gives R's NULL.

    Returns
    -------
    rpy2 R object
        The vector, matrix, data.frame or list, with its names, class and attributes.

    Raises
    ------
    ImportError
        Without rpy2 or R (as :func:`converter`).

    Examples
    --------
    Building the node is pure Python; materializing it needs R and rpy2 (extra ``[r]``), so
    that line is not run here:

    >>> from dppca.interop import materialize, r_vector
    >>> node = r_vector([1.0, 2.0], names=["a", "b"])
    >>> list(materialize(node).names)  # doctest: +SKIP
    ['a', 'b']
    """
    from rpy2 import robjects as ro
    from rpy2.robjects import default_converter
    from rpy2.robjects.conversion import localconverter

    with localconverter(default_converter):
        return _materialize(node, ro)


def _materialize(node, ro):
    if node is None:
        return ro.NULL
    kind = node["r"]
    if kind == "vector":
        obj = _rpy2_vector(node, ro)
    elif kind == "matrix":
        values = node["values"]
        obj = ro.r["matrix"](ro.FloatVector(values.ravel(order="F")), nrow=values.shape[0],
                             ncol=values.shape[1])
        obj.do_slot_assign("dimnames", ro.r["list"](_names(node["rownames"], ro),
                                                    _names(node["colnames"], ro)))
    elif kind == "data.frame":
        obj = _rpy2_data_frame(node, ro)
    else:
        obj = ro.r["list"](*[_materialize(v, ro) for v in node["values"]])
        obj.do_slot_assign("names", ro.StrVector(node["names"]))
    for name, value in node.get("attributes", {}).items():
        obj.do_slot_assign(name, _materialize(value, ro))
    if "class" in node:  # through `class<-`, which also sets the object bit S3 dispatch needs
        obj = ro.baseenv["class<-"](obj, ro.StrVector(node["class"]))
    return obj


def _rpy2_vector(node, ro):
    make = {"double": ro.FloatVector, "integer": ro.IntVector, "character": ro.StrVector,
            "logical": ro.BoolVector}[node["mode"]]
    obj = make(list(node["values"]) if node["mode"] == "character" else node["values"].tolist())
    if node["names"] is not None:
        obj.do_slot_assign("names", ro.StrVector(node["names"]))
    return obj


def _rpy2_data_frame(node, ro):
    columns = [_materialize(v, ro) for v in node["values"]]
    obj = ro.r["list"](*columns)
    obj.do_slot_assign("names", ro.StrVector(node["names"]))
    n = len(node["values"][0]["values"]) if node["values"] else 0
    rows = ro.IntVector([ro.NA_Integer, -n]) if node["row_names"] is None else ro.StrVector(node["row_names"])
    obj = ro.baseenv["attr<-"](obj, "row.names", rows)
    return ro.baseenv["class<-"](obj, ro.StrVector(["data.frame"]))


def _names(names, ro):
    return ro.NULL if names is None else ro.StrVector(names)


def from_r(robj):
    """Convert an R object (rpy2) to a Python object, names kept.

    data.frame -> pandas DataFrame (row names as index); matrix -> DataFrame when it has
    dimnames, else a 2-D array; named atomic vector -> pandas Series; unnamed vector ->
    1-D numpy array (length-1 vectors -> the scalar); named list -> dict; unnamed list ->
    list; NULL -> None. Attributes other than names/dim/dimnames/class are dropped.

    Parameters
    ----------
    robj : rpy2 R object or None
        The R value to convert.

    Returns
    -------
    pandas.DataFrame, pandas.Series, numpy.ndarray, scalar, dict, list or None
        As described above.

    Raises
    ------
    ImportError
        Without rpy2 (extra ``[r]``): rpy2 objects exist only with R.

    Examples
    --------

    >>> from rpy2 import robjects  # doctest: +SKIP
    >>> from dppca.interop import from_r
    >>> from_r(robjects.r("c(a = 1, b = 2)"))  # doctest: +SKIP
    a    1.0
    b    2.0
    dtype: float64
    """
    from rpy2 import rinterface as ri
    from rpy2.robjects import default_converter, pandas2ri
    from rpy2.robjects.conversion import localconverter

    if robj is None or isinstance(robj, ri.NULLType):
        return None
    classes = list(robj.rclass) if hasattr(robj, "rclass") else []
    if "data.frame" in classes:
        with localconverter(default_converter + pandas2ri.converter) as conv:
            frame = conv.rpy2py(robj)
        frame.index = [str(i) for i in frame.index]
        return frame
    if isinstance(robj, ri.ListSexpVector):
        names = _r_names(robj)
        items = [from_r(robj[i]) for i in range(len(robj))]
        return dict(zip(names, items)) if names is not None else items
    return _from_r_atomic(robj)


def _r_names(robj):
    names = robj.do_slot("names") if "names" in robj.list_attrs() else None
    return None if names is None else [str(n) for n in names]


def _from_r_atomic(robj):
    from rpy2 import rinterface as ri

    values = np.array(list(robj), dtype=object if isinstance(robj, ri.StrSexpVector) else None)
    if "dim" in robj.list_attrs():
        dim = [int(d) for d in robj.do_slot("dim")]
        matrix = values.reshape(dim, order="F")
        if "dimnames" in robj.list_attrs():
            rows, cols = (None if isinstance(d, ri.NULLType) else [str(x) for x in d]
                          for d in robj.do_slot("dimnames"))
            return pd.DataFrame(matrix, index=rows, columns=cols)
        return matrix
    names = _r_names(robj)
    if names is not None:
        return pd.Series(values, index=names)
    return values[0] if values.size == 1 else values


__all__ = ["converter", "from_r", "materialize", "to_r"]
