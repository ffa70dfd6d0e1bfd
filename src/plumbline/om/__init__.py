"""Operations and maintenance (PRODUCT §9): assets, maintenance, inspections, the FM dashboard."""
