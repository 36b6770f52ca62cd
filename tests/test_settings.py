from __future__ import annotations

from pathlib import Path

import pytest

from localcrag.errors import LocalcragError
from localcrag.settings import Settings, backup_path, config_path, data_dir, describe


def test_home_roots_every_path(isolated_home: Path) -> None:
    s = Settings()
    assert config_path() == isolated_home / "config.toml"
    assert data_dir() == isolated_home
    for p in (s.index_dir, s.history_dir, s.cache_dir):
        assert p.is_relative_to(isolated_home)


def test_every_field_is_described() -> None:
    for name, desc, _ in describe():
        assert len(desc) > 10, f"setting {name} has no description"


def test_save_and_load_round_trip() -> None:
    s = Settings(top_k=7, web_search="never", upper_threshold=0.7)
    path = s.save()
    assert path.exists()
    loaded = Settings.load()
    assert (loaded.top_k, loaded.web_search, loaded.upper_threshold) == (7, "never", 0.7)


def test_bad_toml_is_one_line_error_naming_the_file() -> None:
    config_path().write_text("top_k = [oops", encoding="utf-8")
    with pytest.raises(LocalcragError) as err:
        Settings.load()
    msg = str(err.value)
    assert "config.toml" in msg and "\n" not in msg


def test_invalid_value_is_rejected() -> None:
    config_path().write_text('web_search = "sometimes"\n', encoding="utf-8")
    with pytest.raises(LocalcragError, match="invalid settings"):
        Settings.load()


@pytest.mark.parametrize(
    "toml, expected",
    [
        ('top_k = "five"\n', "top_k = 'five': Input should be a valid integer"),
        (
            "upper_threshold = 0.3\nlower_threshold = 0.6\n",
            "lower_threshold (0.6) must not exceed upper_threshold",
        ),
        ("topk = 3\n", "unknown setting 'topk' (did you mean 'top_k'?)"),
    ],
)
def test_bad_values_read_as_one_plain_line(toml: str, expected: str) -> None:
    config_path().write_text(toml, encoding="utf-8")
    with pytest.raises(LocalcragError) as err:
        Settings.load()
    msg = str(err.value)
    assert expected in msg and "\n" not in msg and "pydantic" not in msg and "[type=" not in msg


def test_a_name_from_another_version_is_ignored() -> None:
    config_path().write_text("some_future_setting = 1\ntop_k = 7\n", encoding="utf-8")
    assert Settings.load().top_k == 7


def test_a_setting_or_grader_this_version_removed_is_one_warning_not_a_failure(caplog) -> None:
    """A config.toml from before 2026-12-01 names the scorer GGUF and may pick a removed grader."""
    path = config_path()
    path.write_text(
        'scorer = "gemma-3-270m-q4_k_m.gguf"\ngrader = "cross"\ntop_k = 7\n', encoding="utf-8"
    )
    with caplog.at_level("WARNING", logger="localcrag.settings"):
        s = Settings.load()
        Settings.load()  # once per process, not once per load
    assert s.top_k == 7 and s.grader == Settings().grader
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and "\n" not in lines[0], lines
    assert (
        str(path) in lines[0]
        and "'scorer' is no longer a setting" in lines[0]
        and "grader = 'cross' was removed on 2026-12-01" in lines[0]
    )
    s.save(keys=["top_k"])  # the next save drops what this version no longer reads
    text = path.read_text(encoding="utf-8")
    assert "scorer" not in text and "cross" not in text and "top_k = 7" in text


# --- saving never destroys the user's file ---------------------------------------------


def test_save_writes_only_the_given_keys_and_keeps_a_backup() -> None:
    path = config_path()
    before = '# my notes\ntop_k = 7\nsome_future_setting = "kept"\nweb_search = "ask"\n'
    path.write_text(before, encoding="utf-8")
    s = Settings.load()
    s.web_search, s.top_k = "always", 9  # top_k changed in memory, but not among the keys saved
    assert s.save(keys=["web_search"]) == path
    import tomllib

    data = tomllib.loads(path.read_text(encoding="utf-8"))
    assert data == {"top_k": 7, "some_future_setting": "kept", "web_search": "always"}
    assert backup_path(path).read_text(encoding="utf-8") == before


def test_a_file_with_a_bad_value_keeps_it_and_gains_only_the_saved_key() -> None:
    path = config_path()
    path.write_text('top_k = "five"\nthreads = 2\n', encoding="utf-8")
    with pytest.raises(LocalcragError):
        Settings.load()
    s = Settings()  # the app runs on defaults
    s.web_search = "never"
    s.save(keys=["web_search"])
    text = path.read_text(encoding="utf-8")
    assert 'top_k = "five"' in text and "threads = 2" in text and 'web_search = "never"' in text
    assert "upper_threshold" not in text  # no defaults written over the user's file


def test_a_file_that_is_not_toml_is_never_overwritten() -> None:
    path = config_path()
    path.write_text("top_k = [oops\nweb_search = 'ask'\n", encoding="utf-8")
    s = Settings(web_search="always")
    with pytest.raises(LocalcragError) as err:
        s.save(keys=["web_search"])
    msg = str(err.value)
    assert str(path) in msg and "not saved" in msg and "fix it" in msg and "\n" not in msg
    assert path.read_text(encoding="utf-8") == "top_k = [oops\nweb_search = 'ask'\n"
    assert not backup_path(path).exists()


def test_a_first_save_writes_only_what_changed() -> None:
    Settings(web_search="never").save(keys=["web_search"])
    assert config_path().read_text(encoding="utf-8").strip() == 'web_search = "never"'


def test_every_setting_can_be_overridden_from_the_environment(tmp_path, monkeypatch) -> None:
    from localcrag.settings_io import env_name

    cfg = tmp_path / "config.toml"
    cfg.write_text('top_k = 3\ngrader = "lexical"\n', encoding="utf-8")
    monkeypatch.setenv(env_name("top_k"), "8")
    monkeypatch.setenv(env_name("offline"), "true")
    monkeypatch.setenv(env_name("upper_threshold"), "0.9")
    monkeypatch.setenv(env_name("web_region"), "de-de")  # a bare word is a string
    s = Settings.load(cfg)
    assert (s.top_k, s.offline, s.upper_threshold, s.web_region) == (8, True, 0.9, "de-de")
    assert s.grader == "lexical"  # the file still counts where the environment is silent
    monkeypatch.setenv(env_name("top_k"), "many")
    with pytest.raises(LocalcragError, match="LOCALCRAG_TOP_K='many'"):
        Settings.load(cfg)


def test_every_setting_is_in_exactly_one_declared_group() -> None:
    """The groups `localcrag config` and the settings screen read: a new field of Settings
    that no group names fails here (and would show under "Other", never vanish)."""
    from localcrag.settings_groups import GROUPS, OTHER, grouped

    named = [n for names in GROUPS.values() for n in names]
    assert len(named) == len(set(named)), sorted(n for n in named if named.count(n) > 1)
    assert set(named) == set(Settings.model_fields), set(Settings.model_fields) ^ set(named)
    assert OTHER not in grouped(Settings.model_fields)
    assert grouped(["top_k", "new_one", "ocr"]) == {
        "Retrieval": ["top_k"],
        "OCR (scanned pages and images)": ["ocr"],
        OTHER: ["new_one"],
    }


@pytest.mark.parametrize(
    "value",
    [
        "s",
        3,
        0.5,
        True,
        {"endpoint": "http://minio:9000", "allow_http": "true"},
        {"odd key": "x"},
        "/a/b",
    ],
)
def test_toml_value_is_one_line_that_reads_back(value: object) -> None:
    from localcrag.settings_io import read_value, toml_value

    text = toml_value(value)
    assert "\n" not in text and read_value(text) == value
