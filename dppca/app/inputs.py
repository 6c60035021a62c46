"""Every value the page sends, checked before the server reads it.

A browser is a client the server does not control: ``Shiny.setInputValue(id, value)`` sends any
JSON value (a string, a list, null, a nested object) for any input id, also ids the page does
not show. The server therefore never formats, compares or opens a value before it is checked
here, and each check raises :class:`dppca.DPPCAValueError` naming the field and the rule, which
the page shows as a message (a session never stops on a bad value).

Two further rules follow from the threat model of a shared app (docs/budget.md, "Operator
mode and the app"):

* **Uploads.** The server opens only files that Shiny itself received through the page in this
  session: an upload's ``datapath`` must be a regular file inside the session's own upload
  folder (:func:`uploaded_file`), else the server would read any file its process can read
  (``/etc/passwd``, a registered dataset on a fresh per-session budget).
* **Operator mode releases private results only.** The inputs of :data:`OPERATOR_FIXED` are
  not on the operator's page, and a value forged for one is refused before any budget is
  touched (:func:`operator_values`): a non-private release under the registered budget would
  void the budget's guarantee.

Plain Python (no Shiny), tested without a browser.
"""
from __future__ import annotations

import math
import numbers
import os
import stat
from pathlib import Path

import numpy as np

from .._validation import DPPCAValueError, delta_arg, eps_arg
from ..controls import SCREE_METHODS
from .data import AppData, AppDataError
from .runs import CONTROL_INPUTS, MISSING_POLICIES, SCORE_METHODS, score_settings, scree_settings

#: Labels of the inputs as the page shows them (messages name the field the user sees).
LABELS = {
    "eps_total": "Session total eps", "delta_total": "Session total delta",
    "eps": "eps of each run", "delta": "delta of each run",
    "k": "Number of leading PCs (k)", "axis_x": "PC on x", "axis_y": "PC on y",
    "bins_x": "Bins on x", "bins_y": "Bins on y",
    "center": "Center", "standardize": "Standardize the variables",
    "g_dppca": "Use private PC directions (g-DPPCA)", "scree_mono": "Monotone",
    "use_group": "Colour by group", "csv_header": "First row holds column names",
    "pmwm_split_mode": "PMWM: split the rows", "scree_method": "Scree methods",
    "score_method": "Histogram methods", "group_levels": "Group labels",
    "C_clip": "Clipped: threshold C", "pmwm_a": "PMWM: a", "pmwm_b": "PMWM: b",
    "pmwm_trim_const": "PMWM: trim constant", "pmwm_eta": "PMWM: eta",
    "pmwm_beta": "PMWM: beta", "huber_k_min_m2": "Huber: k_min", "huber_k_max_m2": "Huber: k_max",
    "huber_m2_frac": "Huber: m2_frac", "huber_mu0": "Huber: mu0", "huber_eta0": "Huber: eta0",
    "huber_T": "Huber: T", "huber_M": "Huber: M",
    "missing": "Missing cells", "missing_value": "Declared value for missing cells",
}

#: Numeric inputs (an empty field arrives as None: "self-tuned" or "not set").
NUMBERS = ("eps_total", "delta_total", "eps", "delta", "k", "axis_x", "axis_y", "bins_x",
           "bins_y", "C_clip", "pmwm_a", "pmwm_b", "pmwm_trim_const", "pmwm_eta", "pmwm_beta",
           "huber_k_min_m2", "huber_k_max_m2", "huber_m2_frac", "huber_mu0", "huber_eta0",
           "huber_T", "huber_M", "missing_value")
#: Check boxes, with the value the page starts with.
FLAGS = {"center": True, "g_dppca": True, "scree_mono": True,
         "use_group": True, "csv_header": True, "pmwm_split_mode": False}
#: Select boxes: {input id: (the options offered, the page's default)}. ``standardize``: none, the
#: private SDs, or the rank path (its labels: :data:`dppca.app.ui.STANDARDIZE_CHOICES`);
#: ``missing``: the runs' ``missing=`` policy (:data:`dppca.app.runs.MISSING_POLICIES`; labels:
#: :data:`dppca.app.ui.MISSING_CHOICES`).
SELECTS = {"standardize": (("none", "sd", "rank"), "none"), "missing": (MISSING_POLICIES, "auto")}
#: Text fields, and the longest text accepted (a public list of labels, a column name).
TEXTS = ("group_levels", "upload_group_col")
MAX_TEXT = 10_000

#: Operator mode: inputs absent from the page whose only private value is the one given here.
#: ``g_dppca = False`` computes the scores' directions as the exact covariance eigenvectors,
#: a release of the data with no noise.
OPERATOR_FIXED = {"g_dppca": True}

#: The inputs each kind of run reads (besides its budget, eps and delta).
RUN_INPUTS = {
    "scree": ("k", "scree_method", "scree_mono", "center", "standardize", "g_dppca", "missing",
              "missing_value", *(name for fields in CONTROL_INPUTS.values() for name in fields)),
    "score": ("axis_x", "axis_y", "score_method", "bins_x", "bins_y", "use_group", "group_levels",
              "center", "standardize", "g_dppca", "missing", "missing_value"),
}
SETTINGS_OF = {"scree": scree_settings, "score": score_settings}


class RunRefused(DPPCAValueError):
    """A run the app does not offer (e.g. a non-private option forged in operator mode)."""


#: What the page says about an upload the server did not receive in this session.
NOT_RECEIVED = ("The app reads only files uploaded through this page in this session; this one "
                "was not (its path is not in the session's upload folder), so nothing was read. "
                "Choose the file again with the upload button.")


def number(value, name: str, *, required: bool = False) -> float | None:
    """A numeric input's value: a finite real number, or None for an empty field.

    Parameters
    ----------
    value : object
        What the client sent (a Shiny numeric input sends a number or null).
    name : str
        The input id (its label from :data:`LABELS` is named in the message).
    required : bool
        Whether an empty field is refused (True) or means "not set" (False: None).

    Returns
    -------
    float or None

    Raises
    ------
    DPPCAValueError
        A value that is not a finite real number (text, a list, true/false, NaN, inf), or an
        empty required field.

    Examples
    --------
    >>> number(0.5, "eps"), number(None, "bins_x")
    (0.5, None)
    >>> number("1", "eps")
    Traceback (most recent call last):
    ...
    dppca._validation.DPPCAValueError: "eps of each run" must be a number; got '1' (str)
    """
    label = LABELS.get(name, name)
    if value is None:
        if required:
            raise DPPCAValueError(f'"{label}" is empty: type a number')
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise DPPCAValueError(f'"{label}" must be a number; got {_shown(value)}')
    value = float(value)
    if not math.isfinite(value):
        raise DPPCAValueError(f'"{label}" must be a finite number; got {value}')
    return value


def flag(value, name: str) -> bool:
    """A check box's value: True or False (the page's default when the client sent nothing).

    Raises
    ------
    DPPCAValueError
        Anything but true, false or nothing (e.g. the text "false", which Python reads as true).

    Examples
    --------
    >>> flag(False, "center"), flag(None, "center")
    (False, True)
    """
    if value is None:
        return FLAGS[name]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise DPPCAValueError(f'"{LABELS.get(name, name)}" must be ticked or not (true or false); '
                          f"got {_shown(value)}")


def choices(value, allowed, name: str) -> tuple:
    """A check-box group's value: the ticked options, in the order of ``allowed``.

    Raises
    ------
    DPPCAValueError
        Not a list of options, or an option that is not offered.

    Examples
    --------
    >>> choices(["huber", "clipped"], ("clipped", "pmwm", "huber"), "scree_method")
    ('clipped', 'huber')
    """
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise DPPCAValueError(f'"{LABELS.get(name, name)}" must be a list of options from '
                              f"{list(allowed)}; got {_shown(value)}")
    unknown = [v for v in value if v not in allowed]
    if unknown:
        raise DPPCAValueError(f'"{LABELS.get(name, name)}": {unknown[0][:50]!r} is not one of '
                              f"{list(allowed)}")
    return tuple(option for option in allowed if option in value)


def choice(value, allowed, name: str, default: str) -> str:
    """A select box's or radio group's value: one of ``allowed`` (``default`` when unset).

    Raises
    ------
    DPPCAValueError
        A value that is not offered.

    Examples
    --------
    >>> choice(None, ("pve", "scree"), "scree_type", "pve")
    'pve'
    """
    if value is None:
        return default
    if not isinstance(value, str) or value not in allowed:
        raise DPPCAValueError(f'"{LABELS.get(name, name)}" must be one of {list(allowed)}; got '
                              f"{_shown(value)}")
    return value


def text(value, name: str) -> str:
    """A text field's value ("" when unset), at most :data:`MAX_TEXT` characters.

    Raises
    ------
    DPPCAValueError
        Not text, or longer than :data:`MAX_TEXT`.

    Examples
    --------
    >>> text(" a, b ", "group_levels")
    ' a, b '
    """
    if value is None:
        return ""
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise DPPCAValueError(f'"{LABELS.get(name, name)}" must be text of at most {MAX_TEXT} '
                              f"characters; got {_shown(value)}")
    return value


def checked_values(raw: dict) -> dict:
    """The run inputs of ``raw`` (input id -> what the client sent), each checked by its kind.

    Numbers stay None when empty (self-tuned controls, default bins); check boxes, option
    lists and text fields get their type. Ids of no known kind are passed on unchanged.

    Raises
    ------
    DPPCAValueError
        The first value that breaks its kind's rule (see :func:`number`, :func:`flag`,
        :func:`choices`, :func:`text`).

    Examples
    --------
    >>> checked_values({"k": 2, "center": None, "scree_method": ["pmwm"]})
    {'k': 2.0, 'center': True, 'scree_method': ('pmwm',)}
    """
    options = {"scree_method": tuple(SCREE_METHODS), "score_method": SCORE_METHODS}
    checked = {}
    for name, value in raw.items():
        if name in NUMBERS:
            checked[name] = number(value, name)
        elif name in FLAGS:
            checked[name] = flag(value, name)
        elif name in SELECTS:
            allowed, default = SELECTS[name]
            checked[name] = choice(_select_value(value) if name == "standardize" else value,
                                   allowed, name, default)
        elif name in options:
            checked[name] = choices(value, options[name], name)
        elif name in TEXTS:
            checked[name] = text(value, name)
        else:
            checked[name] = value
    return checked


def _select_value(value):
    """A select box's value; a check box's True/False (the page before ``standardize`` offered the
    rank path) reads as "sd"/"none"."""
    if isinstance(value, (bool, np.bool_)):
        return "sd" if value else "none"
    return value


def operator_values(raw: dict) -> dict:
    """``raw`` with the values operator mode fixes (:data:`OPERATOR_FIXED`); a forged other
    value is refused.

    Raises
    ------
    DPPCAValueError
        A client sent another value for an input that operator mode does not offer (the run is
        refused before the budget is touched).

    Examples
    --------
    >>> operator_values({"k": 2, "g_dppca": None})
    {'k': 2, 'g_dppca': True}
    >>> operator_values({"g_dppca": False})
    Traceback (most recent call last):
    ...
    dppca.app.inputs.RunRefused: Refused: this app serves a registered dataset and releases private results only; "Use private PC directions (g-DPPCA)" is not offered here (it would release NON-PRIVATE directions). Nothing was charged.
    """
    fixed = dict(raw)
    for name, value in OPERATOR_FIXED.items():
        if raw.get(name) is not None and raw[name] is not value:
            raise RunRefused(
                "Refused: this app serves a registered dataset and releases private results "
                f'only; "{LABELS.get(name, name)}" is not offered here (it would release '
                "NON-PRIVATE directions). Nothing was charged.")
        fixed[name] = value
    return fixed


def run_request(kind: str, raw, data: AppData, *, operator: bool = False):
    """The checked settings, eps and delta of a run of ``kind`` from what the client sent.

    This is the server's only way from the page's values to a run: :func:`operator_values` (in
    operator mode), then every value by its kind (:func:`checked_values`), then the run's own
    rules (:func:`dppca.app.runs.scree_settings` or :func:`~dppca.app.runs.score_settings`),
    then eps and delta; all before any budget is touched.

    Parameters
    ----------
    kind : {"scree", "score"}
    raw : callable
        ``raw(input_id)``: what the client sent for that input, None when nothing.
    data : AppData
        The data of the run (its n and p bound k, the axes and the bins).
    operator : bool
        Operator mode: private runs only.

    Returns
    -------
    (dict, float, float)
        The settings (hashable values; the session cache's key), eps and delta.

    Raises
    ------
    DPPCAValueError
        A value that breaks its rule, a missing eps or delta, or (:class:`RunRefused`) a
        non-private option in operator mode.

    Examples
    --------
    >>> from dppca.app.data import example_data
    >>> sent = {"k": 2, "scree_method": ["clipped"], "eps": 1, "delta": 1e-6}
    >>> settings, eps, delta = run_request("scree", sent.get, example_data("gau"))
    >>> settings["k"], settings["methods"], settings["g_dppca"], eps
    (2, ('clipped',), True, 1.0)
    """
    values = {name: raw(name) for name in RUN_INPUTS[kind]}
    if operator:
        values = operator_values(values)
    settings = SETTINGS_OF[kind](checked_values(values), data)
    eps = eps_arg(number(raw("eps"), "eps", required=True))
    delta = delta_arg(number(raw("delta"), "delta", required=True))
    return settings, eps, delta


def uploaded_file(files, upload_dir) -> tuple[Path, str] | None:
    """The path and name of this session's upload, checked; None when nothing was uploaded.

    Parameters
    ----------
    files : object
        The file input's value: Shiny's list of ``{name, size, type, datapath}`` for an upload
        it received, or anything a client forged.
    upload_dir : str or None
        The folder where Shiny keeps this session's uploads (None: unknown, every upload is
        refused).

    Returns
    -------
    (pathlib.Path, str) or None
        The real path of the file and the name the user gave it.

    Raises
    ------
    AppDataError
        The value is not one of Shiny's uploads of this session: not a list of file records, a
        path outside ``upload_dir`` (after resolving links and ``..``), a link, or not a regular
        file (:data:`NOT_RECEIVED`); or the upload is no longer on the server.

    Examples
    --------
    >>> import tempfile, os
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "0.csv")
    >>> _ = open(path, "w").write("a,b\\n1,2\\n")
    >>> uploaded_file([{"name": "d.csv", "datapath": path}], folder)[1]
    'd.csv'
    >>> uploaded_file([{"name": "x.csv", "datapath": "/etc/passwd"}], folder)
    Traceback (most recent call last):
    ...
    dppca.app.data.AppDataError: The app reads only files uploaded through this page in this session; ...
    """
    if files is None or (isinstance(files, (list, tuple)) and len(files) == 0):
        return None
    if upload_dir is None or not isinstance(files, (list, tuple)) or not isinstance(files[0], dict):
        raise AppDataError(NOT_RECEIVED)
    path, name = files[0].get("datapath"), files[0].get("name")
    if not isinstance(path, str) or not isinstance(name, str) or not path:
        raise AppDataError(NOT_RECEIVED)
    base = os.path.realpath(upload_dir)
    real = os.path.realpath(path)
    if real == base or os.path.commonpath([real, base]) != base:
        raise AppDataError(NOT_RECEIVED)
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        raise AppDataError(f"The upload {name[:200]!r} is no longer on the server (the session's "
                           "uploads are deleted when it ends): upload it again") from None
    if not stat.S_ISREG(mode):
        raise AppDataError(NOT_RECEIVED)
    return Path(real), name[:200]


def session_upload_dir(session) -> str | None:
    """The folder where Shiny keeps ``session``'s uploads, or None when it cannot be found.

    Shiny for Python (1.x) gives each session a ``FileUploadManager`` whose ``_basedir`` is a
    fresh ``tempfile.mkdtemp(prefix="fileupload-")``; every upload of the session is written in
    a folder below it, and it is removed when the session ends. It is not a public attribute: a
    Shiny release without it makes every upload refused (never accepted unchecked), and
    ``tests/app/test_app_hostile.py`` fails so that the change is seen.
    """
    manager = getattr(session, "_file_upload_manager", None)
    folder = getattr(manager, "_basedir", None)
    return folder if isinstance(folder, str) and os.path.isdir(folder) else None


def analyst_of(session, header: str | None) -> str | None:
    """The analyst's name from the request's ``header`` (set by a reverse proxy), or None.

    Only the proxy can vouch for the header: it must set it on every request and remove any
    copy a client sends (docs/budget.md). At most 200 printable characters are kept.

    Examples
    --------
    >>> analyst_of(None, None) is None
    True
    """
    if not header:
        return None
    try:
        value = session.http_conn.headers.get(header)
    except AttributeError:  # a session without its HTTP request (never in a served app)
        return None
    value = "".join(c for c in (value or "") if c.isprintable()).strip()[:200]
    return value or None


def whole_or(value, default: int) -> int:
    """A whole number in [1, 10^6] from a client's value (for the page's own updates of its
    fields), else ``default``.

    Examples
    --------
    >>> whole_or(3.0, 1), whole_or("abc", 1), whole_or(None, 2)
    (3, 1, 2)
    """
    try:
        value = number(value, "")
    except DPPCAValueError:
        return default
    return default if value is None or not 1 <= value <= 10**6 else int(value)


def _shown(value) -> str:
    shown = repr(value)
    return f"{shown[:60]}{'...' if len(shown) > 60 else ''} ({type(value).__name__})"


__all__ = ["FLAGS", "SELECTS", "LABELS", "NOT_RECEIVED", "NUMBERS", "OPERATOR_FIXED", "RUN_INPUTS", "RunRefused",
           "checked_values",
           "choice", "choices", "flag", "number", "operator_values", "session_upload_dir", "run_request", "analyst_of", "whole_or",
           "text", "uploaded_file"]
