"""``tessela.scipy.fft``: ``dct``, ``dctn``, ``idct``, ``idctn`` (type 2), as ``jax.scipy.fft``.

Example:
    >>> import tessela.numpy as tnp
    >>> from tessela.scipy import fft
    >>> print(fft.dct(tnp.array([1.0, 1.0])))
    [4. 0.]
"""

from tessela._scipy_fft import dct, dctn, idct, idctn

__all__ = ["dct", "dctn", "idct", "idctn"]
