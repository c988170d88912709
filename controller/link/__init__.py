"""Linked boards: remote play over an MQTT broker (docs/link.md)."""
