"""Field reports: daily and weekly site reports, e-mailed as PDFs."""
