import pytest
from pydantic import ValidationError

from plumbline.config import DEV_SECRET, Settings


def test_https_public_url_refuses_to_start_without_a_real_secret() -> None:
    with pytest.raises(ValidationError, match="PLUMBLINE_SECRET_KEY"):
        Settings(public_url="https://plumbline.example.com", secret_key=None)
    with pytest.raises(ValidationError, match="PLUMBLINE_SECRET_KEY"):
        Settings(public_url="https://plumbline.example.com", secret_key=DEV_SECRET)
    ok = Settings(public_url="https://plumbline.example.com", secret_key="a-real-secret-value")
    assert ok.secure_cookies is True


def test_secret_is_generated_once_under_the_var_dir(tmp_path) -> None:  # type: ignore[no-untyped-def]
    first = Settings(var_dir=tmp_path, secret_key=None).secret
    second = Settings(var_dir=tmp_path, secret_key=None).secret
    assert first == second and len(first) >= 40
    assert (tmp_path / "secret.key").stat().st_mode & 0o777 == 0o600


def test_trusted_origins_default_to_the_public_url() -> None:
    assert Settings(public_url="http://127.0.0.1:8000/").origins == ["http://127.0.0.1:8000"]
    configured = Settings(trusted_origins="https://a.example, https://b.example/")
    assert configured.origins == ["https://a.example", "https://b.example"]


def test_public_url_defaults_to_the_url_last_served(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def unset() -> None:  # and put back as they were after the test
        for name in ("PLUMBLINE_PUBLIC_URL", "PLUMBLINE_TRUSTED_ORIGINS"):
            monkeypatch.setenv(name, "")
            monkeypatch.delenv(name)

    unset()
    assert Settings(var_dir=tmp_path).public_url == "http://127.0.0.1:8000"
    served = Settings(var_dir=tmp_path)
    assert served.serve_on("0.0.0.0", 8731) == "http://127.0.0.1:8731"  # noqa: S104
    unset()  # what serve_on handed its own worker processes
    later = Settings(var_dir=tmp_path)  # `plumbline demo --new-key`, `plumbline worker`...
    assert later.public_url == "http://127.0.0.1:8731"
    assert later.origins == ["http://127.0.0.1:8731"]
    configured = Settings(var_dir=tmp_path, public_url="https://pl.example", secret_key="s3cret")
    assert configured.public_url == "https://pl.example"


def test_an_empty_setting_counts_as_unset(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`PLUMBLINE_PUBLIC_URL=` (as a copied .env.example leaves it) is not a URL: the default."""
    monkeypatch.setenv("PLUMBLINE_PUBLIC_URL", "")
    settings = Settings(var_dir=tmp_path)
    assert settings.public_url == "http://127.0.0.1:8000"
    assert "public_url" not in settings.model_fields_set
