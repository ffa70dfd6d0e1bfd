"""Cloud-storage connectors (Google Drive, OneDrive, Dropbox): connect, browse, import."""
