import pytest
from pydantic import TypeAdapter, ValidationError

from plumbline.kit.schema import CalendarDay, EmailAddress

emails = TypeAdapter(EmailAddress)


def test_email_addresses_are_trimmed_and_lower_cased() -> None:
    assert emails.validate_python("  Ada.Admin+site@Example.COM ") == "ada.admin+site@example.com"
    assert emails.validate_python("demo@plumbline.local") == "demo@plumbline.local"


@pytest.mark.parametrize(
    "value", ["no-at-sign", "a@b", "ä@example.com", "a@exämple.com", "a b@c.d", "a@-x.com"]
)
def test_addresses_that_cannot_go_in_a_mail_header_are_refused(value: str) -> None:
    with pytest.raises(ValidationError):
        emails.validate_python(value)


def test_calendar_days_accept_a_date_time_and_keep_its_written_day() -> None:
    days = TypeAdapter(CalendarDay)
    assert days.validate_python("2026-11-21").isoformat() == "2026-11-21"
    assert days.validate_python("2026-11-21T23:30:00-05:00").isoformat() == "2026-11-21"
    with pytest.raises(ValidationError):
        days.validate_python("2026-13-01")
