"""The Textual desktop app. The only package allowed to import textual."""
