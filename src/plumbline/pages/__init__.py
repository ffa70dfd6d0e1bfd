"""Pages for the people our e-mails reach: the proposal, occupant and account pages."""

from fastapi import APIRouter

from plumbline.pages import account, account_links, occupant, proposal
from plumbline.pages.kit import static_router

# Each is mounted on the app itself (api.ROUTERS), as every router is.
routers: tuple[APIRouter, ...] = (
    static_router,
    proposal.router,
    occupant.router,
    account.router,
    account_links.router,
)
