"""Ratios of two rates measured in turns on a shared machine, with a bootstrap interval over the pairs
(`city-envs bench` and the training-throughput goal)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

CONFIDENCE = 0.95  # of a ratio's bootstrap interval
RESAMPLES = 10_000  # bootstrap resamples of the pairs


@dataclass(frozen=True)
class Paired:
    """A paired measurement: one row per pair of runs taken in turns, (subject steps, subject seconds,
    reference steps, reference seconds)."""

    pairs: np.ndarray

    @property
    def subject_rate(self) -> float:
        return float(self.pairs[:, 0].sum() / self.pairs[:, 1].sum())

    @property
    def reference_rate(self) -> float:
        return float(self.pairs[:, 2].sum() / self.pairs[:, 3].sum())

    @property
    def ratio(self) -> float:
        """The subject's rate over the reference's, each its steps over its time in all pairs."""
        return self.subject_rate / self.reference_rate

    def interval(self, seed: int = 0) -> tuple[float, float]:
        """The ratio's CONFIDENCE percentile-bootstrap interval, resampling whole pairs (so the drift a
        pair shares stays shared). numpy rather than scipy.stats.bootstrap: scipy is an optional dependency
        and `city-envs bench` a core command."""
        picks = np.random.default_rng(seed).integers(len(self.pairs), size=(RESAMPLES, len(self.pairs)))
        totals = self.pairs[picks].sum(axis=1)
        ratios = (totals[:, 0] / totals[:, 1]) / (totals[:, 2] / totals[:, 3])
        low, high = np.quantile(ratios, [(1 - CONFIDENCE) / 2, (1 + CONFIDENCE) / 2])
        return float(low), float(high)
