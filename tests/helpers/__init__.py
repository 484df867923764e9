"""Helpers shared by several test modules (a test module imports from here, never from
another test module)."""
