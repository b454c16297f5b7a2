"""Snapshots read as data, never restored: the state browser's reader, index, diff and export."""
