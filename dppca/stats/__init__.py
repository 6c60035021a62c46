"""Non-private statistics: the Kendall's tau engine (spatial signs, tiles, BLAS threads), the
incomplete pair designs and the floating-point-safe clamped pair U-statistics.

Nothing here releases anything; the privacy layer adds the noise.
"""

__all__ = []
