"""A pytest plugin for ``run_clients.py``: Hypothesis without shrinking and without deadlines.

Loaded with ``-p clients_hypothesis`` after a suite's own conftest has loaded
its profile; keeps that profile's settings (``max_examples``, ...) and drops
the shrink phase (it only minimizes a failing example, at a large cost in
time) and the per-example deadline (a first call compiles, on JAX as on
Tessela). Pass/fail outcomes are unchanged.
"""

from __future__ import annotations

import pytest
from hypothesis import Phase, settings


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    """Re-register the active profile without shrinking or deadlines."""
    settings.register_profile(
        "clients",
        parent=settings.default,
        phases=[Phase.explicit, Phase.reuse, Phase.generate],
        deadline=None,
    )
    settings.load_profile("clients")
