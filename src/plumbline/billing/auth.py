"""The payments routes' switch: 404 everywhere while billing is off."""

from fastapi import Depends

from plumbline.billing.errors import BillingOff
from plumbline.config import settings


async def billing_on() -> None:
    """With ``PLUMBLINE_BILLING=off`` (the self-hosted default) every payments route answers 503
    ``BILLING_DISABLED``, saying how to turn billing on."""
    if settings.billing == "off":
        raise BillingOff()


BillingOn = Depends(billing_on)
