"""Filled in by its own change."""
__all__ = []
