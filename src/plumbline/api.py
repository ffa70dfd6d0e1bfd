"""The one list of routers."""

from fastapi import APIRouter

from plumbline.public.endpoints import router as public_router

api_router = APIRouter(prefix="/api/v1")
api_router.include_router(public_router)

auth_router = APIRouter(prefix="/api/auth")
payments_router = APIRouter(prefix="/api/payments")
