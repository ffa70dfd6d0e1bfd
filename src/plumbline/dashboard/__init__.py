"""The project dashboard, built from named sections."""
