"""Routes without a credential: health and the marketing chat."""
