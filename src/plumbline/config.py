"""Settings from the environment (prefix ``PLUMBLINE_``), with embedded defaults under ``./var``."""

from __future__ import annotations

import ipaddress
import os
import secrets
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEV_SECRET = "plumbline-development-secret-do-not-use"  # noqa: S105 - the refused default


ProxyNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
DEFAULT_PUBLIC_URL = "http://127.0.0.1:8000"
SERVED_URL = "served-url"  # in the var dir: the URL `plumbline serve` last bound (serve_on)


def _var_dir() -> Path:
    return Path("./var")


@lru_cache(maxsize=8)
def proxy_networks(text: str) -> tuple[ProxyNetwork, ...]:
    """``PLUMBLINE_TRUSTED_PROXIES``: comma-separated addresses and CIDR networks (an address
    is a network of one); ValueError names an entry that is neither."""
    networks = []
    for entry in (e.strip() for e in text.split(",")):
        if not entry:
            continue
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            raise ValueError(f"not an IP address or network: {entry!r}") from None
    return tuple(networks)


@lru_cache(maxsize=8)
def retry_seconds(text: str) -> tuple[float, ...]:
    """``PLUMBLINE_WEBHOOK_RETRY_SECONDS``: comma-separated waits of 0 s or more; ValueError
    names an entry that is not one."""
    waits = []
    for entry in (e.strip() for e in text.split(",")):
        if not entry:
            continue
        try:
            wait = float(entry)
        except ValueError:
            wait = -1.0
        if not 0 <= wait <= 30 * 86400:
            raise ValueError(f"not a number of seconds: {entry!r}")
        waits.append(wait)
    return tuple(waits)


def _served_url(data: dict[str, object]) -> str:
    """Unless configured, the public URL is the one a server of this var dir last bound, so
    `plumbline demo --new-key`, `plumbline worker` and the digests link to the port served."""
    var_dir = data.get("var_dir")
    record = (var_dir if isinstance(var_dir, Path) else _var_dir()) / SERVED_URL
    try:
        served = record.read_text().strip()
    except OSError:
        return DEFAULT_PUBLIC_URL
    return served or DEFAULT_PUBLIC_URL


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="PLUMBLINE_",
        env_file=".env",
        env_ignore_empty=True,  # `NAME=` (as in a copied .env.example) means unset
        extra="ignore",
        validate_default=True,
    )

    var_dir: Path = Field(default_factory=_var_dir)
    database_url: str = "sqlite+aiosqlite:///./var/plumbline.db"
    db_pool_size: int = Field(10, ge=1, le=1000)
    public_url: str = Field(default_factory=_served_url)
    secret_key: SecretStr | None = None
    # Keys replaced by secret_key, comma-separated: what they signed or encrypted is still
    # accepted (sessions, signed links, stored tokens) while everything new uses secret_key.
    secret_key_previous: SecretStr | None = None
    trusted_origins: str = ""
    # Proxies whose X-Forwarded-For and X-Forwarded-Proto are believed (kit/client_address.py);
    # empty: none, every connection's peer is its client.
    trusted_proxies: str = ""

    storage: Literal["local", "s3"] = "local"
    storage_dir: Path = Path("./var/objects")
    s3_bucket: str = "plumbline"
    s3_endpoint_url: str | None = None
    s3_region: str = "us-east-1"

    smtp_url: str | None = None
    email_from: str = "Plumbline <no-reply@plumbline.local>"
    outbox_dir: Path = Path("./var/outbox")
    # inline: the server runs the jobs its requests queue; worker: `plumbline worker` runs them.
    jobs: Literal["inline", "worker"] = "inline"
    jobs_retention_days: int = Field(7, ge=1, le=3650)
    # Outbound webhooks (docs/integrations.md): targets on loopback, private, link-local and
    # other non-public addresses are refused unless allowed (tests, demos on one machine).
    webhooks_allow_private: bool = False
    # Comma-separated waits in seconds between delivery attempts, replacing the Standard
    # Webhooks schedule (tests); the last one repeats until the 3-day window closes.
    webhook_retry_seconds: str = ""
    # How long the change feed keeps events (a cursor older than that answers 410).
    event_retention_days: int = Field(30, ge=1, le=3650)

    # updatedSince lists leave out the rows changed in this last window: a transaction may
    # still commit rows stamped that long ago (kit/pagination.py, docs/integrations.md).
    sync_settle_seconds: float = Field(10.0, ge=0, le=3600)

    # `plumbline users first` (compose.yaml's first-user): the user made when there is none.
    first_user_email: str | None = None
    first_user_password: SecretStr | None = None
    first_user_name: str = "Administrator"

    redis_url: str | None = None
    pubsub_prefix: str = "plumbline"
    cron_secret: SecretStr | None = None
    billing: Literal["off", "local", "stripe"] = "off"
    stripe_secret_key: SecretStr | None = None
    stripe_webhook_secret: SecretStr | None = None
    stripe_price_team: str | None = None
    stripe_price_pro: str | None = None
    stripe_price_enterprise: str | None = None
    # Where the Stripe SDK sends API requests (tests' local stand-in, a self-hosted proxy).
    stripe_api_base: str | None = None
    require_email_verification: bool = True
    scheduler: Literal["on", "off"] = "off"
    digest_hour: int = Field(6, ge=0, le=23)
    max_upload_bytes: int = 2 * 1024**3

    # Cloud-storage connectors (docs/cloud.md): a provider without a client id answers 503.
    google_client_id: str | None = None
    google_client_secret: SecretStr | None = None
    google_auth_url: str = "https://accounts.google.com/o/oauth2/v2/auth"
    google_token_url: str = "https://oauth2.googleapis.com/token"  # noqa: S105 - a URL
    google_revoke_url: str = "https://oauth2.googleapis.com/revoke"
    google_api_url: str = "https://www.googleapis.com"
    microsoft_client_id: str | None = None
    microsoft_client_secret: SecretStr | None = None
    microsoft_auth_url: str = "https://login.microsoftonline.com/common/oauth2/v2.0/authorize"
    microsoft_token_url: str = "https://login.microsoftonline.com/common/oauth2/v2.0/token"  # noqa: S105 - a URL
    microsoft_api_url: str = "https://graph.microsoft.com/v1.0"
    dropbox_client_id: str | None = None
    dropbox_client_secret: SecretStr | None = None
    dropbox_auth_url: str = "https://www.dropbox.com/oauth2/authorize"
    dropbox_token_url: str = "https://api.dropboxapi.com/oauth2/token"  # noqa: S105 - a URL
    dropbox_api_url: str = "https://api.dropboxapi.com"
    dropbox_content_url: str = "https://content.dropboxapi.com"
    # Single sign-on (docs/sso.md): e-mail domains this server's operator vouches for, verified
    # without a DNS TXT record (self-hosted servers), comma-separated; and the DNS server asked
    # for those records (host or host:port; empty: the system's resolver).
    sso_trusted_domains: str = ""
    sso_dns_server: str = ""
    log_level: str = "INFO"
    rate_limits: bool = True
    telemetry: bool = False
    # Drawing AI: an optional OpenAI-compatible chat-completions endpoint (docs/drawing-ai.md).
    llm_url: str | None = None
    llm_api_key: SecretStr | None = None
    llm_model: str = "gpt-4o-mini"
    llm_timeout_seconds: float = Field(20.0, gt=0, le=600)
    # Each page is read in a worker process within these limits (drawing_ai/sandbox.py).
    drawing_ai_workers: int = Field(2, ge=1, le=64)
    drawing_ai_memory_mb: int = Field(1024, ge=256, le=65536)
    drawing_ai_seconds: float = Field(60.0, gt=0, le=600)

    @field_validator("webhook_retry_seconds")
    @classmethod
    def _retry_seconds(cls, value: str) -> str:
        retry_seconds(value)
        return value

    @field_validator("trusted_proxies")
    @classmethod
    def _proxies(cls, value: str) -> str:
        proxy_networks(value)
        return value

    @model_validator(mode="after")
    def _refuse_dev_secret_on_https(self) -> Settings:
        if self.public_url.startswith("https://") and (
            self.secret_key is None or self.secret_key.get_secret_value() == DEV_SECRET
        ):
            raise ValueError(
                "PLUMBLINE_SECRET_KEY must be set to a real secret "
                "when PLUMBLINE_PUBLIC_URL is https"
            )
        return self

    @cached_property
    def secret(self) -> bytes:
        """The signing secret: configured, or generated once into ``var/secret.key``."""
        if self.secret_key is not None:
            return self.secret_key.get_secret_value().encode()
        path = self.var_dir / "secret.key"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(secrets.token_urlsafe(48))
            path.chmod(0o600)
        return path.read_text().strip().encode()

    @property
    def previous_secrets(self) -> tuple[bytes, ...]:
        """``PLUMBLINE_SECRET_KEY_PREVIOUS``: the keys still accepted for verifying and
        decrypting, newest first as listed."""
        if self.secret_key_previous is None:
            return ()
        keys = self.secret_key_previous.get_secret_value().split(",")
        return tuple(key.strip().encode() for key in keys if key.strip())

    @property
    def proxy_networks(self) -> tuple[ProxyNetwork, ...]:
        return proxy_networks(self.trusted_proxies)

    @property
    def trusted_domains(self) -> set[str]:
        return {d.strip().lower() for d in self.sso_trusted_domains.split(",") if d.strip()}

    @property
    def origins(self) -> list[str]:
        configured = [o.strip().rstrip("/") for o in self.trusted_origins.split(",") if o.strip()]
        return configured or [self.public_url.rstrip("/")]

    def serve_on(self, host: str, port: int) -> str:
        """The URL of a server bound to ``host:port``. Unless ``PLUMBLINE_PUBLIC_URL`` is set, it
        becomes the public URL (links, cookies) and, unless ``PLUMBLINE_TRUSTED_ORIGINS`` is set,
        it and its ``localhost`` twin become the trusted origins; the environment carries both
        to worker processes, and ``var/served-url`` to the other commands (``_served_url``)."""
        name = "127.0.0.1" if host in ("127.0.0.1", "localhost", "0.0.0.0", "", "::") else host  # noqa: S104
        url = f"http://{f'[{name}]' if ':' in name else name}:{port}"
        if "public_url" not in self.model_fields_set:
            self.public_url = os.environ["PLUMBLINE_PUBLIC_URL"] = url
            self.var_dir.mkdir(parents=True, exist_ok=True)
            (self.var_dir / SERVED_URL).write_text(url + "\n")
            if "trusted_origins" not in self.model_fields_set:
                origins = [url, f"http://localhost:{port}"] if name == "127.0.0.1" else [url]
                self.trusted_origins = os.environ["PLUMBLINE_TRUSTED_ORIGINS"] = ",".join(origins)
        return url

    @property
    def secure_cookies(self) -> bool:
        return self.public_url.startswith("https://")


settings = Settings()
