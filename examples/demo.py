"""Train a small MLP on synthetic data with Tessela.

Shows the JAX programming model on Tessela: parameters are a pytree, the
loss is a pure function, ``tx.grad`` differentiates it, ``tx.jit`` compiles
the update step, ``tx.vmap`` computes per-example losses and gradient norms,
and ``tessela.random`` draws the initial weights and the data.

Run: ``python examples/demo.py`` (a few seconds on two CPU cores).
"""

from __future__ import annotations

import time
from typing import Any

import tessela as tx
import tessela.numpy as tnp
from tessela import nn, random

Params = list[tuple[Any, Any]]

LAYER_SIZES = (4, 64, 64, 1)
BATCH = 128
STEPS = 600
REPORT_EVERY = 100
LEARNING_RATE = 0.05


def init_params(key: Any, sizes: tuple[int, ...]) -> Params:
    """Draw He-scaled weights and zero biases, one key per layer."""
    keys = random.split(key, len(sizes) - 1)
    params = []
    for k, n_in, n_out in zip(keys, sizes[:-1], sizes[1:], strict=True):
        w = random.normal(k, (n_in, n_out)) * tnp.sqrt(2.0 / n_in)
        params.append((w, tnp.zeros(n_out)))
    return params


def predict(params: Params, x: Any) -> Any:
    """The MLP on one example or a batch (the last axis holds the features)."""
    for w, b in params[:-1]:
        x = nn.gelu(x @ w + b)
    w, b = params[-1]
    return (x @ w + b)[..., 0]


def example_loss(params: Params, x: Any, y: Any) -> Any:
    """Squared error of one example."""
    return (predict(params, x) - y) ** 2


def loss(params: Params, xs: Any, ys: Any) -> Any:
    """Mean of the per-example losses, mapped with vmap."""
    return tnp.mean(tx.vmap(example_loss, in_axes=(None, 0, 0))(params, xs, ys))


@tx.jit
def update(params: Params, xs: Any, ys: Any) -> tuple[Params, Any]:
    """One step of gradient descent; returns the new parameters and the loss."""
    value, grads = tx.value_and_grad(loss)(params, xs, ys)
    new = tx.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)
    return new, value


@tx.jit
def per_example_grad_norms(params: Params, xs: Any, ys: Any) -> Any:
    """The gradient norm of every example: vmap of grad."""
    grads = tx.vmap(tx.grad(example_loss), in_axes=(None, 0, 0))(params, xs, ys)
    squares = [tnp.sum(g**2, axis=tuple(range(1, g.ndim))) for g in tx.tree.leaves(grads)]
    return tnp.sqrt(sum(squares))


def target(x: Any) -> Any:
    """The function to learn."""
    return tnp.sin(2.0 * x[..., 0]) * x[..., 1] + 0.5 * x[..., 2] ** 2 - x[..., 3]


@tx.jit
def make_batch(key: Any) -> tuple[Any, Any]:
    """Sample inputs uniformly in [-1, 1) and compute their targets (traced keys)."""
    xs = random.uniform(key, (BATCH, LAYER_SIZES[0]), minval=-1.0, maxval=1.0)
    return xs, target(xs)


def main() -> None:
    print("devices:", tx.devices())
    key = random.key(0)
    key, init_key, test_key = random.split(key, 3)
    params = init_params(init_key, LAYER_SIZES)
    test_x, test_y = make_batch(test_key)
    print(f"initial test loss: {float(loss(params, test_x, test_y)):.4f}")

    start = time.perf_counter()
    params, value = update(params, *make_batch(key))
    tx.block_until_ready(params)
    print(f"first step (trace + compile): {time.perf_counter() - start:.2f} s")

    start = time.perf_counter()
    for step in range(1, STEPS + 1):
        key, batch_key = random.split(key)
        params, value = update(params, *make_batch(batch_key))
        if step % REPORT_EVERY == 0:
            print(f"step {step:4d}  train loss {float(value):.4f}")
    tx.block_until_ready(params)
    elapsed = time.perf_counter() - start
    print(f"steps per second: {STEPS / elapsed:.0f}")

    final = float(loss(params, test_x, test_y))
    norms = per_example_grad_norms(params, test_x[:8], test_y[:8])
    print(f"final test loss: {final:.4f}")
    print("per-example gradient norms:", " ".join(f"{v:.3f}" for v in norms.tolist()))


if __name__ == "__main__":
    main()
