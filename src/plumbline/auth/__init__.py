"""Who is calling: session user, project API key, public token, cron secret."""
