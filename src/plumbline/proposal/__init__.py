"""Proposals (PRODUCT §8): drafts, their lifecycle, the client portal, templates, the letter."""
