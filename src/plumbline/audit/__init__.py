"""The audit trail: who did what to which entity, written on every write and read per project."""
