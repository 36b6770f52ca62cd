"""int8 copies of ONNX models, made once at provisioning (the embedder's, the OCR
recogniser's)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def int8_matmuls(src: Path, out: Path, keep: Sequence[str] = ()) -> Path:
    """A copy of the ONNX model ``src`` with its MatMul weights in int8, one scale per output
    channel (onnxruntime's dynamic quantization: activations are quantized per run), written
    to ``out`` whole or not at all. Everything else stays float32, and so do the MatMuls
    named in ``keep`` (node names: the variants of ``scripts/int8_recall.py``). The quantizer's advice
    (root-logger lines about pre-processing) is silenced: it would read like an error
    during `make models`."""
    import logging

    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        quantize_dynamic(
            str(src),
            str(tmp),
            weight_type=QuantType.QInt8,
            per_channel=True,
            op_types_to_quantize=["MatMul"],
            nodes_to_exclude=list(keep),
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )
    finally:
        root.setLevel(level)
    tmp.replace(out)
    return out
