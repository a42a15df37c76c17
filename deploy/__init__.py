"""The production recipe: Caddy in front of N app servers on one class database (docs/deploying.md)."""
