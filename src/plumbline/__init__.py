"""Plumbline: project coordination and operations for construction and facilities teams."""

__version__ = "1.0.0"
