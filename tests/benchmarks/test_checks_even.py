"""Every other benchmark's check (even positions of ``BENCHMARKS``): see checks.py."""

import pytest
from benchmarks.__main__ import BENCHMARKS

from tests.benchmarks.checks import on_postgresql, run_check

pytestmark = on_postgresql


@pytest.mark.parametrize("name", BENCHMARKS[0::2])
def test_the_benchmark_runs_and_its_baseline_agrees(name: str) -> None:
    run_check(name)
