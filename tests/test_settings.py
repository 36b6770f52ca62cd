from __future__ import annotations

from pathlib import Path

import pytest

from localcrag.errors import LocalcragError
from localcrag.settings import Settings, config_path, data_dir, describe


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


@pytest.mark.parametrize("toml, expected", [
    ('top_k = "five"\n', "top_k = 'five': Input should be a valid integer"),
    ("upper_threshold = 0.3\nlower_threshold = 0.6\n", "lower_threshold (0.6) must not exceed upper_threshold"),
    ("topk = 3\n", "unknown setting 'topk' (did you mean 'top_k'?)"),
])
def test_bad_values_read_as_one_plain_line(toml: str, expected: str) -> None:
    config_path().write_text(toml, encoding="utf-8")
    with pytest.raises(LocalcragError) as err:
        Settings.load()
    msg = str(err.value)
    assert expected in msg and "\n" not in msg and "pydantic" not in msg and "[type=" not in msg


def test_a_name_from_another_version_is_ignored() -> None:
    config_path().write_text('some_future_setting = 1\ntop_k = 7\n', encoding="utf-8")
    assert Settings.load().top_k == 7
