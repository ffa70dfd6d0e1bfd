"""Inspection templates, runs, their completion and reports."""
