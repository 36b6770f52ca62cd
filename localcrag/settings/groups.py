"""The settings' groups, one model each, by what they are about.

``Settings`` (settings/model.py) holds one of each, in the order a user sees them on
``localcrag config`` and the TUI settings screen; each group's title is its ``Field`` title
there. A field's name is unique across all groups (tests/unit/settings/test_settings.py checks it): that is
what lets the flat names of older config files and ``LOCALCRAG_<FIELD>`` variables still map
to exactly one setting.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from localcrag.registry import GRADERS, AnswerStyle
from localcrag.settings.paths import default_models_dir
from localcrag.settings.thresholds import LOWER_THRESHOLD, STRIP_THRESHOLD, UPPER_THRESHOLD

if TYPE_CHECKING:
    GraderName = str
else:  # the registry's names, checked by pydantic: a new grader is one registry entry
    GraderName = Literal[tuple(GRADERS)]


class Group(BaseModel):
    """A group: checked on every assignment (the TUI edits settings in place); names this
    version does not know (from a newer one) are ignored."""

    model_config = ConfigDict(extra="ignore", validate_assignment=True)


class ModelSettings(Group):
    generator: str = Field(
        default="SmolLM2-135M-Instruct.Q4_1.gguf",
        description="Chat GGUF in models/ that writes answers and web queries (needs a chat template).",
    )
    embedder: str = Field(
        default="all-MiniLM-L6-v2",
        description="Sentence-transformers folder in models/ used to embed chunks and questions.",
    )
    embedder_backend: Literal["auto", "onnx", "torch"] = Field(
        default="auto",
        description=(
            "How the embedder runs: 'onnx' = the int8 ONNX copy that provisioning exports "
            "beside the folder (~2.7x faster, no torch import); 'torch' = "
            "sentence-transformers in float32; 'auto' = onnx when that copy exists. "
            "Each backend has its own index table (run `localcrag reindex` after a change)."
        ),
    )
    grader_llm: str | None = Field(
        default=None,
        description="GGUF used by the 'llm' yes/no grader; defaults to the generator.",
    )
    models_dir: Path = Field(
        default_factory=default_models_dir,
        description="Folder holding GGUF files and sentence-transformers folders.",
    )


class EndpointSettings(Group):
    """An OpenAI-compatible server that writes instead of the local generator."""

    llm_endpoint: str | None = Field(
        default=None,
        description=(
            "Base URL of an OpenAI-compatible model server (llama.cpp server, vLLM, "
            "Ollama; e.g. http://gpu-box:8080/v1) that writes answers, web queries and "
            "`llm` grader verdicts instead of the local generator. The question and the "
            "evidence text are sent to it; offline, a server that is not on this "
            "machine is refused. If it fails, the local generator answers. "
            "Unset: the local GGUF."
        ),
    )
    llm_endpoint_model: str | None = Field(
        default=None,
        description="Model name sent to llm_endpoint (default: the first one it lists).",
    )
    llm_endpoint_key_env: str | None = Field(
        default=None,
        description=(
            "Name of the environment variable that holds llm_endpoint's API key, sent "
            "as a Bearer token (the key itself is never stored in the settings)."
        ),
    )
    llm_endpoint_timeout: float = Field(
        default=60.0,
        gt=0.0,
        le=600.0,
        description=(
            "Seconds llm_endpoint may take to send its next piece (connecting: at most "
            "5); after one retry the question falls back to the local generator."
        ),
    )
    llm_endpoint_deadline: float = Field(
        default=300.0,
        gt=0.0,
        le=3600.0,
        description=(
            "Seconds one request to llm_endpoint may take in all, the whole streamed answer "
            "and the retry included (a server that never stops, or sends a byte at a time, "
            "is cut there); then the question falls back to the local generator."
        ),
    )

    @field_validator("llm_endpoint")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        value = value.strip().rstrip("/")
        scheme, _, rest = value.partition("://")
        if scheme.lower() not in ("http", "https") or not rest.split("/")[0]:
            raise ValueError(
                "must be an http:// or https:// base URL such as http://gpu-box:8080/v1"
            )
        return value


class EvaluatorSettings(Group):
    """The retrieval evaluator and the CRAG decision it drives."""

    grader: GraderName = Field(
        default=next(iter(GRADERS)),
        description=f"Retrieval evaluator (default: {next(iter(GRADERS))}): "
        + "; ".join(f"{k} = {v.description}" for k, v in GRADERS.items())
        + ".",
    )
    grader_model: str | None = Field(
        default=None,
        description=(
            "ONNX file for the 'reader' grader (with its fitted calibration in the same name + "
            ".json, as scripts/fit_reader.py writes), or params file (.json, as "
            "scripts/fit_withheld.py writes) for the 'fusion' grader; default: the one shipped "
            "in the package."
        ),
    )
    upper_threshold: float = Field(
        default=UPPER_THRESHOLD,
        ge=0.0,
        le=1.0,
        description="A chunk scoring at or above this makes the action Correct.",
    )
    lower_threshold: float = Field(
        default=LOWER_THRESHOLD,
        ge=0.0,
        le=1.0,
        description="When every chunk scores below this the action is Incorrect.",
    )
    strip_threshold: float = Field(
        default=STRIP_THRESHOLD,
        ge=0.0,
        le=1.0,
        description="Knowledge refinement keeps strips scoring at or above this.",
    )
    strip_sentences: int = Field(
        default=2,
        ge=1,
        le=5,
        description="Sentences per strip in knowledge refinement and per window the grader scores "
        "(not part of the index: no re-indexing).",
    )
    calibrate: bool = Field(
        default=False,
        description=(
            "Carry the three thresholds over to your library: grade probe questions made from "
            "its own chunks (and from an unrelated text) once per index version and map the "
            "scores onto the scale the thresholds were fitted on (docs/evaluator.md)."
        ),
    )

    @model_validator(mode="after")
    def _thresholds_ordered(self) -> EvaluatorSettings:
        if self.lower_threshold > self.upper_threshold:
            raise ValueError(
                f"lower_threshold ({self.lower_threshold}) must not exceed "
                f"upper_threshold ({self.upper_threshold})"
            )
        return self


class RetrievalSettings(Group):
    top_k: int = Field(
        default=5, ge=1, le=50, description="Chunks kept as evidence per question (best graded)."
    )
    graded_pool: int = Field(
        default=10,
        ge=1,
        le=100,
        description=(
            "Chunks retrieved and graded per question (at least top_k): the top_k best graded"
            " are kept, so a passage the search ranked lower can still answer."
        ),
    )
    retrieval_mode: Literal["hybrid", "vector", "text"] = Field(
        default="hybrid",
        description="Vector, full-text, or both fused with reciprocal-rank fusion.",
    )


class WebSettings(Group):
    web_search: Literal["ask", "always", "never"] = Field(
        default="ask",
        description="Web fallback on Incorrect/Ambiguous: ask before each query, always, or never.",
    )
    offline: bool = Field(
        default=False, description="Guarantee no network access at all (web search is skipped)."
    )
    web_timeout: float = Field(
        default=5.0, gt=0.0, le=5.0, description="Seconds a web search may take (at most 5)."
    )
    web_results: int = Field(default=4, ge=1, le=10, description="Web results kept per search.")
    web_region: str = Field(default="wt-wt", description="DuckDuckGo region code.")


class GenerationSettings(Group):
    """How answers are written."""

    answer_style: AnswerStyle = Field(
        default="auto",
        description=(
            "How answers are written: 'extractive' quotes the evidence sentences that "
            "answer (cited, answer in bold); 'generative' lets the generator write, and "
            "shows only sentences the evidence supports; 'auto' = extractive for models "
            "under ~1B parameters (the bundled one), generative for larger ones. "
            "Env LOCALCRAG_ANSWER_STYLE overrides it."
        ),
    )
    max_answer_tokens: int = Field(
        default=256, ge=16, le=4096, description="Longest answer the generator may write."
    )
    temperature: float = Field(
        default=0.0, ge=0.0, le=2.0, description="Sampling temperature; 0 is deterministic."
    )
    repeat_penalty: float = Field(
        default=1.15,
        ge=1.0,
        le=2.0,
        description="Penalty on repeated tokens; small models loop without it (1.0 = off).",
    )
    n_ctx: int = Field(
        default=2048, ge=256, le=131072, description="Context window given to the generator."
    )
    evidence_tokens: int = Field(
        default=900,
        ge=100,
        le=8000,
        description="Token budget for refined evidence in the answer prompt.",
    )
    threads: int = Field(
        default=0,
        ge=0,
        le=256,
        description=(
            "CPU threads for the models; 0 = auto: all cores, and for each answer only "
            "the cores other programs leave free (measured while the question is "
            "prepared; with one busy program on 2 cores this keeps answers ~2.5x faster)."
        ),
    )


class IndexingSettings(Group):
    chunk_tokens: int = Field(
        default=200,
        ge=32,
        le=512,
        description="Largest chunk in embedder tokens (capped at the embedder's maximum).",
    )
    chunk_overlap: int = Field(
        default=1, ge=0, le=5, description="Sentences repeated between neighbouring chunks."
    )


REMOTE_SCHEMES = ("s3", "s3+ddb", "gs", "az")  # object stores LanceDB opens itself
_SECRET_WORDS = ("secret", "access_key", "session_token", "token", "password", "account_key", "sas")


class StorageSettings(Group):
    """Where the index lives and how long its old versions are kept."""

    index_uri: str | None = Field(
        default=None,
        description=(
            "Where the index lives: not set = the local data dir; 's3://bucket/prefix' = one index shared "
            "by a team on S3 or an S3-compatible store (credentials from the environment, e.g. "
            "AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY; see docs/shared-index.md)."
        ),
    )
    index_storage_options: dict[str, str | bool | int] | None = Field(
        default=None,
        description=(
            'Object-store options for index_uri, e.g. {endpoint = "http://minio:9000", region = '
            '"us-east-1", allow_http = true}; credentials are refused here: use the environment.'
        ),
    )
    index_refresh_seconds: float = Field(
        default=5.0,
        ge=0.0,
        le=3600.0,
        description=(
            "A shared index (index_uri) is checked for other machines' writes at most this often "
            "(0 = before every read)."
        ),
    )
    index_keep_minutes: float = Field(
        default=60.0,
        ge=0.0,
        le=7 * 24 * 60,
        description=(
            "Minutes of old index versions kept after an ingest compacts the index: "
            "what `localcrag doctor --repair` can go back to after a crash or a lost "
            "file (0 keeps only the newest version)."
        ),
    )

    @field_validator("index_uri")
    @classmethod
    def _index_uri(cls, value: str | None) -> str | None:
        """Empty or a local folder (the data dir as before), or ``s3://bucket/prefix``."""
        if value is None or not value.strip():
            return None
        value = value.strip()
        scheme = value.split("://", 1)[0].lower() if "://" in value else ""
        if scheme and scheme not in REMOTE_SCHEMES + ("file",):
            raise ValueError(
                f"unsupported scheme {scheme!r} (use s3://bucket/prefix, gs://, az:// or a folder)"
            )
        if scheme in REMOTE_SCHEMES and not value.split("://", 1)[1].split("/", 1)[0]:
            raise ValueError("no bucket name (write s3://bucket/prefix)")
        return value

    @field_validator("index_storage_options")
    @classmethod
    def _storage_options(cls, value: dict | None) -> dict[str, str] | None:
        """Strings for LanceDB; credentials never come from the settings file."""
        if not value:
            return None
        out: dict[str, str] = {}
        for key, v in value.items():
            if any(w in key.lower() for w in _SECRET_WORDS):
                raise ValueError(
                    f"{key!r} is a credential: set it in the environment (e.g. AWS_ACCESS_KEY_ID, "
                    "AWS_SECRET_ACCESS_KEY), never in the settings file"
                )
            out[str(key)] = str(v).lower() if isinstance(v, bool) else str(v)
        return out


class OcrSettings(Group):
    """How scanned pages and images are read (``ingest/ocr.py``)."""

    ocr: Literal["auto", "always", "never"] = Field(
        default="auto",
        description=(
            "OCR (RapidOCR, on the CPU) for images and PDF pages: 'auto' = pages "
            "without a text layer; 'always' = every PDF page; 'never'."
        ),
    )
    ocr_dpi: int = Field(
        default=96, ge=50, le=400, description="Resolution PDF pages are rendered at for OCR."
    )
    ocr_page_seconds: float = Field(
        default=60.0,
        gt=0.0,
        le=3600.0,
        description="Seconds OCR may take on one page; a slower page is "
        "skipped with a warning line.",
    )


class LimitSettings(Group):
    """Bounds on one file's size, so one hostile or broken file never exhausts memory or
    time; each, when hit, is one line naming the file, the limit and this setting's name."""

    max_file_chars: int = Field(
        default=5_000_000,
        ge=1_000,
        description=(
            "Largest document in characters of text (~1,250 pages; indexing runs at "
            "~50,000 characters/s); a bigger file is skipped with one line."
        ),
    )
    max_pages: int = Field(
        default=5_000,
        ge=1,
        description="Largest PDF or EPUB in pages; a longer one is skipped.",
    )
    max_image_pixels: int = Field(
        default=50_000_000,
        ge=1_000_000,
        description="Largest image (width x height) read for OCR; a bigger one is skipped.",
    )
    max_table_cells: int = Field(
        default=2_000,
        ge=100,
        description=(
            "Largest ruled grid on one PDF page read as a table (rows x columns its lines "
            "draw; reading 40x40 cells takes ~7 s); a larger one is read as plain text, "
            "with one line."
        ),
    )
    max_table_seconds: float = Field(
        default=20.0,
        gt=0.0,
        le=3600.0,
        description=(
            "Seconds the table reader may take on one PDF page; past them the page is "
            "read as plain text, with one line."
        ),
    )
    max_sheet_cells: int = Field(
        default=1_000_000,
        ge=1_000,
        description=(
            "Largest spreadsheet or CSV in cells (rows x widest row, all sheets together; "
            "each cell becomes 'column: value' text to embed); a bigger one is skipped."
        ),
    )
    max_archive_bytes: int = Field(
        default=200_000_000,
        ge=1_000_000,
        description=(
            "Largest total uncompressed size of a zip-based document (EPUB, .docx, "
            ".pptx, .xlsx), checked before it is opened."
        ),
    )
    max_archive_ratio: float = Field(
        default=100.0,
        ge=2.0,
        description=(
            "Largest uncompressed/compressed size ratio of a zip-based document: "
            "a zip bomb inflates far beyond any real document's ~3-10x."
        ),
    )
