"""Pieces of the bootstrap editor screen."""
