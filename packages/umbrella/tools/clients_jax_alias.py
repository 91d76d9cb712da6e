"""A pytest plugin for ``run_clients.py``: the ``jax`` alias in every process.

Loaded with ``-p clients_jax_alias``. Importing it installs Tessela's ``jax``
alias (:func:`tessela.install_jax_alias`), as ``python -m tessela.as_jax``
does, before pytest imports any test module or conftest. pytest-xdist's
workers load the same ``-p`` plugins, so a suite split over several workers
runs on Tessela in each of them.
"""

from __future__ import annotations

from tessela import install_jax_alias

install_jax_alias()
