"""What an onnxruntime session was asked for, read back from its options."""

from __future__ import annotations


def precise(options) -> bool:  # noqa: ANN001
    """Whether an onnxruntime SessionOptions asks for the exact int8 kernel."""
    from localcrag.models.embed_onnx import PRECISE_INT8

    try:
        return options.get_session_config_entry(PRECISE_INT8) == "1"
    except RuntimeError:  # never set
        return False
