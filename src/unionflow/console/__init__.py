"""The web console (docs/console.md): server-rendered French pages over the same services as the API."""
