"""Private estimators used by the pipelines: pair means of the scree (clipped, winsorized,
Huber) and their private tuning, score histograms, the private frame, synthetic samples and
group labels (declared domains or partition selection).
"""

__all__ = []
