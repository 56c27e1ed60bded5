"""Pieces of the side-by-side benchmark (scripts/bench/run.py): servers, seeding,
process measurement, the scenarios, the report and the chart."""
