"""Start a training stage from a committed ONNX model instead of a lost PyTorch checkpoint.

Exporting folds every batch norm into the convolution before it (``W' = W·γ/σ``, ``b' = β +
(b - μ)·γ/σ``), so an ONNX file holds fewer numbers than the network that trains. This module puts
them back: each fused convolution's weight goes into the convolution, and its batch norm is rebuilt
from the statistics of that convolution's output on a few real inputs (``μ``, ``σ²``) so that

* in eval mode the network computes exactly the ONNX function (``γ = σ``, ``β = μ + b'``), and
* in train mode, where batch norm normalises with batch statistics close to ``μ`` and ``σ²``, it
  computes nearly the same function, so fine-tuning starts where the committed model left off.

Needs the ``train`` extra (torch, onnx).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np


def conv_bn_pairs(model: Any) -> list[tuple[str, Any, Any | None]]:
    """Every ``Conv2d`` in registration order, with the ``BatchNorm2d`` registered right after it
    (the one that folds into it on export) or ``None``."""
    import torch.nn as nn

    mods = list(model.named_modules())
    out: list[tuple[str, Any, Any | None]] = []
    for k, (name, m) in enumerate(mods):
        if isinstance(m, nn.Conv2d):
            nxt = mods[k + 1][1] if k + 1 < len(mods) else None
            out.append((name, m, nxt if isinstance(nxt, nn.BatchNorm2d) else None))
    return out


def onnx_convs(path: Path) -> tuple[dict[str, Any], list[tuple[Any, Any | None]]]:
    """The ONNX file's weights by name, and each ``Conv`` node's (weight, bias) in graph order."""
    inits, convs, _ = onnx_weights(path)
    return inits, convs


def onnx_weights(path: Path) -> tuple[dict[str, Any], list[tuple[Any, Any | None]], list[tuple[Any, Any | None]]]:
    """The ONNX file's weights by name, and each ``Conv`` and each ``Gemm`` node's (weight, bias)
    in graph order.

    An int8 (QDQ) file's weights are dequantized: a ``DequantizeLinear`` output counts as a weight,
    under its own name and under its quantized initializer's name less the ``_quantized`` suffix.
    """
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    gemms: list[tuple[Any, Any | None]] = []
    for node in graph.node:
        if node.op_type != "DequantizeLinear" or node.input[0] not in inits:
            continue
        q = inits[node.input[0]].astype(np.float64)
        scale = inits[node.input[1]].astype(np.float64)
        zero = inits[node.input[2]].astype(np.float64) if len(node.input) > 2 and node.input[2] else 0.0
        axis = next((a.i for a in node.attribute if a.name == "axis"), 1)
        if np.ndim(scale) == 1 and q.ndim > 1:
            shape = [1] * q.ndim
            shape[axis] = -1
            scale = scale.reshape(shape)
            zero = np.reshape(zero, shape) if np.ndim(zero) else zero
        value = ((q - zero) * scale).astype(np.float32)
        inits[node.output[0]] = value
        base = node.input[0].removesuffix("_quantized")
        if base != node.input[0]:
            inits.setdefault(base, value)
    convs = []
    for node in graph.node:
        if node.op_type in ("Conv", "Gemm") and node.input[1] in inits:
            bias = inits.get(node.input[2]) if len(node.input) > 2 else None
            if node.op_type == "Conv":
                convs.append((inits[node.input[1]], bias))
            else:
                gemms.append((inits[node.input[1]], bias))
    return inits, convs, gemms


def grown_rows(weight: Any, bias: Any, rows: int) -> tuple[Any, Any]:
    """A linear layer's ``weight`` ``[n, in]`` and ``bias`` ``[n]`` grown to ``rows`` outputs: each
    new output has zero weights and the lowest existing bias, so the old outputs are unchanged and
    the new ones start as unlikely classes."""
    import torch

    extra = rows - weight.shape[0]
    if extra <= 0:
        return weight, bias
    return (
        torch.cat([weight, torch.zeros(extra, weight.shape[1], dtype=weight.dtype)]),
        torch.cat([bias, torch.full((extra,), float(bias.min()), dtype=bias.dtype)]),
    )


def load_fused_onnx(model: Any, path: Path, calibration: Any, grow: tuple[str, ...] = ("classify",)) -> int:
    """Load ``path`` into ``model`` (same architecture, unfused); returns the convolutions loaded.

    Weights are matched by name (``NAME.weight`` / ``NAME.bias`` of each ``Conv2d``) when the ONNX
    file kept the names, otherwise by the order of the ``Conv`` nodes; other initializers named
    like a state-dict entry (a final linear layer) are loaded as they are, and a linear layer
    without one takes the next ``Gemm`` node of its shape (a network whose layers were renamed).
    A linear layer named in ``grow`` that found neither takes a ``Gemm`` with fewer outputs of the
    same input width, its missing rows zero and their bias the lowest (a class head gaining a class).
    ``calibration`` is an input batch for the statistics.
    """
    import torch

    inits, ordered, gemms = onnx_weights(path)
    pairs = conv_bn_pairs(model)
    by_name = all(f"{n}.weight" in inits for n, _, _ in pairs if any(p.requires_grad for p in _params(n, model)))
    fused_bias: dict[str, torch.Tensor] = {}
    loaded = 0
    with torch.no_grad():
        order = iter(ordered)
        for name, conv, bn in pairs:
            if not conv.weight.requires_grad:  # fixed layers (YOLO's DFL) are not trained or exported
                continue
            if by_name:
                w, b = inits[f"{name}.weight"], inits.get(f"{name}.bias")
            else:
                w, b = next(order)
            if tuple(w.shape) != tuple(conv.weight.shape):
                raise ValueError(
                    f"{path}: convolution {name} has shape {w.shape}, the model {tuple(conv.weight.shape)}"
                )
            conv.weight.copy_(torch.from_numpy(w.copy()))
            bias = torch.from_numpy(b.copy()) if b is not None else torch.zeros(w.shape[0])
            if bn is None:
                if conv.bias is None:
                    raise ValueError(f"{path}: convolution {name} has a bias but no batch norm to hold it")
                conv.bias.copy_(bias)
            else:
                bn.weight.fill_(1.0)
                bn.bias.copy_(bias)
                bn.running_mean.zero_()
                bn.running_var.fill_(1.0 - bn.eps)
                fused_bias[name] = bias
            loaded += 1
        state = model.state_dict()
        conv_keys = {f"{n}.{p}" for n, _, _ in pairs for p in ("weight", "bias")}
        rest = {
            k: torch.from_numpy(v.copy())
            for k, v in inits.items()
            if k in state and k not in conv_keys and tuple(v.shape) == tuple(state[k].shape)
        }
        for name, mod in model.named_modules():
            if not isinstance(mod, torch.nn.Linear) or f"{name}.weight" in rest:
                continue
            k = next((i for i, (w, _) in enumerate(gemms) if tuple(w.shape) == tuple(mod.weight.shape)), None)
            if k is not None:
                w, b = gemms.pop(k)
                rest[f"{name}.weight"] = torch.from_numpy(w.copy())
                if b is not None and mod.bias is not None:
                    rest[f"{name}.bias"] = torch.from_numpy(b.copy())
        for name, mod in model.named_modules():
            if name not in grow or not isinstance(mod, torch.nn.Linear) or f"{name}.weight" in rest:
                continue
            out_n, in_n = mod.weight.shape
            k = next((i for i, (w, _) in enumerate(gemms) if w.shape[1] == in_n and w.shape[0] < out_n), None)
            if k is not None:
                w, b = gemms.pop(k)
                weight, bias = grown_rows(
                    torch.from_numpy(w.copy()),
                    torch.from_numpy(b.copy()) if b is not None else torch.zeros(w.shape[0]),
                    out_n,
                )
                rest[f"{name}.weight"] = weight
                if mod.bias is not None:
                    rest[f"{name}.bias"] = bias
        model.load_state_dict(rest, strict=False)
    _calibrate(model, pairs, fused_bias, calibration)
    return loaded


def _params(name: str, model: Any) -> list[Any]:
    return list(model.get_submodule(name).parameters())


def _calibrate(
    model: Any, pairs: list[tuple[str, Any, Any | None]], fused_bias: dict[str, Any], calibration: Any
) -> None:
    """Replace the identity batch norms by ones with the real output statistics (same function)."""
    import torch

    stats: dict[str, tuple[Any, Any]] = {}
    hooks = []
    for name, conv, bn in pairs:
        if bn is None or name not in fused_bias:
            continue

        def hook(_m: Any, _inp: Any, out: Any, name: str = name) -> None:
            z = out.detach().transpose(0, 1).reshape(out.shape[1], -1)
            stats[name] = (z.mean(1), z.var(1, unbiased=False))

        hooks.append(conv.register_forward_hook(hook))
    model.eval()
    with torch.no_grad():
        model(calibration)
    for h in hooks:
        h.remove()
    with torch.no_grad():
        for name, _conv, bn in pairs:
            if bn is None or name not in stats:
                continue
            mu, var = stats[name]
            bn.running_mean.copy_(mu)
            bn.running_var.copy_(var)
            bn.weight.copy_(torch.sqrt(var + bn.eps))
            bn.bias.copy_(mu + fused_bias[name])
