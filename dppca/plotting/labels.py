"""Text and reference levels shared by the figures: the budget as the summaries say it, the
additive histogram's noise floor, and fonts for names outside Latin-1."""
from __future__ import annotations

import contextlib
import textwrap
import warnings

import numpy as np

#: Noisy cells within this many noise standard deviations of 0 are drawn as noise: at 2 sd about
#: 2% of empty cells pass (2 or 3 false clusters among the 100+ cells of a default grid), at 3 sd
#: about 0.1%.
NOISE_FLOOR_SDS = 3.0
#: Installed fonts tried, in order, after matplotlib's default for glyphs it lacks (CJK first).
FALLBACK_FONTS = ("Noto Sans CJK JP", "Noto Sans CJK SC", "Noto Sans CJK TC", "Noto Sans CJK KR",
                  "WenQuanYi Zen Hei", "Droid Sans Fallback", "AR PL UMing CN", "Unifont")


def budget_label(result) -> str:
    """The budget of ``result`` as its summary states it.

    A report section (``total_eps`` set) reads ``"eps 0.3333 of 1 (section share), delta
    3.333e-06"``, like the summary's "Epsilon: 0.3333 of 1 (section share)", never as if the
    section's share were the whole budget; a single call reads ``"eps=1, delta=1e-05"``.

    Parameters
    ----------
    result : PCDirections, ScreeResult or ScoreResult
        Anything with ``eps``, ``delta`` and optionally ``total_eps``.

    Returns
    -------
    str

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> budget_label(SimpleNamespace(eps=1.0, delta=1e-5))
    'eps=1, delta=1e-05'
    >>> budget_label(SimpleNamespace(eps=1 / 3, delta=1e-5 / 3, total_eps=1.0))
    'eps 0.3333 of 1 (section share), delta 3.333e-06'
    """
    total = getattr(result, "total_eps", None)
    if total is None:
        return f"eps={result.eps:g}, delta={result.delta:g}"
    return f"eps {result.eps:.4g} of {total:g} (section share), delta {result.delta:.4g}"


def wrapped(text: str, width_inches: float, font_size) -> str:
    """``text`` wrapped, line by line, to ``width_inches`` at ``font_size`` (points, or a
    matplotlib size name such as "large"; about 0.55 em per character), so that no title runs
    off its figure.

    Examples
    --------
    >>> wrapped("a b c d", 0.3, 10).splitlines()
    ['a b', 'c d']
    """
    from matplotlib.font_manager import FontProperties

    points = FontProperties(size=font_size).get_size_in_points()
    width = max(3, int(width_inches * 72 / (0.55 * points)))
    return "\n".join(part for line in text.splitlines()
                     for part in textwrap.wrap(line, width, break_on_hyphens=False) or [""])


def noise_floor(result, target: str) -> float | None:
    """The additive histogram's noise floor in panel units (probability per cell, weighted by
    the group shares): ``NOISE_FLOOR_SDS`` x sigma / N, with sigma the Gaussian noise sd of a
    count (the ledger's ``histogram: add``) and N the number of rows (public, like every n
    of the package) or, for groups, the private total of the same release. Cells below it
    are within ``NOISE_FLOOR_SDS`` noise sds of an empty cell. None for other targets.

    Post-processing of public and released values: no privacy cost.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> step = SimpleNamespace(step="histogram: add", noise_scale=10.0)
    >>> result = SimpleNamespace(ledger=[step], group_weights=lambda target: None,
    ...                          histogram=lambda target: None, n_obs=1000)
    >>> noise_floor(result, "add")
    0.03
    >>> noise_floor(result, "sparse") is None
    True
    """
    if target != "add":
        return None
    sigma = next((r.noise_scale for r in result.ledger if r.step == "histogram: add"), None)
    if sigma is None:
        return None
    weights = result.group_weights(target)
    total = float(np.sum(weights)) if weights is not None else float(result.n_obs)
    return NOISE_FLOOR_SDS * sigma / max(total, 1.0)


@contextlib.contextmanager
def fallback_fonts(names):
    """Context in which a figure is drawn: names outside Latin-1 (e.g. Chinese column names)
    render with an installed fallback font, or a warning names the font to install.

    Matplotlib falls back glyph by glyph along ``font.family``; the installed fonts of
    ``FALLBACK_FONTS`` are appended to it while the figure's texts are made (each text keeps
    its font list, so the saved figure uses them too).

    Parameters
    ----------
    names : iterable of str
        Labels the figure will show (column, axis and group names).

    Warns
    -----
    UserWarning
        Some names need glyphs that no installed font has; names the font to install
        (Debian: fonts-noto-cjk).

    Examples
    --------
    >>> with fallback_fonts(["a", "b"]):   # Latin-1 only: matplotlib's fonts as they are
    ...     pass
    """
    import matplotlib as mpl

    wide = [str(n) for n in names if any(ord(ch) > 0xFF for ch in str(n))]
    fallback = _installed(FALLBACK_FONTS) if wide else []
    if wide and not fallback:
        warnings.warn(f"labels {wide[:3]} need a font with their characters and none of "
                      f"{list(FALLBACK_FONTS[:2])} is installed: they show as empty boxes; "
                      "install Noto Sans CJK (Debian: fonts-noto-cjk)", UserWarning, stacklevel=4)
    if not fallback:
        yield
        return
    family = list(mpl.rcParams["font.family"])
    with mpl.rc_context({"font.family": family + [f for f in fallback if f not in family]}):
        yield


def _installed(fonts) -> list:
    from matplotlib import font_manager

    names = {f.name for f in font_manager.fontManager.ttflist}
    return [name for name in fonts if name in names]


__all__ = ["FALLBACK_FONTS", "NOISE_FLOOR_SDS", "budget_label", "fallback_fonts", "noise_floor",
           "wrapped"]
