"""Experiments C and D as code: framings under truncation, byte counts written by models."""
