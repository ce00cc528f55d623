"""The durable, bounded verification loop."""
