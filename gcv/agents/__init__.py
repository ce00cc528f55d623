"""Agents propose, code disposes: the two model nodes and their providers."""
