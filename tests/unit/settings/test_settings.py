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
    assert (loaded.retrieval.top_k, loaded.web.web_search, loaded.evaluator.upper_threshold) == (
        7,
        "never",
        0.7,
    )


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
    assert Settings.load().retrieval.top_k == 7


def test_a_setting_or_grader_this_version_removed_is_one_warning_not_a_failure(caplog) -> None:
    """A config.toml from before 2026-12-01 names the scorer GGUF and may pick a removed grader."""
    path = config_path()
    path.write_text(
        'scorer = "gemma-3-270m-q4_k_m.gguf"\ngrader = "cross"\ntop_k = 7\n', encoding="utf-8"
    )
    with caplog.at_level("WARNING", logger="localcrag.settings"):
        s = Settings.load()
        Settings.load()  # once per process, not once per load
    assert s.retrieval.top_k == 7 and s.evaluator.grader == Settings().evaluator.grader
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
    s.web.web_search, s.retrieval.top_k = (
        "always",
        9,
    )  # top_k changed in memory, but not among the keys saved
    assert s.save(keys=["web_search"]) == path
    import tomllib

    data = tomllib.loads(path.read_text(encoding="utf-8"))
    assert data == {
        "some_future_setting": "kept",
        "retrieval": {"top_k": 7},  # the flat key of an older file, moved into its table
        "web": {"web_search": "always"},
    }
    assert backup_path(path).read_text(encoding="utf-8") == before


def test_a_file_with_a_bad_value_keeps_it_and_gains_only_the_saved_key() -> None:
    path = config_path()
    path.write_text('top_k = "five"\nthreads = 2\n', encoding="utf-8")
    with pytest.raises(LocalcragError):
        Settings.load()
    s = Settings()  # the app runs on defaults
    s.web.web_search = "never"
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
    assert config_path().read_text(encoding="utf-8").strip() == '[web]\nweb_search = "never"'


def test_every_setting_can_be_overridden_from_the_environment(tmp_path, monkeypatch) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text('top_k = 3\ngrader = "lexical"\n', encoding="utf-8")
    monkeypatch.setenv("LOCALCRAG_TOP_K", "8")  # the flat names from before the groups
    monkeypatch.setenv("LOCALCRAG_OFFLINE", "true")
    monkeypatch.setenv("LOCALCRAG_EVALUATOR__UPPER_THRESHOLD", "0.9")  # and the grouped ones
    monkeypatch.setenv("LOCALCRAG_WEB__WEB_REGION", "de-de")  # a bare word is a string
    s = Settings.load(cfg)
    assert (s.retrieval.top_k, s.web.offline, s.evaluator.upper_threshold, s.web.web_region) == (
        8,
        True,
        0.9,
        "de-de",
    )
    assert s.evaluator.grader == "lexical"  # the file still counts where the environment is silent
    monkeypatch.setenv("LOCALCRAG_TOP_K", "many")
    with pytest.raises(LocalcragError, match="LOCALCRAG_TOP_K='many'"):
        Settings.load(cfg)


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
    from localcrag.settings.values import read_value, toml_value

    text = toml_value(value)
    assert "\n" not in text and read_value(text) == value


# --- groups, names and sources --------------------------------------------------------


def test_groups_come_from_the_model_and_every_name_is_unique() -> None:
    """The order `localcrag config` and the settings screen show is the model's; a flat name
    (top_k, LOCALCRAG_TOP_K) maps to exactly one setting, and no group shares a name with a
    setting (LOCALCRAG_<GROUP> and LOCALCRAG_<FIELD> would collide)."""
    from localcrag.settings import fields, grouped
    from localcrag.settings.sources import groups_of

    names = [f.name for f in fields()]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    assert not set(groups_of(Settings)) & set(names)
    assert [g for g in groups_of(Settings)] == list(dict.fromkeys(f.group for f in fields()))
    titles = [title for title, _ in grouped()]
    assert titles[:4] == [
        "Models",
        "Model server (instead of the local generator)",
        "Retrieval evaluator",
        "Retrieval",
    ]
    for group, info in Settings.model_fields.items():
        assert info.title and len(info.description or "") > 10, group
    assert names[0] == "generator" and names[-1] == "max_archive_ratio"


def test_a_flat_file_from_before_the_groups_loads_and_is_saved_grouped() -> None:
    path = config_path()
    path.write_text('top_k = 8\nweb_search = "never"\nocr_dpi = 150\n', encoding="utf-8")
    s = Settings.load()
    assert (s.retrieval.top_k, s.web.web_search, s.scans.ocr_dpi) == (8, "never", 150)
    s.generation.temperature = 0.5
    s.save(keys=["temperature"])
    import tomllib

    data = tomllib.loads(path.read_text(encoding="utf-8"))
    assert data == {
        "web": {"web_search": "never"},
        "retrieval": {"top_k": 8},
        "generation": {"temperature": 0.5},
        "scans": {"ocr_dpi": 150},
    }
    assert list(data) == ["retrieval", "web", "generation", "scans"]  # the model's order
    loaded = Settings.load()
    assert (loaded.retrieval.top_k, loaded.generation.temperature) == (8, 0.5)


def test_a_grouped_name_beats_the_flat_one_and_the_environment_beats_the_file(
    monkeypatch,
) -> None:
    config_path().write_text("top_k = 2\n[retrieval]\ntop_k = 3\n", encoding="utf-8")
    assert Settings.load().retrieval.top_k == 3  # in one file: the table wins
    monkeypatch.setenv("LOCALCRAG_TOP_K", "8")
    assert Settings.load().retrieval.top_k == 8
    monkeypatch.setenv("LOCALCRAG_RETRIEVAL__TOP_K", "9")
    assert Settings.load().retrieval.top_k == 9  # both set: the grouped variable wins
    monkeypatch.setenv("LOCALCRAG_RETRIEVAL__TOP_K", "")
    assert Settings.load().retrieval.top_k == 8  # an empty variable counts as unset
    assert Settings().retrieval.top_k == 5  # Settings() reads nothing: the defaults
    assert Settings(top_k=4).retrieval.top_k == 4


def test_a_bad_grouped_variable_or_table_entry_is_one_line_naming_it(monkeypatch) -> None:
    monkeypatch.setenv("LOCALCRAG_SCANS__OCR", "sometimes")
    with pytest.raises(LocalcragError) as err:
        Settings.load()
    assert "LOCALCRAG_SCANS__OCR='sometimes'" in str(err.value)
    assert "scans.ocr" in str(err.value) and "unset the variable" in str(err.value)
    monkeypatch.delenv("LOCALCRAG_SCANS__OCR")
    for toml, expected in [
        ("[retrieval]\ntopk = 3\n", "unknown setting 'retrieval.topk' (did you mean"),
        ("[web]\ntop_k = 3\n", "top_k belongs in [retrieval], not [web]"),
        ("[evaluator]\nupper_threshold = 0.3\nlower_threshold = 0.6\n", "must not exceed"),
    ]:
        config_path().write_text(toml, encoding="utf-8")
        with pytest.raises(LocalcragError) as err:
            Settings.load()
        msg = str(err.value)
        assert expected in msg and "config.toml" in msg and "\n" not in msg, msg


def test_a_dict_setting_reads_from_either_variable(monkeypatch) -> None:
    monkeypatch.setenv("LOCALCRAG_INDEX_STORAGE_OPTIONS", '{region = "eu-west-1"}')
    assert Settings.load().storage.index_storage_options == {"region": "eu-west-1"}
    monkeypatch.setenv("LOCALCRAG_STORAGE__INDEX_STORAGE_OPTIONS", '{"region": "us-east-1"}')
    assert Settings.load().storage.index_storage_options == {"region": "us-east-1"}


def test_merged_is_a_validated_copy() -> None:
    s = Settings()
    t = s.merged({"top_k": 9, "web": {"offline": True}})
    assert (t.retrieval.top_k, t.web.offline, s.retrieval.top_k, s.web.offline) == (
        9,
        True,
        5,
        False,
    )
    with pytest.raises(ValueError):
        s.merged({"top_k": 0})


def test_the_thresholds_have_one_source_the_shipped_grader_fit() -> None:
    """Defaults come from grader_fusion.json; the reader's sidecar was rescaled onto the same
    cut points: if one changes without the other, this fails."""
    import json
    from importlib import resources

    from localcrag.crag.graders.base import load_params

    fusion = json.loads(
        resources.files("localcrag").joinpath("data", "grader_fusion.json").read_text()
    )["thresholds"]
    reader = json.loads(
        resources.files("localcrag").joinpath("data", "reader_int8.json").read_text()
    )["thresholds"]
    e = Settings().evaluator
    assert (e.upper_threshold, e.lower_threshold, e.strip_threshold) == (
        fusion["upper"],
        fusion["lower"],
        fusion["strip"],
    )
    assert (reader["upper_threshold"], reader["lower_threshold"]) == (
        fusion["upper"],
        fusion["lower"],
    )
    assert load_params()["thresholds"] == fusion  # the CRAG layer reads the same loader


def test_a_whole_group_variable_reads_as_json_and_a_bad_one_is_one_line(monkeypatch) -> None:
    monkeypatch.setenv("LOCALCRAG_RETRIEVAL", '{"top_k": 7}')
    assert Settings.load().retrieval.top_k == 7
    for value, expected in [("{bad", "error parsing value"), ("5", "LOCALCRAG_RETRIEVAL='5'")]:
        monkeypatch.setenv("LOCALCRAG_RETRIEVAL", value)
        with pytest.raises(LocalcragError) as err:
            Settings.load()
        msg = str(err.value)
        assert expected in msg and "environment" in msg and "\n" not in msg, msg
