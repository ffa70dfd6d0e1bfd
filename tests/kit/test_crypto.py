from plumbline.kit import crypto


def test_signed_values_round_trip_and_forgeries_are_refused() -> None:
    token = crypto.signed("abc", "session")
    assert crypto.unsign(token, "session") == "abc"
    assert crypto.unsign(token, "other-purpose") is None
    assert crypto.unsign("abc.forged", "session") is None
    assert crypto.unsign("abc.ümlaut-signature", "session") is None
    assert crypto.unsign("no-dot", "session") is None
