"""gcv.batch.figures: a batch's figures as the CLI's summary and the console's page write them."""

from __future__ import annotations

from gcv.batch import figures


def test_a_figure_unknown_float_or_other() -> None:
    assert figures.fmt(None) == "-" and figures.fmt(2.345) == "2.3" and figures.fmt(2.345, 2) == "2.35"
    assert figures.fmt(7) == "7" and figures.interval(None, 1.0) == "[-,1.0]"


def test_survival_and_hits_write_the_interval_beside_the_figure() -> None:
    metrics = {"survival_rate": 0.953, "survival_low": 0.891, "survival_high": 0.98,
               "hits_mean": 1.25, "hits_mean_low": 0.8, "hits_mean_high": 1.75,
               "hits_p50": 2, "hits_p90": 3, "hits_p99": 5.0}
    assert figures.survival(metrics) == "95.3 [89.1,98.0]"
    assert figures.hits_mean(metrics) == "1.25 [0.80,1.75]"
    assert figures.quantiles(metrics, "hits") == "2/3/5.0"
    assert figures.survival({"survival_rate": None}) == "-"  # no runs: no rate, no interval
