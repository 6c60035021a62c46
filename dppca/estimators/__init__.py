"""Private estimators used by the pipelines: pair means of the scree (clipped, winsorized,
Huber) and their private tuning, score histograms, the private frame, synthetic samples,
group labels (declared domains or partition selection) and the private centre of
:class:`dppca.DPPCA`.
"""

__all__ = []
