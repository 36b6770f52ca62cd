"""Full screens: chat (default), library, settings, help."""
