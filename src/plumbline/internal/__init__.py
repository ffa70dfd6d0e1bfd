"""Internal automation routes (``/internal/*``), authenticated with the cron secret."""
