"""The workspace's materials catalogue, priced into proposal line items."""
