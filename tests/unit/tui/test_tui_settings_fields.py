"""The settings screen shows every setting (model server, shared index, OCR, limits
included), edits each with the widget its type picks, refuses a bad value in one line
naming the field, and saves only the keys that changed."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from textual.widgets import Input, Select

from localcrag.settings import Settings, config_path, field, fields, grouped
from localcrag.tui.screens.settings import HIDDEN, SECTIONS, SettingsScreen, editor
from localcrag.tui.widgets.fields import Choice, Integer, Number, Switch, Table
from tests.support.tui_fakes import SIZE, FakeLibrary, make_app, settle

pytestmark = pytest.mark.anyio
NEW = {
    "llm_endpoint",
    "llm_endpoint_model",
    "llm_endpoint_key_env",
    "llm_endpoint_timeout",
    "index_uri",
    "index_storage_options",
    "index_refresh_seconds",
    "ocr",
    "ocr_dpi",
    "ocr_page_seconds",
    "max_file_chars",
    "max_pages",
    "max_image_pixels",
    "max_archive_bytes",
    "max_archive_ratio",
    "models_dir",
    "grader_model",
    "repeat_penalty",
    "index_keep_minutes",
}


async def _open(app, pilot) -> SettingsScreen:  # noqa: ANN001
    await settle(pilot)
    await pilot.press("ctrl+s")
    await settle(pilot)
    assert isinstance(app.screen, SettingsScreen)
    return app.screen


async def test_every_setting_is_on_the_screen_or_hidden_with_a_reason(
    tmp_path: Path, home: Path
) -> None:
    app, _, _ = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        shown = {w.id.removeprefix("field-") for w in screen.query(".field-row > *:last-child")}
        titles = [str(label.render()) for label in screen.query(".section-title")]
        help_texts = {str(s.render()) for s in screen.query(".field-help")}
    assert all(reason.strip() for reason in HIDDEN.values())
    missing = {f.name for f in fields()} - shown - set(HIDDEN)
    assert not missing, (
        f"neither on the settings screen nor in HIDDEN (with a reason): {sorted(missing)}"
    )
    assert NEW <= shown and not shown & set(HIDDEN)
    assert (
        titles
        == list(SECTIONS)
        == [t for t, group in grouped() if any(f.name not in HIDDEN for f in group)]
    )
    assert {field(n).info.description for n in shown} <= help_texts


def test_each_field_gets_the_editor_its_type_picks() -> None:
    kinds = {
        "offline": Switch,
        "ocr": Choice,
        "generator": Choice,
        "grader": Choice,
        "ocr_dpi": Integer,
        "max_pages": Integer,
        "llm_endpoint_timeout": Number,
        "max_archive_ratio": Number,
        "index_storage_options": Table,
    }
    assert {n: type(editor(n)) for n in kinds} == kinds
    assert type(editor("llm_endpoint")).__name__ == type(editor("models_dir")).__name__ == "Editor"


async def test_new_fields_save_only_what_changed(tmp_path: Path, home: Path) -> None:
    app, pipe, _ = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        screen.query_one("#field-llm_endpoint", Input).value = "http://127.0.0.1:8080/v1/"
        screen.query_one(
            "#field-index_storage_options", Input
        ).value = '{endpoint = "http://127.0.0.1:9000", allow_http = true}'
        screen.query_one("#field-ocr", Select).value = "never"
        screen.query_one("#field-ocr_dpi", Input).value = "150"
        screen.query_one("#field-max_archive_ratio", Input).value = "20"
        await pilot.pause()
        assert screen.dirty() and screen.validate() is not None
        await pilot.press("ctrl+s")
        await settle(pilot)
        saved = tomllib.loads(config_path().read_text(encoding="utf-8"))
        assert saved == {
            "endpoint": {"llm_endpoint": "http://127.0.0.1:8080/v1"},
            "storage": {
                "index_storage_options": {"endpoint": "http://127.0.0.1:9000", "allow_http": "true"}
            },
            "scans": {"ocr": "never", "ocr_dpi": 150},
            "limits": {"max_archive_ratio": 20.0},
        }
        assert (
            app.settings.endpoint.llm_endpoint == "http://127.0.0.1:8080/v1"
            and app.settings.scans.ocr_dpi == 150
        )
        # shown as saved (the table as stored, the URL without its slash): nothing left to save
        assert (
            screen.query_one("#field-index_storage_options", Input).value
            == '{endpoint = "http://127.0.0.1:9000", allow_http = "true"}'
        )
        assert screen.query_one("#field-llm_endpoint", Input).value == "http://127.0.0.1:8080/v1"
        assert not screen.dirty()
        screen.query_one("#field-llm_endpoint", Input).value = ""  # empty = not set: the key goes
        await pilot.pause()
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "endpoint" not in tomllib.loads(config_path().read_text(encoding="utf-8"))
        assert app.settings.endpoint.llm_endpoint is None


@pytest.mark.parametrize(
    ("name", "typed", "why"),
    [
        ("index_uri", "ftp://files/x", "unsupported scheme 'ftp'"),
        ("index_storage_options", "endpoint = minio", "inline TOML table"),
        ("index_storage_options", '{aws_secret_access_key = "x"}', "is a credential"),
        ("llm_endpoint", "gpu-box:8080", "http:// or https:// base URL"),
        ("llm_endpoint_timeout", "0", "greater than 0"),
        ("ocr_dpi", "10", "greater than or equal to 50"),
        ("max_pages", "0", "greater than or equal to 1"),
    ],
)
async def test_a_bad_value_is_one_line_naming_the_field_and_nothing_is_saved(
    tmp_path: Path, home: Path, name: str, typed: str, why: str
) -> None:
    app, _, _ = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        screen.query_one("#field-web_results", Input).value = "6"  # a valid edit rides along
        screen.query_one(f"#field-{name}", Input).value = typed
        await pilot.pause()
        error = screen.query_one(f"#error-{name}")
        assert error.display and why in str(error.render())
        assert screen.query_one(f"#field-{name}").has_class("invalid-field")
        app.clear_notifications()
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not config_path().exists() and app.settings.web.web_results == 4
        notes = [n.message for n in app._notifications]
        assert len(notes) == 1 and "\n" not in notes[0], notes
        assert notes[0].startswith(f"Not saved: {name} = {typed!r}: ") and why in notes[0]
        assert "ctrl+r" in notes[0]


def test_model_server_and_index_location_rebuild_what_uses_them(tmp_path: Path) -> None:
    from localcrag.tui.backend import Backend

    backend = Backend(
        Settings(models_dir=tmp_path),
        pipeline_factory=lambda s, lib: object(),
        library_factory=lambda s: FakeLibrary(),
    )
    backend.pipeline()
    assert backend.apply(Settings(models_dir=tmp_path, llm_endpoint="http://127.0.0.1:9/v1")) == {
        "llm_endpoint"
    }
    assert (
        backend._pipeline is None
        and backend._library is not None
        and backend.needs_warm_up({"llm_endpoint"})
    )
    backend.pipeline()
    assert backend.apply(
        Settings(
            models_dir=tmp_path, llm_endpoint="http://127.0.0.1:9/v1", index_uri="s3://team/index"
        )
    ) == {"index_uri"}
    assert backend._library is None and backend._pipeline is not None
    assert backend.apply(
        Settings(
            models_dir=tmp_path,
            llm_endpoint="http://127.0.0.1:9/v1",
            index_uri="s3://team/index",
            ocr_dpi=150,
        )
    ) == {"ocr_dpi"}
    assert backend._library is None and backend._pipeline is not None  # read when a scan is read


async def test_a_new_models_dir_offers_its_files_once_saved(tmp_path: Path, home: Path) -> None:
    other = tmp_path / "other-models"
    other.mkdir()
    (other / "c.gguf").write_bytes(b"GGUF" + b"\0" * 16)
    app, _, _ = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        generator = screen.query_one("#field-generator", Select)
        assert "c.gguf" not in {str(o[1]) for o in generator._options}
        screen.query_one("#field-models_dir", Input).value = str(other)
        await pilot.pause()
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert tomllib.loads(config_path().read_text(encoding="utf-8")) == {
            "models": {"models_dir": str(other)}
        }
        assert "c.gguf" in {str(o[1]) for o in generator._options}
        assert not screen.dirty()
