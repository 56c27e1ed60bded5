"""Medians and nearest-rank percentiles."""

import math
import statistics


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[max(0, min(len(ordered) - 1, math.ceil(p / 100 * len(ordered)) - 1))]


def summary(values: list[float]) -> dict:
    if not values:
        return {"n": 0}
    return {"n": len(values), "median": statistics.median(values), "p90": percentile(values, 90),
            "min": min(values), "max": max(values)}


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")
