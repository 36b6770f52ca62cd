"""Widgets shared by the screens: the CRAG trace, answers, the status bar."""
