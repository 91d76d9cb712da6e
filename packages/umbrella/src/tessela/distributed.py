"""``tessela.distributed``: one computation over several processes, as ``jax.distributed``.

Call :func:`initialize` first thing in every process, before anything that
creates a backend (``tessela.devices()``, a computation, a transfer)::

    import tessela as tx
    tx.distributed.initialize("10.0.0.1:1234", num_processes=2, process_id=0)  # on process 0
    tx.distributed.initialize("10.0.0.1:1234", num_processes=2, process_id=1)  # on process 1

Afterwards ``tessela.devices()`` lists every process's devices and
``tessela.local_devices()`` this process's; ``tessela.process_index()`` and
``tessela.process_count()`` say which process this is and how many there
are. A mesh over ``tessela.devices()`` spans the processes: every process
runs the same program on its own shards, and the collectives travel between
processes (over gloo's TCP transport on CPU). The coordination service,
its clients and the transport are jaxlib's (``tessela_lowering.distributed``).

Example:
    >>> import tessela as tx
    >>> tx.distributed.is_initialized()
    False
"""

from tessela_lowering.distributed import initialize, is_initialized, shutdown

__all__ = ["initialize", "is_initialized", "shutdown"]
