"""Folders, files and versions, the four-step upload, record attachments and branding."""
