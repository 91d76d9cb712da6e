"""Resident-memory growth per call: bare jaxlib against Tessela's dispatch paths.

Rows (each in a fresh process; bytes of resident memory gained per call over
100,000 calls, after 20,000 calls of warm-up):
  jaxlib, tracebacks on    ``execute_sharded`` + ``consume_with_handlers`` of a
                           compiled add, straight on jaxlib, with jaxlib's
                           Python tracebacks enabled (its default)
  jaxlib, tracebacks off   the same loop after ``set_tracebacks_enabled(False)``
  tessela jit              a jitted ``lax.add(x, 1.0)`` on the previous result
  tessela eager            an eager ``lax.add`` on concrete arrays
  tessela jit, NumPy arg   a jitted add of the previous result and a NumPy array

The first row is jaxlib's own growth (60 to 90 bytes per call on jaxlib
0.10.2, without end); the second shows that turning tracebacks off removes
it, which is what the runtime does. The Tessela rows must read 0 (within a
page or two of noise). No JAX is needed.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

WARMUP = 20_000
CALLS = 100_000

_RSS = textwrap.dedent(
    """
    import gc, os
    def rss():
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    def measure(step):
        for _ in range(__WARMUP__):
            step()
        gc.collect()
        before = rss()
        for _ in range(__CALLS__):
            step()
        gc.collect()
        print((rss() - before) / __CALLS__)
    """
)

_BARE = textwrap.dedent(
    """
    import numpy as np
    import jaxlib._jax as _jax
    from jaxlib import xla_client
    _jax.set_tracebacks_enabled(__TRACEBACKS__)
    _jax.jax_jit.set_enable_x64_state(_jax.config.Config("x64", False, include_in_jit_key=True))
    client = xla_client.make_cpu_client(asynchronous=True)
    device = client.local_devices()[0]
    text = '''module @m { func.func public @main(%a: tensor<8xf32>) -> tensor<8xf32> {
      %c = stablehlo.constant dense<1.0> : tensor<8xf32>
      %r = stablehlo.add %a, %c : tensor<8xf32>
      return %r : tensor<8xf32> } }'''
    exe = client.compile_and_load(text, _jax.DeviceList((device,)), xla_client.CompileOptions())
    class Aval:
        shape = (8,); dtype = np.dtype(np.float32); weak_type = False; ndim = 1
    handlers = [_jax.array_result_handler(Aval(), _jax.SingleDeviceSharding(device), True, True)]
    box = [_jax.dlpack_managed_tensor_to_buffer(
        np.zeros(8, np.float32).__dlpack__(), device, None, copy=True)]
    def step():
        box[0] = exe.execute_sharded(box).consume_with_handlers(handlers)[0]
    measure(step)
    """
)

_TESSELA = textwrap.dedent(
    """
    import numpy as np
    import tessela_lowering as tl
    from tessela_tracer import lax
    f = tl.jit(lambda x: lax.add(x, 1.0))
    one = tl.device_put(np.ones(8, np.float32))
    box = [tl.device_put(np.zeros(8, np.float32))]
    def step_jit():
        box[0] = f(box[0])
    host = np.ones(8, np.float32)
    g = tl.jit(lambda x, y: lax.add(x, y))
    def step_eager():
        box[0] = lax.add(box[0], one)
    def step_numpy():  # jaxlib's compiled-call object moves the NumPy argument
        box[0] = g(box[0], host)
    measure(step___MODE__)
    """
)

ROWS = (
    ("jaxlib, tracebacks on", _BARE.replace("__TRACEBACKS__", "True")),
    ("jaxlib, tracebacks off", _BARE.replace("__TRACEBACKS__", "False")),
    ("tessela jit", _TESSELA.replace("__MODE__", "jit")),
    ("tessela eager", _TESSELA.replace("__MODE__", "eager")),
    ("tessela jit, NumPy arg", _TESSELA.replace("__MODE__", "numpy")),
)


def bytes_per_call(body: str) -> float:
    """Run ``body`` (which calls ``measure(step)``) in a fresh process."""
    code = (_RSS + body).replace("__WARMUP__", str(WARMUP)).replace("__CALLS__", str(CALLS))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    """Print the table."""
    print(f"{'loop':<26}{'bytes/call':>12}")
    for label, body in ROWS:
        print(f"{label:<26}{bytes_per_call(body):>12.1f}")


if __name__ == "__main__":
    main()
