"""Send, resend, duplicate, revisions, internal comments and the thread with the client."""
