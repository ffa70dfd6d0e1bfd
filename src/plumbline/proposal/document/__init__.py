"""The proposal as a document: its letter (variables filled in) and its PDF."""
